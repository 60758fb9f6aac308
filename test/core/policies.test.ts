import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { DeltaBaseCache } from '../../src/core/sim/cache-policy.ts';
import { replayGitReads } from '../../src/core/sim/git-read-path.ts';
import { parseLimits, parsePolicy } from '../../src/core/sim/policy-registry.ts';
import { simulateSegments } from '../../src/core/sim/simulate.ts';
import { AdmitReusedCache } from '../../src/core/sim/policies/admit-reused.ts';
import { BeladyCache } from '../../src/core/sim/policies/belady.ts';
import { GdsfCache } from '../../src/core/sim/policies/gdsf.ts';
import { GitLegacyCache, legacySlot } from '../../src/core/sim/policies/git-legacy.ts';
import { GitLruCache } from '../../src/core/sim/policies/git-lru.ts';
import { LruBySizeCache } from '../../src/core/sim/policies/lru-by-size.ts';
import { SeparateBlobLruCache } from '../../src/core/sim/policies/separate-blob-lru.ts';
import type { SimObjects } from '../../src/core/sim/sim-objects.ts';

/**
 * Hand-built object tables. Ids: A=0, B=1, C=2 (1000-byte blobs), A1=3, B1=4, C1=5 (deltas on
 * them), A2=6 (a delta on A1): the table of git-internals §1.6.
 */
function objectsOf(rows: { base: number; size: number; blob?: boolean; pack?: number; offset?: number }[]): SimObjects {
  const count = rows.length;
  const depth = new Uint32Array(count);
  rows.forEach((row, id) => {
    let d = 0;
    for (let x = row.base; x >= 0; x = rows[x]!.base) d++;
    depth[id] = d;
  });
  return {
    count,
    packBase: [0],
    pack: Uint32Array.from(rows, (r) => r.pack ?? 0),
    offset: Float64Array.from(rows, (r, i) => r.offset ?? 12 + i * 100),
    base: Int32Array.from(rows, (r) => r.base),
    size: Float64Array.from(rows, (r) => r.size),
    payloadSize: Float64Array.from(rows, (r) => (r.base >= 0 ? 30 : r.size)),
    isBlob: Uint8Array.from(rows, (r) => (r.blob === false ? 0 : 1)),
    depth,
    oidPrefix: Uint32Array.from(rows, (_, i) => i * 2654435761),
  };
}

const spec = objectsOf([
  { base: -1, size: 1000 },
  { base: -1, size: 1000 },
  { base: -1, size: 1000 },
  { base: 0, size: 1002 },
  { base: 1, size: 1002 },
  { base: 2, size: 1002 },
  { base: 3, size: 1004 },
]);
const [A, B, C, A1, B1, C1, A2] = [0, 1, 2, 3, 4, 5, 6];

function loggedWith(makeCache: () => ConstructorParameters<typeof Object>[0], reads: number[]): number[] {
  const logged: number[] = [];
  const readArray = Int32Array.from(reads);
  replayGitReads(spec, readArray, makeCache() as never, { onLogged: (r) => logged.push(reads[r]!) });
  return logged;
}

test('git: the T1–T7 table of git-internals §1.6 (also checked against real git in git-read-path.test.ts)', () => {
  const git = (limit: number) => () => new GitLruCache(spec.count, spec.size, limit);
  assert.deepEqual(loggedWith(git(2500), [A1, B1, C1, A, B, C]), [A1, B1, C1, A]);
  assert.deepEqual(loggedWith(git(2500), [A1, B1, A1, C1, B, A]), [A1, B1, A1, C1, B]);
  assert.deepEqual(loggedWith(git(2000), [A1, B1, A, B]), [A1, B1]);
  assert.deepEqual(loggedWith(git(900), [A1, A, B1, A, B]), [A1, B1, A]);
  assert.deepEqual(loggedWith(git(96 << 20), [A1, A, A, A]), [A1]);
  assert.deepEqual(loggedWith(git(96 << 20), [A2, A1, A]), [A2]);
  assert.deepEqual(loggedWith(git(0), [A1, A]), [A1]);
  const counts = replayGitReads(spec, Int32Array.from([A2, A1, A]), new GitLruCache(spec.count, spec.size, 96 << 20));
  assert.deepEqual(
    [counts.inflations, counts.deltaApplications, counts.logged, counts.inflatedBytes],
    [3, 2, 1, 1000 + 30 + 30],
  );
});

test('admit-max: bases over the size are never cached', () => {
  const small = () => new GitLruCache(spec.count, spec.size, 96 << 20, { admitMax: 1001 });
  // A (1000) is admitted, A1 (1002) is not: reading A2 twice re-reads A1's chain from A.
  const counts = replayGitReads(spec, Int32Array.from([A2, A2]), small());
  assert.equal(counts.inflations, 3 + 2);
  assert.deepEqual(loggedWith(small, [A1, A]), [A1]);
});

test('keep-on-hit: a chain hit leaves the base cached', () => {
  const keep = new GitLruCache(spec.count, spec.size, 96 << 20, { keepOnHit: true });
  const counts = replayGitReads(spec, Int32Array.from([A1, A1, A]), keep);
  // Git: the second A1 detaches A and re-adds it; with keep-on-hit it never leaves. Same counts,
  // but the cache holds A throughout and no eviction happens.
  assert.equal(counts.logged, 2);
  assert.ok(keep.serveTopLevel(A));
  assert.equal(keep.usedBytes, 1000);
});

test('git-legacy: same-slot bases replace each other; eviction takes blobs first', () => {
  // Two packs placed so that A and B share a slot: then B1 evicts A although the limit is large.
  const seed = 0x55d4a0c0;
  const slotA = legacySlot(seed, 12);
  let offsetB = 13;
  while (legacySlot(seed, offsetB) !== slotA) offsetB++;
  const objects = objectsOf([
    { base: -1, size: 1000, offset: 12 },
    { base: -1, size: 1000, offset: offsetB },
    { base: 0, size: 1002, offset: offsetB + 5000 },
    { base: 1, size: 1002, offset: offsetB + 6000 },
  ]);
  const legacy = new GitLegacyCache(
    objects.count,
    objects.size,
    objects.isBlob,
    objects.pack,
    objects.offset,
    96 << 20,
    seed,
  );
  const logged: number[] = [];
  replayGitReads(objects, Int32Array.from([2, 3, 0]), legacy, { onLogged: (r) => logged.push(r) });
  assert.deepEqual(logged, [0, 1, 2], 'A was replaced in its slot by B, so reading A misses');
  assert.equal(legacy.evictions, 1);

  // Blob-first: a tree base survives over an older blob base when one must go.
  const mixed = objectsOf([
    { base: -1, size: 1000, blob: false, offset: 12 },
    { base: -1, size: 1000, offset: 40000 },
    { base: -1, size: 1000, offset: 80000 },
    { base: 0, size: 1000, blob: false, offset: 1000 },
    { base: 1, size: 1000, offset: 41000 },
    { base: 2, size: 1000, offset: 81000 },
  ]);
  for (const id of [0, 1, 2])
    assert.notEqual(legacySlot(seed, mixed.offset[id]!), legacySlot(seed, mixed.offset[(id + 1) % 3]!));
  const blobFirst = new GitLegacyCache(mixed.count, mixed.size, mixed.isBlob, mixed.pack, mixed.offset, 2000, seed);
  replayGitReads(mixed, Int32Array.from([3, 4, 5]), blobFirst);
  assert.ok(blobFirst.serveTopLevel(0), 'the oldest entry (a tree) stays');
  assert.ok(!blobFirst.serveTopLevel(1), 'the blob went first');
  assert.ok(blobFirst.serveTopLevel(2));
});

test('separate-blob-lru: non-blobs are evicted only when no blob is left', () => {
  const mixed = objectsOf([
    { base: -1, size: 1000, blob: false },
    { base: -1, size: 1000 },
    { base: -1, size: 1000, blob: false },
    { base: 0, size: 1000, blob: false },
    { base: 1, size: 1000 },
    { base: 2, size: 1000, blob: false },
  ]);
  const cache = new SeparateBlobLruCache(mixed.count, mixed.size, mixed.isBlob, 2000);
  replayGitReads(mixed, Int32Array.from([3, 4, 5]), cache);
  assert.ok(cache.serveTopLevel(0) && cache.serveTopLevel(2) && !cache.serveTopLevel(1));
  assert.equal(cache.evictions, 1);
});

test('gdsf: a large base goes before a small one that LRU would evict for being older', () => {
  // Y (100 bytes), Z and W (3000 each) are roots, each with one delta read in that order.
  const objects = objectsOf([
    { base: -1, size: 100 },
    { base: -1, size: 3000 },
    { base: -1, size: 3000 },
    { base: 0, size: 100 },
    { base: 1, size: 3000 },
    { base: 2, size: 3000 },
  ]);
  const reads = Int32Array.from([3, 4, 5]);
  const gdsf = new GdsfCache(objects.count, objects.size, objects.depth, 6050);
  replayGitReads(objects, reads, gdsf);
  // Over the limit by 50 when W arrives: priority = frequency x cost / size: Y 1/100, Z 1/3000.
  assert.ok(gdsf.serveTopLevel(0) && !gdsf.serveTopLevel(1) && gdsf.serveTopLevel(2));
  const lru = new GitLruCache(objects.count, objects.size, 6050);
  replayGitReads(objects, reads, lru);
  assert.ok(!lru.serveTopLevel(0) && lru.serveTopLevel(1) && lru.serveTopLevel(2), 'LRU evicts the oldest, Y');
});

test('gdsf: among equal priorities the entry added first goes, as bench/git-patches/gdsf.patch walks its list', () => {
  // Five 1000-byte roots P, Q, R, S, T of depth 0, each with one delta. At 4000 bytes, reading
  // P1 Q1 R1 S1 caches P, Q, R, S, all at priority 1/1000. Reading P1 again takes P out (a chain
  // hit) and puts it back at 2/1000. T1's T then evicts one of Q, R, S, equal: the first added, Q.
  // (Without the order a heap would take S, which moved to its top when P was taken out.)
  const objects = objectsOf([
    ...Array.from({ length: 5 }, () => ({ base: -1, size: 1000 })),
    ...Array.from({ length: 5 }, (_, i) => ({ base: i, size: 1000 })),
  ]);
  const [P, Q, R, S, T] = [0, 1, 2, 3, 4];
  const gdsf = new GdsfCache(objects.count, objects.size, objects.depth, 4000);
  replayGitReads(objects, Int32Array.from([P + 5, Q + 5, R + 5, S + 5, P + 5, T + 5]), gdsf);
  assert.deepEqual(
    [P, Q, R, S, T].map((id) => gdsf.serveTopLevel(id)),
    [true, false, true, true, true],
  );
});

test('keep-on-hit replays as git on the read path of §1.6 (git-internals §10): random chains, reads and limits', () => {
  let seed = 7;
  const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let trial = 0; trial < 200; trial++) {
    const count = 3 + random(30);
    const objects = objectsOf(
      Array.from({ length: count }, (_, id) => ({
        base: id > 0 && random(3) > 0 ? random(id) : -1,
        size: 1 + random(3000),
        blob: random(2) === 0,
      })),
    );
    const reads = Int32Array.from({ length: 5 + random(60) }, () => random(count));
    const limit = [0, 1000, 2500, 6000, 20000][random(5)]!;
    const git = replayGitReads(objects, reads, new GitLruCache(count, objects.size, limit));
    const kept = replayGitReads(objects, reads, new GitLruCache(count, objects.size, limit, { keepOnHit: true }));
    assert.deepEqual(kept, git, `trial ${trial}`);
  }
});

test('the bounds of a limit-0 recording contain every policy with a branching cache, separate-blob-lru included: random histories, hidden reads at most one per place', () => {
  let seed = 11;
  const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const specs = ['git', 'admit-max:1500', 'keep-on-hit', 'separate-blob-lru'];
  let bounded = 0;
  for (let trial = 0; trial < 150; trial++) {
    const count = 4 + random(25);
    const objects = objectsOf(
      Array.from({ length: count }, (_, id) => ({
        base: id > 0 && random(3) > 0 ? random(id) : -1,
        size: 1 + random(3000),
        blob: random(2) === 0,
      })),
    );
    // Every read the command makes: random reads, and after some of them a read of the one entry git's
    // cache keeps at limit 0 (its newest), which a limit-0 trace cannot show (git-internals §8.1).
    const all: number[] = [];
    const atZero = new GitLruCache(count, objects.size, 0);
    const recorded: number[] = [];
    for (let i = 0; i < 40; i++) {
      const read = random(count);
      // A read the limit-0 cache serves would hide too; one hidden read per place is what the maximum assumes.
      if (atZero.serveTopLevel(read)) continue;
      all.push(read);
      recorded.push(read);
      assert.equal(replayGitReads(objects, Int32Array.from([read]), atZero).logged, 1);
      const newest = atZero.newest();
      if (newest >= 0 && random(3) === 0) {
        all.push(newest);
        assert.equal(replayGitReads(objects, Int32Array.from([newest]), atZero).logged, 0, 'a hit at limit 0');
      }
    }
    const reads = Int32Array.from(recorded);
    for (const spec of specs) {
      const runner = parsePolicy(spec);
      assert.ok(runner.branchingCache, `${spec} has bounds`);
      for (const limit of [0, 1000, 2500, 6000, 20000]) {
        const truth = runner.run(objects, Int32Array.from(all), limit);
        const cell = simulateSegments(runner, objects, reads, [0], limit, { recordedLimit: 0 });
        assert.ok(cell.bounds, `${spec} at ${limit}: bounds`);
        for (const key of ['logged', 'inflations', 'deltaApplications', 'inflatedBytes'] as const) {
          const [low, high] = cell.bounds[key];
          assert.ok(
            low <= truth[key] && truth[key] <= high,
            `trial ${trial}, ${spec} at ${limit}: ${key} ${truth[key]} outside ${low}–${high}`,
          );
        }
        bounded++;
      }
    }
  }
  assert.equal(bounded, 150 * 4 * 5);
});

test('admit-reused: a base is cached from its second offer on (bench/git-patches/admit-reused.patch)', () => {
  // A1 read twice, then A: the first read offers A (marked, not cached), the second caches it.
  const readsOf = (reads: number[]) => {
    const logged: number[] = [];
    const array = Int32Array.from(reads);
    const counts = replayGitReads(spec, array, new AdmitReusedCache(spec.count, spec.size, 96 << 20), {
      onLogged: (r) => logged.push(reads[r]!),
    });
    return { logged, inflations: counts.inflations };
  };
  assert.deepEqual(readsOf([A1, A]), { logged: [A1, A], inflations: 3 });
  assert.deepEqual(readsOf([A1, A1, A]), { logged: [A1, A1], inflations: 4 });
  // A2 offers A then A1; read again, both are offered a second time and cached; A is then a hit.
  assert.deepEqual(readsOf([A2, A2, A, A1]), { logged: [A2, A2], inflations: 6 });
  const row = parsePolicy('admit-reused').run(spec, Int32Array.from([A1, A1, A]), 96 << 20);
  assert.deepEqual([row.logged, row.inflations], [2, 4]);
  // A limit of one base: B admitted on its second offer evicts A; A, offered again, evicts B.
  const cache = new AdmitReusedCache(spec.count, spec.size, 1000);
  const counts = replayGitReads(spec, Int32Array.from([A1, A1, B1, B1, A1]), cache, {});
  assert.deepEqual([counts.inflations, cache.evictions, cache.usedBytes, cache.peakBytes], [10, 2, 1000, 1000]);
  assert.equal(cache.serveTopLevel(A), true);
  assert.equal(cache.serveTopLevel(B), false);
});

test('lru-by-size: over the limit the largest base goes first, the oldest among equals', () => {
  // Bases S (500 bytes), Y, Z, W (1000 each); S1, Y1, Z1, W1 are one delta on each.
  const sized = objectsOf([
    { base: -1, size: 500 },
    { base: -1, size: 1000 },
    { base: -1, size: 1000 },
    { base: -1, size: 1000 },
    { base: 0, size: 510 },
    { base: 1, size: 1010 },
    { base: 2, size: 1010 },
    { base: 3, size: 1010 },
  ]);
  const [S, Y, Z, S1, Y1, Z1, W1] = [0, 1, 2, 4, 5, 6, 7];
  // Limit 2500. S1, Y1, Z1 each inflate their base and add it: S, Y, Z cached, 2500 bytes (not over).
  // W1 adds W: 3500 > 2500. git evicts oldest first: S (3000, still over), then Y (2000): S, Y gone.
  // lru-by-size evicts the largest, Y and Z (1000) before S (500), and of those two the older, Y:
  // 2500, no longer over; S, Z, W stay. Then the top-level reads S, Y, Z: git misses S and Y
  // (logged, one inflation each, not cached: a top-level result never is); lru-by-size misses Y.
  const reads = Int32Array.from([S1, Y1, Z1, W1, S, Y, Z]);
  const replay = (cache: DeltaBaseCache) => {
    const logged: number[] = [];
    const counts = replayGitReads(sized, reads, cache, { onLogged: (r) => logged.push(reads[r]!) });
    return { logged, inflations: counts.inflations, evictions: counts.evictions };
  };
  // Four chains of one delta: 2 inflations each (8), plus one per top-level miss.
  assert.deepEqual(replay(new GitLruCache(sized.count, sized.size, 2500)), {
    logged: [S1, Y1, Z1, W1, S, Y],
    inflations: 10,
    evictions: 2,
  });
  assert.deepEqual(replay(new LruBySizeCache(sized.count, sized.size, 2500)), {
    logged: [S1, Y1, Z1, W1, Y],
    inflations: 9,
    evictions: 1,
  });
  // The table's row replays the same.
  const row = parsePolicy('lru-by-size').run(sized, reads, 2500);
  assert.deepEqual([row.logged, row.inflations, row.evictions], [5, 9, 1]);
});

test('belady never does more inflations than git on the §1.6 table, and evicts the furthest use', () => {
  const workloads = [
    [A1, B1, C1, A, B, C],
    [A1, B1, A1, C1, B, A],
    [A2, A1, A, B1, C1, A2, B1],
    [C1, B1, A1, C1, B1, A1, A2, A2],
  ];
  for (const reads of workloads) {
    for (const limit of [0, 900, 2000, 2500, 96 << 20]) {
      const array = Int32Array.from(reads);
      const git = replayGitReads(spec, array, new GitLruCache(spec.count, spec.size, limit));
      const belady = replayGitReads(spec, array, new BeladyCache(spec.count, spec.size, spec.base, array, limit));
      assert.ok(
        belady.inflations <= git.inflations,
        `reads ${reads} at ${limit}: belady ${belady.inflations} > git ${git.inflations}`,
      );
    }
  }
  // At 2500 (two bases), T1's reads: reading C1 adds C (always kept), so A or B must go; A is used
  // again sooner (read 3) than B (read 4), so B goes, and B is the only miss after the deltas.
  const t1 = Int32Array.from([A1, B1, C1, A, B, C]);
  const logged: number[] = [];
  replayGitReads(spec, t1, new BeladyCache(spec.count, spec.size, spec.base, t1, 2500), {
    onLogged: (r) => logged.push(t1[r]!),
  });
  assert.deepEqual(logged, [A1, B1, C1, B]);
});

test('policy specs and limits parse, and bad ones are clear errors', () => {
  for (const name of [
    'git',
    'git-legacy',
    'git-legacy:0x1000',
    'separate-blob-lru',
    'admit-max:1m',
    'keep-on-hit',
    'admit-reused',
    'gdsf',
    'belady',
  ]) {
    assert.equal(parsePolicy(name).name, name);
  }
  assert.equal(parsePolicy('belady').referenceBound, true);
  assert.throws(() => parsePolicy('lru-ish'), /unknown policy "lru-ish"/);
  assert.throws(() => parsePolicy('admit-max'), /needs a size/);
  assert.deepEqual(parseLimits('0,1k,16m,96m,1g'), [0, 1024, 16 << 20, 96 << 20, 1 << 30]);
  assert.throws(() => parseLimits('12q'), /not a size/);
});
