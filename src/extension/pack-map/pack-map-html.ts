// The Pack Map's page, without vscode: the panel loads it (pack-map-panel.ts) and the webview tests
// (test/webview/pack-map.mjs) load the very same one.
import type { PanelPage } from '../webview-panel.ts';

/** The Cache Lab's stylesheet (the shared look: buttons, selects), then this panel's. */
export const PACK_MAP_PAGE: PanelPage = {
  title: 'Pack Map',
  rootId: 'pack-map',
  loadingText: 'Loading the pack map…',
  script: 'pack-map.js',
  styles: [
    ['media', 'cache-lab', 'cache-lab.css'],
    ['media', 'pack-map', 'pack-map.css'],
  ],
};
