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
 *   eviction every such test found nothing to evict, so the entries held, and with them every
 *   count, never depended on the limit: at any limit ≥ that replay's peak each test is false too
 *   (the bytes tested are at most the peak), and the replay there is the same, step by step. It is
 *   not true of a policy that refuses an entry by comparing it with the limit (libgit2-pack-whatif:
 *   `len > limit`), nor of one whose limit sizes something else (libgit2-objcache's storage cap).
 *   git, admit-max and keep-on-hit (git-lru.ts: admit-max's test is against its own SIZE),
 *   separate-blob-lru, gdsf (its ageing moves only on an eviction), lru-by-size, belady (it re-files
 *   entries by next use when over the limit, which orders victims only: the entries held, hence
 *   the counts, are the same). git-legacy would qualify (its slot collisions count as evictions),
 *   but with 256 slots a replay without a collision is too rare to gain or to test: not opted in.
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
  ['libgit2', 'ignored'],
]);

/** What a policy spec (`name[:argument]`) has opted into, if anything. */
export function limitReuseOf(spec: string): LimitReuse | undefined {
  return LIMIT_REUSE.get(spec.split(':', 1)[0]!);
}

/** Whether a replay at one limit (its result `from`) is the replay at `limit` (LIMIT_REUSE). */
function answers(reuse: LimitReuse | undefined, from: SimResult, limit: number): boolean {
  if (reuse === 'ignored') return true;
  return reuse === 'evicts-over' && from.evictions === 0 && limit >= from.peakCacheBytes;
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
 * Which cell a free worker gets next:
 * 1. cells already answered by another limit's replay (only their exactness is left);
 * 2. each policy's pilot, its cell at its largest limit: its replay is the one that can answer
 *    the others (LIMIT_REUSE), its time ranks the policy's cost, and a policy with a plan of the
 *    reads has its pilot build the plan (Belady's next uses, built once instead of once a cell);
 * 3. the other cells, smallest limit first (more evictions and longer chains: the costlier cells,
 *    so that the cheap ones fill the tail and no worker waits long for the last), then the
 *    costlier policy first (its pilot's time). A cell waits while its policy's pilot could still
 *    answer it or its plan is being built, as long as another cell can go instead.
 */
class CellQueue {
  /** Cells not yet handed out, in no order; a cell leaves when handed out or answered. */
  private readonly waiting: Set<number>;
  /** Cells answered by another limit's replay, waiting for a worker to compute their exactness. */
  private readonly reused: { cell: number; segments: SimCounts[] }[] = [];
  /** Each policy's pilot (its largest limit), in the order they go out: planned policies first. */
  private readonly pilots: number[];
  /** Seconds of each policy's pilot once back; a policy whose pilot is out is absent. */
  private readonly pilotSeconds = new Map<string, number>();
  /** Each planned policy's plan, once its pilot has built it. */
  private readonly plans = new Map<string, ReadsPlan>();

  constructor(
    private readonly cells: SweepCell[],
    private readonly onReuse: SweepOptions['onReuse'],
    private readonly onPlan: SweepOptions['onPlan'],
  ) {
    this.waiting = new Set(cells.keys());
    const pilotOf = new Map<string, number>();
    cells.forEach((cell, index) => {
      const pilot = pilotOf.get(cell.policy);
      if (pilot === undefined || cell.limit > cells[pilot]!.limit) pilotOf.set(cell.policy, index);
    });
    this.pilots = [...pilotOf.values()].sort((a, b) => Number(cells[b]!.planned) - Number(cells[a]!.planned));
  }

  /** The next request for a free worker: a reused cell, a cell to replay, or stop. */
  next(): SweepWorkerRequest {
    const answered = this.reused.shift();
    if (answered !== undefined) {
      const { policy, limit } = this.cells[answered.cell]!;
      return { kind: 'reuse', cell: answered.cell, policy, limit, segments: answered.segments };
    }
    const pilot = this.pilots.find((cell) => this.waiting.has(cell));
    if (pilot !== undefined) return this.handOut(pilot, this.cells[pilot]!.planned);
    let best: number | undefined;
    for (const cell of this.waiting)
      if (this.ready(cell) && (best === undefined || this.before(cell, best))) best = cell;
    // None ready: rather than leave a worker idle, a cell goes without its policy's reuse or plan.
    best ??= this.waiting.values().next().value;
    return best === undefined ? { kind: 'stop' } : this.handOut(best, false);
  }

  private handOut(cell: number, makePlan: boolean): SweepWorkerRequest {
    this.waiting.delete(cell);
    const { policy, limit, reuse } = this.cells[cell]!;
    const plan = this.plans.get(policy);
    return { kind: 'cell', cell, policy, limit, keepSegments: reuse !== undefined, plan, makePlan };
  }

  /** Whether the cell has nothing to wait for: its pilot's replay (which may answer it) and its plan are back. */
  private ready(cell: number): boolean {
    const { policy, reuse, planned } = this.cells[cell]!;
    const pilotBack = this.pilotSeconds.has(policy);
    return (pilotBack || reuse === undefined) && (!planned || this.plans.has(policy));
  }

  /** Whether `a` should go before `b`: smaller limit first, then the policy whose pilot took longer. */
  private before(a: number, b: number): boolean {
    const cellA = this.cells[a]!;
    const cellB = this.cells[b]!;
    if (cellA.limit !== cellB.limit) return cellA.limit < cellB.limit;
    return (this.pilotSeconds.get(cellA.policy) ?? 0) > (this.pilotSeconds.get(cellB.policy) ?? 0);
  }

  /**
   * A replay of `cell` came back (with each process's counts when kept, and the plan it made): the
   * waiting cells of its policy it answers at the limits LIMIT_REUSE allows.
   */
  replayed(cell: number, result: SimResult, segments: SimCounts[] | undefined, plan: ReadsPlan | undefined): void {
    const { policy, reuse, limit: from } = this.cells[cell]!;
    if (this.pilots.includes(cell)) this.pilotSeconds.set(policy, result.seconds);
    if (plan !== undefined) {
      this.plans.set(policy, plan);
      this.onPlan?.(policy, from);
    }
    if (segments === undefined) return;
    for (const other of this.waiting) {
      const { policy: otherPolicy, limit } = this.cells[other]!;
      if (otherPolicy !== policy || !answers(reuse, result, limit)) continue;
      this.waiting.delete(other);
      this.reused.push({ cell: other, segments });
      this.onReuse?.(policy, limit, from);
    }
  }
}

/**
 * Every policy at every limit over the same reads, cells handed to worker threads as they become
 * free (a Belady cell costs several LRU cells), in CellQueue's order. A policy that opted into
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
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      if (cells.length === 0) return resolve();
      const abort = (): void => reject(new Error('sweep cancelled'));
      if (options.signal?.aborted) return abort();
      options.signal?.addEventListener('abort', abort, { once: true });
      for (let t = 0; t < threads; t++) {
        const worker = new Worker(options.workerScript, { workerData: data });
        workers.push(worker);
        worker.on('message', (reply: SweepWorkerReply) => {
          if (reply.kind === 'failed') {
            reject(new Error(`${cells[reply.cell]!.policy} at ${cells[reply.cell]!.limit}: ${reply.error.message}`));
            return;
          }
          if (reply.kind === 'result') {
            results[reply.cell] = reply.result;
            queue.replayed(reply.cell, reply.result, reply.segments, reply.plan);
            done++;
            options.onProgress?.(done, cells.length);
            if (done === cells.length) resolve();
          }
          worker.postMessage(queue.next());
        });
        worker.on('error', reject);
      }
    });
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return results;
}
