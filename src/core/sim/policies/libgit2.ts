import { fail } from '../../errors.ts';
import type { SimCounts } from '../../documents/simulation-documents.ts';
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
 *   + 1 delta application. The final result is never cached. Then the object cache may store it:
 *   git_odb_read stores the raw object; git_object_lookup stores the raw object and then the parsed
 *   one, each store checking the cap first (§4.1), and serves a cached raw object without a pack
 *   read (it parses it and stores the parsed object).
 *
 * `logged` has no trace to match in libgit2 (there is no GIT_TRACE_PACK_ACCESS). Here it counts the
 * reads that did unpack work: reads served neither by the object cache nor by a pack-cache hit on
 * the requested object itself. Each such read inflates at least once.
 */

/** §4.2 GIT_PACK_CACHE_MEMORY_LIMIT: libgit2's hard-coded per-pack limit. */
export const LIBGIT2_PACK_CACHE_LIMIT = 16 * 1024 * 1024;
/** §4.2 GIT_PACK_CACHE_SIZE_LIMIT: bases with len > 1 MiB are never cached. */
export const LIBGIT2_MAX_CACHED_BASE = 1024 * 1024;

/**
 * Which libgit2 call makes each read (§4.1): `git_odb_read` keeps the raw object;
 * `git_object_lookup` looks for any entry, reads through `git_odb_read` on a miss and then keeps
 * the parsed object too: two stores per miss, each of which may evict first.
 */
export type Libgit2ReadCall = 'odb-read' | 'object-lookup';

export interface Libgit2ReplayOptions {
  /** Per-pack delta base cache limit (libgit2 compiles in 16 MiB; only the what-if policy varies it). */
  limit: number;
  /** Put the ODB object cache in front; its storage cap defaults to `limit`. */
  objectCache?: Libgit2ObjectCacheOptions;
  /** Default `odb-read`; only the object cache tells the two apart. */
  readCall?: Libgit2ReadCall;
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

/** After a pack read: git_odb_read stores the raw object; git_object_lookup then stores the parsed one. */
function storeRead(objectCache: Libgit2ObjectCache | undefined, id: number, lookup: boolean): void {
  if (objectCache === undefined) return;
  objectCache.storeAs(id, 'raw');
  if (lookup) objectCache.storeAs(id, 'parsed');
}

// Stays long: the replay's hot loop, one read at a time through both caches; its counters are locals for speed.
export function replayLibgit2Reads(
  objects: SimObjects,
  reads: Int32Array,
  options: Libgit2ReplayOptions,
): Libgit2Counts {
  const { base, size, payloadSize } = objects;
  const caches = new PackBaseCaches(objects, options.limit);
  const cached = caches.cached;
  const objectCache = options.objectCache
    ? new Libgit2ObjectCache(objects, {
        ...options.objectCache,
        maxStorage: options.objectCache.maxStorage ?? options.limit,
      })
    : undefined;
  const lookup = options.readCall === 'object-lookup';
  let deepest = 0;
  for (let id = 0; id < objects.count; id++) if (objects.depth[id]! > deepest) deepest = objects.depth[id]!;
  const stack = new Int32Array(deepest + 1);
  let logged = 0;
  let packCacheTopHits = 0;
  let inflations = 0;
  let deltaApplications = 0;
  let inflatedBytes = 0;
  let appliedBytes = 0;

  for (let r = 0; r < reads.length; r++) {
    const id = reads[r]!;
    if (objectCache !== undefined) {
      if (!lookup) {
        if (objectCache.lookupRaw(id)) continue;
      } else {
        const kind = objectCache.lookupAny(id);
        if (kind === 'parsed') continue;
        if (kind === 'raw') {
          // git_object_lookup found the raw object (a git_odb_read's): it parses that, no pack read.
          objectCache.storeAs(id, 'parsed');
          continue;
        }
        // A miss: git_odb_read's own raw lookup cannot find it either, so the pack is read below.
      }
    }
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
      storeRead(objectCache, id, lookup);
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
      appliedBytes += size[delta]!;
      deltaApplications++;
      baseId = delta;
      baseFromCache = false;
    }
    storeRead(objectCache, id, lookup);
  }

  const objectCounts = objectCache?.result();
  return {
    reads: reads.length,
    logged,
    inflations,
    deltaApplications,
    inflatedBytes,
    appliedBytes,
    evictions: caches.evictions,
    peakCacheBytes: caches.peakBytes,
    packCacheTopHits,
    flushes: caches.flushes,
    basesNotCached: caches.notCached,
    evictionBucketsScanned: objectCounts?.evictionBucketsScanned ?? 0,
    objectCache: objectCounts,
  };
}

/**
 * §4.1 git_cache__max_storage's default: the object cache size applications run with unless they
 * call git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE).
 */
export const LIBGIT2_OBJECT_CACHE_DEFAULT = 256 * 1024 * 1024;

/**
 * libgit2 as applications get it (§8.2 measured it against Debian's libgit2 1.5.1): the object
 * cache on at its 256 MiB default with the max(8, n/2048) eviction of v0.99.0+, in front of the
 * pack cache at its compile-time 16 MiB. Neither size is something a swept limit can stand for,
 * so this line ignores the limit: it is flat, as libgit2 is.
 */
export const libgit2Policy: PolicyDefinition = {
  name: 'libgit2',
  spec: 'libgit2[:as-shipped|lookup]',
  help: [
    'libgit2 as shipped: its object cache on at 256m (§4.1, max(8, n/2048) eviction) over its 16m',
    'per-pack base cache (§4.2, a compile-time constant); the limit does not apply (a flat line);',
    ':lookup reads through git_object_lookup (raw, then parsed, stored) instead of git_odb_read',
  ],
  referenceBound: false,
  // The Cache Lab shows specs as its labels: this one says which libgit2 its line is.
  cacheLab: 'libgit2:as-shipped',
  make(argument, spec) {
    if (argument !== undefined && argument !== 'as-shipped' && argument !== 'lookup')
      throw fail(
        'usage',
        undefined,
        undefined,
        `libgit2 takes no argument but as-shipped or lookup (got "${spec}"; the pack cache at the limit is libgit2-pack-whatif)`,
      );
    const readCall: Libgit2ReadCall = argument === 'lookup' ? 'object-lookup' : 'odb-read';
    return {
      description: `libgit2 as shipped, read through ${readCall === 'object-lookup' ? 'git_object_lookup' : 'git_odb_read'}: object cache on at 256m over the 16m pack cache (§4.1, §4.2); the limit does not apply`,
      run: (o, reads) =>
        replayLibgit2Reads(o, reads, {
          limit: LIBGIT2_PACK_CACHE_LIMIT,
          objectCache: { eviction: 'scaled', maxStorage: LIBGIT2_OBJECT_CACHE_DEFAULT },
          readCall,
        }),
    };
  },
};

/**
 * The pack cache alone at the swept limit. libgit2 compiles its limit in (GIT_PACK_CACHE_MEMORY_LIMIT),
 * so every limit but 16m is a what-if no released libgit2 runs; at 16m this is libgit2 with its
 * object cache turned off (GIT_OPT_ENABLE_CACHING 0). Until this row existed `libgit2` meant this.
 */
export const libgit2PackWhatIfPolicy: PolicyDefinition = {
  name: 'libgit2-pack-whatif',
  spec: 'libgit2-pack-whatif',
  help: [
    "what-if: libgit2's per-pack base cache (§4.2: bases over 1 MiB never cached, flush all when full)",
    'at the limit, object cache off; libgit2 compiles in 16m, so only 16m is a libgit2 that runs',
  ],
  referenceBound: false,
  make: () => ({
    description:
      "what-if: libgit2's per-pack base cache at the limit (libgit2 compiles in 16m), object cache off (§4.2)",
    run: (o, reads, limit) => replayLibgit2Reads(o, reads, { limit }),
  }),
};

/** The object cache at the swept limit (an application's GIT_OPT_SET_CACHE_MAX_SIZE) over the 16m pack cache. */
export const libgit2ObjectCachePolicy: PolicyDefinition = {
  name: 'libgit2-objcache',
  spec: 'libgit2-objcache:evict8|scaled[:lookup]',
  help: [
    "libgit2's object cache at the limit (GIT_OPT_SET_CACHE_MAX_SIZE; §4.1: commits, trees, tags under",
    '4 KiB; evicts 8 (before v0.99.0) or max(8, n/2048) buckets in hash order) over its 16m pack cache;',
    'reads through git_odb_read, or with :lookup through git_object_lookup (raw, then parsed, stored)',
  ],
  referenceBound: false,
  make(argument, spec) {
    const [eviction, call, ...rest] = (argument ?? '').split(':');
    if ((eviction !== 'evict8' && eviction !== 'scaled') || (call !== undefined && call !== 'lookup') || rest.length)
      throw fail(
        'usage',
        undefined,
        undefined,
        `libgit2-objcache needs evict8 or scaled, then optionally :lookup (got "${spec}")`,
      );
    const readCall: Libgit2ReadCall = call === 'lookup' ? 'object-lookup' : 'odb-read';
    return {
      description: `libgit2's object cache (${eviction}, §4.1) at the limit over its 16m pack cache, read through ${readCall === 'object-lookup' ? 'git_object_lookup' : 'git_odb_read'}`,
      run: (o, reads, limit) =>
        replayLibgit2Reads(o, reads, {
          limit: LIBGIT2_PACK_CACHE_LIMIT,
          objectCache: { eviction, maxStorage: limit },
          readCall,
        }),
    };
  },
};
