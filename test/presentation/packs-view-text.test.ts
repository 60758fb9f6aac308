// The Packs view's words (src/presentation/packs-view-text.ts) and the one plural helper.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCountOf } from '../../src/common/format.ts';
import {
  chainEndText,
  depthHistogramDescription,
  depthRowText,
  familyMemberText,
  listTotalText,
  logBar,
  mostUsedBaseText,
} from '../../src/presentation/packs-view-text.ts';
import type { ObjectItem } from '../../src/protocol/server-protocol.ts';

const item = (fields: Partial<ObjectItem>): ObjectItem => ({
  oid: 'a'.repeat(40),
  type: 'blob',
  inPackType: 'ofs-delta',
  size: 5 * 1024 * 1024,
  diskSize: 100,
  offset: 12,
  depth: 0,
  children: 0,
  familySize: 1,
  ...fields,
});

test('a count with its noun: singular for exactly one', () => {
  assert.deepEqual(
    [0, 1, 2, 849014].map((n) => formatCountOf(n, 'object')),
    ['0 objects', '1 object', '2 objects', '849,014 objects'],
  );
  assert.deepEqual(
    [1, 3].map((n) => formatCountOf(n, 'delta child', 'delta children')),
    ['1 delta child', '3 delta children'],
  );
});

test("a list's count says what it counts and in which order", () => {
  assert.equal(listTotalText('deepest', 849014), '849,014 objects, deepest first');
  assert.equal(listTotalText('families', 1), '1 family, largest first (objects in the family)');
  assert.equal(listTotalText('families', 305112), '305,112 families, largest first (objects in the family)');
  assert.equal(listTotalText('largestOnDisk', 2), '2 objects, largest entry in the pack first');
});

test('object rows say what their size measures', () => {
  assert.equal(
    familyMemberText(item({ familySize: 1234, children: 1 })),
    'family of 1,234 objects · root 5.0 MiB inflated · 1 delta child',
  );
  assert.equal(
    familyMemberText(item({ familySize: 1 })),
    'family of 1 object · root 5.0 MiB inflated · 0 delta children',
  );
  assert.equal(
    familyMemberText(item({ depth: 3, children: 2, size: 300 })),
    'ofs-delta · depth 3 · 300 B inflated · 2 delta children',
  );
  assert.equal(chainEndText(item({ depth: 50, size: 2048 })), 'depth 50 · 2.0 KiB inflated');
  assert.equal(mostUsedBaseText(item({ children: 1, depth: 2, size: 10 })), '1 delta child · depth 2 · 10 B inflated');
});

test('depth histogram bars resolve the tail on a log scale', () => {
  // git.git's shape: a few hundred thousand at the top, a long tail of hundreds and tens.
  const histogram = [305112, 120000, 90000, 60000, 40000, 30000, 20000, 9000, 900, 90, 9, 1, 0];
  const widest = Math.max(...histogram);
  const bars = histogram.map((n) => logBar(n, widest));
  const cells = (bar: string): number =>
    [...bar].reduce((sum, ch) => sum + (ch === '█' ? 8 : ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'].indexOf(ch)), 0);
  assert.equal(cells(bars[0]!), 80, 'the widest row is the full 10 cells');
  assert.equal(bars[12], '', 'no bar for no object');
  assert.ok(cells(bars[11]!) >= 1, 'a single object still shows');
  // Every step of ten in the tail is a visibly different bar (on the old linear scale 9,000 to 1 were all one block).
  for (let d = 7; d < 11; d++)
    assert.ok(
      cells(bars[d]!) - cells(bars[d + 1]!) >= 8,
      `depth ${d} (${histogram[d]}) against ${d + 1} (${histogram[d + 1]}): ${bars[d]} / ${bars[d + 1]}`,
    );
  // The log scale is the user's choice (packscope.view.depthScale); the bar leads the label, the share beside it.
  assert.deepEqual(depthRowText(9, 90, 675112, widest, 'log'), {
    label: `${bars[9]} <0.1%`,
    description: 'depth 9: 90 objects',
  });
  assert.deepEqual(depthRowText(11, 1, 675112, widest, 'log').description, 'depth 11: 1 object');
  assert.equal(depthRowText(0, 305112, 675112, widest, 'log').label, `${'█'.repeat(10)} 45.2%`);
  assert.equal(depthRowText(12, 0, 675112, widest, 'log').label, '0%');
  assert.equal(depthHistogramDescription(1.5, 'log'), 'mean 1.50 · bars: log scale (lengths by log(1 + count))');
});

test('depth histogram bars are linear by default: lengths in proportion to the shares, each share printed beside its bar, every bar at the start of its row', () => {
  // The pack: 33.9% at one depth and 1.4% at another looked 1.5 times as long on the log scale.
  const total = 100_000;
  const histogram = [33_900, 25_000, 20_000, 12_000, 7_700, 1_400];
  const widest = Math.max(...histogram);
  const cells = (bar: string): number =>
    [...bar].reduce((sum, ch) => sum + (ch === '█' ? 8 : ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'].indexOf(ch)), 0);
  const rows = histogram.map((n, d) => depthRowText(d, n, total, widest));
  const logRows = histogram.map((n, d) => depthRowText(d, n, total, widest, 'log'));
  const barOf = (label: string): string => /^([█▏▎▍▌▋▊▉]*)/.exec(label)![1]!;
  const ratio = cells(barOf(rows[0]!.label)) / cells(barOf(rows[5]!.label));
  assert.ok(Math.abs(ratio - 33.9 / 1.4) / (33.9 / 1.4) < 0.2, `linear: ${ratio.toFixed(1)} times as long`);
  assert.ok(cells(barOf(logRows[0]!.label)) / cells(barOf(logRows[5]!.label)) < 2, 'the log scale as the issue saw it');
  rows.forEach((row, d) => {
    const share = ((100 * histogram[d]!) / total).toFixed(1);
    // Bar first (every row's bar starts at the row's start), its share beside it, the depth and count after.
    assert.match(row.label, new RegExp(`^[█▏▎▍▌▋▊▉]+ ${share.replace('.', '\\.')}%$`), row.label);
    assert.equal(row.description, `depth ${d}: ${histogram[d]!.toLocaleString('en-US')} objects`);
    assert.equal(cells(barOf(row.label)), Math.max(1, Math.round((80 * histogram[d]!) / widest)));
  });
  assert.equal(depthRowText(6, 0, total, widest).label, '0%');
  assert.equal(depthHistogramDescription(2.25), 'mean 2.25 · bars: linear scale');
});
