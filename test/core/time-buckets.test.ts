import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { TimeBuckets } from '../../src/core/sim/time-buckets.ts';

/** A deterministic generator, so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

test('TimeBuckets finds the latest time with entries as a plain map does, across every level of its bitmap', () => {
  // maxTime values around word and level boundaries (32, 1024, 32768), and one of five levels.
  for (const maxTime of [0, 31, 32, 1023, 1024, 40_000, 5_000_000]) {
    const next = random(maxTime + 1);
    const capacity = 64;
    const buckets = new TimeBuckets(capacity, maxTime);
    const model = new Map<number, number>();
    const latest = (): number => Math.max(-1, ...model.values());
    assert.equal(buckets.latest(), -1);
    for (let step = 0; step < 4000; step++) {
      const id = Math.floor(next() * capacity);
      // Times bunched at both ends and spread between, so that words empty and fill again.
      const roll = next();
      const time =
        roll < 0.3
          ? Math.floor(next() * Math.min(40, maxTime + 1))
          : roll < 0.6
            ? maxTime - Math.floor(next() * Math.min(40, maxTime + 1))
            : Math.floor(next() * (maxTime + 1));
      if (next() < 0.4) {
        buckets.remove(id);
        model.delete(id);
      } else {
        buckets.set(id, time);
        model.set(id, time);
      }
      assert.equal(buckets.latest(), latest(), `maxTime ${maxTime}, step ${step}`);
      assert.equal(buckets.size, model.size);
      const at = buckets.latest();
      if (at >= 0) assert.equal(model.get(buckets.first(at)), at);
    }
    for (const id of [...model.keys()]) {
      buckets.remove(id);
      model.delete(id);
      assert.equal(buckets.latest(), latest());
    }
  }
});
