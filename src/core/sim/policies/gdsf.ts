import { CountingCache } from '../cache-policy.ts';
import { IndexedMinHeap } from '../indexed-heap.ts';
import { onGitReadPath, type PolicyDefinition } from '../policy-definition.ts';

/**
 * GreedyDual-Size-Frequency (Cherkasova 1998), a size-aware replacement the delta-base-cache
 * thread listed but never measured. Git's read path and accounting; eviction takes the entry with
 * the lowest priority H = L + frequency × cost / size, where cost is the inflations needed to
 * rebuild the base (its depth + 1) and L rises to the H of each evicted entry (ageing). Frequency
 * counts uses of an id over the whole run, across detach and re-add: a hit of either lookup counts
 * one, and a first add makes it one. Among equal H the entry added first goes (a top-level hit
 * re-keys an entry but keeps its place): the rule of bench/git-patches/gdsf.patch, which
 * git-internals §10 spells out.
 */
export class GdsfCache extends CountingCache {
  private readonly cached: IndexedMinHeap;
  private readonly frequency: Uint32Array;
  private inflation = 0;
  /** Adds so far: an entry's place among equal priorities. */
  private added = 0;

  constructor(
    capacity: number,
    size: Float64Array,
    private readonly depth: Uint32Array,
    limit: number,
  ) {
    super(size, limit);
    this.cached = new IndexedMinHeap(capacity);
    this.frequency = new Uint32Array(capacity);
  }

  serveTopLevel(id: number): boolean {
    if (!this.cached.has(id)) return false;
    this.frequency[id]!++;
    this.cached.set(id, this.priority(id), this.cached.tieOf(id));
    return true;
  }

  takeBase(id: number): boolean {
    if (!this.cached.has(id)) return false;
    this.frequency[id]!++;
    this.cached.remove(id);
    this.usedBytes -= this.size[id]!;
    return true;
  }

  add(id: number): void {
    if (this.cached.has(id)) return;
    if (this.frequency[id] === 0) this.frequency[id] = 1;
    this.usedBytes += this.size[id]!;
    while (this.usedBytes > this.limit && this.cached.size > 0) {
      const victim = this.cached.peek();
      this.inflation = this.cached.keyOf(victim);
      this.cached.remove(victim);
      this.usedBytes -= this.size[victim]!;
      this.evictions++;
    }
    this.cached.set(id, this.priority(id), this.added++);
    this.notePeak();
  }

  private priority(id: number): number {
    const cost = this.depth[id]! + 1;
    return this.inflation + (this.frequency[id]! * cost) / Math.max(1, this.size[id]!);
  }
}

export const gdsfPolicy: PolicyDefinition = {
  name: 'gdsf',
  spec: 'gdsf',
  help: ['GreedyDual-Size-Frequency eviction: frequency x rebuild cost / size, with ageing'],
  referenceBound: false,
  checkedAgainst: 'git 2.55.0 + gdsf.patch',
  cacheLab: 'gdsf',
  make: () =>
    onGitReadPath('GreedyDual-Size-Frequency', (o, _r, limit) => new GdsfCache(o.count, o.size, o.depth, limit)),
};
