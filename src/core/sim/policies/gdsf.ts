import type { DeltaBaseCache } from '../cache-policy.ts';
import { VersionedMinHeap } from '../min-heap.ts';

/**
 * GreedyDual-Size-Frequency (Cherkasova 1998), a size-aware replacement the delta-base-cache
 * thread listed but never measured. Git's read path and accounting; eviction takes the entry with
 * the lowest priority H = L + frequency × cost / size, where cost is the inflations needed to
 * rebuild the base (its depth + 1) and L rises to the H of each evicted entry (ageing). Frequency
 * counts uses of an id over the whole run, across detach and re-add.
 */
export class GdsfCache implements DeltaBaseCache {
  private readonly inCache: Uint8Array;
  private readonly frequency: Uint32Array;
  private readonly version: Uint32Array;
  private readonly heap = new VersionedMinHeap();
  private readonly popped = { key: 0 };
  private inflation = 0;
  usedBytes = 0;
  peakBytes = 0;
  evictions = 0;

  constructor(
    capacity: number,
    private readonly size: Float64Array,
    private readonly depth: Uint32Array,
    private readonly limit: number,
  ) {
    this.inCache = new Uint8Array(capacity);
    this.frequency = new Uint32Array(capacity);
    this.version = new Uint32Array(capacity);
  }

  serveTopLevel(id: number): boolean {
    if (!this.inCache[id]) return false;
    this.frequency[id]!++;
    this.reprioritise(id);
    return true;
  }

  takeBase(id: number): boolean {
    if (!this.inCache[id]) return false;
    this.frequency[id]!++;
    this.inCache[id] = 0;
    this.version[id]!++;
    this.usedBytes -= this.size[id]!;
    return true;
  }

  add(id: number): void {
    if (this.inCache[id]) return;
    if (this.frequency[id] === 0) this.frequency[id] = 1;
    this.usedBytes += this.size[id]!;
    while (this.usedBytes > this.limit) {
      const victim = this.heap.popCurrent(this.version, this.popped);
      if (victim < 0) break;
      this.inflation = this.popped.key;
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
    const cost = this.depth[id]! + 1;
    this.heap.push(this.inflation + (this.frequency[id]! * cost) / Math.max(1, this.size[id]!), id, this.version[id]!);
  }
}
