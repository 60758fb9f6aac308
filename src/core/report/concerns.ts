import type { ConcernKey, ConcernMetric, ConcernsDocument } from '../documents/concerns-document.ts';
import type { StoreWalkInputs } from '../model/object-paths.ts';
import { COUNT32_MAX, SIZER_RULE, sizerFigures } from '../model/sizer-metrics.ts';

/** git-sizer's rows (sizes/output.go): section, name, description, unit and reference value, in its table's order. */
const ROWS: readonly [ConcernKey, string, string, string, '' | 'B', number][] = [
  [
    'uniqueCommitCount',
    'Overall repository size › Commits',
    'Count',
    'The total number of distinct commit objects',
    '',
    500e3,
  ],
  [
    'uniqueCommitSize',
    'Overall repository size › Commits',
    'Total size',
    'The total size of all commit objects',
    'B',
    250e6,
  ],
  [
    'uniqueTreeCount',
    'Overall repository size › Trees',
    'Count',
    'The total number of distinct tree objects',
    '',
    1.5e6,
  ],
  [
    'uniqueTreeSize',
    'Overall repository size › Trees',
    'Total size',
    'The total size of all distinct tree objects',
    'B',
    2e9,
  ],
  [
    'uniqueTreeEntries',
    'Overall repository size › Trees',
    'Total tree entries',
    'The total number of entries in all distinct tree objects',
    '',
    50e6,
  ],
  [
    'uniqueBlobCount',
    'Overall repository size › Blobs',
    'Count',
    'The total number of distinct blob objects',
    '',
    1.5e6,
  ],
  [
    'uniqueBlobSize',
    'Overall repository size › Blobs',
    'Total size',
    'The total size of all distinct blob objects',
    'B',
    10e9,
  ],
  [
    'uniqueTagCount',
    'Overall repository size › Annotated tags',
    'Count',
    'The total number of annotated tags',
    '',
    25e3,
  ],
  ['referenceCount', 'Overall repository size › References', 'Count', 'The total number of references', '', 25e3],
  ['maxCommitSize', 'Biggest objects › Commits', 'Maximum size', 'The size of the largest single commit', 'B', 50e3],
  [
    'maxCommitParentCount',
    'Biggest objects › Commits',
    'Maximum parents',
    'The most parents of any single commit',
    '',
    10,
  ],
  ['maxTreeEntries', 'Biggest objects › Trees', 'Maximum entries', 'The most entries in any single tree', '', 1000],
  ['maxBlobSize', 'Biggest objects › Blobs', 'Maximum size', 'The size of the largest blob object', 'B', 10e6],
  [
    'maxHistoryDepth',
    'History structure',
    'Maximum history depth',
    'The longest chain of commits in history',
    '',
    500e3,
  ],
  [
    'maxTagDepth',
    'History structure',
    'Maximum tag depth',
    'The longest chain of annotated tags pointing at one another',
    '',
    1.001,
  ],
  [
    'maxCheckoutTreeCount',
    'Biggest checkouts',
    'Number of directories',
    'The number of directories in the largest checkout',
    '',
    2000,
  ],
  ['maxCheckoutPathDepth', 'Biggest checkouts', 'Maximum path depth', 'The maximum path depth in any checkout', '', 10],
  [
    'maxCheckoutPathLength',
    'Biggest checkouts',
    'Maximum path length',
    'The maximum path length in any checkout',
    'B',
    100,
  ],
  [
    'maxCheckoutBlobCount',
    'Biggest checkouts',
    'Number of files',
    'The maximum number of files in any checkout',
    '',
    50e3,
  ],
  [
    'maxCheckoutBlobSize',
    'Biggest checkouts',
    'Total size of files',
    'The maximum sum of file sizes in any checkout',
    'B',
    1e9,
  ],
  [
    'maxCheckoutLinkCount',
    'Biggest checkouts',
    'Number of symlinks',
    'The maximum number of symlinks in any checkout',
    '',
    25e3,
  ],
  [
    'maxCheckoutSubmoduleCount',
    'Biggest checkouts',
    'Number of submodules',
    'The maximum number of submodules in any checkout',
    '',
    100,
  ],
];

/** The rows git-sizer keeps in 64-bit counters (sums of sizes); every other stops at COUNT32_MAX. */
const COUNT64: ReadonlySet<ConcernKey> = new Set([
  'uniqueCommitSize',
  'uniqueTreeSize',
  'uniqueTreeEntries',
  'uniqueBlobSize',
  'maxCheckoutBlobSize',
]);

/** git-sizer's table cell for a level (item.levelOfConcern): a star per whole level, 30 `!` past 30 or when saturated. */
export function concernStars(level: number, saturated: boolean): string {
  if (saturated || level > 30) return '!'.repeat(30);
  return '*'.repeat(Math.floor(level));
}

/**
 * git-sizer's figures for a store's objects and refs (sizer-metrics.ts), each with its level of
 * concern. The CLI's `stats --concerns` and the server's `packscope/concerns` both build it here.
 */
export function concernsDocument(inputs: StoreWalkInputs, hashSize: number, signal?: AbortSignal): ConcernsDocument {
  const figures = sizerFigures(inputs, hashSize, signal);
  const metrics = ROWS.map(([key, section, name, description, unit, referenceValue]): ConcernMetric => {
    const value = figures.values[key];
    const saturated = !COUNT64.has(key) && value >= COUNT32_MAX;
    const level = value / referenceValue;
    const object = figures.objects[key];
    return {
      key,
      section,
      name,
      description,
      value,
      unit,
      referenceValue,
      level,
      stars: concernStars(level, saturated),
      ...(saturated ? { saturated } : {}),
      ...(object === undefined ? {} : { object }),
    };
  });
  return {
    rule: SIZER_RULE,
    refGroups: figures.refGroups,
    metrics,
    complete: figures.complete,
    problems: figures.problems,
  };
}
