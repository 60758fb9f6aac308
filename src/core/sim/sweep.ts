import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SimObjects } from './sim-objects.ts';
import { UNKNOWN_BASIS, type RecordingBasis } from './simulate.ts';
import type { SimCounts, SimResult } from '../documents/simulation-documents.ts';
import type { SweepWorkerReply, SweepWorkerRequest, SweepWorkerData } from './sweep-protocol.ts';
import type { ReadsPlan } from './policy-definition.ts';
import { parsePolicy } from './policy-registry.ts';

export interface SweepOptions {
  /** Path of the bundled worker (dist/sim-worker.js). */
  workerScript: string;
  threads?: number;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
  /** false: replay every cell, even where another limit's replay answers it (LIMIT_REUSE); tests compare both. */
  reuseLimits?: boolean;
  /** A cell answered by the replay at another limit (`from`) instead of its own. */
  onReuse?: (policy: string, limit: number, from: number) => void;
  /** A policy's plan of the reads came back from the cell that built it (at `limit`), for its other cells to share. */
  onPlan?: (policy: string, limit: number) => void;
}

function shared<T extends Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array>(array: T): T {
  const Constructor = array.constructor as new (buffer: SharedArrayBuffer) => T;
  const copy = new Constructor(new SharedArrayBuffer(array.byteLength));
  copy.set(array as never);
  return copy;
}

/** Copies the objects into shared memory so that every worker reads one copy. */
export function shareSimObjects(objects: SimObjects): SimObjects {
  return {
    count: objects.count,
    packBase: objects.packBase,
    pack: shared(objects.pack),
    offset: shared(objects.offset),
    base: shared(objects.base),
    size: shared(objects.size),
    payloadSize: shared(objects.payloadSize),
    isBlob: shared(objects.isBlob),
    depth: shared(objects.depth),
    oidPrefix: shared(objects.oidPrefix),
  };
}

/**
 * How a policy's counts depend on the limit, where that lets one replay answer several limits. An
 * explicit opt-in per policy (by name, every argument included), each checked against its code in
 * src/core/sim/policies/ and by test/core/sweep-limit-reuse.test.ts (reused cells equal fresh ones
 * on real recordings):
 * - `evicts-over`: the replay's only use of the limit is "evict while the bytes held exceed it",
 *   after an add, with the peak noted after every add (CountingCache.notePeak). In a replay with no
 *   eviction made by the limit every such test found nothing to evict, so the entries held, and with them every
 *   count, never depended on the limit: at any limit ≥ that replay's peak each test is false too
 *   (the bytes tested are at most the peak), and the replay there is the same, step by step. It is
 *   not true of a policy that refuses an entry by comparing it with the limit (libgit2-pack-whatif:
 *   `len > limit`), nor of one whose limit sizes something else (libgit2-objcache's storage cap).
 *   git, admit-max and keep-on-hit (git-lru.ts: admit-max's test is against its own SIZE),
 *   separate-blob-lru, gdsf (its ageing moves only on an eviction), lru-by-size, belady (it re-files
 *   entries by next use when over the limit, which orders victims only: the entries held, hence
 *   the counts, are the same), and git-legacy: its slot collisions evict too, whatever the limit,
 *   so its replay counts the evictions of its two passes over the limit apart
 *   (PolicyRunner.replayWithLimitEvictions), and it is those that must be none; collisions are
 *   the same wherever the entries held are.
 * - `ignored`: the replay never reads the limit (libgit2 as shipped: its sizes are compiled in), so
 *   one replay is every limit's.
 * Exactness and bounds still depend on the limit, so a reused cell computes them at its own limit.
 */
export type LimitReuse = 'evicts-over' | 'ignored';
export const LIMIT_REUSE: ReadonlyMap<string, LimitReuse> = new Map<string, LimitReuse>([
  ['git', 'evicts-over'],
  ['admit-max', 'evicts-over'],
  ['keep-on-hit', 'evicts-over'],
  ['separate-blob-lru', 'evicts-over'],
  ['gdsf', 'evicts-over'],
  ['lru-by-size', 'evicts-over'],
  ['belady', 'evicts-over'],
  ['git-legacy', 'evicts-over'],
  ['libgit2', 'ignored'],
]);

/** What a policy spec (`name[:argument]`) has opted into, if anything. */
export function limitReuseOf(spec: string): LimitReuse | undefined {
  return LIMIT_REUSE.get(spec.split(':', 1)[0]!);
}

/**
 * Whether a replay at one limit (its result `from`, of whose evictions the limit made
 * `limitEvictions`) is the replay at `limit` (LIMIT_REUSE).
 */
function answers(reuse: LimitReuse | undefined, from: SimResult, limitEvictions: number, limit: number): boolean {
  if (reuse === 'ignored') return true;
  return reuse === 'evicts-over' && limitEvictions === 0 && limit >= from.peakCacheBytes;
}

interface SweepCell {
  policy: string;
  limit: number;
  reuse: LimitReuse | undefined;
  /** The policy has a plan of the reads that its cells at every limit share (PolicyRunner.planReads). */
  planned: boolean;
}

/** Whether a policy spec's replays share a plan of the reads; a spec that does not parse fails in its worker, as any cell. */
function hasPlan(spec: string): boolean {
  try {
    return parsePolicy(spec).planReads !== undefined;
  } catch {
    return false;
  }
}

/**
 * Which cell a free worker gets next. A worker replays one policy, then another only in a fresh
 * thread (runSweep): the read path's calls into the cache (git-read-path.ts) then see one cache
 * class and stay inlined; in a thread that had replayed five classes they went megamorphic, and
 * every replay after took a quarter longer. So:
 * 1. cells already answered by another limit's replay (only their exactness is left), the
 *    worker's own policy's first;
 * 2. the next cell of the worker's own policy: its pilot, its cell at its largest limit, first
 *    (its replay is the one that can answer the others, LIMIT_REUSE, and a policy with a plan of
 *    the reads has its pilot build it: Belady's next uses, built once instead of once a cell),
 *    then the smallest limit first (more evictions and longer chains: the costlier cells, so that
 *    the cheap ones are left for the tail);
 * 3. when its policy has none ready, the next cell of the policy with the most cells left, so the
 *    last policy's cells are shared by every worker and none waits long at the end. A cell waits
 *    while its policy's pilot could still answer it or its plan is being built, as long as
 *    another cell can go instead.
 */
class CellQueue {
  /** Cells not yet handed out; a cell leaves when handed out or answered. */
  private readonly waiting: Set<number>;
  /** Cells answered by another limit's replay, waiting for a worker to compute their exactness. */
  private readonly reused: { cell: number; segments: SimCounts[] }[] = [];
  /** Each policy's pilot (its first cell at its largest limit): planned policies first, then in the order given. */
  private readonly pilots = new Map<string, number>();
  /** Policies whose pilot's replay is back. */
  private readonly pilotBack = new Set<string>();
  /** Each planned policy's plan, once its pilot has built it. */
  private readonly plans = new Map<string, ReadsPlan>();

  constructor(
    private readonly cells: SweepCell[],
    private readonly onReuse: SweepOptions['onReuse'],
    private readonly onPlan: SweepOptions['onPlan'],
  ) {
    this.waiting = new Set(cells.keys());
    // Planned policies first: their plan is then built while other policies' cells keep the other
    // workers busy, not at the end when a worker would build its own rather than wait.
    const order = [...cells.keys()].sort((a, b) => Number(cells[b]!.planned) - Number(cells[a]!.planned));
    for (const index of order) {
      const cell = cells[index]!;
      const pilot = this.pilots.get(cell.policy);
      if (pilot === undefined || cell.limit > cells[pilot]!.limit) this.pilots.set(cell.policy, index);
    }
  }

  /** The next request for a free worker that last replayed `current` (undefined: a fresh one). */
  next(current: string | undefined): SweepWorkerRequest {
    const own = this.reused.findIndex(({ cell }) => this.cells[cell]!.policy === current);
    const answered = this.reused.splice(Math.max(0, own), 1)[0];
    if (answered !== undefined) {
      const { policy, limit } = this.cells[answered.cell]!;
      return { kind: 'reuse', cell: answered.cell, policy, limit, segments: answered.segments };
    }
    const mine = current === undefined ? undefined : this.candidate(current);
    if (mine !== undefined) return this.handOut(mine);
    let best: { cell: number; left: number } | undefined;
    for (const policy of this.pilots.keys()) {
      const cell = this.candidate(policy);
      if (cell === undefined) continue;
      const left = this.cellsLeft(policy);
      if (best === undefined || left > best.left) best = { cell, left };
    }
    if (best !== undefined) return this.handOut(best.cell);
    // None ready: rather than leave a worker idle, a cell goes without its policy's reuse or plan.
    const [any] = this.waiting;
    return any === undefined ? { kind: 'stop' } : this.handOut(any);
  }

  /** The policy's next cell if one is ready: its pilot, else its waiting cell at the smallest limit. */
  private candidate(policy: string): number | undefined {
    const pilot = this.pilots.get(policy)!;
    if (this.waiting.has(pilot)) return pilot;
    const { reuse, planned } = this.cells[pilot]!;
    const ready = (this.pilotBack.has(policy) || reuse === undefined) && (!planned || this.plans.has(policy));
    if (!ready) return undefined;
    let best: number | undefined;
    for (const cell of this.waiting)
      if (
        this.cells[cell]!.policy === policy &&
        (best === undefined || this.cells[cell]!.limit < this.cells[best]!.limit)
      )
        best = cell;
    return best;
  }

  private cellsLeft(policy: string): number {
    let left = 0;
    for (const cell of this.waiting) if (this.cells[cell]!.policy === policy) left++;
    return left;
  }

  private handOut(cell: number): SweepWorkerRequest {
    this.waiting.delete(cell);
    const { policy, limit, reuse, planned } = this.cells[cell]!;
    const plan = this.plans.get(policy);
    const makePlan = planned && this.pilots.get(policy) === cell;
    return { kind: 'cell', cell, policy, limit, keepSegments: reuse !== undefined, plan, makePlan };
  }

  /**
   * A replay of `cell` came back (with each process's counts when kept, and the plan it made): the
   * waiting cells of its policy it answers at the limits LIMIT_REUSE allows.
   */
  replayed(
    cell: number,
    result: SimResult,
    segments: SimCounts[] | undefined,
    limitEvictions: number | undefined,
    plan: ReadsPlan | undefined,
  ): void {
    const { policy, reuse, limit: from } = this.cells[cell]!;
    if (this.pilots.get(policy) === cell) this.pilotBack.add(policy);
    if (plan !== undefined) {
      this.plans.set(policy, plan);
      this.onPlan?.(policy, from);
    }
    if (segments === undefined || limitEvictions === undefined) return;
    for (const other of this.waiting) {
      const { policy: otherPolicy, limit } = this.cells[other]!;
      if (otherPolicy !== policy || !answers(reuse, result, limitEvictions, limit)) continue;
      this.waiting.delete(other);
      this.reused.push({ cell: other, segments });
      this.onReuse?.(policy, limit, from);
    }
  }
}

/**
 * Every policy at every limit over the same reads, cells handed to worker threads as they become
 * free (a Belady cell costs several LRU cells), in CellQueue's order, each thread one policy. A policy that opted into
 * LIMIT_REUSE gets each limit its replay answers (same counts) without a replay of its own;
 * `reuseLimits: false` replays every cell. A policy with a plan of the reads (Belady's next uses)
 * has it built once, in shared memory, for all its cells. Results come back in (limit, policy) order.
 */
export async function runSweep(
  objects: SimObjects,
  reads: Int32Array,
  segmentStarts: number[],
  policies: string[],
  limits: number[],
  options: SweepOptions,
  basis: RecordingBasis = UNKNOWN_BASIS,
): Promise<SimResult[]> {
  const planned = new Set(policies.filter(hasPlan));
  const cells: SweepCell[] = limits.flatMap((limit) =>
    policies.map((policy) => ({
      policy,
      limit,
      reuse: options.reuseLimits === false ? undefined : limitReuseOf(policy),
      planned: planned.has(policy),
    })),
  );
  const results: SimResult[] = new Array(cells.length);
  const threads = Math.max(1, Math.min(options.threads ?? availableParallelism(), cells.length));
  const data: SweepWorkerData = { objects: shareSimObjects(objects), reads: shared(reads), segmentStarts, basis };
  const queue = new CellQueue(cells, options.onReuse, options.onPlan);
  let done = 0;
  /** Every worker started, replaced ones included, so that all are terminated at the end. */
  const workers: Worker[] = [];
  /** Set once the sweep is over (done, failed or cancelled): a replacement thread still starting then does not. */
  let stopped = false;
  try {
    await new Promise<void>((resolve, reject) => {
      if (cells.length === 0) return resolve();
      const abort = (): void => reject(new Error('sweep cancelled'));
      if (options.signal?.aborted) return abort();
      options.signal?.addEventListener('abort', abort, { once: true });
      /**
       * One thread's turn at the cells: the policy it replays, and the request its replacement
       * takes on starting. A thread replays one policy; another policy's cell goes to a fresh
       * thread in its place (CellQueue: about 25 ms to start one).
       */
      const start = (slot: { policy: string | undefined; pending: SweepWorkerRequest | undefined }): void => {
        if (stopped) return;
        const worker = new Worker(options.workerScript, { workerData: data });
        workers.push(worker);
        worker.on('message', (reply: SweepWorkerReply) => {
          if (reply.kind === 'failed') {
            reject(new Error(`${cells[reply.cell]!.policy} at ${cells[reply.cell]!.limit}: ${reply.error.message}`));
            return;
          }
          if (reply.kind === 'result') {
            results[reply.cell] = reply.result;
            queue.replayed(reply.cell, reply.result, reply.segments, reply.limitEvictions, reply.plan);
            done++;
            options.onProgress?.(done, cells.length);
            if (done === cells.length) return resolve();
          }
          const request = slot.pending ?? queue.next(slot.policy);
          slot.pending = undefined;
          if (request.kind !== 'stop' && slot.policy !== undefined && request.policy !== slot.policy) {
            slot.policy = request.policy;
            slot.pending = request;
            // Its place in the thread budget passes on only once the thread has stopped.
            worker.terminate().then(() => start(slot), reject);
            return;
          }
          if (request.kind !== 'stop') slot.policy = request.policy;
          worker.postMessage(request);
        });
        worker.on('error', reject);
      };
      for (let t = 0; t < threads; t++) start({ policy: undefined, pending: undefined });
    });
  } finally {
    stopped = true;
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return results;
}
