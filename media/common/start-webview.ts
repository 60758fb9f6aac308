// The start of every PackScope webview: VS Code's webview API (acquired once: a second call
// throws), the state VS Code keeps across reloads, and the page's end of the message protocol
// (src/common/message-handler.ts) wired to the window's `message` events.
import { MessageHandler, type ReplyTypes } from '../../src/common/message-handler.ts';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface Message {
  type: string;
}

export interface WebviewConnection<Out extends Message, In extends Message, Replies extends ReplyTypes<Out, In>> {
  /** Requests to the host (`host.request`) settle with its answer. */
  host: MessageHandler<Out, In, Replies>;
  /** A message to the host that asks for no answer. */
  post(message: Out): void;
  /** What the page last saved (undefined on a first load), for the page's state normaliser. */
  savedState: unknown;
  /** Kept by VS Code while the panel lives and handed to the serializer after a reload. */
  saveState(state: unknown): void;
}

/**
 * `onMessage` receives the host's messages that answer no request of this page (notifications, and
 * answers to a page since reloaded). Anything posted to the window that is not a message (no string
 * `type`) is ignored.
 */
export function startWebview<Out extends Message, In extends Message, Replies extends ReplyTypes<Out, In>>(
  onMessage: (message: In) => void,
): WebviewConnection<Out, In, Replies> {
  const vscode = acquireVsCodeApi();
  const host = new MessageHandler<Out, In, Replies>({
    post: (message) => vscode.postMessage(message),
    handle: (message) => {
      onMessage(message);
      return undefined;
    },
    failed: (_message, error) => console.error(error),
  });
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    const data = event.data;
    if (typeof data !== 'object' || data === null || typeof (data as { type?: unknown }).type !== 'string') return;
    void host.receive(data as In);
  });
  return {
    host,
    post: (message) => host.notify(message),
    savedState: vscode.getState(),
    saveState: (state) => vscode.setState(state),
  };
}
