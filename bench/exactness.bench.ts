/**
 * How exact a replay is against real git, on a real repository: for each command, one
 * recording at core.deltaBaseCacheLimit=0 (`packscope record --exact`), then at each limit real git
 * run with GIT_TRACE_PACK_ACCESS and an LD_PRELOAD count of inflateInit_ (test/support/inflate-counter.ts),
 * against `packscope simulate --json` of the recording at that limit: trace lines real vs predicted
 * (with the bounds the simulator gives), inflations real vs predicted (header-only inflations
 * outside unpack_entry are a constant per command, git-internals docs: the bench takes that
 * constant from the limit-0 cell and checks the other cells' inflations against their bounds with it).
 *
 * Where a cell's bounds are wider than 1% of its prediction (the issue's bar for bounds worth
 * reading), the command is recorded again with `record --complete=` those limits and the completed
 * recording's replay is compared with the same real runs: the cell is then "completed", and exact
 * only if the replay says exact and equals real git.
 *
 *   node --import tsx bench/exactness.bench.ts --repo DIR [--git INSTALL_DIR] [--limits 0,64k,1m,16m,96m,512m]
 *        [--only NAME,…] [--no-complete] [--out FILE.json] [--markdown]
 *
 * --git runs a git other than the system's (e.g. `bench/build-git.ts`'s build): its bin/ goes first
 * on PATH for the recordings, the completions and the real runs. The commands are chosen from the
 * repository's own history (its most-edited text file, a word in it, its newest tags), so the same
 * list runs on any repository; --list prints them. Not part of `npm run bench`: on git/git it runs
 * git a few hundred times (tens of minutes).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { parseGitSize } from '../src/common/git-size.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../test/support/inflate-counter.ts';
import { benchModelCacheRoot, projectRoot } from './generate.ts';
import { busiestDirectory, frequentWord, hottestTextFile } from './repo-commands.ts';
import { judge, type Cell } from './exactness-cells.ts';

const { values } = parseArgs({
  options: {
    repo: { type: 'string' },
    git: { type: 'string' },
    limits: { type: 'string' },
    only: { type: 'string' },
    'no-complete': { type: 'boolean' },
    out: { type: 'string' },
    markdown: { type: 'boolean' },
    list: { type: 'boolean' },
  },
});
if (!values.repo) throw new Error('--repo DIR is required (a repository to run git in; never written to)');
const repo = path.resolve(values.repo);
const limits = (values.limits ?? '0,64k,1m,16m,96m,512m').split(',').map((text) => {
  const parsed = parseGitSize(text);
  if (parsed === undefined) throw new Error(`--limits: "${text}" is not a size`);
  return { text, bytes: parsed };
});
if (limits[0]?.bytes !== 0) throw new Error('--limits must start with 0 (the cell that gives the constant inflations)');
/** Bounds wider than this share of the prediction are completed (the bar past which a cell is completed rather than reported as bounds). */
const WIDE = 0.01;
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-exactness-'));
const cacheDir = path.join(benchModelCacheRoot, 'exactness');
const cli = path.join(projectRoot, 'dist', 'cli.js');
const shim = buildInflateCounter(work);
const gitBin = values.git ? path.join(path.resolve(values.git), 'bin') : undefined;
if (gitBin && !fs.existsSync(path.join(gitBin, 'git'))) throw new Error(`--git: no bin/git in ${values.git}`);
const env: NodeJS.ProcessEnv = {
  ...process.env,
  ...(gitBin ? { PATH: `${gitBin}:${process.env.PATH ?? ''}` } : {}),
  PACKSCOPE_NO_PROGRESS: '1',
  GIT_NO_LAZY_FETCH: '1',
  LC_ALL: 'C',
};
const gitPath = gitBin ? path.join(gitBin, 'git') : 'git';

function git(args: string[], input?: string): string {
  const result = spawnSync(gitPath, args, { cwd: repo, env, input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

interface Command {
  name: string;
  args: string[];
  input?: string;
  /** Config the real runs take, as `record` adds it (a threaded reader recorded in one thread). */
  realConfig?: string[];
  note?: string;
}

/** The largest blob at HEAD and its directory (binary history: a picture, an archive, a font). */
function largestBlobAtHead(): { file: string; dir: string } {
  let best = { file: '', size: -1 };
  for (const line of git(['ls-tree', '-r', '-l', 'HEAD']).split('\n')) {
    const match = /^\d+ blob [0-9a-f]+ +(\d+)\t(.*)$/.exec(line);
    if (match && Number(match[1]) > best.size) best = { file: match[2]!, size: Number(match[1]) };
  }
  const slash = best.file.lastIndexOf('/');
  return { file: best.file, dir: slash > 0 ? best.file.slice(0, slash + 1) : '.' };
}

function commandsOfThisRepository(): Command[] {
  const head = git(['rev-parse', 'HEAD']).trim();
  const commits = Number(git(['rev-list', '--count', 'HEAD']).trim());
  const back = (n: number): string => git(['rev-parse', `HEAD~${Math.min(n, commits - 1)}`]).trim();
  const older = back(40);
  const tags = git(['tag', '--merged', 'HEAD', '--sort=-creatordate'])
    .split('\n')
    .filter((tag) => tag && !/rc/i.test(tag));
  const [newTag, oldTag] = tags.length >= 6 ? [tags[0]!, tags[5]!] : [head, back(2000)];
  const file = hottestTextFile(git, gitPath, repo, env);
  const word = frequentWord(git, file);
  const dir = busiestDirectory(git);
  const largest = largestBlobAtHead();
  const all = git(['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']).trim().split('\n');
  let seed = 13;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const randomIds =
    Array.from({ length: Math.min(20_000, all.length) }, () => all[Math.floor(random() * all.length)]!).join('\n') +
    '\n';
  return [
    { name: 'blame', args: ['blame', 'HEAD', '--', file] },
    { name: 'blame-M-C', args: ['blame', '-M', '-C', 'HEAD', '--', file] },
    { name: 'log-p-dir', args: ['log', '-p', '-n', '300', '--', dir] },
    { name: 'log-raw-M', args: ['log', '--raw', '-M', '-n', '3000'] },
    { name: 'log-S', args: ['log', `-S${word}`, '--oneline', '-n', '200'] },
    { name: 'log-follow', args: ['log', '--follow', '--oneline', '--', file] },
    { name: 'log-L', args: ['log', '-L', `1,+40:${file}`, '-n', '50'] },
    { name: 'log-stat', args: ['log', '--stat', '-n', '1000'] },
    { name: 'rev-list-objects', args: ['rev-list', '--objects', '-n', '5000', 'HEAD'] },
    { name: 'archive', args: ['archive', '--format=tar', back(100)] },
    {
      name: 'grep',
      args: ['grep', '-c', '-e', word, back(200)],
      // record runs a threaded reader in one thread (src/common/threaded-readers.ts); so do the real runs.
      realConfig: ['-c', 'grep.threads=1'],
      note: 'grep.threads=1, as record runs it',
    },
    { name: 'diff-stat-releases', args: ['diff', '--stat', oldTag, newTag] },
    { name: 'diff-tree-p', args: ['diff-tree', '-r', '-p', older, head] },
    { name: 'show-stat-range', args: ['show', '--stat', `${older}..${head}`] },
    { name: 'log-p-largest-dir', args: ['log', '-p', '-n', '200', '--', largest.dir] },
    { name: 'log-raw-largest', args: ['log', '--raw', '-p', '--', largest.file] },
    { name: 'cat-file-batch', args: ['cat-file', '--batch'], input: randomIds },
  ];
}

interface SimulatedCell {
  logged: number;
  inflations: number;
  exact?: boolean;
  bounds?: { logged: [number, number]; inflations: [number, number] };
}

function record(command: Command, file: string, complete?: string[]): void {
  const args = [cli, 'record', '--exact', ...(complete ? [`--complete=${complete.join(',')}`] : [])];
  args.push('-o', file, '-C', repo, '--cache-dir', cacheDir, ...(gitBin ? ['--git', gitPath] : []));
  const result = spawnSync(process.execPath, [...args, '--', ...command.args], {
    env,
    input: command.input ?? '',
    maxBuffer: 1 << 30,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  if (result.status !== 0) throw new Error(`record ${command.name}: ${result.stderr.toString()}`);
}

function simulate(recording: string, limit: number): SimulatedCell {
  const result = spawnSync(
    process.execPath,
    [cli, 'simulate', '--json', '--limit', String(limit), '--cache-dir', cacheDir, recording],
    { env, maxBuffer: 1 << 30 },
  );
  if (result.status !== 0) throw new Error(`simulate: ${result.stderr.toString()}`);
  return (JSON.parse(result.stdout.toString()) as { results: SimulatedCell[] }).results[0]!;
}

function realRun(command: Command, limit: number, name: string): { lines: number; inflations: number } {
  const trace = path.join(work, `${name}.trace`);
  const counts = `${trace}.count`;
  const real = spawnSync(
    gitPath,
    ['-c', `core.deltaBaseCacheLimit=${limit}`, ...(command.realConfig ?? []), ...command.args],
    {
      cwd: repo,
      env: { ...env, GIT_TRACE_PACK_ACCESS: trace, ...countingEnv(shim, counts) },
      input: command.input ?? '',
      maxBuffer: 1 << 30,
      stdio: ['pipe', 'ignore', 'pipe'],
    },
  );
  if (real.status !== 0) throw new Error(`git ${command.args.join(' ')}: ${real.stderr.toString()}`);
  const lines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length : 0;
  const inflations = readInflateCount(counts);
  fs.rmSync(trace, { force: true });
  fs.rmSync(counts, { force: true });
  return { lines, inflations };
}

const width = (bounds: [number, number], predicted: number): number =>
  predicted === 0 ? (bounds[1] > bounds[0] ? Infinity : 0) : (bounds[1] - bounds[0]) / predicted;

function measureCommand(command: Command): Cell[] {
  const recording = path.join(work, `${command.name}.psrec`);
  log(`${command.name}: ${command.args.join(' ')}${command.input ? ' < ids' : ''}`);
  record(command, recording);
  const cells: Cell[] = [];
  let constant = 0;
  for (const limit of limits) {
    const real = realRun(command, limit.bytes, `${command.name}-${limit.text}`);
    const simulated = simulate(recording, limit.bytes);
    if (limit.bytes === 0) constant = real.inflations - simulated.inflations;
    const cell: Cell = {
      command: command.name,
      limit: limit.text,
      realLines: real.lines,
      realInflations: real.inflations,
      predictedLines: simulated.logged,
      predictedInflations: simulated.inflations,
      ...(simulated.exact !== undefined ? { exact: simulated.exact } : {}),
      constant,
    };
    if (simulated.bounds) {
      const [lines, inflations] = [simulated.bounds.logged, simulated.bounds.inflations];
      cell.linesBounds = lines;
      cell.inflationBounds = inflations;
      cell.width = Math.max(width(lines, simulated.logged), width(inflations, simulated.inflations));
      const realCore = real.inflations - constant;
      cell.inBounds =
        real.lines >= lines[0] && real.lines <= lines[1] && realCore >= inflations[0] && realCore <= inflations[1];
    }
    cells.push(cell);
    log(
      `  ${limit.text}: lines ${real.lines} real, ${simulated.logged} predicted${cell.linesBounds ? ` [${cell.linesBounds.join('–')}]` : ''}${cell.exact ? ' exact' : ''}; inflations ${real.inflations} real, ${simulated.inflations} predicted`,
    );
  }
  const wide = cells.filter((c) => c.width === undefined || c.width > WIDE).map((c) => c.limit);
  if (wide.length && !values['no-complete']) {
    const completed = path.join(work, `${command.name}-completed.psrec`);
    log(`  completing at ${wide.join(',')}`);
    record(command, completed, wide);
    for (const cell of cells.filter((c) => wide.includes(c.limit))) {
      const simulated = simulate(completed, parseGitSize(cell.limit)!);
      const equal = simulated.logged === cell.realLines && simulated.inflations + constant === cell.realInflations;
      cell.completed = {
        predictedLines: simulated.logged,
        predictedInflations: simulated.inflations,
        exact: simulated.exact === true,
        equal,
      };
      if (simulated.bounds) {
        const [lines, inflations] = [simulated.bounds.logged, simulated.bounds.inflations];
        const realCore = cell.realInflations - constant;
        cell.completed.linesBounds = lines;
        cell.completed.width = Math.max(width(lines, simulated.logged), width(inflations, simulated.inflations));
        cell.completed.inBounds =
          cell.realLines >= lines[0] &&
          cell.realLines <= lines[1] &&
          realCore >= inflations[0] &&
          realCore <= inflations[1];
      }
      log(
        `  ${cell.limit} completed: lines ${simulated.logged}${simulated.exact ? ' exact' : ''}, ${equal ? 'equal' : 'DIFFERENT'}`,
      );
    }
  }
  return cells;
}

const only = values.only?.split(',');
const commands = commandsOfThisRepository().filter((c) => !only || only.includes(c.name));
const gitVersion = git(['--version']).trim();
if (values.list) {
  for (const c of commands) process.stdout.write(`${c.name}: git ${c.args.join(' ')}${c.input ? ' < ids' : ''}\n`);
  process.exit(0);
}
const cells: Cell[] = [];
/**
 * Commands git itself could not run here, with git's words: a fetched mirror may lack a few
 * objects (it came from a partial clone), and a command that reaches one fails at every limit.
 * The others still run; the table names the skipped ones.
 */
const skipped: { command: string; reason: string }[] = [];
try {
  for (const command of commands) {
    try {
      cells.push(...measureCommand(command));
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).match(/(?:fatal|error): [^\n]*/)?.[0];
      if (!reason) throw error;
      skipped.push({ command: command.name, reason });
      log(`  skipped: ${reason}`);
    }
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

const document = {
  repo,
  gitVersion,
  commands: commands.map((c) => ({ name: c.name, args: c.args, ...(c.note ? { note: c.note } : {}) })),
  cells,
  skipped,
};
if (values.out) fs.writeFileSync(values.out, `${JSON.stringify(document, null, 2)}\n`);

const count = (n: number): string => n.toLocaleString('en-US');
/** One cell's verdict, in the words of bench/README's tables. */
const verdict = (c: Cell): string => judge(c).words;
const header = [
  'command',
  'limit',
  'real lines',
  'predicted',
  'bounds',
  'completed',
  'real infl.',
  'predicted',
  'verdict',
];
const rows = cells.map((c) => [
  c.command,
  c.limit,
  count(c.realLines),
  count(c.predictedLines),
  c.linesBounds ? c.linesBounds.map(count).join('–') : '',
  c.completed
    ? `${count(c.completed.predictedLines)}${c.completed.linesBounds && !c.completed.exact ? ` (${c.completed.linesBounds.map(count).join('–')})` : ''}`
    : '',
  count(c.realInflations),
  count((c.completed?.predictedInflations ?? c.predictedInflations) + c.constant),
  verdict(c),
]);
if (values.markdown) {
  process.stdout.write(`${gitVersion}, ${repo}\n\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
  for (const r of rows) process.stdout.write(`| ${r.join(' | ')} |\n`);
} else {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  process.stdout.write(
    `${gitVersion}, ${repo}\n${all.map((r) => r.map((v, i) => v.padEnd(widths[i]!)).join('  ')).join('\n')}\n`,
  );
}
for (const s of skipped) process.stdout.write(`\n${s.command}: skipped, git failed: ${s.reason}\n`);
const bad = cells.filter((c) => /DIFFERENT|OUTSIDE/.test(verdict(c)));
log(`${cells.length} cells, ${cells.filter((c) => verdict(c).includes('exact')).length} exact, ${bad.length} wrong`);
