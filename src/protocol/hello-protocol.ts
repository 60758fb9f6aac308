/** The messages between the Hello panel's webview (media/hello/) and its host (src/extension/hello/). */
export const HELLO_PROTOCOL_VERSION = 1;

export type HostToWebview = { type: 'greet'; version: number; text: string };
export type WebviewToHost = { type: 'ready'; version: number };
export interface HelloReplies {
  ready: 'greet';
}

export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as { type?: unknown; version?: unknown };
  return message.type === 'ready' && typeof message.version === 'number';
}
