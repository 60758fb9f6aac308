// The Hello webview: draws the host's greeting.
import {
  HELLO_PROTOCOL_VERSION,
  type HelloReplies,
  type HostToWebview,
  type WebviewToHost,
} from '../../src/protocol/hello-protocol.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { startWebview } from '../common/start-webview.ts';

const root = document.getElementById('hello')!;
const { host } = startWebview<WebviewToHost, HostToWebview, HelloReplies>((message) => greet(message));

function greet(message: HostToWebview): void {
  replaceChildren(root, h('p', {}, message.text));
  root.removeAttribute('aria-busy');
}

void host.request({ type: 'ready', version: HELLO_PROTOCOL_VERSION }).then(greet);
