// The Repack Preview's page, without vscode: the panel loads it (repack-preview-panel.ts) and the
// webview tests (test/webview/tables-links.mjs) load the very same one.
import type { PanelPage } from '../webview-panel.ts';

/** The Cache Lab's stylesheet (the shared look: tables, buttons, charts), then this panel's. */
export const REPACK_PREVIEW_PAGE: PanelPage = {
  title: 'Repack Preview',
  rootId: 'repack-preview',
  loadingText: 'Loading the repack preview…',
  script: 'repack-preview.js',
  styles: [
    ['media', 'cache-lab', 'cache-lab.css'],
    ['media', 'repack-preview', 'repack-preview.css'],
  ],
};
