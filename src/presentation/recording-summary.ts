/**
 * What a recording's last sweep found, in a line the Recordings view shows on the recording's row
 * (the tree carries the cache simulations too, not only the Cache Lab): git's inflations
 * at the limit git would use (its default 96m, or the nearest limit swept), and how far the
 * `belady` reference bound is from it there. A cell that is not exact shows its bounds or `≈`, as
 * the Cache Lab's table does. Pure: the extension stores the sweeps, the unit test reads this.
 */
import { formatCount, formatLimit, formatSignedPercent } from '../common/format.ts';
import { GIT_DEFAULT_LIMIT } from '../protocol/cache-lab-protocol.ts';
import type { SimCell, SweepResult } from '../protocol/server-protocol.ts';
import { sweepCellText } from './sweep-table.ts';

export interface SimulationSummary {
  /** The limit the line is about (the one asked for, else the nearest swept). */
  limit: number;
  git: SimCell;
  belady: SimCell | undefined;
  reads: number;
  /** Limits and policies swept. */
  limits: number[];
  policies: string[];
}

/** The summary of a sweep at `limit` (or the nearest limit it has a `git` cell for); undefined without one. */
export function summarizeSweep(result: SweepResult, limit = GIT_DEFAULT_LIMIT): SimulationSummary | undefined {
  const gitCells = result.results.filter((cell) => cell.policy === 'git');
  if (gitCells.length === 0) return undefined;
  const git = gitCells.reduce((best, cell) =>
    Math.abs(Math.log2(cell.limit + 1) - Math.log2(limit + 1)) <
    Math.abs(Math.log2(best.limit + 1) - Math.log2(limit + 1))
      ? cell
      : best,
  );
  const belady = result.results.find((cell) => cell.policy === 'belady' && cell.limit === git.limit);
  return {
    limit: git.limit,
    git,
    belady,
    reads: git.reads,
    limits: [...new Set(result.results.map((cell) => cell.limit))],
    policies: [...new Set(result.results.map((cell) => cell.policy))],
  };
}

/** `git 231,273 inflations at 96m · belady −0.7%`, and a tooltip that says what each number is. */
export function simulationSummaryText(summary: SimulationSummary): { description: string; tooltip: string } {
  const limit = formatLimit(summary.limit);
  const gitText = sweepCellText(summary.git, 'inflations', formatCount);
  let description = `git ${gitText} inflations at ${limit}`;
  const lines = [
    `Last sweep (Cache Lab): ${formatCount(summary.reads)} reads replayed over ${summary.limits.map(formatLimit).join(', ')} for ${summary.policies.join(', ')}.`,
    `git (today's LRU) at ${limit}: ${gitText} inflations${summary.git.exact === true ? ' (exact)' : summary.git.bounds ? ' (not exact: the bounds contain what git does)' : ' (not exact)'}.`,
  ];
  if (summary.belady !== undefined && summary.git.inflations > 0) {
    const distance = ((summary.belady.inflations - summary.git.inflations) / summary.git.inflations) * 100;
    description += ` · belady ${formatSignedPercent(distance, 'typographic')}`;
    lines.push(
      `belady (a reference bound, not a proven optimum when sizes differ) at ${limit}: ${sweepCellText(summary.belady, 'inflations', formatCount)} inflations, ${formatSignedPercent(distance, 'typographic')} against git.`,
    );
  }
  return { description, tooltip: lines.join('\n') };
}
