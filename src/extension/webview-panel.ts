// What every webview panel is on the host's side: the page loaded into the panel (its row of
// webview-panels.ts; scripts on, resources only from media/ and dist/webview/, the extension's icon,
// the shell of webview-html.ts with a fresh nonce) and the panel's ownership of its messages and listeners.
import vscode = require('vscode');
import { errorMessage } from '../common/error-message.ts';
import { MessageHandler } from '../common/message-handler.ts';
import { Disposable } from './dispose.ts';
import { makeNonce, webviewHtml } from './webview-html.ts';
import type { WebviewPanelDefinition } from './webview-panels.ts';

/** Called once the panel listens to its webview's messages: the page posts `ready` as soon as it runs. */
function loadPanelPage(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, page: WebviewPanelDefinition): void {
  const webview = panel.webview;
  webview.options = {
    enableScripts: true,
    localResourceRoots: [
      vscode.Uri.joinPath(extensionUri, 'media'),
      vscode.Uri.joinPath(extensionUri, 'dist', 'webview'),
    ],
  };
  panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'packscope.svg');
  const resource = (...parts: string[]): string =>
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...parts)).toString();
  webview.html = webviewHtml(page, {
    cspSource: webview.cspSource,
    nonce: makeNonce(),
    scriptUri: resource('dist', 'webview', page.script),
    styleUris: page.styles.map((parts) => resource(...parts)),
  });
}

interface Message {
  type: string;
}

/** How many delivered messages a panel keeps for the tests to read. */
const MAX_POSTED = 500;

export interface PanelHostOptions<In> {
  extensionUri: vscode.Uri;
  page: WebviewPanelDefinition;
  output: vscode.LogOutputChannel;
  /** How the log names the panel: `Cache Lab: run failed: …`. */
  logName: string;
  /** The webview's messages this panel accepts (anything else is dropped). */
  accepts(value: unknown): value is In;
}

/**
 * The host side of one webview panel: owns the panel (closed last), its message handler and its
 * listeners, and fires `onDidDispose` before they go. Subclasses answer the webview in `onMessage`
 * and deliver messages in `send`.
 */
export abstract class PanelHost<Out extends Message, In extends Message> extends Disposable {
  protected readonly messages: MessageHandler<Out, In>;
  private readonly disposeEmitter: vscode.EventEmitter<void>;
  readonly onDidDispose: vscode.Event<void>;
  /** Set by the subclass when the page posts `ready`: nothing is delivered before (the page would miss it). */
  protected ready = false;
  private readonly postedEmitter: vscode.EventEmitter<Out>;
  /** Every message delivered to the webview, oldest first, the last MAX_POSTED (the extension tests read it). */
  readonly posted: Out[] = [];
  readonly onDidPost: vscode.Event<Out>;

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly options: PanelHostOptions<In>,
  ) {
    super();
    this._register(panel);
    this.disposeEmitter = this._register(new vscode.EventEmitter<void>());
    this.onDidDispose = this.disposeEmitter.event;
    this.postedEmitter = this._register(new vscode.EventEmitter<Out>());
    this.onDidPost = this.postedEmitter.event;
    this.messages = this._register(
      new MessageHandler<Out, In>({
        post: (message) => this.send(message),
        handle: (message) => this.onMessage(message),
        failed: (message, error) =>
          options.output.error(`${options.logName}: ${message.type} failed: ${errorMessage(error)}`),
      }),
    );
    this._register(
      panel.webview.onDidReceiveMessage((message: unknown) => {
        if (options.accepts(message)) void this.messages.receive(message);
      }),
    );
    this._register(panel.onDidDispose(() => this.dispose()));
    loadPanelPage(panel, options.extensionUri, options.page);
  }

  /**
   * The page posted `ready` with its protocol version: from now on messages are delivered. A page
   * of another version (an old webview restored after an update) is still served, and the log says so.
   */
  protected pageReady(pageVersion: number, hostVersion: number): void {
    this.ready = true;
    if (pageVersion !== hostVersion)
      this.options.output.warn(
        `${this.options.logName} webview speaks protocol ${pageVersion}, the host ${hostVersion}.`,
      );
  }

  /** A message from the webview; what it returns answers the webview's request. */
  protected abstract onMessage(message: In): Promise<Out | undefined>;

  /** Delivers a message to the webview (or keeps it until the webview is ready). */
  protected abstract send(message: Out): void;

  /** Posts to the webview once it is ready; before that the message is dropped (the subclass sends again on `ready`). */
  protected deliver(message: Out): void {
    if (!this.ready || this.isDisposed) return;
    this.posted.push(message);
    if (this.posted.length > MAX_POSTED) this.posted.splice(0, this.posted.length - MAX_POSTED);
    void this.panel.webview.postMessage(message);
    this.postedEmitter.fire(message);
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.disposeEmitter.fire();
    super.dispose();
  }
}
