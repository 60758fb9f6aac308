/**
 * How exact a replay is against real git, on a real repository: for each command, one
 * recording at core.deltaBaseCacheLimit=0 (`packscope record --exact`), then at each limit real git
 * run with GIT_TRACE_PACK_ACCESS and an LD_PRELOAD count of inflateInit_ (test/support/inflate-counter.ts),
 * against `packscope simulate --json` of the recording at that limit: trace lines real vs predicted
 * (with the bounds, when the simulator gives them), inflations real vs predicted and their
 * difference (header-only inflations outside unpack_entry are a constant per command, git-internals
 * docs: the difference should not change with the limit).
 *
 *   node --import tsx bench/exactness.bench.ts --repo /path/to/git.git [--limits 0,64k,1m,16m,96m,512m] [--only blame,log-p] [--json]
 *
 * Not part of `npm run bench` (it runs git some fifty times on a large repository: minutes).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { parseGitSize } from '../src/common/git-size.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../test/support/inflate-counter.ts';
import { benchModelCacheRoot, projectRoot } from './generate.ts';

const { values } = parseArgs({
  options: {
    repo: { type: 'string' },
    limits: { type: 'string' },
    only: { type: 'string' },
    json: { type: 'boolean' },
  },
});
if (!values.repo) throw new Error('--repo DIR is required (a repository to run git in; never written to)');
const repo = path.resolve(values.repo);
const limits = (values.limits ?? '0,64k,1m,16m,96m,512m').split(',').map((text) => {
  const parsed = parseGitSize(text);
  if (parsed === undefined) throw new Error(`--limits: "${text}" is not a size`);
  return { text, bytes: parsed };
});
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-exactness-'));
const cacheDir = path.join(benchModelCacheRoot, 'exactness');
const cli = path.join(projectRoot, 'dist', 'cli.js');
const shim = buildInflateCounter(work);
const env = { ...process.env, PACKSCOPE_NO_PROGRESS: '1', GIT_NO_LAZY_FETCH: '1', LC_ALL: 'C' };

function git(args: string[], input?: string): string {
  const result = spawnSync('git', args, { cwd: repo, env, input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

// The commands bench/README.md lists ("Exactness against real git"), on whatever history the repository has.
const head = git(['rev-parse', 'HEAD']).trim();
const older = git(['rev-parse', 'HEAD~40']).trim();
const all = git(['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']).trim().split('\n');
let seed = 13;
const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const randomIds =
  Array.from({ length: Math.min(20_000, all.length) }, () => all[Math.floor(random() * all.length)]!).join('\n') + '\n';
const COMMANDS: { name: string; args: string[]; input?: string }[] = [
  { name: 'blame', args: ['blame', 'HEAD', '--', 'Makefile'] },
  { name: 'log-p-builtin', args: ['log', '-p', '-n', '300', '--', 'builtin/'] },
  { name: 'rev-list-objects', args: ['rev-list', '--objects', '-n', '5000', 'HEAD'] },
  { name: 'log-raw-M', args: ['log', '--raw', '-M', '-n', '3000'] },
  { name: 'log-S', args: ['log', '-Sunpack_entry', '-n', '200'] },
  { name: 'show-stat', args: ['show', '--stat', `${older}..${head}`] },
  { name: 'cat-file-batch', args: ['cat-file', '--batch'], input: randomIds },
  { name: 'diff-tree', args: ['diff-tree', '-r', '-p', older, head] },
];
const only = values.only?.split(',');
const chosen = COMMANDS.filter((c) => !only || only.includes(c.name));

interface Cell {
  command: string;
  limit: string;
  realLines: number;
  predictedLines: number;
  linesBounds?: [number, number];
  realInflations: number;
  predictedInflations: number;
  inflationBounds?: [number, number];
  exact?: boolean;
}

const cells: Cell[] = [];
for (const command of chosen) {
  const recording = path.join(work, `${command.name}.psrec`);
  log(`${command.name}: recording at limit 0`);
  const recorded = spawnSync(
    process.execPath,
    [cli, 'record', '--exact', '-o', recording, '-C', repo, '--cache-dir', cacheDir, '--', ...command.args],
    {
      env,
      input: command.input,
      maxBuffer: 1 << 30,
      stdio: ['pipe', 'ignore', 'pipe'],
    },
  );
  if (recorded.status !== 0) throw new Error(`record ${command.name}: ${recorded.stderr.toString()}`);
  for (const limit of limits) {
    const trace = path.join(work, `${command.name}-${limit.text}.trace`);
    const counts = `${trace}.count`;
    const real = spawnSync('git', ['-c', `core.deltaBaseCacheLimit=${limit.bytes}`, ...command.args], {
      cwd: repo,
      env: { ...env, GIT_TRACE_PACK_ACCESS: trace, ...countingEnv(shim, counts) },
      input: command.input,
      maxBuffer: 1 << 30,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    if (real.status !== 0) throw new Error(`git ${command.args.join(' ')}: ${real.stderr.toString()}`);
    const realLines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length : 0;
    const realInflations = readInflateCount(counts);
    const simulated = spawnSync(
      process.execPath,
      [cli, 'simulate', '--json', '--limit', String(limit.bytes), '--cache-dir', cacheDir, recording],
      { env, maxBuffer: 1 << 30 },
    );
    if (simulated.status !== 0) throw new Error(`simulate: ${simulated.stderr.toString()}`);
    const result = JSON.parse(simulated.stdout.toString()).results[0] as {
      logged: number;
      inflations: number;
      exact?: boolean;
      bounds?: { logged: [number, number]; inflations: [number, number] };
    };
    const cell: Cell = {
      command: command.name,
      limit: limit.text,
      realLines,
      predictedLines: result.logged,
      realInflations,
      predictedInflations: result.inflations,
      ...(result.bounds
        ? { linesBounds: result.bounds.logged, inflationBounds: result.bounds.inflations, exact: result.exact }
        : {}),
    };
    cells.push(cell);
    fs.rmSync(trace, { force: true });
    log(
      `  ${limit.text}: lines ${realLines} real, ${result.logged} predicted${cell.linesBounds ? ` [${cell.linesBounds.join('–')}]` : ''}; inflations ${realInflations} real, ${result.inflations} predicted`,
    );
  }
}
fs.rmSync(work, { recursive: true, force: true });

if (values.json) {
  process.stdout.write(`${JSON.stringify({ repo, gitVersion: git(['--version']).trim(), cells }, null, 2)}\n`);
} else {
  const rows = [
    [
      'command',
      'limit',
      'real lines',
      'predicted',
      'bounds',
      'in bounds',
      'real infl.',
      'predicted',
      'infl. bounds',
      'real − predicted',
    ],
  ];
  for (const c of cells) {
    const inBounds = c.linesBounds
      ? c.realLines >= c.linesBounds[0] && c.realLines <= c.linesBounds[1]
        ? 'yes'
        : 'NO'
      : '';
    rows.push([
      c.command,
      c.limit,
      String(c.realLines),
      String(c.predictedLines),
      c.linesBounds ? c.linesBounds.join('–') : '',
      inBounds,
      String(c.realInflations),
      String(c.predictedInflations),
      c.inflationBounds ? c.inflationBounds.join('–') : '',
      String(c.realInflations - c.predictedInflations),
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  process.stdout.write(
    `${git(['--version']).trim()}, ${repo}\n${rows.map((r) => r.map((v, i) => v.padEnd(widths[i]!)).join('  ')).join('\n')}\n`,
  );
}
