/**
 * The message protocol between the Repack Preview webview (media/repack-preview/) and its host
 * (src/extension/repack-preview/). The webview draws one finished run the host sends; it computes
 * nothing. The handshake: the webview posts `ready` with its protocol version, the host answers
 * `show`. The messages, the state and the constants live here; the rows the panel shows and the
 * Markdown export are built from them in src/presentation/repack-preview-tables.ts, so that the panel
 * and the exported Markdown always hold the same numbers. No vscode, no LSP libraries.
 */
import type { RepackPreviewResult } from './server-protocol.ts';

export const REPACK_PREVIEW_PROTOCOL_VERSION = 1;

/** What the user asked for, as the panel names it. */
export interface RepackPreviewRequestSummary {
  /** The preset's label or "Custom": `--depth=10 --window=10`, `gc --aggressive`, … */
  label: string;
  depth?: number;
  window?: number;
  threads?: number;
  reuseDeltas: boolean;
  extraOptions: string[];
  estimateOnly: boolean;
}

/** One finished run: what the panel shows and the webview keeps with setState. */
export interface RepackPreviewRun {
  request: RepackPreviewRequestSummary;
  /** The repository's name in the Packs view (its work tree folder or git directory name). */
  repositoryName: string;
  /** Its id in the Packs view (the common git directory): where an object the tables name is opened. Absent in runs saved before it was kept. */
  repositoryId?: string;
  /** ISO time the run ended. */
  finishedAt: string;
  /** Wall time of the whole request (reading packs, pack-objects, recordings, estimate). */
  requestSeconds: number;
  result: RepackPreviewResult;
  /** Today's packs of the repository (.pack paths, largest first): the Pack Map's "before". */
  currentPacks?: string[];
  /**
   * The paths of the objects the tables name (largest changes), by id, as the host learnt them from
   * the server (`namesPending` while the repository's walk runs). Absent until asked.
   */
  names?: Record<string, RepackPreviewObjectName>;
}

/** An object's path as packscope/objectNames gives it. */
export interface RepackPreviewObjectName {
  path?: string | null;
  namesPending?: true;
}

export interface RepackPreviewState {
  version: typeof REPACK_PREVIEW_PROTOCOL_VERSION;
  run: RepackPreviewRun | null;
}

export type HostToWebview =
  | { type: 'show'; version: number; run: RepackPreviewRun }
  /** The objects' paths arrived (or changed): the page updates its path cells in place, nothing else. */
  | { type: 'names'; names: Record<string, RepackPreviewObjectName> };

export type WebviewToHost =
  /** A request: the host answers with `show`. */
  | { type: 'ready'; version: number }
  /** "Export as Markdown": an untitled Markdown document with the panel's content. */
  | { type: 'exportMarkdown' }
  | { type: 'copyMarkdown' }
  /** Copies the `git repack …` command the preview stands for. */
  | { type: 'copyCommand' }
  /** An object id in a table was clicked: the host opens its object document (packscope.openObject). */
  | { type: 'openObject'; oid: string }
  /**
   * "Before and after on the Pack Map": today's largest pack and the preview's kept pack side by
   * side, with the run's first recording (if any) drawn over both.
   */
  | { type: 'openPackMaps' };

/** The webview's requests and the host message that answers each (src/common/message-handler.ts). */
export interface RepackPreviewReplies {
  ready: 'show';
}

export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  if (type === 'ready') return typeof (value as { version?: unknown }).version === 'number';
  // A full hex id only: the host hands it to a command, so nothing else a page could post gets there.
  if (type === 'openObject') return isObjectId((value as { oid?: unknown }).oid);
  return type === 'exportMarkdown' || type === 'copyMarkdown' || type === 'copyCommand' || type === 'openPackMaps';
}

/** A full object id (SHA-1 or SHA-256, lowercase hex). */
export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value);
}
