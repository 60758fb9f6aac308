// The table of PackScope's webview panels: everything a panel is known by outside its own folder.
// The host loads each page from it (webview-panel.ts) and registers its serializer under its view
// type (panel-registry.ts); scripts/build.mjs bundles each `entry` into dist/webview/<script>; the
// layout test lets media/ and src/presentation/ import each `protocol`; a test checks package.json's
// `onWebviewPanel:` activation events against the view types. Pure (no vscode import): the build and
// the webview tests load it.
import type { WebviewPage } from './webview-html.ts';

export interface WebviewPanelDefinition extends WebviewPage {
  /** The WebviewPanel's viewType, also its serializer's (`onWebviewPanel:<viewType>` in package.json). */
  viewType: string;
  /** The webview's front end, bundled by scripts/build.mjs. */
  entry: string;
  /** The bundle in dist/webview/ the page loads. */
  script: string;
  /** Stylesheets, each as path segments under the extension's folder, in the order they apply. */
  styles: readonly (readonly string[])[];
  /** The one message protocol between the panel's host and its webview (imported by both sides). */
  protocol: string;
}

/** The Cache Lab's stylesheet is the shared look (tables, buttons, selects, charts): the other panels load it first. */
const SHARED_STYLE = ['media', 'cache-lab', 'cache-lab.css'];

export const WEBVIEW_PANELS = {
  cacheLab: {
    viewType: 'packscope.cacheLab',
    title: 'Cache Lab',
    rootId: 'cache-lab',
    loadingText: 'Loading the Cache Lab…',
    entry: 'media/cache-lab/main.ts',
    script: 'cache-lab.js',
    styles: [SHARED_STYLE],
    protocol: 'src/protocol/cache-lab-protocol.ts',
  },
  repackPreview: {
    viewType: 'packscope.repackPreview',
    title: 'Repack Preview',
    rootId: 'repack-preview',
    loadingText: 'Loading the repack preview…',
    entry: 'media/repack-preview/main.ts',
    script: 'repack-preview.js',
    styles: [SHARED_STYLE, ['media', 'repack-preview', 'repack-preview.css']],
    protocol: 'src/protocol/repack-preview-protocol.ts',
  },
  packMap: {
    viewType: 'packscope.packMap',
    title: 'Pack Map',
    rootId: 'pack-map',
    loadingText: 'Loading the pack map…',
    entry: 'media/pack-map/main.ts',
    script: 'pack-map.js',
    styles: [SHARED_STYLE, ['media', 'pack-map', 'pack-map.css']],
    protocol: 'src/protocol/pack-map-protocol.ts',
  },
  bytesTreemap: {
    viewType: 'packscope.bytesTreemap',
    title: 'Where the Bytes Go',
    rootId: 'bytes-treemap',
    loadingText: 'Reading where the bytes of the history go…',
    entry: 'media/bytes-treemap/main.ts',
    script: 'bytes-treemap.js',
    styles: [SHARED_STYLE, ['media', 'bytes-treemap', 'bytes-treemap.css']],
    protocol: 'src/protocol/bytes-treemap-protocol.ts',
  },
} as const satisfies Record<string, WebviewPanelDefinition>;

export type WebviewPanelName = keyof typeof WEBVIEW_PANELS;
