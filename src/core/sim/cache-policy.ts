/**
 * A delta base cache as Git's read path uses it (git-internals §1.3–1.5). Git's own LRU and every
 * alternative sit behind this interface, so they run over the same reads with the same counts.
 */
import type { LruList } from './lru-list.ts';

export interface DeltaBaseCache {
  /**
   * cache_or_unpack_entry's lookup of the requested object (§1.3). true: served from the cache as a
   * copy: no trace line, no inflation, and (in Git) no change to the cache.
   */
  serveTopLevel(id: number): boolean;
  /**
   * unpack_entry's phase-1 lookup of one chain element (§1.4). true: this base comes from the cache
   * (Git detaches it: the entry leaves the cache and is re-added after use).
   */
  takeBase(id: number): boolean;
  /** add_delta_base_cache: a base just used to apply a delta is offered to the cache (§1.4 phase 3, §1.5). */
  add(id: number): void;
  /** Called before each top-level read with its index in the recording (offline policies use it). */
  beginRead?(readIndex: number): void;
  readonly evictions: number;
  readonly usedBytes: number;
  readonly peakBytes: number;
}

/**
 * A cache that is Git's LRU in shape (git-internals §1.3–1.5): counted in inflated bytes, the oldest
 * evicted while the total exceeds `limit`, the new entry always kept, a chain hit moving the base to
 * the newest end; bases over `admitMax` are never added (Infinity in Git itself).
 */
export interface LruShape {
  limit: number;
  admitMax: number;
}

/**
 * A cache whose state can be copied and compared: what the bounds for reads a recording may hide
 * need of a policy (hidden-reads.ts), so that they follow every state without knowing whose it is.
 */
export interface BranchingCache extends DeltaBaseCache {
  /** An independent copy, counters included. */
  clone(): BranchingCache;
  /** The same entries in the same order: from here on both behave alike. */
  sameState(other: BranchingCache): boolean;
  /** Equal for caches in the same state (sameState). */
  stateHash(): number;
  /** The most recently added entry, or −1: at limit 0 the one entry Git's cache keeps (§1.5), where a hidden read can only hit. */
  newest(): number;
  /**
   * Whether a read that takes `base` from the cache for its chain and adds it back (§1.4) leaves the
   * state exactly as it was: hidden-reads.ts (d) then adds the read's cost without a fork.
   */
  reusesInPlace(base: number): boolean;
  /**
   * When the cache is Git's LRU in shape (§1.5: evict the oldest while over the limit, keep the new
   * entry): its limit, so that the bounds can follow every state at once when there are too many to
   * follow one by one (cache-envelope.ts). Without it they widen to whole chains instead.
   */
  lruShape?(): LruShape;
}

/**
 * The accounting every cache on Git's read path keeps the same way (§1.5): bytes held (the
 * inflated sizes of the cached bases), their peak, and evictions. A policy extends it and decides
 * only what to keep and what to evict.
 */
export abstract class CountingCache implements DeltaBaseCache {
  usedBytes = 0;
  peakBytes = 0;
  evictions = 0;

  constructor(
    /** Inflated size of each object, by id: what an entry costs. */
    protected readonly size: Float64Array,
    protected readonly limit: number,
  ) {}

  abstract serveTopLevel(id: number): boolean;
  abstract takeBase(id: number): boolean;
  abstract add(id: number): void;

  /** After an add: the peak counts the entry just added (§1.5: added even when it alone exceeds the limit). */
  protected notePeak(): void {
    if (this.usedBytes > this.peakBytes) this.peakBytes = this.usedBytes;
  }

  /**
   * Git's add to its LRU (§1.5), once the entry is to be cached: its bytes counted first, the
   * oldest entries evicted while the total exceeds the limit, then the entry appended as the newest,
   * even when it alone exceeds the limit.
   */
  protected appendEvictingOldest(list: LruList, id: number): void {
    this.usedBytes += this.size[id]!;
    for (let oldest = list.oldest(); oldest >= 0 && this.usedBytes > this.limit; oldest = list.oldest()) {
      list.remove(oldest);
      this.usedBytes -= this.size[oldest]!;
      this.evictions++;
    }
    list.append(id);
    this.notePeak();
  }
}
