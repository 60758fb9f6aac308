import type vscode = require('vscode');
import {
  HELLO_PROTOCOL_VERSION,
  isWebviewToHost,
  type HostToWebview,
  type WebviewToHost,
} from '../../protocol/hello-protocol.ts';
import { PanelHost } from '../webview-panel.ts';
import { WEBVIEW_PANELS } from '../webview-panels.ts';

/** One Hello panel: answers the page's `ready` with the greeting. */
export class HelloPanel extends PanelHost<HostToWebview, WebviewToHost> {
  constructor(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, output: vscode.LogOutputChannel) {
    super(panel, { extensionUri, page: WEBVIEW_PANELS.hello, output, logName: 'Hello', accepts: isWebviewToHost });
  }

  protected send(message: HostToWebview): void {
    this.deliver(message);
  }

  protected async onMessage(message: WebviewToHost): Promise<HostToWebview | undefined> {
    this.ready = true;
    return { type: 'greet', version: message.version, text: `Hello from protocol ${HELLO_PROTOCOL_VERSION}.` };
  }
}
