import { randomUUID } from 'node:crypto';
import vscode = require('vscode');
import type { ServerClient, WorkDoneValue } from './server-client.ts';

/** After this long a request that builds a pack model also gets a cancellable notification. */
const NOTIFY_AFTER_MS = 1000;

export const PACKS_VIEW_ID = 'packscope.packs';

/**
 * Runs a request that may build a pack model (packSummary, objectList): a progress bar on the Packs
 * view at once, and after a second a cancellable notification showing the server's `$/progress`
 * messages ("Indexing pack-1a2b…: 120,000 of 849,014 objects"). Cancelling it cancels the request.
 */
/** Loads under way: `packscope.cancelLoad` cancels them (the server then stops the worker build). */
const activeLoads = new Set<vscode.CancellationTokenSource>();

function setLoadingContext(): void {
  void vscode.commands.executeCommand('setContext', 'packscope.loading', activeLoads.size > 0);
}

/** Cancels every model load under way; returns how many there were. */
export function cancelModelLoads(): number {
  const count = activeLoads.size;
  for (const load of activeLoads) load.cancel();
  return count;
}

/** The short text a row shows while its model loads: "indexing 34%…", or the stage while there is no percentage. */
export function loadingText(value: { message?: string | undefined; percentage?: number | undefined }): string {
  if (value.percentage !== undefined && value.percentage > 0) return `indexing ${Math.min(100, Math.floor(value.percentage))}%…`;
  const stage = value.message?.replace(/:.*$/, '');
  return stage ? `${stage.toLowerCase()}…` : 'indexing…';
}

export async function withModelProgress<R>(
  server: ServerClient,
  title: string,
  send: (workDoneToken: string, token: vscode.CancellationToken) => Promise<R>,
  /** Told the row text as the load goes ("indexing 34%…"), and undefined when it ends. */
  onRowText?: (text: string | undefined) => void,
): Promise<R> {
  await server.whenRunning();
  const workDoneToken = `packscope-${randomUUID()}`;
  const cancellation = new vscode.CancellationTokenSource();
  activeLoads.add(cancellation);
  setLoadingContext();
  let lastRowText: string | undefined;
  const rowListener = (): void => {
    const text = loadingText(latest);
    if (text === lastRowText) return;
    lastRowText = text;
    onRowText?.(text);
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
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => {
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
    });
  }, NOTIFY_AFTER_MS);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
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
