/**
 * What the Cache Lab builds from a sweep: the table as `packscope sweep` prints it (text and
 * Markdown, for the Copy buttons) and one sentence per limit comparing Git's LRU with the reference
 * bound. Pure: the webview draws with it, the tests check it.
 */
import { GIT_POLICY, REFERENCE_POLICY, type CacheLabMetric } from '../protocol/cache-lab-protocol.ts';
import { formatLimit, formatSimulatedCount } from '../common/format.ts';
import { markdownText } from '../common/markdown-text.ts';
import { checkedAgainstNote } from '../common/checked-policies.ts';
import type { SimCell, SweepResult } from '../protocol/server-protocol.ts';

/** The cell of `results` for (policy, limit), as the server orders them or not. */
export function sweepCell(results: readonly SimCell[], policy: string, limit: number): SimCell | undefined {
  return results.find((cell) => cell.policy === policy && cell.limit === limit);
}

const METRIC_WORDS: Record<CacheLabMetric, string> = { inflations: 'inflations', inflatedBytes: 'inflated bytes' };

export function metricWords(metric: CacheLabMetric): string {
  return METRIC_WORDS[metric];
}

/** Rows = limits, columns = policies, as `packscope sweep` and the delta-base-cache thread's tables. */
export function sweepTableRows(
  result: SweepResult,
  limits: readonly number[],
  policies: readonly string[],
  metric: CacheLabMetric,
): string[][] {
  const header = ['limit', ...policies];
  const rows = limits.map((limit) => [
    formatLimit(limit),
    ...policies.map((policy) => {
      const cell = sweepCell(result.results, policy, limit);
      return cell === undefined ? '' : sweepCellText(cell, metric);
    }),
  ]);
  return [header, ...rows];
}

/**
 * A cell's number as the tables show it: exact, or `min–max` (bounds that contain what git does),
 * or `≈n` without bounds (git-internals §8.1: a recording can hide reads). `show` formats one number.
 */
export function sweepCellText(cell: SimCell, metric: CacheLabMetric, show: (n: number) => string = String): string {
  return formatSimulatedCount(cell[metric], cell.exact === true, cell.bounds?.[metric], show);
}

/**
 * The footnotes a table needs: what `min–max` and `≈` mean there when it has inexact cells, and
 * which of its policies were checked against a real build of git.
 */
export function sweepTableNotes(result: SweepResult): string[] {
  const notes: string[] = [];
  if (result.results.some((cell) => cell.exact !== true && cell.bounds))
    notes.push(
      'min–max: not exact; the bounds contain what git does (the recording cannot show reads that hit the cache when it was made)',
    );
  const unbounded = result.results.find((cell) => cell.exact !== true && !cell.bounds);
  if (unbounded) notes.push(`≈: not exact and no bounds (${unbounded.exactness ?? 'unknown'})`);
  const checked = checkedAgainstNote(result.results);
  if (checked) notes.push(checked);
  return notes;
}

/** `inflations over 89 reads` — the caption line of the text table. */
export function sweepTableTitle(result: SweepResult, metric: CacheLabMetric): string {
  return `${metricWords(metric)} over ${result.recording.reads} reads`;
}

/** The table exactly as `packscope sweep` prints it: numbers right-aligned, words left, two spaces between columns. */
export function sweepTableText(
  result: SweepResult,
  limits: readonly number[],
  policies: readonly string[],
  metric: CacheLabMetric,
): string {
  const rows = sweepTableRows(result, limits, policies, metric);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const numeric = (cell: string, column: number): boolean => column > 0 && /^[\d,.%\s–≈]+$/.test(cell);
  const lines = rows.map((row) =>
    row
      .map((cell, column) => (numeric(cell, column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
  return [sweepTableTitle(result, metric), ...lines, ...sweepTableNotes(result)].join('\n') + '\n';
}

/** The same table in GitHub Markdown, numbers right-aligned. */
export function sweepTableMarkdown(
  result: SweepResult,
  limits: readonly number[],
  policies: readonly string[],
  metric: CacheLabMetric,
): string {
  const [header, ...rows] = sweepTableRows(result, limits, policies, metric);
  const line = (cells: string[]): string => `| ${cells.map(markdownText).join(' | ')} |`;
  const rule = `|${header!.map((_, column) => (column === 0 ? ' --- ' : ' ---: ')).join('|')}|`;
  const notes = sweepTableNotes(result);
  return (
    [
      `${sweepTableTitle(result, metric)}:`,
      '',
      line(header!),
      rule,
      ...rows.map(line),
      ...(notes.length > 0 ? ['', ...notes.map(markdownText)] : []),
    ].join('\n') + '\n'
  );
}

/**
 * One sentence per limit comparing `git` with the `belady` reference on the metric: "At 96m, Git's
 * LRU does 12% more inflations than the reference bound." Empty when either policy is missing.
 */
export function gitVersusReferenceSentences(
  result: SweepResult,
  limits: readonly number[],
  metric: CacheLabMetric,
): string[] {
  const words = metricWords(metric);
  const verb = metric === 'inflations' ? 'does' : 'inflates';
  const object = metric === 'inflations' ? words : 'bytes';
  const sentences: string[] = [];
  for (const limit of limits) {
    const git = sweepCell(result.results, GIT_POLICY, limit);
    const reference = sweepCell(result.results, REFERENCE_POLICY, limit);
    if (git === undefined || reference === undefined) continue;
    const g = git[metric];
    const r = reference[metric];
    const at = `At ${formatLimit(limit)}`;
    if (git.exact !== true) {
      // Git's own count is not known exactly here (git-internals §8.1): say so instead of a percentage.
      sentences.push(
        `${at}, Git's LRU ${verb} ${sweepCellText(git, metric)} ${object}${git.bounds ? ' (not exact: bounds)' : ' (not exact)'}; the reference bound ${verb} ${r}.`,
      );
      continue;
    }
    if (g === r) sentences.push(`${at}, Git's LRU ${verb} as many ${object} as the reference bound (${g}).`);
    else if (r === 0) sentences.push(`${at}, Git's LRU ${verb} ${g} ${object}; the reference bound ${verb} none.`);
    else {
      const percent = (Math.abs(g - r) / r) * 100;
      const shown = percent >= 10 ? percent.toFixed(0) : percent.toFixed(1);
      sentences.push(
        `${at}, Git's LRU ${verb} ${shown}% ${g > r ? 'more' : 'fewer'} ${object} than the reference bound (${g} against ${r}).`,
      );
    }
  }
  return sentences;
}
