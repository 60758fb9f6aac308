import { CountingCache } from '../cache-policy.ts';
import { LruList } from '../lru-list.ts';
import { onGitReadPath, type PolicyDefinition } from '../policy-definition.ts';

/**
 * Git's LRU (git-internals §1.6) behind a doorkeeper, one answer to the delta-base-cache thread's
 * "look at which entries are added at all" (git-internals §10): a base is cached only when it is
 * offered to the cache for the second time in the process. The first offer of each base only
 * marks it; an offer of a base already cached is no offer (§1.5's check comes first). Everything
 * else is Git's: the LRU order, eviction while the total exceeds the limit, a chain hit detaching
 * the entry. The rule of bench/git-patches/admit-reused.patch.
 */
export class AdmitReusedCache extends CountingCache {
  private readonly list: LruList;
  private readonly offered: Uint8Array;

  constructor(capacity: number, size: Float64Array, limit: number) {
    super(size, limit);
    this.list = new LruList(capacity);
    this.offered = new Uint8Array(capacity);
  }

  serveTopLevel(id: number): boolean {
    return this.list.has(id);
  }

  takeBase(id: number): boolean {
    if (!this.list.has(id)) return false;
    this.list.remove(id);
    this.usedBytes -= this.size[id]!;
    return true;
  }

  add(id: number): void {
    if (this.list.has(id)) return;
    if (this.offered[id] === 0) {
      this.offered[id] = 1;
      return;
    }
    this.appendEvictingOldest(this.list, id);
  }
}

export const admitReusedPolicy: PolicyDefinition = {
  name: 'admit-reused',
  spec: 'admit-reused',
  help: ["Git's LRU, but a base is cached only when offered a second time (a doorkeeper)"],
  referenceBound: false,
  checkedAgainst: 'git 2.55.0 + admit-reused.patch',
  make: () =>
    onGitReadPath(
      "Git's LRU, bases cached from their second offer",
      (o, _r, limit) => new AdmitReusedCache(o.count, o.size, limit),
    ),
};
