/**
 * The message protocol between the "Where the bytes go" treemap webview (media/bytes-treemap/) and
 * its host (src/extension/bytes-treemap/). The host asks the server for the repository's sizes
 * (packscope/sizes, the walk the Packs view's rows made when there is one) and sends the
 * directories and paths; the webview lays them out (src/common/squarify.ts) and asks the host for
 * a path's blobs (packscope/pathBlobs). The handshake: the webview posts `ready` with its protocol
 * version, the host answers `show` (or `failed`). No vscode, no LSP libraries.
 */
import type { PathBlob, SizesRow } from './server-protocol.ts';
import { isObjectId } from './repack-preview-protocol.ts';

export const BYTES_TREEMAP_PROTOCOL_VERSION = 1;

/** Paths sent to the page at most (the largest): the rest of a directory's bytes are drawn as one cell. */
export const MAX_TREEMAP_PATHS = 200_000;

/** Blobs of one path listed in the panel at most; the rest are counted. */
export const TREEMAP_BLOBS = 100;

/** What the page keeps with setState, and the serializer hands back after a reload. */
export interface BytesTreemapState {
  version: typeof BYTES_TREEMAP_PROTOCOL_VERSION;
  /** The repository's id (its common git directory); null in a state of no use. */
  repository: string | null;
  /** The directory shown (`""`: the top level). */
  directory: string;
  /** The path whose blobs are listed, if any. */
  blobsOf: string | null;
}

export interface BytesTreemapData {
  repositoryId: string;
  repositoryName: string;
  /** Every directory (the top level's `""` included), as the sizes document sorts them. */
  directories: SizesRow[];
  /** The largest paths, at most MAX_TREEMAP_PATHS; `omittedPaths` says how many more the history has. */
  paths: SizesRow[];
  omittedPaths: number;
  commits: number;
}

export type HostToWebview =
  | { type: 'show'; version: number; data: BytesTreemapData }
  | { type: 'failed'; message: string }
  | { type: 'blobs'; path: string; total: number; blobs: PathBlob[] }
  | { type: 'blobsFailed'; path: string; message: string };

export type WebviewToHost =
  /** A request: the host answers `show` once it has the sizes, or `failed`. */
  | { type: 'ready'; version: number }
  /** A request: the blobs that were at a path (the host answers `blobs` or `blobsFailed`). */
  | { type: 'pathBlobs'; path: string }
  /** A blob was clicked: the host opens its object document (packscope.openObject). */
  | { type: 'openObject'; oid: string }
  /** "Copy as Markdown": the directory's table (path, packed, unpacked, share). */
  | { type: 'copyMarkdown'; directory: string };

/** The webview's requests and the host messages that answer each (src/common/message-handler.ts). */
export interface BytesTreemapReplies {
  ready: 'show' | 'failed';
  pathBlobs: 'blobs' | 'blobsFailed';
}

/** A path or directory name the page may send: a string of a bounded length. */
const isName = (value: unknown): value is string => typeof value === 'string' && value.length <= 65_536;

export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as { type?: unknown; version?: unknown; path?: unknown; oid?: unknown; directory?: unknown };
  switch (message.type) {
    case 'ready':
      return typeof message.version === 'number';
    case 'pathBlobs':
      return isName(message.path) && message.path !== '';
    case 'openObject':
      // A full hex id only: the host hands it to a command.
      return isObjectId(message.oid);
    case 'copyMarkdown':
      return isName(message.directory);
    default:
      return false;
  }
}
