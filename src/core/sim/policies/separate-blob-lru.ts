import { CountingCache } from '../cache-policy.ts';
import { LruList } from '../lru-list.ts';
import { onGitReadPath, type PolicyDefinition } from '../policy-definition.ts';

/**
 * "Separate blob LRU" (git-internals §3: benchmarked in the commit message of 6d9617f4f7, never
 * merged). Git's read path and accounting, with blobs and other objects in two LRU lists: over the
 * limit, the oldest blob goes first; other objects go only when no blob is left. PackScope's
 * reading of the strategy; the benchmarked patch itself was not published in the spec.
 */
export class SeparateBlobLruCache extends CountingCache {
  private readonly blobs: LruList;
  private readonly others: LruList;

  constructor(
    capacity: number,
    size: Float64Array,
    private readonly isBlob: Uint8Array,
    limit: number,
  ) {
    super(size, limit);
    this.blobs = new LruList(capacity);
    this.others = new LruList(capacity);
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
    onGitReadPath(
      'separate blob LRU, blobs evicted first',
      (o, _r, limit) => new SeparateBlobLruCache(o.count, o.size, o.isBlob, limit),
    ),
};
