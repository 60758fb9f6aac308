import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  estimateChange,
  writeOrderEstimateText,
  type ComparisonRow,
} from '../../src/presentation/repack-preview-tables.ts';

const row = (key: ComparisonRow['key'], current: number, estimate: number): ComparisonRow => ({
  key,
  label: key,
  format: key === 'packBytes' ? 'bytes' : key === 'maxDepth' ? 'depth' : key === 'meanDepth' ? 'mean' : 'count',
  current,
  preview: null,
  estimate,
});

describe('the write-order estimate says what it predicted and what it kept', () => {
  it('a figure taken from today\'s deltas reads "as today", never 0.0%', () => {
    for (const key of ['deltas', 'families', 'maxDepth', 'meanDepth'] as const)
      assert.equal(estimateChange(row(key, 50, 50)), "as today (today's deltas kept)", key);
  });
  it('a figure the estimate moves keeps its percentage; an unmoved one says "as today"', () => {
    assert.equal(estimateChange(row('objects', 1000, 1100)), '+10.0%');
    assert.equal(estimateChange(row('packBytes', 2000, 2000)), 'as today');
    // Depths have no percentage even when they move (a depth of 3 against 4 is not "−25%").
    assert.equal(estimateChange(row('maxDepth', 4, 3)), '');
  });
  it('the picker line says what it needs to tell anything', () => {
    assert.match(writeOrderEstimateText(0).detail, /^Says most beside a recording/);
    assert.match(writeOrderEstimateText(2).detail, /^Replays 2 recordings of this repository/);
    assert.match(writeOrderEstimateText(1).detail, /^Replays 1 recording of this repository/);
    assert.match(writeOrderEstimateText(1).description, /sizes and deltas stay today's/);
  });
});
