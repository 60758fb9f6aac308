/** The Packs view's "git-sizer's concerns" rows: git-sizer's sections in order, the value and its stars, the summary line. */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConcernMetric, ConcernsDocument } from '../../src/protocol/server-protocol.ts';
import { concernRowText, concernSections, concernsSummary } from '../../src/presentation/concerns-text.ts';

const metric = (over: Partial<ConcernMetric>): ConcernMetric => ({
  key: 'maxBlobSize',
  section: 'Biggest objects › Blobs',
  name: 'Maximum size',
  description: 'The size of the largest blob object',
  value: 25_000_000,
  unit: 'B',
  referenceValue: 10e6,
  level: 2.5,
  stars: '**',
  object: 'ab'.repeat(20),
  ...over,
});

test('a row: the value, then the stars; the tooltip has the level and the object', () => {
  const row = concernRowText(metric({}));
  assert.equal(row.label, 'Maximum size');
  assert.equal(row.description, '23.8 MiB  **');
  assert.match(row.tooltip, /level 2\.50/);
  assert.match(row.tooltip, /object: abab/);
  assert.equal(concernRowText(metric({ value: 5, unit: '', level: 0.5, stars: '' })).description, '5');
});

test("sections in the document's order, reference groups under References, the summary counts flagged rows", () => {
  const document: ConcernsDocument = {
    rule: 'r',
    refGroups: [{ symbol: 'branches', name: 'Branches', count: 3 }],
    metrics: [
      metric({
        key: 'referenceCount',
        section: 'Overall repository size › References',
        name: 'Count',
        value: 3,
        unit: '',
        level: 0.0001,
        stars: '',
      }),
      metric({}),
    ],
    complete: true,
    problems: [],
  };
  const sections = concernSections(document);
  assert.deepEqual(
    sections.map((s) => [s.label, s.description, s.rows.map((r) => r.label)]),
    [
      ['Overall repository size › References', '', ['Count', '  Branches']],
      ['Biggest objects › Blobs', '**', ['Maximum size']],
    ],
  );
  assert.equal(concernsSummary(document), "1 row at git-sizer's level 1 or more");
  assert.equal(
    concernsSummary({ ...document, metrics: [document.metrics[0]!], complete: false }),
    "nothing at git-sizer's level 1 (not every object could be read)",
  );
});
