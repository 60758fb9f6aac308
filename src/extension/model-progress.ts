import { randomUUID } from 'node:crypto';
import vscode = require('vscode');
import type { PackLoading } from '../protocol/server-protocol.ts';
import { formatCount } from './format-units.ts';
import type { ServerClient, WorkDoneValue } from './server-client.ts';

/** After this long a request that builds a pack model also gets a cancellable notification. */
const NOTIFY_AFTER_MS = 1000;
/** Rows and the view's message line change at most this often (VS Code waits for 200 ms of quiet to redraw them). */
const ROW_UPDATE_MS = 400;

export const PACKS_VIEW_ID = 'packscope.packs';

/**
 * Runs a request that may build a pack model (packSummary, objectList): a progress bar on the Packs
 * view at once, and after a second a cancellable notification showing the server's `$/progress`
 * messages ("Indexing pack-1a2b…: 120,000 of 849,014 objects"). Cancelling it cancels the request.
 */
/** Loads under way: `packscope.cancelLoad` cancels them (the server then stops the worker build). */
const activeLoads = new Set<vscode.CancellationTokenSource>();

/** Packs the server builds in the background (the warm-up): Cancel Loading stops them too. */
let backgroundLoads = 0;

function setLoadingContext(): void {
  void vscode.commands.executeCommand('setContext', 'packscope.loading', activeLoads.size > 0 || backgroundLoads > 0);
}

/** How many packs the server's warm-up is building or has queued (the Packs view counts them from its rows). */
export function setBackgroundLoads(count: number): void {
  if (count === backgroundLoads) return;
  backgroundLoads = count;
  setLoadingContext();
}

/** A background build's row text: "indexing 120,000 of 849,014 objects", or that it waits its turn. */
export function backgroundLoadingText(loading: PackLoading): string {
  return loading.waiting === true
    ? `waiting to index ${formatCount(loading.total)} objects`
    : `indexing ${formatCount(loading.done)} of ${formatCount(loading.total)} objects`;
}

/** Cancels every model load under way; returns how many there were. */
export function cancelModelLoads(): number {
  const count = activeLoads.size;
  for (const load of activeLoads) load.cancel();
  return count;
}

/**
 * The short text a row shows while its model loads: "indexing 120,000 of 849,014 objects" while the
 * server counts objects, else "indexing 34%…", or the stage while there is no percentage.
 */
export function loadingText(value: { message?: string | undefined; percentage?: number | undefined }): string {
  const counts = /^Reading objects: ([\d,]+) of ([\d,]+)$/.exec(value.message ?? '');
  if (counts !== null) return `indexing ${counts[1]} of ${counts[2]} objects`;
  if (value.percentage !== undefined && value.percentage > 0)
    return `indexing ${Math.min(100, Math.floor(value.percentage))}%…`;
  const stage = value.message?.replace(/:.*$/, '').replace(/…$/, '');
  return stage ? `${stage.toLowerCase()}…` : 'indexing…';
}

// Stays long: one notification's life: its progress, cancellation and the row text share the server's progress stream.
export async function withModelProgress<R>(
  server: ServerClient,
  title: string,
  send: (workDoneToken: string, token: vscode.CancellationToken) => Promise<R>,
  /**
   * Told the row text as the load goes ("indexing 34%…"), and undefined when it ends; `detail` is the
   * server's whole message ("Reading objects: 65,536 of 250,022") for the view's own message line.
   */
  onRowText?: (text: string | undefined, detail?: string) => void,
): Promise<R> {
  await server.whenRunning();
  const workDoneToken = `packscope-${randomUUID()}`;
  const cancellation = new vscode.CancellationTokenSource();
  activeLoads.add(cancellation);
  setLoadingContext();
  let lastRowText: string | undefined;
  let lastDetail: string | undefined;
  let lastRowAt = 0;
  let rowTimer: NodeJS.Timeout | undefined;
  const showRow = (): void => {
    rowTimer = undefined;
    const text = loadingText(latest);
    if (text === lastRowText && latest.message === lastDetail) return;
    lastRowText = text;
    lastDetail = latest.message;
    lastRowAt = Date.now();
    onRowText?.(text, latest.message);
  };
  // VS Code debounces a tree's changes (and its message) until 200 ms pass without one: rows told of
  // every report (several a second on a big pack) were never redrawn until the build ended. So at most
  // one row update per ROW_UPDATE_MS, the last report always shown.
  const rowListener = (): void => {
    if (rowTimer !== undefined) return;
    rowTimer = setTimeout(showRow, Math.max(0, lastRowAt + ROW_UPDATE_MS - Date.now()));
  };
  let latest: { message?: string; percentage?: number } = {};
  const listeners = new Set<() => void>();
  const subscription = server.onWorkDoneProgress(workDoneToken, (value: WorkDoneValue) => {
    if (value.kind === 'end') return;
    latest = { message: value.message ?? latest.message, percentage: value.percentage ?? latest.percentage };
    for (const listener of listeners) listener();
    rowListener();
  });
  onRowText?.('indexing…');
  const work = send(workDoneToken, cancellation.token);
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  let finished = false;
  void settled.then(() => {
    finished = true;
  });
  void vscode.window.withProgress({ location: { viewId: PACKS_VIEW_ID } }, () => settled);
  const timer = setTimeout(() => {
    if (finished) return;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => cancellation.cancel());
        let reported = 0;
        const report = (): void => {
          const percentage = latest.percentage;
          const increment = percentage === undefined ? undefined : Math.max(0, percentage - reported);
          if (percentage !== undefined) reported = Math.max(reported, percentage);
          progress.report({ message: latest.message, increment });
        };
        report();
        listeners.add(report);
        return settled;
      },
    );
  }, NOTIFY_AFTER_MS);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
    clearTimeout(rowTimer);
    listeners.clear();
    subscription.dispose();
    activeLoads.delete(cancellation);
    setLoadingContext();
    cancellation.dispose();
    onRowText?.(undefined);
  }
}

/** True for the error a request rejects with after its cancellation (LSP RequestCancelled, -32800). */
export function isCancellation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && (error as { code: unknown }).code === -32800;
}
