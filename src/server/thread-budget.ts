/**
 * One bound on the worker threads the server runs at once, across every kind:
 * the work queues bound each kind, but sweeps, object documents and model builds each took their own
 * places and together ran about twice the cores. Every worker the server starts for a request or a
 * build takes places here first (a sweep one per thread it runs); the Pack Map's one persistent
 * worker is the only thread outside it. Hovers never wait: they are answered on the server's thread.
 *
 * Model builds go before waiting jobs: a job that opens a recording keeps its worker while the packs
 * it names are built, so a build queued behind a sweep that waits for every place would never start.
 */
import { availableParallelism } from 'node:os';
import type { CancellationToken } from 'vscode-languageserver/node';
import { cancelledError } from './cancellation.ts';

/**
 * Keeps a job's places until `ended` settles: a worker's answer can go before its thread has ended,
 * and a thread still ending beside its successor ran one more than the budget.
 */
export type HoldPlaces = (ended: Promise<unknown>) => void;

interface Waiter {
  weight: number;
  /** Model builds: served before the jobs (see above). */
  first: boolean;
  start: (held: { places: number; release: () => void }) => void;
}

/** The default bound: one worker per core, at least two (a build beside a job). */
export function defaultThreadBudget(): number {
  return Math.max(2, availableParallelism());
}

export class ThreadBudget {
  private inUse = 0;
  private peak = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly capacity: number,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /** Places in use now (for tests and the log). */
  get used(): number {
    return this.inUse;
  }

  /**
   * Waits until `weight` places (at most the capacity) are free and takes them; the returned function
   * gives them back (once). A cancelled token rejects with RequestCancelled while it waits.
   */
  acquire(weight: number, token?: CancellationToken, first = false): Promise<{ places: number; release: () => void }> {
    const places = Math.max(1, Math.min(this.capacity, Math.floor(weight)));
    if (token?.isCancellationRequested) return Promise.reject(cancelledError());
    return new Promise((resolve, reject) => {
      const subscription = token?.onCancellationRequested(() => {
        const at = this.waiting.indexOf(waiter);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        subscription?.dispose();
        reject(cancelledError());
        this.serve();
      });
      const waiter: Waiter = {
        weight: places,
        first,
        start: (held) => {
          subscription?.dispose();
          resolve(held);
        },
      };
      this.waiting.push(waiter);
      this.serve();
    });
  }

  /**
   * Takes up to `weight` places only if they are free now and nobody waits (a model build's extra
   * scan threads: worth having, never worth waiting for); undefined when none can be had.
   */
  tryAcquire(weight: number): { places: number; release: () => void } | undefined {
    const places = Math.min(Math.floor(weight), this.capacity - this.inUse);
    if (places < 1 || this.waiting.length > 0) return undefined;
    return this.take(places);
  }

  /** Takes `places` now; the returned function gives them back, once. */
  private take(places: number): { places: number; release: () => void } {
    this.inUse += places;
    if (this.inUse > this.peak) {
      this.peak = this.inUse;
      this.log(`worker threads: ${this.peak} at once, the most so far (at most ${this.capacity})`);
    }
    let released = false;
    return {
      places,
      release: () => {
        if (released) return;
        released = true;
        this.inUse -= places;
        this.serve();
      },
    };
  }

  /** Starts waiters while they fit: builds first, then jobs in their order (a large one is not overtaken, so it is not starved). */
  private serve(): void {
    for (;;) {
      const next = this.waiting.find((w) => w.first) ?? this.waiting[0];
      if (next === undefined || this.inUse + next.weight > this.capacity) return;
      this.waiting.splice(this.waiting.indexOf(next), 1);
      next.start(this.take(next.weight));
    }
  }
}
