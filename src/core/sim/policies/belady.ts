import { CountingCache } from '../cache-policy.ts';
import { onGitReadPath, type PlannedReads, type PolicyDefinition } from '../policy-definition.ts';
import { TimeBuckets } from '../time-buckets.ts';

/**
 * Every read's chain, element by element, with the read that next uses the same object: all a
 * Belady replay needs to know about the future. It depends on the reads, not on the limit, so a
 * sweep builds it once, in shared memory, for the policy's cells at every limit (sweep.ts); a lone
 * replay builds its own. Read indices are per process (segment), as each process replays alone.
 */
export interface NextUses {
  /** Per read of the recording: where its chain's elements start in `next`; one more at the end. */
  chainStart: Uint32Array;
  /** Per object: deltas between it and its root, which is its place in any chain that holds it. */
  hops: Int32Array;
  /**
   * Per chain element of each read, at `chainStart[read] + hops[element]`: the next read of the same
   * process whose chain holds the element, or the process's read count (never).
   */
  next: Int32Array;
}

/** The chain elements a table can index (Uint32Array offsets). */
const MAX_CHAIN_ELEMENTS = 2 ** 32 - 1;

function typed<T extends Int32Array | Uint32Array>(
  Constructor: new (buffer: ArrayBuffer | SharedArrayBuffer) => T,
  length: number,
  shared: boolean,
): T {
  const bytes = length * 4;
  return new Constructor(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
}

/** Deltas between each object and its root, following `base` (each chain walked once). */
function chainHops(base: Int32Array, shared: boolean): Int32Array {
  const hops = typed(Int32Array, base.length, shared).fill(-1);
  const path: number[] = [];
  for (let id = 0; id < base.length; id++) {
    let x = id;
    while (x >= 0 && hops[x]! < 0) {
      path.push(x);
      x = base[x]!;
    }
    let below = x < 0 ? -1 : hops[x]!;
    while (path.length > 0) hops[path.pop()!] = ++below;
  }
  return hops;
}

/**
 * Builds the next-use table of `reads`, whose processes start at `segmentStarts` (ascending, the
 * first 0): one pass forward to place each read's chain, one backward to link each element to its
 * next use. `shared`: in SharedArrayBuffers, for a sweep's worker threads to read in place.
 */
export function buildNextUses(base: Int32Array, reads: Int32Array, segmentStarts: number[], shared: boolean): NextUses {
  const hops = chainHops(base, shared);
  const chainStart = typed(Uint32Array, reads.length + 1, shared);
  let elements = 0;
  for (let r = 0; r < reads.length; r++) {
    chainStart[r] = elements;
    elements += hops[reads[r]!]! + 1;
    if (elements > MAX_CHAIN_ELEMENTS)
      throw new Error(`belady: the reads' chains hold over ${MAX_CHAIN_ELEMENTS} elements, too many to replay`);
  }
  chainStart[reads.length] = elements;
  const next = typed(Int32Array, elements, shared);
  // Per object: its latest use seen so far (going backward), valid when seenIn names this process.
  const seenAt = new Int32Array(base.length);
  const seenIn = new Int32Array(base.length).fill(-1);
  const starts = segmentStarts.length > 0 ? segmentStarts : [0];
  for (let s = starts.length - 1; s >= 0; s--) {
    const first = starts[s]!;
    const end = s + 1 < starts.length ? starts[s + 1]! : reads.length;
    const never = end - first;
    for (let r = end - 1; r >= first; r--) {
      const at = chainStart[r]!;
      const local = r - first;
      for (let x = reads[r]!; x >= 0; x = base[x]!) {
        next[at + hops[x]!] = seenIn[x] === s ? seenAt[x]! : never;
        seenAt[x] = local;
        seenIn[x] = s;
      }
    }
  }
  return { chainStart, hops, next };
}

/**
 * Offline furthest-next-use (Belady's MIN) on Git's read path: over the limit, evict the entry
 * whose next use lies furthest in the future; like Git, the new entry itself is always kept. An
 * object's uses are the reads whose chain contains it. With objects of different sizes this is a
 * reference bound, not a proven optimum.
 */
export class BeladyCache extends CountingCache {
  /**
   * Cached entries filed under their next use (a read index; `reads.length` stands for never):
   * the latest non-empty time holds the furthest uses.
   */
  private readonly cached: TimeBuckets;
  /** This process's reads' places in `next` (NextUses.chainStart from its first read). */
  private readonly chainStart: Uint32Array;
  private readonly hops: Int32Array;
  private readonly next: Int32Array;
  private now = 0;
  /** Entries filed under times up to this one have been re-filed after their use passed. */
  private refreshedThrough = -1;

  /**
   * `uses`: the table of these reads, or of a recording they are the process starting at read
   * `first` of; without one the cache builds its own.
   */
  constructor(
    capacity: number,
    size: Float64Array,
    base: Int32Array,
    reads: Int32Array,
    limit: number,
    uses?: NextUses,
    first = 0,
  ) {
    super(size, limit);
    const table = uses ?? buildNextUses(base, reads, [0], false);
    this.chainStart = table.chainStart.subarray(first, first + reads.length + 1);
    if (this.chainStart.length !== reads.length + 1 || table.hops.length < capacity)
      throw new Error('internal: belady next-use table of other reads');
    this.hops = table.hops;
    this.next = table.next;
    this.cached = new TimeBuckets(capacity, reads.length);
  }

  beginRead(readIndex: number): void {
    this.now = readIndex;
  }

  /** The first read after `time` whose chain holds `id`, which the chain of read `time` holds. */
  private useAfter(time: number, id: number): number {
    return this.next[this.chainStart[time]! + this.hops[id]!]!;
  }

  /**
   * An entry's time goes stale only when its use passes. Before choosing a victim, re-file every
   * entry filed under a time that has passed under its first use after now; each time is visited
   * once over the whole replay.
   */
  private refreshPassedUses(): void {
    const now = this.now;
    for (let time = this.refreshedThrough + 1; time <= now; time++) {
      for (let id = this.cached.first(time); id >= 0; id = this.cached.first(time)) {
        // Filed under `time`, its use: the chain of read `time` holds it.
        let use = this.useAfter(time, id);
        while (use <= now) use = this.useAfter(use, id);
        this.cached.set(id, use);
      }
    }
    this.refreshedThrough = now;
  }

  serveTopLevel(id: number): boolean {
    return this.cached.has(id);
  }

  takeBase(id: number): boolean {
    if (!this.cached.has(id)) return false;
    this.cached.remove(id);
    this.usedBytes -= this.size[id]!;
    return true;
  }

  /** `id` is a base of the current read's chain: the read path offers no other (git-read-path.ts). */
  add(id: number): void {
    if (this.cached.has(id)) return;
    this.usedBytes += this.size[id]!;
    if (this.usedBytes > this.limit) this.refreshPassedUses();
    while (this.usedBytes > this.limit && this.cached.size > 0) {
      const victim = this.cached.first(this.cached.latest());
      this.cached.remove(victim);
      this.usedBytes -= this.size[victim]!;
      this.evictions++;
    }
    // Its next use is after now, hence after every time already refreshed.
    this.cached.set(id, this.useAfter(this.now, id));
    this.notePeak();
  }
}

export const beladyPolicy: PolicyDefinition = {
  name: 'belady',
  spec: 'belady',
  help: ['offline furthest-next-use: a reference bound (not a proven optimum with variable sizes)'],
  referenceBound: true,
  cacheLab: 'belady',
  sweepDefault: true,
  make: () => ({
    ...onGitReadPath(
      'furthest next use (reference bound)',
      (o, reads, limit, planned?: PlannedReads) =>
        new BeladyCache(o.count, o.size, o.base, reads, limit, planned?.plan as NextUses | undefined, planned?.first),
    ),
    planReads: (objects, reads, segmentStarts, shared) => buildNextUses(objects.base, reads, segmentStarts, shared),
  }),
};
