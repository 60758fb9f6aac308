import { decodeWorkerError } from '../../core/worker-error.ts';
import { Worker } from 'node:worker_threads';
import type { CancellationToken } from 'vscode-languageserver/node';
import type { ObjectStore } from '../../core/model/object-store.ts';
import { cancelledError } from '../cancellation.ts';
import type { HoldPlaces } from '../thread-budget.ts';
import type { WorkerTask, TaskWorkerMessage, TaskWorkerRequest, WorkerStore } from './task-worker-protocol.ts';

/** After a `cancel` message, how long the request waits for the worker to clean up before it answers anyway. */
const CANCEL_REPLY_MS = 2_000;
/** After a `cancel` message, how long the worker may take to end before it is terminated. */
const CANCEL_TERMINATE_MS = 15_000;

export interface TaskWorkerOptions {
  /**
   * How a cancellation stops the worker: `terminate` (default) ends it at once; `message` sends
   * `cancel` and lets it stop its children and remove its files first (terminated if it takes
   * longer than CANCEL_TERMINATE_MS).
   */
  cancel?: 'terminate' | 'message';
  log?: (message: string) => void;
}

/** One running task worker (one task), as the server's handlers drive it. */
export interface TaskWorkerRun {
  /** Resolves on the worker's `done`; rejects with its error, or RequestCancelled when the request is cancelled. */
  readonly finished: Promise<void>;
  /** Resolves once the worker's thread has ended (a terminated worker ends shortly after `finished` settles). */
  readonly exited: Promise<void>;
  post(request: TaskWorkerRequest): void;
  /** Ends the worker if it still runs (after an early failure on the server's side). */
  stop(): void;
}

/** An ObjectStore as a worker rebuilds it: the same repository and pack list, models from `cacheDir`. */
export function workerStoreOf(store: ObjectStore, cacheDir: string): WorkerStore {
  const { hash, ...repository } = store.repository;
  return { repository: { ...repository, hashName: hash.name }, packs: store.packs, cacheDir };
}

/**
 * Starts `task` in a worker of `script`; its messages other than done and error go to `onMessage`.
 * A cancelled token stops the worker (see TaskWorkerOptions.cancel).
 */
export function startTaskWorker(
  script: string,
  task: WorkerTask,
  token: CancellationToken,
  onMessage: (message: TaskWorkerMessage) => void,
  options: TaskWorkerOptions = {},
): TaskWorkerRun {
  const worker = new Worker(script, { workerData: task });
  const threadEnded = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let exited = false;
  let settled = false;
  let resolveFinished!: () => void;
  let rejectFinished!: (error: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    resolveFinished = resolve;
    rejectFinished = reject;
  });
  // Whoever awaits it sees the rejection; nobody waiting (an early failure) is not an unhandled one.
  finished.catch(() => undefined);
  const settle = (action: () => void, terminate = true): void => {
    if (settled) return;
    settled = true;
    subscription.dispose();
    if (terminate) void worker.terminate();
    action();
  };
  const cancel = (): void => {
    if (settled) return;
    if (options.cancel !== 'message' || exited) {
      settle(() => rejectFinished(cancelledError()));
      return;
    }
    worker.postMessage({ kind: 'cancel' } satisfies TaskWorkerRequest);
    const reply = setTimeout(() => settle(() => rejectFinished(cancelledError()), false), CANCEL_REPLY_MS);
    const terminate = setTimeout(() => {
      if (exited) return;
      options.log?.(`a cancelled worker (${task.kind}) did not end within ${CANCEL_TERMINATE_MS / 1000} s: terminated`);
      void worker.terminate();
    }, CANCEL_TERMINATE_MS);
    terminate.unref();
    worker.once('exit', () => {
      clearTimeout(reply);
      clearTimeout(terminate);
      settle(() => rejectFinished(cancelledError()), false);
    });
  };
  const subscription = token.onCancellationRequested(cancel);
  if (token.isCancellationRequested) cancel();
  worker.on('message', (message: TaskWorkerMessage) => {
    if (settled || token.isCancellationRequested) return;
    if (message.kind === 'done') settle(resolveFinished);
    else if (message.kind === 'error') settle(() => rejectFinished(decodeWorkerError(message)));
    else onMessage(message);
  });
  worker.on('error', (error) => settle(() => rejectFinished(error)));
  worker.on('exit', (code) => {
    exited = true;
    if (!token.isCancellationRequested)
      settle(() => rejectFinished(new Error(`the task worker stopped unexpectedly (exit code ${code})`)), false);
  });
  return {
    finished,
    exited: threadEnded,
    post: (request) => {
      if (!settled && !exited) worker.postMessage(request);
    },
    stop: () => {
      if (options.cancel === 'message' && !exited && !settled) {
        // Never pull the rug from under a child process or a temporary directory.
        worker.postMessage({ kind: 'cancel' } satisfies TaskWorkerRequest);
        settle(() => rejectFinished(cancelledError()), false);
        return;
      }
      settle(() => rejectFinished(cancelledError()));
    },
  };
}

/**
 * Runs one task in a task worker; its messages go to `onMessage` until it is done. The thread's end
 * goes to `holdPlacesUntil` (the work queue's), which keeps its thread place until then.
 */
export function runTaskWorker(
  script: string,
  task: WorkerTask,
  token: CancellationToken,
  onMessage: (message: TaskWorkerMessage) => void,
  holdPlacesUntil: HoldPlaces,
): Promise<void> {
  const run = startTaskWorker(script, task, token, onMessage);
  holdPlacesUntil(run.exited);
  return run.finished;
}
