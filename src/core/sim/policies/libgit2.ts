import { fail } from '../../errors.ts';
import type { SimCounts } from '../cache-policy.ts';
import type { PolicyDefinition } from '../policy-definition.ts';
import type { SimObjects } from '../sim-objects.ts';
import { Libgit2ObjectCache, type Libgit2ObjectCacheOptions, type ObjectCacheCounts } from './libgit2-object-cache.ts';

/**
 * libgit2's read path, `git_packfile_unpack` with its per-pack delta base cache (git-internals
 * §4.2), optionally behind the ODB object cache (§4.1). libgit2 is a different read path, not a
 * policy behind Git's (§1.6) one, so it has its own replay instead of a `DeltaBaseCache`.
 *
 * Per top-level read:
 *   object cache hit                      → served; nothing else happens
 *   chain walk from the requested object, checking the pack's cache at EVERY level (top included);
 *   hit on the requested object itself    → copied; nothing else happens (no inflation)
 *   otherwise: the bottom is either a cache hit (used IN PLACE: it stays cached, no re-add) or the
 *   root, inflated once; then per delta, innermost first: the current base, unless it came from
 *   the cache, is offered to the cache (BEFORE the delta is inflated and applied), then 1 inflation
 *   + 1 delta application. The final result is never cached. Then the object cache may store it.
 *
 * `logged` has no trace to match in libgit2 (there is no GIT_TRACE_PACK_ACCESS). Here it counts the
 * reads that did unpack work: reads served neither by the object cache nor by a pack-cache hit on
 * the requested object itself. Each such read inflates at least once.
 */

/** §4.2 GIT_PACK_CACHE_MEMORY_LIMIT: libgit2's hard-coded per-pack limit. */
export const LIBGIT2_PACK_CACHE_LIMIT = 16 * 1024 * 1024;
/** §4.2 GIT_PACK_CACHE_SIZE_LIMIT: bases with len > 1 MiB are never cached. */
export const LIBGIT2_MAX_CACHED_BASE = 1024 * 1024;

export interface Libgit2ReplayOptions {
  /** Per-pack delta base cache limit (libgit2 hard-codes 16 MiB; sweeps vary it). */
  limit: number;
  /** Put the ODB object cache in front; its storage cap defaults to `limit`. */
  objectCache?: Libgit2ObjectCacheOptions;
}

/**
 * SimCounts as libgit2 sees them: `logged` = reads that did unpack work (see above); `evictions` =
 * pack-cache entries freed by flushes; `peakCacheBytes` = most bytes held by all pack caches
 * together (each pack has its own limit, so this may exceed the limit).
 */
export interface Libgit2Counts extends SimCounts {
  /** Reads served by a pack-cache hit on the requested object (§4.2 step 2, stack_size == 1). */
  packCacheTopHits: number;
  /** Flush-alls (free_lowest_entry frees every entry when single-threaded). */
  flushes: number;
  /** Bases not cached because of the 1 MiB rule, or because alone they exceed the limit. */
  basesNotCached: number;
  /** Buckets the object cache's evictions scanned (0 without an object cache). */
  evictionBucketsScanned: number;
  objectCache: ObjectCacheCounts | undefined;
}

/** One `git_pack_cache` per pack: no order, flushed as a whole. */
class PackBaseCaches {
  readonly cached: Uint8Array;
  private readonly members: number[][];
  private readonly used: Float64Array;
  private totalUsed = 0;
  peakBytes = 0;
  evictions = 0;
  flushes = 0;
  notCached = 0;

  constructor(
    private readonly objects: SimObjects,
    private readonly limit: number,
  ) {
    this.cached = new Uint8Array(objects.count);
    const packs = objects.packBase.length;
    this.members = Array.from({ length: packs }, () => []);
    this.used = new Float64Array(packs);
  }

  /** cache_add (§4.2). */
  add(id: number): void {
    const len = this.objects.size[id]!;
    if (len > LIBGIT2_MAX_CACHED_BASE) {
      this.notCached++;
      return;
    }
    // Only bases that missed are offered, and with one thread nothing else adds in between.
    if (this.cached[id]) return;
    const pack = this.objects.pack[id]!;
    // git-internals §4.2: `while (used + len > limit) free_lowest_entry()`, and free_lowest_entry
    // frees every entry (none is referenced at this point with one thread): flush everything.
    if (this.used[pack]! + len > this.limit) this.flush(pack);
    if (len > this.limit) {
      // Still over with an empty cache: libgit2's while loop would spin forever here. That cannot
      // happen at its own 16 MiB limit (len ≤ 1 MiB), only in a sweep below 1 MiB; treat the base
      // like an over-1-MiB one: used, then freed, never cached.
      this.notCached++;
      return;
    }
    this.cached[id] = 1;
    this.members[pack]!.push(id);
    this.used[pack]! += len;
    this.totalUsed += len;
    if (this.totalUsed > this.peakBytes) this.peakBytes = this.totalUsed;
  }

  private flush(pack: number): void {
    const members = this.members[pack]!;
    if (members.length === 0) return;
    this.flushes++;
    this.evictions += members.length;
    for (const id of members) this.cached[id] = 0;
    members.length = 0;
    this.totalUsed -= this.used[pack]!;
    this.used[pack] = 0;
  }
}

export function replayLibgit2Reads(objects: SimObjects, reads: Int32Array, options: Libgit2ReplayOptions): Libgit2Counts {
  const { base, size, payloadSize } = objects;
  const caches = new PackBaseCaches(objects, options.limit);
  const cached = caches.cached;
  const objectCache = options.objectCache ? new Libgit2ObjectCache(objects, { ...options.objectCache, maxStorage: options.objectCache.maxStorage ?? options.limit }) : undefined;
  let deepest = 0;
  for (let id = 0; id < objects.count; id++) if (objects.depth[id]! > deepest) deepest = objects.depth[id]!;
  const stack = new Int32Array(deepest + 1);
  let logged = 0;
  let packCacheTopHits = 0;
  let inflations = 0;
  let deltaApplications = 0;
  let inflatedBytes = 0;

  for (let r = 0; r < reads.length; r++) {
    const id = reads[r]!;
    if (objectCache?.lookup(id)) continue;
    // pack_dependency_chain: cache_get at every level, the requested object included.
    let depth = 0;
    let current = id;
    let fromCache = false;
    for (;;) {
      if (cached[current]) {
        fromCache = true;
        break;
      }
      const b = base[current]!;
      if (b < 0) break;
      stack[depth++] = current;
      current = b;
    }
    if (fromCache && depth === 0) {
      // §4.2 step 2: the requested object itself was cached: copy it, nothing else.
      packCacheTopHits++;
      objectCache?.store(id);
      continue;
    }
    logged++;
    if (!fromCache) {
      inflations++;
      inflatedBytes += size[current]!;
    }
    let baseId = current;
    let baseFromCache = fromCache;
    while (depth > 0) {
      const delta = stack[--depth]!;
      // §4.2 step 4: offered to the cache before the delta is inflated; a base that came from the
      // cache was used in place and is not re-added.
      if (!baseFromCache) caches.add(baseId);
      inflations++;
      inflatedBytes += payloadSize[delta]!;
      deltaApplications++;
      baseId = delta;
      baseFromCache = false;
    }
    objectCache?.store(id);
  }

  const objectCounts = objectCache?.result();
  return {
    reads: reads.length,
    logged,
    inflations,
    deltaApplications,
    inflatedBytes,
    evictions: caches.evictions,
    peakCacheBytes: caches.peakBytes,
    packCacheTopHits,
    flushes: caches.flushes,
    basesNotCached: caches.notCached,
    evictionBucketsScanned: objectCounts?.evictionBucketsScanned ?? 0,
    objectCache: objectCounts,
  };
}

export const libgit2Policy: PolicyDefinition = {
  name: 'libgit2',
  spec: 'libgit2',
  help: ["libgit2's read path: a cache per pack, bases over 1 MiB never cached, flush all when full (§4.2);", 'the limit is the per-pack cache size (libgit2 itself uses 16m)'],
  referenceBound: false,
  cacheLab: 'libgit2',
  make: () => ({ description: "libgit2's per-pack base cache (§4.2)", run: (o, reads, limit) => replayLibgit2Reads(o, reads, { limit }) }),
};

export const libgit2ObjectCachePolicy: PolicyDefinition = {
  name: 'libgit2-objcache',
  spec: 'libgit2-objcache:evict8|scaled',
  help: [
    "libgit2's object cache (§4.1: commits, trees, tags under 4 KiB; evicts 8, or max(8, n/2048),",
    'buckets in hash order) in front of its 16m pack cache; the limit is the object cache\'s size',
  ],
  referenceBound: false,
  make(argument, spec) {
    if (argument !== 'evict8' && argument !== 'scaled') throw fail('usage', undefined, undefined, `libgit2-objcache needs evict8 or scaled (got "${spec}")`);
    const eviction = argument;
    return {
      description: `libgit2's object cache (${eviction}, §4.1) over its 16m pack cache`,
      run: (o, reads, limit) => replayLibgit2Reads(o, reads, { limit: LIBGIT2_PACK_CACHE_LIMIT, objectCache: { eviction, maxStorage: limit } }),
    };
  },
};
