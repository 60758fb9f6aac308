/**
 * How wide a replayed cell's bounds may be before they say too little (git-internals §8.1: a
 * limit-0 recording bounds what it hides). Measured in inflations, the count the cache decides.
 * Here, in common, because the engine (the time view), the CLI and the Cache Lab all decide by
 * the same two shares.
 */
import { formatCount, formatLimit } from './format.ts';

/** A bound wider than this share of its cell's inflations says too little to read: offer to complete the recording there. */
export const WIDE_BOUND_SHARE = 0.01;

/**
 * A recommendation, a knee or a time estimate resting on a cell bounded wider than this share of
 * its inflations says what it would need instead: the truth anywhere inside such bounds can move a
 * knee by a limit or a time by more than the cost model's own error.
 */
export const DECIDING_BOUND_SHARE = 0.05;

/** What the shares look at in a cell (a sweep's SimResult, or the cost model's CellCounts). */
export interface BoundedCell {
  limit: number;
  exact: boolean;
  inflations: number;
  bounds: { inflations: [number, number] } | null;
}

/** Whether `cell` has bounds wider than `share` of its inflations; exact cells and cells without bounds are not. */
export function boundWiderThan(cell: BoundedCell, share: number): boolean {
  // `!bounds`, not `=== null`: a hand-made cell (an older document's, a test's) may lack the field.
  if (cell.exact || !cell.bounds) return false;
  const [low, high] = cell.bounds.inflations;
  return high - low > share * Math.max(1, cell.inflations);
}

/** The limits of `cells` bounded wider than `share`, ascending, once each. */
export function limitsWiderThan(cells: readonly BoundedCell[], share: number): number[] {
  return [...new Set(cells.filter((cell) => boundWiderThan(cell, share)).map((cell) => cell.limit))].sort(
    (a, b) => a - b,
  );
}

/** What a figure would need instead of resting on wide bounds: the limits to complete the recording at, and the sentence that says so. */
export interface NeededCompletion {
  limits: number[];
  /** "needs the recording completed at 4m, 16m: bounds 40,037–1,423,634 inflations at 4m are too wide (…)" */
  sentence: string;
}

/**
 * What a figure resting on `cells` would need, when one of them is bounded wider than
 * DECIDING_BOUND_SHARE (the widest is named in the sentence). Undefined when every cell is exact
 * or narrow.
 */
export function neededCompletion(cells: readonly BoundedCell[]): NeededCompletion | undefined {
  const wide = cells.filter((cell) => boundWiderThan(cell, DECIDING_BOUND_SHARE));
  if (wide.length === 0) return undefined;
  const width = (cell: BoundedCell): number =>
    (cell.bounds!.inflations[1] - cell.bounds!.inflations[0]) / Math.max(1, cell.inflations);
  const widest = wide.reduce((a, cell) => (width(cell) > width(a) ? cell : a));
  const [low, high] = widest.bounds!.inflations;
  const limits = limitsWiderThan(wide, DECIDING_BOUND_SHARE);
  return {
    limits,
    sentence: `needs the recording completed at ${limits.map(formatLimit).join(', ')}: bounds ${formatCount(low)}–${formatCount(high)} inflations at ${formatLimit(widest.limit)} are too wide (over ${DECIDING_BOUND_SHARE * 100}% of the ${formatCount(widest.inflations)} predicted)`,
  };
}
