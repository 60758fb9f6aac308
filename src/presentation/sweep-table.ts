/**
 * What the Cache Lab builds from a sweep: the table as `packscope sweep` prints it (text and
 * Markdown, for the Copy buttons) and one sentence per limit comparing Git's LRU with the reference
 * bound. Pure: the webview draws with it, the tests check it.
 */
import { GIT_POLICY, REFERENCE_POLICY, type CacheLabMetric } from '../protocol/cache-lab-protocol.ts';
import { formatLimit } from '../common/format.ts';
import { markdownText } from '../common/markdown-text.ts';
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
export function sweepTableRows(result: SweepResult, limits: readonly number[], policies: readonly string[], metric: CacheLabMetric): string[][] {
  const header = ['limit', ...policies];
  const rows = limits.map((limit) => [formatLimit(limit), ...policies.map((policy) => {
    const cell = sweepCell(result.results, policy, limit);
    return cell === undefined ? '' : String(cell[metric]);
  })]);
  return [header, ...rows];
}

/** `inflations over 89 reads` — the caption line of the text table. */
export function sweepTableTitle(result: SweepResult, metric: CacheLabMetric): string {
  return `${metricWords(metric)} over ${result.recording.reads} reads`;
}

/** The table exactly as `packscope sweep` prints it: numbers right-aligned, words left, two spaces between columns. */
export function sweepTableText(result: SweepResult, limits: readonly number[], policies: readonly string[], metric: CacheLabMetric): string {
  const rows = sweepTableRows(result, limits, policies, metric);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const numeric = (cell: string, column: number): boolean => column > 0 && /^[\d,.%\s]+$/.test(cell);
  const lines = rows.map((row) => row.map((cell, column) => (numeric(cell, column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ').trimEnd());
  return [sweepTableTitle(result, metric), ...lines].join('\n') + '\n';
}

/** The same table in GitHub Markdown, numbers right-aligned. */
export function sweepTableMarkdown(result: SweepResult, limits: readonly number[], policies: readonly string[], metric: CacheLabMetric): string {
  const [header, ...rows] = sweepTableRows(result, limits, policies, metric);
  const line = (cells: string[]): string => `| ${cells.map(markdownText).join(' | ')} |`;
  const rule = `|${header!.map((_, column) => (column === 0 ? ' --- ' : ' ---: ')).join('|')}|`;
  return [`${sweepTableTitle(result, metric)}:`, '', line(header!), rule, ...rows.map(line)].join('\n') + '\n';
}

/**
 * One sentence per limit comparing `git` with the `belady` reference on the metric: "At 96m, Git's
 * LRU does 12% more inflations than the reference bound." Empty when either policy is missing.
 */
export function gitVersusReferenceSentences(result: SweepResult, limits: readonly number[], metric: CacheLabMetric): string[] {
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
    if (g === r) sentences.push(`${at}, Git's LRU ${verb} as many ${object} as the reference bound (${g}).`);
    else if (r === 0) sentences.push(`${at}, Git's LRU ${verb} ${g} ${object}; the reference bound ${verb} none.`);
    else {
      const percent = (Math.abs(g - r) / r) * 100;
      const shown = percent >= 10 ? percent.toFixed(0) : percent.toFixed(1);
      sentences.push(`${at}, Git's LRU ${verb} ${shown}% ${g > r ? 'more' : 'fewer'} ${object} than the reference bound (${g} against ${r}).`);
    }
  }
  return sentences;
}
