/**
 * The one table `npm run bench` ends with: every speed target, each figure the benches
 * recorded for it (bench/results.ts), met or missed, and the machine's load average while the bench
 * that measured it ran. It measures nothing: a target no bench recorded a figure for is listed as
 * not measured, with the reason.
 *
 *   node --import tsx bench/summary.ts <results.jsonl> <loads.json>
 *
 * <loads.json> is scripts/bench.mjs's record of each bench: its name and the 1-minute load averages
 * sampled while it ran.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { Figure, TargetId } from './results.ts';

interface Recorded extends Figure {
  bench: string;
}

interface BenchLoad {
  name: string;
  /** The bench's script, as bench/results.ts's `bench` names it (its file name without .bench.ts). */
  bench: string;
  samples: number[];
  seconds: number;
  status: string;
}

/** Each target: its words, its goal, and why it can be missing from a run. */
const TARGETS: { id: TargetId; target: string; goal: string; whenMissing: string }[] = [
  {
    id: 'reopen-in-process',
    target: 'reopen a stored model, in process',
    goal: '< 5% of build+save',
    whenMissing: 'pack-engine bench did not finish',
  },
  {
    id: 'reopen-cli',
    target: 'reopen, CLI stats --no-paths',
    goal: '< 15% of a cold run',
    whenMissing: 'pack-engine bench did not finish',
  },
  {
    id: 'header-scan',
    target: 'header-only scan',
    goal: '>= 6 M objects/s',
    whenMissing: 'pack-engine bench did not finish',
  },
  {
    id: 'verify-pack',
    target: 'verify-pack -v against git',
    goal: '>= 20x git, every pack',
    whenMissing: 'pack-engine bench did not finish',
  },
  {
    id: 'objects-generated',
    target: 'objects against cat-file, generated pack',
    goal: '<= 1.0x',
    whenMissing: 'pack-engine bench did not finish',
  },
  {
    id: 'objects-monorepo',
    target: 'objects against cat-file, 213-pack monorepo',
    goal: '<= 1.0x',
    whenMissing:
      'measured by npm run bench (not --quick), or pack-engine.bench.ts --scale, --monorepo or --repository DIR',
  },
  {
    id: 'objects-many-packs',
    target: 'objects against cat-file, 3,000 small packs',
    goal: '<= 1.0x',
    whenMissing: 'many-packs bench did not finish',
  },
  {
    id: 'hover-during-build',
    target: "slowest hover during another pack's build",
    goal: 'none over 50 ms',
    whenMissing: 'hover bench did not finish, or had one pack only',
  },
  {
    id: 'first-row',
    target: "Packs view's first row (LSP) against CLI cold build",
    goal: '<= 2x',
    whenMissing: 'hover bench did not finish',
  },
  {
    id: 'sweep-5m',
    target: 'sweep 8 limits x 8 policies, 5 M reads',
    goal: '< 30 s',
    whenMissing: 'simulator bench ran without --scale (npm run bench --quick skips it)',
  },
  {
    id: 'names',
    target: 'names by path against git rev-list --objects',
    goal: 'no slower (wall)',
    whenMissing: 'path-walk bench did not finish',
  },
];

function readJsonLines(file: string): Recorded[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Recorded);
}

function loadOf(loads: BenchLoad[], bench: string): string {
  // A script may run twice (the pack-engine bench, then figure 5 alone on git.git's pack): both runs' samples.
  const samples = loads.filter((entry) => entry.bench === bench).flatMap((entry) => entry.samples);
  if (samples.length === 0) return '?';
  const mean = samples.reduce((sum, x) => sum + x, 0) / samples.length;
  return `${mean.toFixed(1)} (max ${Math.max(...samples).toFixed(1)})`;
}

/** The table as lines: one row per figure, one per target without any. */
export function summaryTable(figures: Recorded[], loads: BenchLoad[]): string[] {
  const rows: string[][] = [['target', 'measured on', 'figure', 'goal', 'result', 'load avg']];
  const notes: string[] = [];
  for (const target of TARGETS) {
    const mine = figures.filter((figure) => figure.target === target.id);
    if (mine.length === 0) {
      rows.push([target.target, '-', '-', target.goal, 'not measured', '-']);
      notes.push(`${target.target}: not measured: ${target.whenMissing}`);
      continue;
    }
    for (const figure of mine) {
      rows.push([
        target.target,
        figure.subject,
        figure.value,
        target.goal,
        figure.met ? 'met' : 'MISSED',
        loadOf(loads, figure.bench),
      ]);
      if (figure.note) notes.push(`${target.target} (${figure.subject}): ${figure.note}`);
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((width) => '-'.repeat(width)).join('  '));
  return [
    `speed targets: ${os.cpus().length} cores; load avg = the 1-minute load average sampled while the bench that measured the figure ran (mean, max)`,
    ...lines,
    ...(notes.length > 0 ? ['', ...notes.map((note) => `  ${note}`)] : []),
  ];
}

if (process.argv[1]?.endsWith('summary.ts')) {
  const [resultsFile, loadsFile] = process.argv.slice(2);
  if (!resultsFile || !loadsFile) {
    process.stderr.write('usage: node --import tsx bench/summary.ts <results.jsonl> <loads.json>\n');
    process.exit(2);
  }
  const loads = fs.existsSync(loadsFile) ? (JSON.parse(fs.readFileSync(loadsFile, 'utf8')) as BenchLoad[]) : [];
  process.stdout.write(`${summaryTable(readJsonLines(resultsFile), loads).join('\n')}\n`);
}
