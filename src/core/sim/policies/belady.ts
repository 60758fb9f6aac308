import type { DeltaBaseCache } from '../cache-policy.ts';
import { VersionedMinHeap } from '../min-heap.ts';

/**
 * Offline furthest-next-use (Belady's MIN) on Git's read path: over the limit, evict the entry
 * whose next use lies furthest in the future; like Git, the new entry itself is always kept. An
 * object's uses are the reads whose chain contains it. With objects of different sizes this is a
 * reference bound, not a proven optimum.
 */
export class BeladyCache implements DeltaBaseCache {
  private readonly inCache: Uint8Array;
  private readonly version: Uint32Array;
  /** Uses of each id: reads (indices) whose chain contains it, ascending, as a CSR table. */
  private readonly useStart: Uint32Array;
  private readonly useList: Uint32Array;
  private readonly useCursor: Uint32Array;
  private readonly heap = new VersionedMinHeap();
  private readonly popped = { key: 0 };
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
    this.inCache = new Uint8Array(capacity);
    this.version = new Uint32Array(capacity);
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
   * chain (their use at t passes), so re-keying those keeps every key in the heap exact.
   */
  beginRead(readIndex: number): void {
    this.now = readIndex;
    for (let x = this.reads[readIndex]!; x >= 0; x = this.base[x]!) {
      if (this.inCache[x]) this.reprioritise(x);
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
    if (!this.inCache[id]) return false;
    this.reprioritise(id);
    return true;
  }

  takeBase(id: number): boolean {
    if (!this.inCache[id]) return false;
    this.inCache[id] = 0;
    this.version[id]!++;
    this.usedBytes -= this.size[id]!;
    return true;
  }

  add(id: number): void {
    if (this.inCache[id]) return;
    this.usedBytes += this.size[id]!;
    // Like Git (§1.5) the new entry is always kept; the others go furthest-next-use first.
    while (this.usedBytes > this.limit) {
      const victim = this.heap.popCurrent(this.version, this.popped);
      if (victim < 0) break;
      this.inCache[victim] = 0;
      this.version[victim]!++;
      this.usedBytes -= this.size[victim]!;
      this.evictions++;
    }
    this.inCache[id] = 1;
    this.reprioritise(id);
    if (this.usedBytes > this.peakBytes) this.peakBytes = this.usedBytes;
  }

  private reprioritise(id: number): void {
    this.version[id]!++;
    // A min-heap of −nextUse pops the furthest next use first.
    this.heap.push(-this.nextUse(id), id, this.version[id]!);
  }
}
