import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { formatCount, formatLimit, formatPercentChange, formatSignedPercent } from '../../src/common/format.ts';
import { parseGitSize, parseLimitList } from '../../src/common/git-size.ts';

test('limits in git size suffixes, read back by the one size parser', () => {
  const limits = [0, 1, 1024, 512 * 1024, 96 << 20, 1 << 30, 3 * 1024 + 1];
  assert.deepEqual(limits.map(formatLimit), ['0', '1', '1k', '512k', '96m', '1g', '3073']);
  assert.deepEqual(parseLimitList(limits.map(formatLimit).join(',')), limits);
  assert.deepEqual(parseLimitList(' 0, 1M ,,96m,1G '), [0, 1 << 20, 96 << 20, 1 << 30]);
  assert.equal(parseLimitList(''), undefined);
  assert.equal(parseLimitList('0,12q'), undefined);
  assert.equal(parseGitSize(' 16k '), 16384);
  assert.equal(parseGitSize('9007199254740993'), undefined);
  assert.equal(parseGitSize('-1'), undefined);
});

test("percent changes: the CLI's ascii text and the views' typographic text", () => {
  assert.deepEqual(
    [
      [100, 101],
      [100, 99],
      [100, 100],
      [0, 0],
      [0, 5],
    ].map(([b, a]) => formatPercentChange(b!, a!, 'ascii')),
    ['+1.0%', '-1.0%', '+0.0%', '0%', 'new'],
  );
  assert.deepEqual(
    [
      [100, 101],
      [100, 99],
      [100, 100],
      [0, 0],
      [0, 5],
    ].map(([b, a]) => formatPercentChange(b!, a!, 'typographic')),
    ['+1.0%', '−1.0%', '0.0%', '0.0%', 'new'],
  );
  assert.equal(formatPercentChange(null, 5, 'typographic'), '–');
  assert.equal(formatSignedPercent(-0.8, 'ascii'), '-0.8%');
});

test('counts grouped without Intl are exactly what Intl.NumberFormat en-US prints', () => {
  const intl = new Intl.NumberFormat('en-US');
  const counts = [
    0, -0, 1, 9, 10, 999, 1000, 1001, 12_345, 849_014, 999_999, 1_000_000, 10_000_000, -1, -1000, -849_014,
  ];
  for (const n of [...counts, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1.5, 2 ** 60, NaN, Infinity])
    assert.equal(formatCount(n), intl.format(n), String(n));
});
