import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { positionOfOffset, positionOfOffsetBefore } from '../../src/core/format/sorted-offsets.ts';

/** Both searches against a plain scan, on every offset present and absent, at every limit. */
test('the offset searches find what a scan finds, and nothing at or past the limit', () => {
  for (const count of [0, 1, 2, 3, 7, 64, 129]) {
    const sorted = Float64Array.from({ length: count }, (_, i) => 12 + i * 37 + ((i * i) % 5));
    const probes = [0, 11, ...sorted, ...sorted.map((x) => x + 1), 1e15];
    for (const offset of probes) {
      const scanned = sorted.indexOf(offset);
      assert.equal(positionOfOffset(sorted, offset), scanned, `${offset} among ${count}`);
      for (let limit = 0; limit <= count; limit++) {
        assert.equal(
          positionOfOffsetBefore(sorted, limit, offset),
          scanned >= 0 && scanned < limit ? scanned : -1,
          `${offset} before ${limit} of ${count}`,
        );
      }
    }
  }
});
