import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { packLocality, percentile, replayPageCache } from '../../src/core/locality/locality.ts';

test('nearest-rank percentiles', () => {
  const sorted = Float64Array.from([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
  assert.equal(percentile(sorted, 0), 10);
  assert.equal(percentile(sorted, 10), 10);
  assert.equal(percentile(sorted, 50), 50);
  assert.equal(percentile(sorted, 95), 100);
  assert.equal(percentile(sorted, 99.9), 100);
  assert.equal(percentile(new Float64Array(0), 50), 0);
});

test('seek distances, backward and short shares, pages and span', () => {
  const offsets = Float64Array.from([0, 4096, 100, 3 << 20, 8192]);
  const sizes = Float64Array.from([100, 100, 100, 5000, 10]);
  const result = packLocality({ pack: 'p', offsets, entryBytes: sizes }, { cacheMiB: 1, readaheadKiB: 0 });
  assert.equal(result.reads, 5);
  assert.equal(result.seeks, 4);
  // distances: 4096, 3996 (back), 3145628, 3137536 (back)
  assert.deepEqual(result.percentiles.find((p) => p.p === 50)!.bytes, 4096);
  assert.equal(result.backwardSeekShare, 0.5);
  assert.equal(result.shortSeekShare, 0.5);
  // pages: 0 (offsets 0 and 100), 1 (4096), 2 (8192), 768 and 769 (3 MiB + 5000 bytes)
  assert.equal(result.pagesTouched, 5);
  assert.equal(result.byteSpan, (3 << 20) + 5000);
});

test('page cache replay: readahead turns neighbouring faults into hits; a small cache faults again', () => {
  const offsets = Float64Array.from([0, 4096, 8192, 12288, 0]);
  const sizes = Float64Array.from([10, 10, 10, 10, 10]);
  assert.equal(replayPageCache(offsets, sizes, { cacheMiB: 1, readaheadKiB: 0 }), 4);
  assert.equal(replayPageCache(offsets, sizes, { cacheMiB: 1, readaheadKiB: 16 }), 1);
  // One page of cache: page 0 is gone again by the last read.
  assert.equal(replayPageCache(offsets, sizes, { cacheMiB: 4096 / (1024 * 1024), readaheadKiB: 0 }), 5);
});
