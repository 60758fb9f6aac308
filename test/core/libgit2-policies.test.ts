import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { OidHashTable } from '../../src/core/sim/oid-hash-table.ts';
import {
  LIBGIT2_MAX_CACHED_BASE,
  replayLibgit2Reads,
  type Libgit2Counts,
} from '../../src/core/sim/policies/libgit2.ts';
import { Libgit2ObjectCache } from '../../src/core/sim/policies/libgit2-object-cache.ts';
import { simObjectsFrom, type SimObjects } from '../../src/core/sim/sim-objects.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

interface ObjectSpec {
  /** Inflated size. */
  size: number;
  /** Index of the delta base in the spec list. */
  base?: number;
  /** Delta payload size (defaults to 10 for deltas). */
  payload?: number;
  pack?: number;
  /** Default true: blobs never enter the object cache, so pack-cache tests are not disturbed. */
  blob?: boolean;
  /** OID prefix hash (defaults to the index). */
  hash?: number;
}

/** Hand-built SimObjects; packs must be listed in ascending order. */
function simObjects(specs: ObjectSpec[]): SimObjects {
  const count = specs.length;
  const packBase: number[] = [];
  const objects: SimObjects = {
    count,
    packBase,
    pack: new Uint32Array(count),
    offset: new Float64Array(count),
    base: new Int32Array(count),
    size: new Float64Array(count),
    payloadSize: new Float64Array(count),
    isBlob: new Uint8Array(count),
    depth: new Uint32Array(count),
    oidPrefix: new Uint32Array(count),
  };
  specs.forEach((spec, id) => {
    const pack = spec.pack ?? 0;
    while (packBase.length <= pack) packBase.push(id);
    objects.pack[id] = pack;
    objects.offset[id] = 12 + (id - packBase[pack]!) * 100;
    objects.base[id] = spec.base ?? -1;
    objects.size[id] = spec.size;
    objects.payloadSize[id] = spec.base === undefined ? spec.size : (spec.payload ?? 10);
    objects.isBlob[id] = spec.blob === false ? 0 : 1;
    objects.oidPrefix[id] = spec.hash ?? id;
  });
  for (let id = 0; id < count; id++) {
    let depth = 0;
    for (let x = objects.base[id]!; x >= 0; x = objects.base[x]!) depth++;
    objects.depth[id] = depth;
  }
  return objects;
}

const reads = (...ids: number[]): Int32Array => Int32Array.from(ids);

type Core = Pick<Libgit2Counts, 'logged' | 'inflations' | 'deltaApplications' | 'evictions' | 'packCacheTopHits'>;
function core(counts: Libgit2Counts): Core {
  const { logged, inflations, deltaApplications, evictions, packCacheTopHits } = counts;
  return { logged, inflations, deltaApplications, evictions, packCacheTopHits };
}

// A(1000) ← A1(1002) ← A2(1004); B(1000) ← B1; C(1000) ← C1.
const A = 0;
const A1 = 1;
const A2 = 2;
const B = 3;
const B1 = 4;
const C = 5;
const C1 = 6;
const chains = (): SimObjects =>
  simObjects([
    { size: 1000 },
    { size: 1002, base: A, payload: 20 },
    { size: 1004, base: A1, payload: 30 },
    { size: 1000 },
    { size: 1001, base: B },
    { size: 1000 },
    { size: 1001, base: C },
  ]);

test('libgit2 pack cache: every base on the chain is cached, a chain hit is used in place, a top-level hit copies', () => {
  const objects = chains();
  const first = replayLibgit2Reads(objects, reads(A2), { limit: 16 << 20 });
  assert.deepEqual(core(first), { logged: 1, inflations: 3, deltaApplications: 2, evictions: 0, packCacheTopHits: 0 });
  assert.equal(first.inflatedBytes, 1000 + 20 + 30);
  assert.equal(first.peakCacheBytes, 1000 + 1002, 'A and A1 cached; the result A2 is not');

  // A2 again: the walk stops at A1 (cached), applies one delta; A1 stays cached (in place, not re-added).
  // Then A1 and A: top-level hits, nothing inflated, not logged. Then A2 once more: A1 is still there.
  const counts = replayLibgit2Reads(objects, reads(A2, A2, A1, A, A2), { limit: 16 << 20 });
  assert.deepEqual(core(counts), {
    logged: 3,
    inflations: 3 + 1 + 1,
    deltaApplications: 2 + 1 + 1,
    evictions: 0,
    packCacheTopHits: 2,
  });
  assert.equal(counts.peakCacheBytes, 2002);
});

test('libgit2 pack cache: flush everything when used + len > limit; equal to the limit is kept', () => {
  const objects = chains();
  // limit 2500: A, B cached (2000); C would make 3000 → flush both, then C.
  const flushed = replayLibgit2Reads(objects, reads(A1, B1, C1, A1, B1), { limit: 2500 });
  // A1 after the flush misses A again (2 inflations); adding A (1000) to {C} fits; B1 then flushes.
  assert.deepEqual(core(flushed), {
    logged: 5,
    inflations: 10,
    deltaApplications: 5,
    evictions: 2 + 2,
    packCacheTopHits: 0,
  });
  assert.equal(flushed.flushes, 2);
  assert.equal(flushed.peakCacheBytes, 2000);
  // Git's LRU (§1.5) would have evicted only A at C1; here B went too: B1 costs 2 inflations.
  const exact = replayLibgit2Reads(objects, reads(A1, B1, C1, A1, B1, C1), { limit: 3000 });
  assert.deepEqual(core(exact), {
    logged: 6,
    inflations: 6 + 3,
    deltaApplications: 6,
    evictions: 0,
    packCacheTopHits: 0,
  });
  assert.equal(exact.peakCacheBytes, 3000);
});

test('libgit2 pack cache: bases over 1 MiB are never cached; exactly 1 MiB is', () => {
  const objects = simObjects([
    { size: LIBGIT2_MAX_CACHED_BASE + 1 },
    { size: 10, base: 0 },
    { size: LIBGIT2_MAX_CACHED_BASE },
    { size: 10, base: 2 },
  ]);
  const counts = replayLibgit2Reads(objects, reads(1, 1, 3, 3), { limit: 16 << 20 });
  assert.deepEqual(core(counts), {
    logged: 4,
    inflations: 2 + 2 + 2 + 1,
    deltaApplications: 4,
    evictions: 0,
    packCacheTopHits: 0,
  });
  assert.equal(counts.basesNotCached, 2);
  assert.equal(counts.peakCacheBytes, LIBGIT2_MAX_CACHED_BASE);
  assert.equal(counts.inflatedBytes, 2 * (LIBGIT2_MAX_CACHED_BASE + 1) + LIBGIT2_MAX_CACHED_BASE + 4 * 10);
});

test('libgit2 pack cache: a base larger than the limit flushes, is not cached, and does not hang', () => {
  const objects = chains();
  // limit 1001: A1 (1002) can never fit. libgit2 itself would loop forever there (possible only below 1 MiB).
  const counts = replayLibgit2Reads(objects, reads(B1, A2, A2), { limit: 1001 });
  // B1: B cached (1000 ≤ 1001). A2: A offered → 2000 > 1001 → flush B; A cached;
  // A1 (1002 > 1001) → flush A, A1 not cached. Second A2 walks to the root again.
  assert.deepEqual(core(counts), {
    logged: 3,
    inflations: 2 + 3 + 3,
    deltaApplications: 1 + 2 + 2,
    evictions: 1 + 1 + 1,
    packCacheTopHits: 0,
  });
  assert.equal(counts.basesNotCached, 2);
  assert.equal(counts.flushes, 3);
});

test('libgit2 pack cache: one cache per pack, each with the whole limit', () => {
  // The same shapes in two packs: A ← A1 in pack 0, B ← B1 in pack 1.
  const objects = simObjects([
    { size: 1000 },
    { size: 1001, base: 0 },
    { size: 1000, pack: 1 },
    { size: 1001, base: 2, pack: 1 },
  ]);
  assert.deepEqual(objects.packBase, [0, 2]);
  const counts = replayLibgit2Reads(objects, reads(1, 3, 1, 3), { limit: 1500 });
  // A global cache of 1500 would flush A when B arrives; per pack both stay: the rereads apply one delta each.
  assert.deepEqual(core(counts), {
    logged: 4,
    inflations: 2 + 2 + 1 + 1,
    deltaApplications: 4,
    evictions: 0,
    packCacheTopHits: 0,
  });
  assert.equal(counts.peakCacheBytes, 2000, 'peak over all packs together');
  // A chain in pack 1 never flushes pack 0's cache.
  const other = replayLibgit2Reads(
    simObjects([
      { size: 1000 },
      { size: 1001, base: 0 },
      { size: 1400, pack: 1 },
      { size: 10, base: 2, pack: 1 },
      { size: 1000, pack: 1 },
      { size: 10, base: 4, pack: 1 },
    ]),
    reads(1, 3, 5, 1),
    { limit: 1500 },
  );
  assert.equal(other.flushes, 1, 'pack 1 flushed once');
  assert.equal(other.inflations, 2 + 2 + 2 + 1, 'A still cached for the last read');
});

test('libgit2 pack cache: a chain hit below the top adds only the bases built above it', () => {
  const objects = simObjects([{ size: 100 }, { size: 110, base: 0 }, { size: 120, base: 1 }, { size: 130, base: 2 }]);
  // Read 1: caches 0. Read 3: stops at 0 (in place), builds 1 and 2 (both added), applies 3 deltas.
  const counts = replayLibgit2Reads(objects, reads(1, 3, 2), { limit: 16 << 20 });
  assert.deepEqual(core(counts), {
    logged: 2,
    inflations: 2 + 3,
    deltaApplications: 1 + 3,
    evictions: 0,
    packCacheTopHits: 1,
  });
  assert.equal(counts.peakCacheBytes, 100 + 110 + 120);
});

test('OidHashTable: 4 buckets first, triangular probing, doubling with kick-out', () => {
  // ids 0, 1, 2 all hash to 3; id 3 hashes to 0.
  const table = new OidHashTable(Uint32Array.from([3, 3, 3, 0]));
  table.put(0);
  table.put(1);
  table.put(2);
  assert.equal(table.bucketCount, 4);
  // Probe 3, then (3+1)&3 = 0, then (0+2)&3 = 2.
  assert.deepEqual([table.find(0), table.find(1), table.find(2)], [3, 0, 2]);
  // occupied 3 = floor(4 × 0.77 + 0.5): the next put grows (4 ≤ 2 × 3) to 8. The rebuild walks old
  // buckets in order: 1 (bucket 0) lands on 3 and kicks out 0 (still in old bucket 3), which goes to
  // 4; then 2 probes 3, 4, 6. Re-inserting in bucket order without kick-out would give 2 → 4, 0 → 6.
  assert.equal(table.put(3), true);
  assert.equal(table.bucketCount, 8);
  assert.deepEqual([table.find(0), table.find(1), table.find(2), table.find(3)], [4, 3, 6, 0]);
  assert.equal(table.put(0), false, 'already present');
  assert.equal(table.size, 4);
});

test('OidHashTable: a put reuses the last tombstone on its probe path; tombstones count toward the bound', () => {
  const table = new OidHashTable(Uint32Array.from([0, 0, 0, 5, 0, 9, 10, 11]));
  for (const id of [0, 1, 2, 3]) table.put(id);
  assert.equal(table.bucketCount, 8);
  assert.deepEqual([table.find(0), table.find(1), table.find(2), table.find(3)], [0, 1, 3, 5]);
  table.delete(0);
  table.delete(1);
  assert.equal(table.size, 2);
  assert.equal(table.occupiedCount, 4);
  // Probe 0 (tombstone), 1 (tombstone), 3 (live), 6 (empty): the new key takes bucket 1.
  table.put(4);
  assert.equal(table.find(4), 1);
  assert.equal(table.nextLive(0), 1);
  table.put(5); // hash 9 → 1 (taken) → 2
  table.put(7); // hash 11 → 3 (taken) → 4
  assert.deepEqual([table.find(5), table.find(7)], [2, 4]);
  assert.equal(table.occupiedCount, 6);
  for (const id of [4, 5, 7]) table.delete(id);
  assert.equal(table.size, 2);
  // occupied 6 reaches the bound and 8 > 2 × 2 live: rebuilt in place at 8 buckets, tombstones gone.
  const rebuilds = table.rebuilds;
  table.put(6); // hash 10 → 2
  assert.equal(table.bucketCount, 8);
  assert.equal(table.rebuilds, rebuilds + 1);
  assert.equal(table.occupiedCount, 3);
  assert.deepEqual([table.find(2), table.find(3), table.find(6)], [0, 5, 2]);
  assert.equal(table.has(0), false);
});

/** Non-blob objects of size 1 whose OID prefixes are `hash(i)`. */
function smallTrees(n: number, hash: (i: number) => number): SimObjects {
  return simObjects(Array.from({ length: n }, (_, i) => ({ size: 1, blob: false, hash: hash(i) })));
}

test('libgit2 object cache: admission is size < 4096 for commits/trees/tags, never blobs', () => {
  const objects = simObjects([
    { size: 4095, blob: false },
    { size: 4096, blob: false },
    { size: 10 },
    { size: 10, blob: false, base: 0 },
  ]);
  const counts = replayLibgit2Reads(objects, reads(0, 0, 1, 1, 2, 2, 3, 3), {
    limit: 16 << 20,
    objectCache: { eviction: 'scaled' },
  });
  assert.equal(counts.objectCache!.hits, 2, 'objects 0 and 3 come from the object cache the second time');
  assert.equal(counts.objectCache!.stores, 2);
  // Object 3's first read walks to 0, which only ever was a top-level read: not in the pack cache.
  assert.deepEqual(core(counts), {
    logged: 6,
    inflations: 1 + 1 + 1 + 1 + 1 + 2,
    deltaApplications: 1,
    evictions: 0,
    packCacheTopHits: 0,
  });
  // Without the object cache every reread goes to the pack; 3's second read finds its base cached.
  const bare = replayLibgit2Reads(objects, reads(0, 0, 1, 1, 2, 2, 3, 3), { limit: 16 << 20 });
  assert.equal(bare.objectCache, undefined);
  assert.equal(bare.inflations, 6 + 2 + 1);
  assert.equal(bare.logged, 8);
});

test('libgit2 object cache: evict before inserting, only once over the cap; the first 8 live buckets from 0 go', () => {
  // Hashes 2i: after the growths to 8 and 16 buckets the 11 keys sit in buckets
  // 0:0 1:8 2:1 3:9 4:2 5:10 6:3 8:4 10:5 12:6 14:7.
  const objects = smallTrees(12, (i) => 2 * i);
  const cache = new Libgit2ObjectCache(objects, { eviction: 'evict8', maxStorage: 10 });
  for (let id = 0; id <= 10; id++) cache.store(id);
  // Storing the 11th object found used = 10, not above the cap: no eviction, and used ends at 11.
  assert.equal(cache.usedBytes, 11);
  assert.equal(cache.result().evictionRuns, 0);
  cache.store(11);
  const result = cache.result();
  assert.equal(result.evictionRuns, 1);
  assert.equal(result.evictions, 8);
  assert.equal(result.evictionBucketsScanned, 9, 'buckets 0–8 looked at');
  assert.equal(cache.usedBytes, 3 + 1);
  for (const id of [5, 6, 7, 11]) assert.ok(cache.lookupRaw(id), `id ${id} kept`);
  for (const id of [0, 1, 2, 3, 4, 8, 9, 10]) assert.equal(cache.lookupRaw(id), false, `id ${id} evicted`);
  assert.equal(result.buckets, 16);
});

test('libgit2 object cache: fewer live entries than evict_count clears the whole cache', () => {
  const objects = smallTrees(5, (i) => i);
  const cache = new Libgit2ObjectCache(objects, { eviction: 'scaled', maxStorage: 2 });
  for (let id = 0; id < 5; id++) cache.store(id);
  const result = cache.result();
  // Store 3 finds used 3 > 2 with 3 live < 8: clear (every bucket visited); store 4 finds used 1.
  assert.equal(result.clears, 1);
  assert.equal(result.evictions, 3);
  assert.equal(result.evictionBucketsScanned, 4);
  assert.equal(cache.usedBytes, 2);
  assert.ok(cache.lookupRaw(3) && cache.lookupRaw(4));
});

test('libgit2 object cache: evict8 vs scaled (max(8, n/2048)), and scans growing over empty buckets', () => {
  // 20480 live entries at buckets 0..20479: scaled evicts 20480/2048 = 10, evict8 evicts 8.
  const n = 20480;
  const objects = smallTrees(n + 2, (i) => i);
  const scanned: Record<string, number> = {};
  for (const eviction of ['evict8', 'scaled'] as const) {
    const cache = new Libgit2ObjectCache(objects, { eviction, maxStorage: n - 1 });
    for (let id = 0; id < n + 2; id++) cache.store(id);
    const result = cache.result();
    assert.equal(result.evictionRuns, 1, eviction);
    scanned[eviction] = result.evictionBucketsScanned;
    assert.equal(result.evictions, eviction === 'scaled' ? 10 : 8);
    assert.equal(result.buckets, 32768);
  }
  assert.deepEqual(scanned, { evict8: 8, scaled: 10 });

  // Sequential hashes with a cap of 20: the first eviction takes buckets 0–7; the table then
  // doubles (dropping the tombstones), and the second eviction walks 8 empty buckets first.
  const small = new Libgit2ObjectCache(
    smallTrees(30, (i) => i),
    { eviction: 'evict8', maxStorage: 20 },
  );
  for (let id = 0; id < 30; id++) small.store(id);
  const result = small.result();
  assert.equal(result.evictionRuns, 2);
  assert.equal(result.evictionBucketsScanned, 8 + 16);
});

test('libgit2 replay with the object cache: its counts come back in the result', () => {
  const objects = smallTrees(12, (i) => 2 * i);
  const counts = replayLibgit2Reads(
    objects,
    Int32Array.from({ length: 12 }, (_, i) => i),
    { limit: 10, objectCache: { eviction: 'evict8' } },
  );
  assert.equal(counts.evictionBucketsScanned, 9, 'the object cache storage cap defaults to the limit');
  assert.equal(counts.objectCache!.evictions, 8);
  assert.equal(counts.logged, 12);
});

test('simObjectsFrom fills oidPrefix from the idx; the libgit2 replay runs over a real pack', (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const repo = sandbox.init('repo', { bare: true });
  sandbox.fastImport(repo, historyStream({ commits: 60, seed: 3 }));
  sandbox.git(repo, ['repack', '-adfq']);
  const [stem] = packStems(path.join(repo, 'objects'));
  const model = buildPackModel(packFilesFor(`${stem}.pack`));
  const objects = simObjectsFrom([model]);
  for (let n = 0; n < model.count; n++) {
    const hex = model.oidHex(n);
    // Bytes 0..3 of the OID, least significant first.
    assert.equal(
      objects.oidPrefix[n],
      parseInt(hex.slice(6, 8) + hex.slice(4, 6) + hex.slice(2, 4) + hex.slice(0, 2), 16),
    );
  }
  const all = Int32Array.from({ length: objects.count }, (_, id) => id);
  const twice = Int32Array.from([...all, ...all]);
  const unlimited = replayLibgit2Reads(objects, twice, { limit: 1 << 30 });
  // With nothing ever flushed, every base read in the first pass is a top-level hit in the second.
  const bases = new Set<number>();
  for (let id = 0; id < objects.count; id++) if (objects.base[id]! >= 0) bases.add(objects.base[id]!);
  assert.ok(bases.size > 0);
  assert.equal(unlimited.flushes, 0);
  assert.ok(unlimited.packCacheTopHits >= bases.size);
  const withObjects = replayLibgit2Reads(objects, twice, {
    limit: 64 * 1024,
    objectCache: { eviction: 'scaled', maxStorage: 8 * 1024 },
  });
  assert.ok(withObjects.objectCache!.hits > 0 && withObjects.objectCache!.evictionRuns > 0);
  assert.ok(withObjects.inflations < replayLibgit2Reads(objects, twice, { limit: 64 * 1024 }).inflations);
});

test('libgit2 object cache: raw and parsed entries, as git_odb_read and git_object_lookup store and find them', () => {
  const objects = smallTrees(12, (i) => 2 * i);
  const cache = new Libgit2ObjectCache(objects, { eviction: 'evict8', maxStorage: 100 });
  cache.storeAs(0, 'raw');
  assert.equal(cache.lookupAny(0), 'raw', 'git_cache_get_any sees a raw entry');
  cache.storeAs(0, 'parsed');
  assert.equal(cache.usedBytes, 1, 'the parsed object takes the raw entry’s place and bytes');
  assert.equal(cache.result().replacements, 1);
  assert.equal(cache.lookupRaw(0), false, 'git_cache_get_raw does not see a parsed entry');
  cache.storeAs(0, 'raw');
  assert.equal(cache.lookupAny(0), 'parsed', 'a raw store where the parsed object is leaves it');
  assert.equal(cache.usedBytes, 1);
});

test('libgit2 object cache through git_object_lookup: two stores per miss, each checking the cap first', () => {
  // Hashes 2i, cap 10, evict 8 (the layout of the eviction test above): reads 0..11, then 10.
  // git_odb_read: the raw store of 11 finds 11 bytes over the cap and evicts 0 8 1 9 2 10 3 4;
  // 10 is gone when read again. git_object_lookup: the parsed store of 10, right after its raw
  // store took the total to 11, evicts the same eight, 10 among them, and then stores 10 again:
  // it is there when read again.
  const objects = smallTrees(12, (i) => 2 * i);
  const reads = Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 10]);
  const run = (readCall: 'odb-read' | 'object-lookup'): Libgit2Counts =>
    replayLibgit2Reads(objects, reads, {
      limit: 16 << 20,
      objectCache: { eviction: 'evict8', maxStorage: 10 },
      readCall,
    });
  const odbRead = run('odb-read');
  const lookup = run('object-lookup');
  assert.equal(odbRead.objectCache!.evictionRuns, 1);
  assert.equal(lookup.objectCache!.evictionRuns, 1);
  assert.equal(odbRead.objectCache!.hits, 0);
  assert.equal(lookup.objectCache!.hits, 1, 'the last read of 10 is served by the object cache');
  assert.equal(lookup.objectCache!.stores, 13, '12 raw stores, and 10 again after its eviction');
  assert.equal(lookup.objectCache!.replacements, 11, 'every parsed store but the one after the eviction');
  assert.equal(lookup.inflations, odbRead.inflations - 1);
});
