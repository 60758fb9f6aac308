// Loads one of PackScope's webview pages into a panel: scripts on, resources only from media/ and
// dist/webview/, the extension's icon, and the shell of webview-html.ts with a fresh nonce.
import vscode = require('vscode');
import { makeNonce, webviewHtml, type WebviewPage } from './webview-html.ts';

export interface PanelPage extends WebviewPage {
  /** The bundle in dist/webview/. */
  script: string;
  /** Stylesheets, each as path segments under the extension's folder. */
  styles: string[][];
}

/** Call after the panel listens to its webview's messages: the page posts `ready` as soon as it runs. */
export function loadPanelPage(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, page: PanelPage): void {
  const webview = panel.webview;
  webview.options = {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media'), vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
  };
  panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'packscope.svg');
  const resource = (...parts: string[]): string => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...parts)).toString();
  webview.html = webviewHtml(page, {
    cspSource: webview.cspSource,
    nonce: makeNonce(),
    scriptUri: resource('dist', 'webview', page.script),
    styleUris: page.styles.map((parts) => resource(...parts)),
  });
}
