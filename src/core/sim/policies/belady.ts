import { CountingCache } from '../cache-policy.ts';
import { onGitReadPath, type PolicyDefinition } from '../policy-definition.ts';
import { TimeBuckets } from '../time-buckets.ts';

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
  /** Uses of each id: reads (indices) whose chain contains it, ascending, as a CSR table. */
  private readonly useStart: Uint32Array;
  private readonly useList: Uint32Array;
  private readonly useCursor: Uint32Array;
  private readonly never: number;
  private now = 0;
  /** Entries filed under times up to this one have been re-filed after their use passed. */
  private refreshedThrough = -1;

  constructor(capacity: number, size: Float64Array, base: Int32Array, reads: Int32Array, limit: number) {
    super(size, limit);
    this.never = reads.length;
    this.cached = new TimeBuckets(capacity, this.never);
    const counts = new Uint32Array(capacity + 1);
    for (let r = 0; r < reads.length; r++) for (let x = reads[r]!; x >= 0; x = base[x]!) counts[x + 1]!++;
    for (let id = 0; id < capacity; id++) counts[id + 1]! += counts[id]!;
    this.useStart = counts;
    this.useList = new Uint32Array(counts[capacity]!);
    const fill = counts.slice(0, capacity);
    for (let r = 0; r < reads.length; r++) for (let x = reads[r]!; x >= 0; x = base[x]!) this.useList[fill[x]!++] = r;
    this.useCursor = counts.slice(0, capacity);
  }

  beginRead(readIndex: number): void {
    this.now = readIndex;
  }

  /** Index of the first use of `id` after the current read, or `never`. */
  private nextUse(id: number): number {
    const end = this.useStart[id + 1]!;
    let cursor = this.useCursor[id]!;
    while (cursor < end && this.useList[cursor]! <= this.now) cursor++;
    this.useCursor[id] = cursor;
    return cursor < end ? this.useList[cursor]! : this.never;
  }

  /**
   * An entry's time goes stale only when its use passes. Before choosing a victim, re-file every
   * entry filed under a time that has passed; each time is visited once over the whole replay.
   */
  private refreshPassedUses(): void {
    for (let time = this.refreshedThrough + 1; time <= this.now; time++) {
      for (let id = this.cached.first(time); id >= 0; id = this.cached.first(time))
        this.cached.set(id, this.nextUse(id));
    }
    this.refreshedThrough = this.now;
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
    if (this.usedBytes > this.limit) this.refreshPassedUses();
    while (this.usedBytes > this.limit && this.cached.size > 0) {
      const victim = this.cached.first(this.cached.latest());
      this.cached.remove(victim);
      this.usedBytes -= this.size[victim]!;
      this.evictions++;
    }
    // nextUse is after now, hence after every time already refreshed.
    this.cached.set(id, this.nextUse(id));
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
  make: () =>
    onGitReadPath(
      'furthest next use (reference bound)',
      (o, reads, limit) => new BeladyCache(o.count, o.size, o.base, reads, limit),
    ),
};
