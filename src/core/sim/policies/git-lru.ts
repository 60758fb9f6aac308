import { fail } from '../../errors.ts';
import { parseGitSize } from '../../../common/git-size.ts';
import { CountingCache, type BranchingCache, type LruShape } from '../cache-policy.ts';
import { LruList } from '../lru-list.ts';
import { onGitReadPathBranching, type PolicyDefinition } from '../policy-definition.ts';

export interface GitLruOptions {
  /** admit-max:SIZE — bases larger than this are not cached (an idea from the delta-base-cache thread). */
  admitMax?: number;
  /** keep-on-hit — a chain hit keeps the entry (refreshed to most recent) instead of detaching it. */
  keepOnHit?: boolean;
}

/**
 * Git's delta base cache since v2.11 (git-internals §1.2–1.5): one LRU over (pack, offset),
 * counted in inflated bytes; top-level hits change nothing; a chain hit detaches the entry; every
 * base used is re-added at the most recent end; evict oldest while the total exceeds the limit; the
 * new entry is always added, even when it alone exceeds the limit.
 */
export class GitLruCache extends CountingCache implements BranchingCache {
  private readonly list: LruList;
  private readonly admitMax: number;
  private readonly keepOnHit: boolean;

  constructor(capacity: number, size: Float64Array, limit: number, options: GitLruOptions = {}, list?: LruList) {
    super(size, limit);
    this.list = list ?? new LruList(capacity);
    this.admitMax = options.admitMax ?? Infinity;
    this.keepOnHit = options.keepOnHit ?? false;
  }

  serveTopLevel(id: number): boolean {
    return this.list.has(id);
  }

  /** An independent copy of this cache, counters included (hidden-reads.ts follows several states). */
  clone(): GitLruCache {
    const copy = new GitLruCache(
      0,
      this.size,
      this.limit,
      { admitMax: this.admitMax, keepOnHit: this.keepOnHit },
      this.list.copy(),
    );
    copy.usedBytes = this.usedBytes;
    copy.peakBytes = this.peakBytes;
    copy.evictions = this.evictions;
    return copy;
  }

  /** The same entries in the same LRU order: from here on both behave alike. */
  sameState(other: BranchingCache): boolean {
    return other instanceof GitLruCache && this.list.sameOrder(other.list);
  }

  stateHash(): number {
    return this.list.orderHash();
  }

  /** The most recently added entry, or −1: the one entry a limit-0 cache keeps (§1.5). */
  newest(): number {
    return this.list.newest();
  }

  /** A chain hit detaches the base and re-adds it at the most recent end: in place when it is the newest (§1.4, §1.5). */
  reusesInPlace(base: number): boolean {
    return this.list.newest() === base;
  }

  /**
   * An LRU of `limit` bytes on Git's read path. keep-on-hit moves a chain hit to the newest end as
   * Git's detach and re-add does, at the same point of the read and with the same total (§1.4), so
   * its states are Git's.
   */
  lruShape(): LruShape {
    return { limit: this.limit, admitMax: this.admitMax };
  }

  takeBase(id: number): boolean {
    if (!this.list.has(id)) return false;
    this.list.remove(id);
    if (this.keepOnHit) {
      this.list.append(id);
    } else {
      this.usedBytes -= this.size[id]!;
    }
    return true;
  }

  add(id: number): void {
    // §1.5: "if (in_delta_base_cache(p, base_offset)) { free(base); return; }"
    if (this.list.has(id)) return;
    if (this.size[id]! > this.admitMax) return;
    this.appendEvictingOldest(this.list, id);
  }
}

export const gitPolicy: PolicyDefinition = {
  name: 'git',
  spec: 'git',
  help: ["Git's delta base cache today: one LRU, evict oldest while over the limit (git-internals §1.6)"],
  referenceBound: false,
  checkedAgainst: 'git 2.55.0',
  cacheLab: 'git',
  sweepDefault: true,
  make: () => onGitReadPathBranching("Git's LRU (§1.6)", (o, _r, limit) => new GitLruCache(o.count, o.size, limit)),
};

export const admitMaxPolicy: PolicyDefinition = {
  name: 'admit-max',
  spec: 'admit-max:SIZE',
  help: ["Git's LRU, but bases larger than SIZE (e.g. 1m) are not cached"],
  referenceBound: false,
  checkedAgainst: 'git 2.55.0 + admit-max.patch',
  cacheLab: 'admit-max:1m',
  make(argument, spec) {
    const max = argument === undefined ? undefined : parseGitSize(argument);
    if (max === undefined)
      throw fail('usage', undefined, undefined, `admit-max needs a size, e.g. admit-max:1m (got "${spec}")`);
    return onGitReadPathBranching(
      `Git's LRU, bases over ${argument} not cached`,
      (o, _r, limit) => new GitLruCache(o.count, o.size, limit, { admitMax: max }),
    );
  },
};

export const keepOnHitPolicy: PolicyDefinition = {
  name: 'keep-on-hit',
  spec: 'keep-on-hit',
  help: ["Git's LRU, but a chain hit keeps the entry (refreshed) instead of detaching it"],
  referenceBound: false,
  checkedAgainst: 'git 2.55.0 + keep-on-hit.patch',
  cacheLab: 'keep-on-hit',
  make: () =>
    onGitReadPathBranching(
      "Git's LRU, chain hits kept and refreshed",
      (o, _r, limit) => new GitLruCache(o.count, o.size, limit, { keepOnHit: true }),
    ),
};
