import type { SizeColumn } from './size-column.ts';
import type { SummaryFacts } from './pack-model.ts';

/**
 * What a reopen checks of a sealed model file beyond its seal: its shape, never its values column
 * by column (docs/security.md, "The model cache's threat model"). The seal says PackScope wrote the
 * file from a build of this pack; these checks keep a writer of another version, or with a bug in
 * the layout, from making a reader index outside what the model has or allocate without bound. All
 * of them are O(1) or O(what the header lists), none O(count): the columns' lengths are fixed
 * by the reader (model-store.ts) from the idx's count.
 *
 * `summary` and `rankings` are the header's, not yet typed. Throws with the first problem; the
 * caller rebuilds.
 */
export function checkStoredShape(
  count: number,
  depthBytes: 2 | 4,
  overflows: [number, number][][],
  summary: unknown,
  rankings: unknown,
): asserts summary is SummaryFacts {
  for (const overflow of overflows)
    for (const [n, value] of overflow) {
      if (!isObject(n, count)) throw new Error('model size overflow map names a wrong object');
      if (!Number.isSafeInteger(value) || value < 0xffffffff) throw new Error('model size overflow value out of range');
    }
  checkSummary(summary, count);
  // A build stores depths in 2 bytes whenever the deepest fits (resolveChains); the histogram's
  // length says how deep that is, so another width is not a build's.
  const maxDepth = (summary as SummaryFacts).depthHistogram.length - 1;
  if ((depthBytes === 2) !== maxDepth <= 0xffff) throw new Error('model depth column has the wrong width');
  checkRankings(rankings, count);
}

/**
 * When a stored size column is read: every entry of its overflow map (in range: checkStoredShape)
 * names an object whose 4-byte value says "in the map".
 */
export function checkSizeOverflow(column: SizeColumn): void {
  for (const n of column.overflow.keys())
    if (column.low[n] !== 0xffffffff) throw new Error('model size overflow map names a wrong object');
}

function isObject(n: unknown, count: number): n is number {
  return Number.isInteger(n) && (n as number) >= 0 && (n as number) < count;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function checkSummary(summary: unknown, count: number): void {
  const facts = summary as Partial<SummaryFacts> | null;
  const byType = facts?.counts?.byType as Record<string, unknown> | undefined;
  const histogram = facts?.depthHistogram;
  if (
    typeof facts !== 'object' ||
    facts === null ||
    typeof byType !== 'object' ||
    byType === null ||
    !['commit', 'tree', 'blob', 'tag'].every((type) => isCount(byType[type])) ||
    !isCount(facts.counts?.ofsDeltas) ||
    !isCount(facts.counts?.refDeltas) ||
    !Array.isArray(histogram) ||
    // One entry per depth from 0: a depth is below the object count (a chain never repeats an object).
    histogram.length < 1 ||
    histogram.length > Math.max(1, count) ||
    !histogram.every(isCount) ||
    !isCount(facts.byteTotals?.inflated) ||
    !isCount(facts.byteTotals?.onDisk)
  )
    throw new Error('model summary has missing or mistyped fields');
}

function checkRankings(rankings: unknown, count: number): void {
  if (typeof rankings !== 'object' || rankings === null || Array.isArray(rankings))
    throw new Error('model rankings are not an object');
  for (const head of Object.values(rankings) as unknown[]) {
    const { limit, entries } = (head ?? {}) as { limit?: unknown; entries?: unknown };
    if (!isCount(limit) || !Array.isArray(entries) || entries.length > limit || entries.length > count)
      throw new Error('model ranking head has the wrong shape');
    for (const entry of entries as unknown[]) {
      const { object, value } = (entry ?? {}) as { object?: unknown; value?: unknown };
      if (!isObject(object, count) || typeof value !== 'number' || !Number.isFinite(value))
        throw new Error('model ranking head names a wrong object');
    }
  }
}
