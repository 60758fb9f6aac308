/**
 * The summary bench/README.md prints of exactness runs: one line per run (repository × git), then
 * each run's table. Reads the JSON documents `bench/exactness.bench.ts --out FILE` wrote.
 *
 *   node --import tsx bench/exactness-summary.ts RUN.json [RUN.json …] [--tables]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { judge, percent, type Cell, type Run } from './exactness-cells.ts';

const { values, positionals } = parseArgs({
  options: { tables: { type: 'boolean' }, grid: { type: 'boolean' } },
  allowPositionals: true,
});
const count = (n: number): string => n.toLocaleString('en-US');

const runs = positionals.map((file) => JSON.parse(fs.readFileSync(file, 'utf8')) as Run);
process.stdout.write(
  '| repository | git | commands (skipped) | cells | exact | completed | bounds hold (widest) | no bounds | wrong |\n|---|---|---|---|---|---|---|---|---|\n',
);
for (const run of runs) {
  const kinds = run.cells.map(judge);
  const n = (kind: string): number => kinds.filter((k) => k.kind === kind).length;
  const widest = Math.max(0, ...run.cells.filter((c) => judge(c).kind === 'bounded').map((c) => c.width ?? 0));
  const skipped = run.skipped?.length ?? 0;
  process.stdout.write(
    `| ${path.basename(run.repo)} | ${run.gitVersion.replace('git version ', '')} | ${run.commands.length - skipped}${skipped ? ` (${skipped})` : ''} | ${run.cells.length} | ${n('exact')} | ${n('completed')} | ${n('bounded')}${n('bounded') ? ` (${percent(widest)})` : ''} | ${n('none')} | ${n('wrong')} |\n`,
  );
}
/** One cell of a grid: exact, completed (exact, or its last bounded places' width), a bound's width, or what is wrong. */
function gridCell(c: Cell | undefined): string {
  if (!c) return '–';
  const { kind } = judge(c);
  if (kind === 'wrong') return `**${judge(c).words}**`;
  if (kind === 'exact') return 'exact';
  if (kind === 'completed') return c.completed!.exact ? 'completed' : `completed, ${percent(c.completed!.width!)} wide`;
  if (kind === 'bounded') return `${percent(c.width!)} wide`;
  return 'no bounds';
}
let listed = '';
if (values.grid)
  for (const run of runs) {
    const limits = [...new Set(run.cells.map((c) => c.limit))];
    if (run.repo !== listed) {
      // Each repository's commands once (they are chosen from its history, so each has its own).
      listed = run.repo;
      process.stdout.write(`\n${path.basename(run.repo)}'s commands:\n\n`);
      for (const command of run.commands)
        process.stdout.write(
          `- ${command.name}: \`git ${command.args.map((a) => (/^[0-9a-f]{40}$/.test(a) ? a.slice(0, 10) : a)).join(' ')}\`${command.note ? ` (${command.note})` : ''}\n`,
        );
    }
    process.stdout.write(
      `\n${path.basename(run.repo)}, ${run.gitVersion}\n\n| command | ${limits.join(' | ')} |\n|---|${limits.map(() => '---').join('|')}|\n`,
    );
    for (const command of run.commands) {
      const skipped = run.skipped?.find((s) => s.command === command.name);
      const cells = limits.map((limit) =>
        gridCell(run.cells.find((c) => c.command === command.name && c.limit === limit)),
      );
      process.stdout.write(
        `| ${command.name} | ${skipped ? `skipped: git failed (\`${skipped.reason.slice(0, 60)}\`)${' |'.repeat(limits.length - 1)}` : cells.join(' | ')} |\n`,
      );
    }
  }
if (values.tables)
  for (const run of runs) {
    process.stdout.write(`\n### ${path.basename(run.repo)}, ${run.gitVersion}\n\n`);
    for (const command of run.commands)
      process.stdout.write(
        `- ${command.name}: \`git ${command.args.join(' ')}\`${command.note ? ` (${command.note})` : ''}\n`,
      );
    for (const s of run.skipped ?? []) process.stdout.write(`- ${s.command} skipped: git failed: \`${s.reason}\`\n`);
    process.stdout.write(
      '\n| command | limit | real lines | predicted | bounds | completed | real infl. | predicted infl. | verdict |\n|---|---|---|---|---|---|---|---|---|\n',
    );
    for (const c of run.cells) {
      const bounds = c.linesBounds ? c.linesBounds.map(count).join('–') : '';
      const completed = c.completed
        ? `${count(c.completed.predictedLines)}${c.completed.linesBounds && !c.completed.exact ? ` (${c.completed.linesBounds.map(count).join('–')})` : ''}`
        : '';
      const inflations = (c.completed?.predictedInflations ?? c.predictedInflations) + c.constant;
      process.stdout.write(
        `| ${c.command} | ${c.limit} | ${count(c.realLines)} | ${count(c.predictedLines)} | ${bounds} | ${completed} | ${count(c.realInflations)} | ${count(inflations)} | ${judge(c).words} |\n`,
      );
    }
  }
