// The Cache Lab's page: the shared webview shell (../webview-html.ts) with the Cache Lab's script,
// stylesheet and root. Pure (no vscode import): test/webview/run.mjs builds the same page.
import { webviewHtml, type WebviewPage } from '../webview-html.ts';

export const CACHE_LAB_PAGE: WebviewPage = {
  title: 'Cache Lab',
  rootId: 'cache-lab',
  loadingText: 'Loading the Cache Lab…',
};

export const CACHE_LAB_SCRIPT = 'cache-lab.js';
export const CACHE_LAB_STYLES = [['media', 'cache-lab', 'cache-lab.css']];

export function cacheLabHtml(options: {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}): string {
  return webviewHtml(CACHE_LAB_PAGE, {
    cspSource: options.cspSource,
    nonce: options.nonce,
    scriptUri: options.scriptUri,
    styleUris: [options.styleUri],
  });
}
