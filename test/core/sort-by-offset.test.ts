import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { sortByOffset } from '../../src/core/model/build-pack-model.ts';

/** Object numbers by offset, ties by object number: what both of sortByOffset's sorts must give. */
function reference(offsets: Float64Array): number[] {
  return Array.from(offsets.keys()).sort((a, b) => offsets[a]! - offsets[b]! || a - b);
}

test('sortByOffset: the small-pack sort and the radix sort both order by offset, ties by object number', () => {
  let seed = 7;
  const random = (below: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % below;
  };
  // Sizes on both sides of the insertion sort's bound; few distinct offsets make ties (a hostile
  // idx: the build rejects them, naming the first pair it finds, so their order must not change).
  for (const count of [0, 1, 2, 3, 31, 32, 33, 64, 1000]) {
    for (const spread of [4, 1 << 20, 2 ** 33]) {
      const offsets = Float64Array.from({ length: count }, () => 12 + random(spread));
      assert.deepEqual(Array.from(sortByOffset(offsets)), reference(offsets), `${count} objects, spread ${spread}`);
    }
  }
});
