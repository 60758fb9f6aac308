import { CountingCache } from '../cache-policy.ts';
import { IndexedMinHeap } from '../indexed-heap.ts';
import { onGitReadPath, type PolicyDefinition } from '../policy-definition.ts';

/**
 * Git's read path and accounting (git-internals §1.2–1.5) with a size-first victim: while the total
 * exceeds the limit, evict the largest cached base, and among bases of one size the one Git's LRU
 * would take (the oldest: Git only ever appends, a chain hit detaches and re-adds). This is the
 * SIZE rule of web-cache replacement: one large base frees the room of many small ones, which
 * are as cheap to rebuild per read.
 *
 * Each distinct size keeps its cached ids in a list, oldest first; the heap holds the oldest id
 * of each size keyed by minus its size, so its top is the victim.
 */
export class LruBySizeCache extends CountingCache {
  private readonly oldestOfEachSize: IndexedMinHeap;
  private readonly newestOfSize = new Map<number, number>();
  /** The size list's links; −1 ends a list. */
  private readonly older: Int32Array;
  private readonly newer: Int32Array;
  private readonly cached: Uint8Array;

  constructor(capacity: number, size: Float64Array, limit: number) {
    super(size, limit);
    this.oldestOfEachSize = new IndexedMinHeap(capacity);
    this.older = new Int32Array(capacity);
    this.newer = new Int32Array(capacity);
    this.cached = new Uint8Array(capacity);
  }

  serveTopLevel(id: number): boolean {
    return this.cached[id] === 1;
  }

  takeBase(id: number): boolean {
    if (this.cached[id] !== 1) return false;
    this.detach(id);
    return true;
  }

  add(id: number): void {
    // §1.5: a base already cached is not added twice.
    if (this.cached[id] === 1) return;
    this.usedBytes += this.size[id]!; // counted before eviction (§1.5)
    while (this.usedBytes > this.limit && this.oldestOfEachSize.size > 0) {
      this.detach(this.oldestOfEachSize.peek());
      this.evictions++;
    }
    this.append(id);
    this.notePeak();
  }

  /** Adds `id` as the newest of its size; its bytes are already counted. */
  private append(id: number): void {
    const bytes = this.size[id]!;
    const newest = this.newestOfSize.get(bytes);
    this.cached[id] = 1;
    this.newer[id] = -1;
    this.older[id] = newest ?? -1;
    if (newest === undefined) this.oldestOfEachSize.set(id, -bytes);
    else this.newer[newest] = id;
    this.newestOfSize.set(bytes, id);
  }

  /** Takes `id` out of the cache and out of its size's list. */
  private detach(id: number): void {
    const bytes = this.size[id]!;
    const older = this.older[id]!;
    const newer = this.newer[id]!;
    this.cached[id] = 0;
    this.usedBytes -= bytes;
    if (older >= 0) {
      this.newer[older] = newer;
    } else {
      this.oldestOfEachSize.remove(id);
      if (newer >= 0) this.oldestOfEachSize.set(newer, -bytes);
    }
    if (newer >= 0) this.older[newer] = older;
    else if (older >= 0) this.newestOfSize.set(bytes, older);
    else this.newestOfSize.delete(bytes);
  }
}

export const lruBySizePolicy: PolicyDefinition = {
  name: 'lru-by-size',
  spec: 'lru-by-size',
  help: ["Git's read path, but over the limit the largest cached base goes first (LRU among equals)"],
  referenceBound: false,
  checkedAgainst: 'git 2.55.0 + lru-by-size.patch',
  make: () =>
    onGitReadPath(
      "Git's read path, largest base evicted first",
      (o, _r, limit) => new LruBySizeCache(o.count, o.size, limit),
    ),
};
