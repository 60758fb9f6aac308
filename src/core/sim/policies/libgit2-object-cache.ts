import { OidHashTable } from '../oid-hash-table.ts';
import type { SimObjects } from '../sim-objects.ts';

/**
 * libgit2's ODB object cache (`git_cache`, git-internals §4.1), which sits in front of every
 * backend read and so in front of the pack delta base cache (§4.2).
 *
 * - Keyed by object id; hash = first 4 OID bytes as a little-endian uint32 (`SimObjects.oidPrefix`).
 * - Admission: size < max_object_size[type]; defaults commit/tree/tag 4096, blob 0 (never).
 * - Store: `if (current > max) evict` runs BEFORE the insertion, and only for admissible objects;
 *   then the object is inserted if absent, so storage may end above the cap by one object.
 * - Eviction is not LRU: it removes the first `evict_count` live buckets scanning from bucket 0.
 *   `evict8`: 8 (libgit2 before v0.99.0); `scaled`: max(8, live/2048) (PR #5172, v0.99.0+). In
 *   both, when evict_count exceeds the live entries the whole cache is cleared (the "do not loop
 *   forever" guard).
 * - A hit changes nothing: no reordering.
 * - Each entry is either a raw object (what `git_odb_read` stores) or a parsed one (what
 *   `git_object_lookup` stores after it). A raw lookup (`git_cache_get_raw`) does not see a parsed
 *   entry; `git_cache_get_any` sees both. Storing a parsed object where its raw one is replaces the
 *   entry in place (same bucket, same bytes); storing a raw one where the parsed one is does
 *   nothing. Every store, either kind, first runs the eviction check.
 *
 * Simplification: the key is the simulator's object id. The same OID stored in two packs is two
 * keys here, one key in libgit2 (the caller can dedupe reads to one copy when that matters).
 */
export type ObjectCacheEviction = 'evict8' | 'scaled';

/** What an entry holds (libgit2's GIT_CACHE_STORE_RAW and GIT_CACHE_STORE_PARSED). */
export type CachedKind = 'raw' | 'parsed';

export interface Libgit2ObjectCacheOptions {
  eviction: ObjectCacheEviction;
  /** git_cache__max_storage; the libgit2 replay defaults it to its limit. libgit2's default is 256 MiB. */
  maxStorage?: number;
  /**
   * git_cache__max_object_size: an object is admitted when its size is below the value for its
   * type (§4.1 defaults: 4096 for commit, tree and tag; 0 for blobs, which are never cached).
   */
  maxObjectSize?: { blob: number; commitTreeTag: number };
}

export interface ObjectCacheCounts {
  hits: number;
  /** Objects inserted. */
  stores: number;
  /** Raw entries replaced in place by their parsed object (git_object_lookup after git_odb_read). */
  replacements: number;
  /** Objects removed by evictions (clears included). */
  evictions: number;
  /** cache_evict_entries calls. */
  evictionRuns: number;
  /** Evictions that cleared everything because evict_count exceeded the live entries. */
  clears: number;
  /** Buckets looked at by evictions: the policy's own cost (a clear walks every bucket). */
  evictionBucketsScanned: number;
  peakBytes: number;
  /** Bucket count at the end (the table never shrinks). */
  buckets: number;
}

const DEFAULT_MAX_OBJECT_SIZE = { blob: 0, commitTreeTag: 4096 };
/** §4.1: evict_count = max(8, size / 2048) since v0.99.0; 8 before. */
const MIN_EVICT_COUNT = 8;
const EVICT_DIVISOR = 2048;

export class Libgit2ObjectCache {
  private readonly table: OidHashTable;
  /** Per object id: 1 when its entry holds the parsed object (meaningful while it is in the table). */
  private readonly parsed: Uint8Array;
  private readonly maxStorage: number;
  private readonly maxBlob: number;
  private readonly maxOther: number;
  private readonly eviction: ObjectCacheEviction;
  usedBytes = 0;
  private readonly counts: ObjectCacheCounts = {
    hits: 0,
    stores: 0,
    replacements: 0,
    evictions: 0,
    evictionRuns: 0,
    clears: 0,
    evictionBucketsScanned: 0,
    peakBytes: 0,
    buckets: 0,
  };

  constructor(
    private readonly objects: SimObjects,
    options: Libgit2ObjectCacheOptions & { maxStorage: number },
  ) {
    this.table = new OidHashTable(objects.oidPrefix);
    this.parsed = new Uint8Array(objects.count);
    this.maxStorage = options.maxStorage;
    const limits = options.maxObjectSize ?? DEFAULT_MAX_OBJECT_SIZE;
    this.maxBlob = limits.blob;
    this.maxOther = limits.commitTreeTag;
    this.eviction = options.eviction;
  }

  /** git_cache_get_raw: true on a hit (a raw entry; the read is served, nothing else changes). */
  lookupRaw(id: number): boolean {
    if (!this.table.has(id) || this.parsed[id] === 1) return false;
    this.counts.hits++;
    return true;
  }

  /**
   * git_cache_get_any: the kind of the entry, or undefined. Only a parsed entry serves a
   * git_object_lookup by itself (a raw one is parsed and stored again), so only it counts as a hit.
   */
  lookupAny(id: number): CachedKind | undefined {
    if (!this.table.has(id)) return undefined;
    if (this.parsed[id] === 1) {
      this.counts.hits++;
      return 'parsed';
    }
    return 'raw';
  }

  /** git_cache_store_raw after a backend read (§4.1 "Store"). */
  store(id: number): void {
    this.storeAs(id, 'raw');
  }

  /** cache_store for either kind (§4.1 "Store"). */
  storeAs(id: number, kind: CachedKind): void {
    const size = this.objects.size[id]!;
    // cache_should_store: strictly below the type's maximum.
    if (!(size < (this.objects.isBlob[id] ? this.maxBlob : this.maxOther))) return;
    // §4.1: "if (current_storage > max_storage) evict" before the insertion, for either kind.
    if (this.usedBytes > this.maxStorage) this.evict();
    const parsed = kind === 'parsed' ? 1 : 0;
    if (!this.table.put(id)) {
      // Present: a parsed object takes its raw entry's place; anything else leaves the entry.
      if (parsed === 1 && this.parsed[id] === 0) {
        this.parsed[id] = 1;
        this.counts.replacements++;
      }
      return;
    }
    this.parsed[id] = parsed;
    this.counts.stores++;
    this.usedBytes += size;
    if (this.usedBytes > this.counts.peakBytes) this.counts.peakBytes = this.usedBytes;
  }

  result(): ObjectCacheCounts {
    return { ...this.counts, buckets: this.table.bucketCount };
  }

  /** cache_evict_entries (§4.1). */
  private evict(): void {
    this.counts.evictionRuns++;
    const live = this.table.size;
    let evictCount =
      this.eviction === 'scaled' ? Math.max(MIN_EVICT_COUNT, Math.floor(live / EVICT_DIVISOR)) : MIN_EVICT_COUNT;
    if (evictCount > live) {
      this.clear();
      return;
    }
    // Iterate from bucket 0, removing each live bucket met until evict_count are gone; the
    // iterator's position after the last removal is how far the scan went.
    let position = 0;
    while (evictCount > 0) {
      const bucket = this.table.nextLive(position);
      if (bucket < 0) {
        position = this.table.bucketCount;
        break;
      }
      const id = this.table.keyAt(bucket);
      this.table.deleteAt(bucket);
      this.usedBytes -= this.objects.size[id]!;
      this.counts.evictions++;
      evictCount--;
      position = bucket + 1;
    }
    this.counts.evictionBucketsScanned += position;
  }

  /** clear_cache: nothing when empty; else every bucket is visited to release its entry. */
  private clear(): void {
    const live = this.table.size;
    if (live === 0) return;
    this.counts.clears++;
    this.counts.evictions += live;
    this.counts.evictionBucketsScanned += this.table.bucketCount;
    this.table.clear();
    this.usedBytes = 0;
  }
}
