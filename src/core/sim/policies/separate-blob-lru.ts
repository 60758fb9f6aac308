import { CountingCache, type BranchingCache } from '../cache-policy.ts';
import { LruList } from '../lru-list.ts';
import { onGitReadPathBranching, type PolicyDefinition } from '../policy-definition.ts';

/**
 * "Separate blob LRU" (git-internals §3: benchmarked in the commit message of 6d9617f4f7, never
 * merged). Git's read path and accounting, with blobs and other objects in two LRU lists: over the
 * limit, the oldest blob goes first; other objects go only when no blob is left. PackScope's
 * reading of the strategy (the benchmarked patch itself was not published), and the rule of
 * bench/git-patches/separate-blob-lru.patch (git-internals §10).
 *
 * Its cells get the bounds of hidden-reads.ts, whose argument holds here as for git's LRU: a
 * top-level hit changes nothing; the new entry is always kept (appended after eviction), so a read
 * of c_r after a hidden miss finds c_r's base cached; and a base that is the newest of its own list
 * goes back where it was when detached and re-added, with nothing evicted (the total is back where
 * it was: within the limit, or one lone entry larger than it).
 */
export class SeparateBlobLruCache extends CountingCache implements BranchingCache {
  private readonly blobs: LruList;
  private readonly others: LruList;
  /** Whether the last add went to the blob list (newest). */
  private lastAddedBlob = false;

  constructor(
    capacity: number,
    size: Float64Array,
    private readonly isBlob: Uint8Array,
    limit: number,
    lists?: { blobs: LruList; others: LruList },
  ) {
    super(size, limit);
    this.blobs = lists?.blobs ?? new LruList(capacity);
    this.others = lists?.others ?? new LruList(capacity);
  }

  clone(): SeparateBlobLruCache {
    const copy = new SeparateBlobLruCache(0, this.size, this.isBlob, this.limit, {
      blobs: this.blobs.copy(),
      others: this.others.copy(),
    });
    copy.usedBytes = this.usedBytes;
    copy.peakBytes = this.peakBytes;
    copy.evictions = this.evictions;
    copy.lastAddedBlob = this.lastAddedBlob;
    return copy;
  }

  sameState(other: BranchingCache): boolean {
    return (
      other instanceof SeparateBlobLruCache && this.blobs.sameOrder(other.blobs) && this.others.sameOrder(other.others)
    );
  }

  stateHash(): number {
    return (Math.imul(this.blobs.orderHash(), 31) ^ this.others.orderHash()) | 0;
  }

  /**
   * The newest entry of the list the last add went to, or of the other when that one is empty: at
   * limit 0 the one entry kept. (hidden-reads.ts asks it of the recording's cache, git's own.)
   */
  newest(): number {
    const blob = this.blobs.newest();
    const other = this.others.newest();
    return blob < 0 ? other : other < 0 ? blob : this.lastAddedBlob ? blob : other;
  }

  /** A chain hit on `base` detaches it and re-adds it at the end of its own list: in place when it is that list's newest. */
  reusesInPlace(base: number): boolean {
    return this.listOf(base).newest() === base;
  }

  private listOf(id: number): LruList {
    return this.isBlob[id] ? this.blobs : this.others;
  }

  serveTopLevel(id: number): boolean {
    return this.listOf(id).has(id);
  }

  takeBase(id: number): boolean {
    const list = this.listOf(id);
    if (!list.has(id)) return false;
    list.remove(id);
    this.usedBytes -= this.size[id]!;
    return true;
  }

  add(id: number): void {
    const list = this.listOf(id);
    if (list.has(id)) return;
    this.usedBytes += this.size[id]!;
    while (this.usedBytes > this.limit) {
      const victimList = this.blobs.size > 0 ? this.blobs : this.others;
      const victim = victimList.oldest();
      if (victim < 0) break;
      victimList.remove(victim);
      this.usedBytes -= this.size[victim]!;
      this.evictions++;
    }
    list.append(id);
    this.lastAddedBlob = list === this.blobs;
    this.notePeak();
  }
}

export const separateBlobLruPolicy: PolicyDefinition = {
  name: 'separate-blob-lru',
  spec: 'separate-blob-lru',
  help: ['blobs and other objects in separate LRUs, blobs evicted first (benchmarked in 2016, never merged)'],
  referenceBound: false,
  checkedAgainst: 'git 2.55.0 + separate-blob-lru.patch',
  cacheLab: 'separate-blob-lru',
  make: () =>
    onGitReadPathBranching(
      'separate blob LRU, blobs evicted first',
      (o, _r, limit) => new SeparateBlobLruCache(o.count, o.size, o.isBlob, limit),
    ),
};
