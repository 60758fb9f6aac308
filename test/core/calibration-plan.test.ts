import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { calibrationPlan } from '../../src/core/cost/calibrate.ts';
import { parsePolicy } from '../../src/core/sim/policy-registry.ts';
import { compactForReads, type SimObjects } from '../../src/core/sim/sim-objects.ts';

/**
 * The calibration's lists (calibrate.ts, calibrationPlan) on a hand-made pack of many
 * chains: cold lists of distinct objects in pack order, chains read side by side root first, and a
 * growth list whose smaller limit has 1g's counts and less cache. The plan is a pure function of the
 * objects, the seed and the cap, so no git and no timing are needed here.
 */
const CHAINS = 400;
const DEPTH = 10;
const SIZE = 48 << 10;

/** 400 chains of 11 objects (a 48 KiB root, then deltas of 1 KiB whose results are 48 KiB), and 3,000 plain 2 KiB objects. */
function handMade(): SimObjects {
  const count = CHAINS * (DEPTH + 1) + 3000;
  const base = new Int32Array(count).fill(-1);
  const size = new Float64Array(count);
  const payloadSize = new Float64Array(count);
  const depth = new Uint32Array(count);
  const offset = new Float64Array(count);
  let id = 0;
  for (let c = 0; c < CHAINS; c++) {
    for (let d = 0; d <= DEPTH; d++, id++) {
      base[id] = d === 0 ? -1 : id - 1;
      size[id] = SIZE;
      payloadSize[id] = d === 0 ? SIZE : 1024;
      depth[id] = d;
    }
  }
  for (; id < count; id++) {
    size[id] = 2048;
    payloadSize[id] = 2048;
  }
  // Pack order is not id order: offsets run backwards, so "in pack order" is checked, not assumed.
  for (let i = 0; i < count; i++) offset[i] = 12 + (count - i) * 100;
  return {
    count,
    packBase: [0],
    pack: new Uint32Array(count),
    offset,
    base,
    size,
    payloadSize,
    isBlob: new Uint8Array(count).fill(1),
    depth,
    oidPrefix: Uint32Array.from({ length: count }, (_, i) => i),
  };
}

function chainRoot(id: number): number {
  return Math.floor(id / (DEPTH + 1));
}

describe('the calibration plan', () => {
  const objects = handMade();
  const lists = calibrationPlan(objects, 16, Number.MAX_SAFE_INTEGER);
  const git = parsePolicy('git');
  const run = (reads: Int32Array, limit: number): ReturnType<typeof git.run> => {
    const compact = compactForReads(objects, reads);
    return git.run(compact.objects, compact.reads, limit);
  };

  test('the same pack and seed give the same lists, another seed others', () => {
    const shape = (seed: number): string =>
      JSON.stringify(
        calibrationPlan(objects, seed, Number.MAX_SAFE_INTEGER).map((l) => [l.stage, l.cls, l.limit, [...l.reads]]),
      );
    assert.equal(shape(16), shape(16));
    assert.notEqual(shape(16), shape(17));
  });

  test('an inflate list reads distinct non-deltas once each, in pack order', () => {
    // Two classes of plain objects: the 2 KiB ones and the chains' 48 KiB roots.
    const inflate = lists.filter((l) => l.stage === 'inflate');
    assert.deepEqual(
      inflate.map((l) => l.ids.length).sort((x, y) => x - y),
      [CHAINS, 3000],
      'each class has fewer members than the targets ask: all of them',
    );
    for (const list of inflate) {
      const ids = list.ids;
      assert.equal(new Set(ids).size, ids.length, 'no object twice in a pass');
      for (const id of ids) assert.equal(objects.base[id], -1);
      for (let i = 1; i < ids.length; i++) assert.ok(objects.offset[ids[i - 1]!]! < objects.offset[ids[i]!]!);
      // A class too small for the targets is read again, pass after pass, up to 20,000 reads: 3,000 objects, 6 passes.
      const passes = list.reads.length / ids.length;
      assert.ok(Number.isInteger(passes));
      for (let r = 0; r < list.reads.length; r++) assert.equal(list.reads[r], ids[r % ids.length]);
      if (ids.length === 3000) assert.equal(passes, 6);
    }
  });

  test('a walk list reads whole chains side by side, root first, so that limit 0 walks every chain and a cache does not', () => {
    const walks = lists.filter((l) => l.stage === 'walk');
    assert.equal(walks.length, 1);
    const list = walks[0]!;
    assert.ok(list.ids.length >= 4);
    const read = new Set(list.reads);
    for (const tip of list.ids)
      for (let x = tip; x >= 0; x = objects.base[x]!) assert.ok(read.has(x), `${x}, below tip ${tip}, is read`);
    // Step d of every chain before step d + 1 of any: the depth never falls.
    const depths = [...list.reads].map((id) => objects.depth[id]!);
    for (let i = 1; i < depths.length; i++)
      assert.ok(depths[i]! >= depths[i - 1]!, `read ${i}: depth ${depths[i]} after ${depths[i - 1]}`);
    // Read side by side, limit 0's one kept base (§1.3) is another chain's: at 0 a read walks its
    // chain, with a cache a read takes the base the previous step left. (One chain read alone would
    // cost 2 inflations a read at 0 as well.)
    const at0 = run(list.reads, 0);
    const at1g = run(list.reads, 1 << 30);
    // Tips are sampled at every depth, so chains are 2 to 11 long: 3 inflations for 3 at depth 1, 66 for 21 at depth 10.
    assert.ok(at0.inflations > 2 * at1g.inflations, `${at0.inflations} at 0 against ${at1g.inflations} at 1g`);
    const alone = run(Int32Array.from([...list.reads].filter((id) => chainRoot(id) === chainRoot(list.ids[0]!))), 0);
    assert.ok(alone.inflations <= 2 * alone.reads);
  });

  test("the growth list: a smaller limit with 1g's counts and a smaller cache", () => {
    const growth = lists.find((l) => l.stage === 'growth');
    assert.ok(growth, 'chains of 48 KiB bases fill more than the growth target');
    const small = run(growth.reads, growth.limit);
    const full = run(growth.reads, 1 << 30);
    assert.ok(growth.limit < 1 << 30);
    assert.deepEqual(
      [small.inflations, small.deltaApplications, small.inflatedBytes, small.appliedBytes],
      [full.inflations, full.deltaApplications, full.inflatedBytes, full.appliedBytes],
    );
    assert.ok(
      full.peakCacheBytes - small.peakCacheBytes >= 16 << 20,
      `${full.peakCacheBytes} against ${small.peakCacheBytes}`,
    );
    // The smallest such power of two: half of it loses inflations.
    assert.notEqual(run(growth.reads, growth.limit / 2).inflations, full.inflations);
  });

  test('a cap on the objects per list is kept', () => {
    for (const list of calibrationPlan(objects, 16, 8)) if (list.stage !== 'growth') assert.ok(list.ids.length <= 8);
  });
});
