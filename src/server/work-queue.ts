/**
 * The server's heavy work, one queue per kind of request with a small number running at once:
 * unbounded, concurrent sweeps took gigabytes (bench/README.md, "Figures the comments rely on").
 * A job waits for a free place in its
 * queue; one cancelled while it waits leaves the queue and never starts. When no job has run for
 * IDLE_RELEASE_MS, `onIdle` lets the server drop what it kept for the next request.
 */
import { availableParallelism } from 'node:os';
import type { CancellationToken } from 'vscode-languageserver/node';
import { cancelledError } from './cancellation.ts';
import type { HoldPlaces, ThreadBudget } from './thread-budget.ts';

export type WorkKind =
  | 'sweep'
  | 'locality'
  | 'index-pack'
  | 'open-recording'
  | 'object-content'
  | 'repack-preview'
  | 'pack-map'
  | 'pack-map-tile'
  | 'calibrate'
  | 'sizes'
  | 'concerns';

/**
 * Pack Map tiles handed to its one worker at a time: a few, so that the next tile is waiting
 * there when one ends, and few enough that a cancelled view's tiles mostly never leave this queue.
 * Tiles queue apart from the map's other requests (a pack's info): in one queue, 50,000 tiles
 * asked for ahead of a hover kept it waiting 5.6 s. (The map's hovers no longer reach the worker:
 * the server's thread looks the object up in its model, handlers/pack-map.ts.)
 */
const PACK_MAP_TILES_IN_FLIGHT = 4;
/** The map's infos handed to the worker at once: each is one lookup there once it has the map. */
const PACK_MAP_LOOKUPS_IN_FLIGHT = 2;

/** Kinds whose work runs in the one persistent map worker, outside the thread budget. */
const MAP_WORKER_KINDS: ReadonlySet<WorkKind> = new Set(['pack-map', 'pack-map-tile']);

/**
 * How many jobs of each kind run at once. A sweep runs its cells on availableParallelism() threads
 * itself, so one sweep at a time keeps the task workers at that; an object document is one
 * worker, and a few may rebuild side by side. One calibration at a time: two timing git at once
 * would each time the other's load. One history's sizes at a time: each is a git diff-tree over the
 * whole history. One count of git-sizer's figures at a time: each reads every tree the refs reach.
 */
export function defaultConcurrency(): Record<WorkKind, number> {
  const cores = Math.max(1, availableParallelism());
  return {
    sweep: 1,
    locality: 1,
    'index-pack': 1,
    'open-recording': 1,
    'object-content': cores,
    'repack-preview': 1,
    'pack-map': PACK_MAP_LOOKUPS_IN_FLIGHT,
    'pack-map-tile': PACK_MAP_TILES_IN_FLIGHT,
    calibrate: 1,
    sizes: 1,
    concerns: 1,
  };
}

/** After this long with no job running or waiting, the server releases its caches. */
export const IDLE_RELEASE_MS = 10_000;

interface Waiting {
  start: () => void;
  cancel: () => void;
}

export class WorkQueues {
  private readonly running = new Map<WorkKind, number>();
  private readonly waiting = new Map<WorkKind, Waiting[]>();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly concurrency: Record<WorkKind, number>,
    private readonly onIdle: () => void,
    private readonly idleMs = IDLE_RELEASE_MS,
    /** The bound on worker threads across kinds (thread-budget.ts); none: only the per-kind bound. */
    private readonly threads?: ThreadBudget,
  ) {}

  /**
   * Runs `job` once a place of its kind is free and, but for the Pack Map's (its one persistent
   * worker), `threads` places of the thread budget (a sweep asks one per core; it gets at most the
   * budget, and `job` is told how many to use; it passes each worker thread's end to `holdPlacesUntil`).
   * Rejects with RequestCancelled if cancelled before it starts.
   */
  async run<T>(
    kind: WorkKind,
    token: CancellationToken,
    job: (threads: number, holdPlacesUntil: HoldPlaces) => Promise<T>,
    threads = 1,
  ): Promise<T> {
    if (token.isCancellationRequested) throw cancelledError();
    this.clearIdle();
    await this.placeFor(kind, token);
    try {
      if (this.threads === undefined || MAP_WORKER_KINDS.has(kind)) return await job(threads, () => undefined);
      const { places, release } = await this.threads.acquire(threads, token);
      const held: Promise<unknown>[] = [];
      try {
        return await job(places, (ended) => held.push(ended));
      } finally {
        // The places go back once every thread the job started has ended, not when its answer came.
        if (held.length === 0) release();
        else void Promise.allSettled(held).then(release);
      }
    } finally {
      this.release(kind);
    }
  }

  /** Jobs of `kind` running now. */
  runningCount(kind: WorkKind): number {
    return this.running.get(kind) ?? 0;
  }

  private placeFor(kind: WorkKind, token: CancellationToken): Promise<void> {
    if (this.runningCount(kind) < this.concurrency[kind]) {
      this.running.set(kind, this.runningCount(kind) + 1);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const queue = this.waiting.get(kind) ?? [];
      this.waiting.set(kind, queue);
      const subscription = token.onCancellationRequested(() => entry.cancel());
      const entry: Waiting = {
        // release() hands its place over: the running count stays as it is.
        start: () => {
          subscription.dispose();
          resolve();
        },
        cancel: () => {
          subscription.dispose();
          const at = queue.indexOf(entry);
          if (at >= 0) queue.splice(at, 1);
          reject(cancelledError());
          this.scheduleIdleIfQuiet();
        },
      };
      queue.push(entry);
    });
  }

  private release(kind: WorkKind): void {
    const next = this.waiting.get(kind)?.shift();
    if (next) {
      next.start();
      return;
    }
    this.running.set(kind, this.runningCount(kind) - 1);
    this.scheduleIdleIfQuiet();
  }

  private scheduleIdleIfQuiet(): void {
    for (const count of this.running.values()) if (count > 0) return;
    for (const queue of this.waiting.values()) if (queue.length > 0) return;
    this.clearIdle();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.onIdle();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}
