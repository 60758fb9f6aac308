/**
 * One exactness cell as bench/exactness.bench.ts writes it (`--out`) and bench/exactness-summary.ts
 * reads it, and how a cell is judged: both print the same verdicts.
 */
export interface Cell {
  command: string;
  limit: string;
  realLines: number;
  realInflations: number;
  predictedLines: number;
  predictedInflations: number;
  linesBounds?: [number, number];
  inflationBounds?: [number, number];
  exact?: boolean;
  /** Bounds width as a share of the prediction (lines, inflations: the wider). */
  width?: number;
  /** real git inside both bounds (inflations less the command's constant). */
  inBounds?: boolean;
  completed?: {
    predictedLines: number;
    predictedInflations: number;
    exact: boolean;
    equal: boolean;
    /** Where more than one reading explains the runs, the completed replay bounds those places (record --help). */
    linesBounds?: [number, number];
    width?: number;
    inBounds?: boolean;
  };
  /** Inflations outside unpack_entry (real − predicted at limit 0), added to every prediction of the command. */
  constant: number;
}

export interface Run {
  repo: string;
  gitVersion: string;
  commands: { name: string; args: string[]; note?: string }[];
  cells: Cell[];
  skipped?: { command: string; reason: string }[];
}

export const percent = (share: number): string => `${(100 * share).toFixed(share < 0.001 ? 3 : 2)}%`;

/** What one cell is, as the README's tables say it; `wrong` when real git is not what it claims. */
export function judge(c: Cell): { words: string; kind: 'exact' | 'completed' | 'bounded' | 'none' | 'wrong' } {
  if (c.completed) {
    if (c.completed.exact)
      return c.completed.equal
        ? { words: 'completed, exact', kind: 'completed' }
        : { words: 'completed, exact claimed, DIFFERENT', kind: 'wrong' };
    if (c.completed.inBounds)
      return { words: `completed, bounds hold, ${percent(c.completed.width!)} wide`, kind: 'completed' };
    return { words: 'completed, OUTSIDE bounds', kind: 'wrong' };
  }
  if (c.exact)
    return c.predictedLines === c.realLines && c.predictedInflations + c.constant === c.realInflations
      ? { words: 'exact', kind: 'exact' }
      : { words: 'exact claimed, DIFFERENT', kind: 'wrong' };
  if (c.inBounds === undefined) return { words: 'no bounds', kind: 'none' };
  return c.inBounds
    ? { words: `bounds hold, ${percent(c.width!)} wide`, kind: 'bounded' }
    : { words: 'OUTSIDE bounds', kind: 'wrong' };
}
