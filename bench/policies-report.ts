/**
 * The tables of docs/policies.md from bench/policies.bench.ts's --out files (bench/results/):
 * one table per repository and command, a row per policy, real and predicted trace lines and
 * inflations at each limit, and where the file holds them CPU seconds beside `sweep --time`'s.
 *
 *   node --import tsx bench/policies-report.ts bench/results/policies-*.json > tables.md
 */
import * as fs from 'node:fs';
import type { Cell } from './policies-cells.ts';

const count = (n: number): string => n.toLocaleString('en-US');

/** git-legacy:0x… cells name the run's pack address; one row holds every address of the policy. */
const rowName = (policy: string): string => (policy.startsWith('git-legacy:') ? 'git-legacy' : policy);

function countTable(cells: Cell[], limits: string[]): string[] {
  const rows = [...new Set(cells.map((c) => rowName(c.policy)))];
  const out = [`| policy (build) | ${limits.join(' | ')} |`, `|---|${limits.map(() => '---:').join('|')}|`];
  for (const row of rows) {
    const mine = cells.filter((c) => rowName(c.policy) === row);
    const texts = limits.map((limit) => {
      const c = mine.find((m) => m.limit === limit);
      if (!c) return '';
      // Real inflations and lines; where the replay differs, its numbers beside them.
      return c.exact
        ? `${count(c.realInflations)} / ${count(c.realLines)}`
        : `**${count(c.realInflations)} / ${count(c.realLines)} (predicted ${count(c.predictedInflations)} / ${count(c.predictedLines)})**`;
    });
    out.push(`| ${row} (${mine[0]!.build}) | ${texts.join(' | ')} |`);
  }
  return out;
}

function timeTable(cells: Cell[]): string[] {
  const timed = cells.filter((c) => c.cpuSeconds !== undefined);
  if (timed.length === 0) return [];
  const limits = [...new Set(timed.map((c) => c.limit))];
  const out = [
    '',
    `CPU seconds, real (best of ${timed[0]!.cpuRuns}; load average when measured) and ≈ predicted by \`sweep --time\`:`,
    '',
    `| policy | ${limits.join(' | ')} |`,
    `|---|${limits.map(() => '---:').join('|')}|`,
  ];
  for (const policy of [...new Set(timed.map((c) => c.policy))]) {
    const texts = limits.map((limit) => {
      const c = timed.find((m) => m.policy === policy && m.limit === limit);
      if (!c) return '';
      const predicted = c.predictedSeconds === undefined ? '' : `, ≈${c.predictedSeconds.toFixed(2)}`;
      return `${c.cpuSeconds!.toFixed(2)} (load ${c.load})${predicted}`;
    });
    out.push(`| ${policy} | ${texts.join(' | ')} |`);
  }
  return out;
}

/** --bounds: per policy, how many real runs lie in the bounds of today's limit-0 recording. */
function boundsLines(cells: Cell[]): string[] {
  const bounded = cells.filter((c) => c.stockBounds !== undefined);
  if (bounded.length === 0) return [];
  const policies = [...new Set(bounded.map((c) => c.policy))];
  const parts = policies.map((policy) => {
    const mine = bounded.filter((c) => c.policy === policy);
    const inside = mine.filter((c) => c.stockBounds!.inBounds).length;
    const exact = mine.filter((c) => c.stockBounds!.exact).length;
    return `${policy} ${inside} of ${mine.length} inside (${exact} exact)`;
  });
  return ['', `Real runs inside the bounds of today's limit-0 recording (\`record --exact\`): ${parts.join('; ')}.`];
}

function report(files: string[]): string {
  const cells = files.flatMap((file) => (JSON.parse(fs.readFileSync(file, 'utf8')) as { cells: Cell[] }).cells);
  const out: string[] = [];
  for (const repo of [...new Set(cells.map((c) => c.repo))]) {
    for (const command of [...new Set(cells.filter((c) => c.repo === repo).map((c) => c.command))]) {
      // The counts of the full run; the timed and the --bounds runs counted their cells again.
      const mine = cells.filter(
        (c) => c.repo === repo && c.command === command && c.cpuSeconds === undefined && c.stockBounds === undefined,
      );
      const limits = [...new Set(mine.map((c) => c.limit))];
      const exact = mine.filter((c) => c.exact).length;
      out.push(`#### ${repo}: ${command}`);
      if (mine.length > 0)
        out.push(
          '',
          `Inflations / trace lines of real git; ${exact} of ${mine.length} cells equal to the replay.`,
          '',
          ...countTable(mine, limits),
        );
      const ofCommand = cells.filter((c) => c.repo === repo && c.command === command);
      out.push(...boundsLines(ofCommand), ...timeTable(ofCommand), '');
    }
  }
  return out.join('\n');
}

process.stdout.write(report(process.argv.slice(2)));
