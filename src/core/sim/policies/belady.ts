import type { DeltaBaseCache } from '../cache-policy.ts';
import { IndexedMinHeap } from '../indexed-heap.ts';

/**
 * Offline furthest-next-use (Belady's MIN) on Git's read path: over the limit, evict the entry
 * whose next use lies furthest in the future; like Git, the new entry itself is always kept. An
 * object's uses are the reads whose chain contains it. With objects of different sizes this is a
 * reference bound, not a proven optimum.
 */
export class BeladyCache implements DeltaBaseCache {
  /** Cached entries keyed by −(next use): the smallest key is the furthest use. */
  private readonly cached: IndexedMinHeap;
  /** Uses of each id: reads (indices) whose chain contains it, ascending, as a CSR table. */
  private readonly useStart: Uint32Array;
  private readonly useList: Uint32Array;
  private readonly useCursor: Uint32Array;
  private now = 0;
  usedBytes = 0;
  peakBytes = 0;
  evictions = 0;

  constructor(
    capacity: number,
    private readonly size: Float64Array,
    private readonly base: Int32Array,
    private readonly reads: Int32Array,
    private readonly limit: number,
  ) {
    this.cached = new IndexedMinHeap(capacity);
    const counts = new Uint32Array(capacity + 1);
    for (let r = 0; r < reads.length; r++) for (let x = reads[r]!; x >= 0; x = base[x]!) counts[x + 1]!++;
    for (let id = 0; id < capacity; id++) counts[id + 1]! += counts[id]!;
    this.useStart = counts;
    this.useList = new Uint32Array(counts[capacity]!);
    const fill = counts.slice(0, capacity);
    for (let r = 0; r < reads.length; r++) for (let x = reads[r]!; x >= 0; x = base[x]!) this.useList[fill[x]!++] = r;
    this.useCursor = counts.slice(0, capacity);
  }

  /**
   * Keys are "first use after now". Moving to read t changes that only for the members of read t's
   * chain (their use at t passes), so re-keying those keeps every key exact.
   */
  beginRead(readIndex: number): void {
    this.now = readIndex;
    for (let x = this.reads[readIndex]!; x >= 0; x = this.base[x]!) {
      if (this.cached.has(x)) this.cached.set(x, -this.nextUse(x));
    }
  }

  /** Index of the first use of `id` after the current read, or Infinity. */
  private nextUse(id: number): number {
    const end = this.useStart[id + 1]!;
    let cursor = this.useCursor[id]!;
    while (cursor < end && this.useList[cursor]! <= this.now) cursor++;
    this.useCursor[id] = cursor;
    return cursor < end ? this.useList[cursor]! : Infinity;
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

  add(id: number): void {
    if (this.cached.has(id)) return;
    this.usedBytes += this.size[id]!;
    while (this.usedBytes > this.limit && this.cached.size > 0) {
      const victim = this.cached.peek();
      this.cached.remove(victim);
      this.usedBytes -= this.size[victim]!;
      this.evictions++;
    }
    this.cached.set(id, -this.nextUse(id));
    if (this.usedBytes > this.peakBytes) this.peakBytes = this.usedBytes;
  }
}
