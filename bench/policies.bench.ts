/**
 * The what-if policies against real builds of git (bench/git-patches/): each policy's patch to git's
 * packfile.c (bench/git-patches/) built with bench/build-git.ts, run for real at each limit, and
 * compared with PackScope's replay of the same command under that policy.
 *
 * What makes the comparison exact rather than bounded: each command is recorded once with the
 * admit-max build told to admit nothing (core.deltaBaseCacheAdmitMax=0). Then no base is ever
 * cached, every content read misses, and every read logs its trace line (git-internals §1.10): the
 * recording lists every read the command makes, hits of any cache included, which no limit-0
 * recording of today's git can (§8.1). The reads of a single-threaded command do not depend on the
 * cache, so the replay of that one recording under any policy at any limit is what a build with
 * that policy does, or the patch and the model disagree. The inflations outside unpack_entry
 * (size queries, §1.8) are the same in every run of a command: the bench takes them from the
 * recording's own run (real inflations less the replay's) and adds them to every prediction.
 *
 *   node --import tsx bench/policies.bench.ts --repo DIR [--repo DIR …] [--source GIT_GIT_REPO]
 *        [--policies git,admit-max:1m,…] [--limits 0,64k,1m,16m,96m,512m] [--only NAME,…]
 *        [--runs N] [--time-limits 0,16m,96m] [--bounds] [--out FILE.json] [--markdown FILE.md]
 *
 * --runs N (default 0: no timing) times each build at --time-limits: the command's CPU seconds
 * (user + system, of git and its children, without tracing or the inflate counter), best of N,
 * with the load average beside each, and `sweep --time`'s predicted seconds for the same cells.
 * --bounds also records each command the way a user does (today's git, `record --exact`, limit 0)
 * and checks every real run of a policy whose cache can branch against the bounds that recording
 * gives (hidden-reads.ts): the bounds are sound for that policy only if real git lies inside.
 * Not part of `npm run bench`: it runs git a few hundred times per repository.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { parseGitSize } from '../src/common/git-size.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../test/support/inflate-counter.ts';
import { buildGit } from './build-git.ts';
import { benchModelCacheRoot, projectRoot } from './generate.ts';
import { busiestDirectory, frequentWord, hottestTextFile } from './repo-commands.ts';
import type { Cell } from './policies-cells.ts';

const { values } = parseArgs({
  options: {
    repo: { type: 'string', multiple: true },
    source: { type: 'string', default: '/work/.mirror/git+git/repo' },
    tag: { type: 'string', default: 'v2.55.0' },
    'legacy-tag': { type: 'string', default: 'v2.9.5' },
    'legacy-cflags': { type: 'string', default: '-fcommon' },
    policies: { type: 'string' },
    limits: { type: 'string', default: '0,64k,1m,16m,96m,512m' },
    only: { type: 'string' },
    runs: { type: 'string', default: '0' },
    'time-limits': { type: 'string', default: '0,16m,96m' },
    out: { type: 'string' },
    markdown: { type: 'string' },
    bounds: { type: 'boolean' },
  },
});

/** The policies a build of git runs, the patch that makes it and the config that selects it. */
export interface PolicyBuild {
  policy: string;
  patch?: string;
  config: string[];
}

const patchDir = path.join(projectRoot, 'bench', 'git-patches');

/** The build of git for a policy spec: today's git for `git`, its patch for the others. */
export function policyBuild(spec: string): PolicyBuild {
  const [name, argument] = spec.split(/:(.*)/s) as [string, string | undefined];
  if (name === 'git') return { policy: spec, config: [] };
  const patch = path.join(patchDir, `${name}.patch`);
  if (!fs.existsSync(patch)) throw new Error(`no patch for policy ${name} in ${patchDir}`);
  if (name === 'admit-max') {
    if (argument === undefined) throw new Error('admit-max needs a size, e.g. admit-max:1m');
    return { policy: spec, patch, config: ['-c', `core.deltaBaseCacheAdmitMax=${argument}`] };
  }
  return { policy: spec, patch, config: [] };
}

const DEFAULT_POLICIES =
  'git,admit-max:64k,admit-max:1m,keep-on-hit,separate-blob-lru,lru-by-size,gdsf,admit-reused,git-legacy';

interface Command {
  name: string;
  args: string[];
}

/** The four commands of the policies' comparison (docs/policies.md), bounded so that one run takes seconds. */
function commandsOf(repo: string, git: (args: string[]) => string, gitPath: string, env: NodeJS.ProcessEnv): Command[] {
  const file = hottestTextFile(git, gitPath, repo, env);
  const word = frequentWord(git, file);
  const dir = busiestDirectory(git);
  return [
    { name: 'log-raw', args: ['log', '--raw', '-n', '3000'] },
    { name: 'log-S', args: ['log', `-S${word}`, '--oneline', '-n', '30'] },
    { name: 'blame', args: ['blame', 'HEAD', '--', file] },
    { name: 'log-p', args: ['log', '-p', '-n', '300', '--', dir] },
  ];
}

interface Predicted {
  logged: number;
  inflations: number;
  seconds?: number;
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const cli = path.join(projectRoot, 'dist', 'cli.js');
const cacheDir = path.join(benchModelCacheRoot, 'policies');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-policies-'));
const shim = buildInflateCounter(work);
const baseEnv: NodeJS.ProcessEnv = { ...process.env, PACKSCOPE_NO_PROGRESS: '1', GIT_NO_LAZY_FETCH: '1', LC_ALL: 'C' };

function realRun(
  gitPath: string,
  repo: string,
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): { lines: number; inflations: number } {
  const trace = path.join(work, 'real.trace');
  const counts = `${trace}.count`;
  const real = spawnSync(gitPath, args, {
    cwd: repo,
    env: { ...baseEnv, ...extraEnv, GIT_TRACE_PACK_ACCESS: trace, ...countingEnv(shim, counts) },
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (real.status !== 0) throw new Error(`${gitPath} ${args.join(' ')}: ${real.stderr.toString()}`);
  const lines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length : 0;
  const inflations = readInflateCount(counts);
  fs.rmSync(trace, { force: true });
  fs.rmSync(counts, { force: true });
  return { lines, inflations };
}

/** CPU seconds (user + system, children included) of one untraced run, through /usr/bin/time. */
function cpuSeconds(gitPath: string, repo: string, args: string[]): number {
  const result = spawnSync('/usr/bin/time', ['-f', '%U %S', gitPath, ...args], {
    cwd: repo,
    env: baseEnv,
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (result.status !== 0) throw new Error(`time ${args.join(' ')}: ${result.stderr.toString()}`);
  const [user, system] = result.stderr.toString().trim().split('\n').at(-1)!.split(' ').map(Number);
  return user! + system!;
}

/** Records every read of the command: the admit-max build admitting nothing, at limit 0. */
function recordAllReads(
  admitNothingGit: string,
  repo: string,
  command: Command,
  file: string,
  extraEnv: NodeJS.ProcessEnv = {},
): void {
  const result = spawnSync(
    process.execPath,
    [
      cli,
      'record',
      '--exact',
      '-o',
      file,
      '-C',
      repo,
      '--cache-dir',
      cacheDir,
      '--git',
      admitNothingGit,
      '--',
      ...command.args,
    ],
    {
      env: {
        ...baseEnv,
        ...extraEnv,
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'core.deltaBaseCacheAdmitMax',
        GIT_CONFIG_VALUE_0: '0',
      },
      maxBuffer: 1 << 30,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  if (result.status !== 0) throw new Error(`record ${command.name}: ${result.stderr.toString()}`);
}

interface SweepResult {
  policy: string;
  limit: number;
  logged: number;
  inflations: number;
  reads: number;
}

function sweep(recording: string, policies: string[], limits: number[]): SweepResult[] {
  const result = spawnSync(
    process.execPath,
    [
      cli,
      'sweep',
      '--json',
      '--policies',
      policies.join(','),
      '--limits',
      limits.join(','),
      '--cache-dir',
      cacheDir,
      recording,
    ],
    { env: baseEnv, maxBuffer: 1 << 30 },
  );
  if (result.status !== 0) throw new Error(`sweep: ${result.stderr.toString()}`);
  return (JSON.parse(result.stdout.toString()) as { results: SweepResult[] }).results;
}

/** `sweep --time`'s predicted seconds per (policy, limit), the recording's own time given as git's CPU seconds at 0. */
function predictedSeconds(
  recording: string,
  policies: string[],
  limits: number[],
  recordedSeconds: number,
  gitPath: string,
): Map<string, number> {
  const result = spawnSync(
    process.execPath,
    [
      cli,
      'sweep',
      '--json',
      '--time',
      '--git',
      gitPath,
      '--recorded-seconds',
      String(recordedSeconds),
      '--policies',
      policies.join(','),
      '--limits',
      limits.join(','),
      '--cache-dir',
      cacheDir,
      recording,
    ],
    { env: baseEnv, maxBuffer: 1 << 30 },
  );
  if (result.status !== 0) throw new Error(`sweep --time: ${result.stderr.toString()}`);
  const document = JSON.parse(result.stdout.toString()) as {
    time?: { cells?: { policy: string; limit: number; predictedSeconds: number }[] };
  };
  return new Map((document.time?.cells ?? []).map((c) => [`${c.policy}@${c.limit}`, c.predictedSeconds]));
}

/**
 * git-legacy: v2.9.x as is, against the same model. Its cache hashes the address of the pack's
 * struct packed_git into 256 slots (git-internals §3), which ASLR moves from run to run; so each
 * real run is made under gdb (which turns ASLR off), stopped once at the first unpack_entry to
 * read that address, and predicted with it as the policy's SEED (git-legacy:SEED). Every read is
 * recorded by the same release with bench/git-patches/legacy-admit-nothing.patch, which caches
 * nothing (the same idea as admit-max:0: every read then logs), through
 * GIT_TEST_DELTA_BASE_CACHE_ADMIT_NOTHING, as v2.9.x predates core.deltaBaseCacheAdmitMax.
 */
const GDB_SCRIPT = [
  'set pagination off',
  'set confirm off',
  'break unpack_entry',
  'run',
  'printf "PACKADDR %lu\\n", (unsigned long)p',
  'delete',
  'continue',
].join('\n');

function legacyRealRun(
  gitPath: string,
  repo: string,
  args: string[],
): { lines: number; inflations: number; seed: number } {
  const trace = path.join(work, 'legacy.trace');
  const counts = `${trace}.count`;
  const script = path.join(work, 'legacy.gdb');
  const output = path.join(work, 'legacy.out');
  fs.writeFileSync(
    script,
    `set environment LD_PRELOAD ${shim}\nset environment INFLATE_COUNT_FILE ${counts}\n${GDB_SCRIPT}\n`,
  );
  fs.rmSync(counts, { force: true });
  const out = fs.openSync(output, 'w');
  const result = spawnSync('gdb', ['-q', '-batch', '-x', script, '--args', gitPath, ...args], {
    cwd: repo,
    env: { ...baseEnv, GIT_TRACE_PACK_ACCESS: trace },
    stdio: ['ignore', out, 'pipe'],
    maxBuffer: 1 << 30,
  });
  fs.closeSync(out);
  const text = fs.readFileSync(output, 'latin1');
  const seed = /^PACKADDR (\d+)$/m.exec(text)?.[1];
  if (result.status !== 0 || seed === undefined || !text.includes('exited normally]'))
    throw new Error(`gdb ${gitPath} ${args.join(' ')}: ${result.stderr.toString().slice(-2000)}`);
  const lines = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length;
  const inflations = readInflateCount(counts);
  for (const file of [trace, counts, output]) fs.rmSync(file, { force: true });
  return { lines, inflations, seed: Number(seed) };
}

interface LegacyBuilds {
  plain: string;
  admitNothing: string;
  label: string;
}

function legacyBuilds(source: string): LegacyBuilds {
  const request = { source, tag: values['legacy-tag'], extraCflags: values['legacy-cflags'], log };
  return {
    plain: buildGit(request),
    admitNothing: buildGit({ ...request, patches: [path.join(patchDir, 'legacy-admit-nothing.patch')] }),
    label: `git ${values['legacy-tag'].replace(/^v/, '')} (CFLAGS += ${values['legacy-cflags']})`,
  };
}

/** git-legacy's cells of one command: every read recorded by the admit-nothing build, real runs of the plain one. */
function measureLegacy(run: RepoRun, builds: LegacyBuilds, command: Command): Cell[] {
  const recording = path.join(work, `${path.basename(run.repo)}-${command.name}-legacy.psrec`);
  const recordEnv = { GIT_TEST_DELTA_BASE_CACHE_ADMIT_NOTHING: '1' };
  recordAllReads(path.join(builds.admitNothing, 'bin', 'git'), run.repo, command, recording, recordEnv);
  // The constant: the recording's own configuration run for real, against the replay of the same
  // reads with nothing cached (admit-max:0 on git's read path, which v2.9.x shares, git-internals §1.4).
  const all = realRun(path.join(builds.admitNothing, 'bin', 'git'), run.repo, command.args, recordEnv);
  const own = sweep(recording, ['admit-max:0'], [0])[0]!;
  if (all.lines !== own.logged)
    throw new Error(`${command.name}: ${all.lines} lines against ${own.logged} recorded: the reads differ run to run`);
  const constant = all.inflations - own.inflations;
  log(`  ${builds.label}: ${count(all.lines)} reads, ${constant} inflations outside unpack_entry`);
  const cells: Cell[] = [];
  for (const limit of run.limits) {
    const args = ['-c', `core.deltaBaseCacheLimit=${limit.bytes}`, ...command.args];
    const real = legacyRealRun(path.join(builds.plain, 'bin', 'git'), run.repo, args);
    const p = sweep(recording, [`git-legacy:${real.seed}`], [limit.bytes])[0]!;
    const cell: Cell = {
      repo: path.basename(run.repo),
      command: command.name,
      args: command.args.join(' '),
      policy: `git-legacy:0x${real.seed.toString(16)}`,
      build: builds.label,
      limit: limit.text,
      realLines: real.lines,
      realInflations: real.inflations,
      predictedLines: p.logged,
      predictedInflations: p.inflations + constant,
      exact: real.lines === p.logged && real.inflations === p.inflations + constant,
    };
    cells.push(cell);
    log(
      `  ${cell.policy} ${limit.text}: lines ${count(real.lines)} real, ${count(p.logged)} predicted; inflations ${count(real.inflations)} real, ${count(cell.predictedInflations)} predicted${cell.exact ? ' — exact' : ' — DIFFERENT'}`,
    );
  }
  return cells;
}

const count = (n: number): string => n.toLocaleString('en-US');
const loadAverage = (): string => os.loadavg()[0]!.toFixed(1);

interface RepoRun {
  repo: string;
  gitPath: string;
  builds: Map<string, { dir: string; label: string; config: string[] }>;
  limits: { text: string; bytes: number }[];
  timeLimits: Set<string>;
  runs: number;
}

/** Every cell of one command: the recording of all its reads, one sweep, real runs of every build. */
function measureCommand(run: RepoRun, command: Command): Cell[] {
  const recording = path.join(work, `${path.basename(run.repo)}-${command.name}.psrec`);
  const admitNothing = path.join(run.builds.get(policies.find((p) => p.startsWith('admit-max'))!)!.dir, 'bin', 'git');
  log(`${path.basename(run.repo)} ${command.name}: git ${command.args.join(' ')}`);
  recordAllReads(admitNothing, run.repo, command, recording);
  const limitBytes = run.limits.map((l) => l.bytes);
  const predicted = new Map<string, Predicted>();
  for (const r of sweep(recording, [...policies, 'admit-max:0'], limitBytes))
    predicted.set(`${r.policy}@${r.limit}`, { logged: r.logged, inflations: r.inflations });
  // The recording's own configuration, run for real: every read logs, and the inflations outside
  // unpack_entry are what it counts beyond the replay's.
  const all = realRun(admitNothing, run.repo, [
    '-c',
    'core.deltaBaseCacheLimit=0',
    '-c',
    'core.deltaBaseCacheAdmitMax=0',
    ...command.args,
  ]);
  const own = predicted.get('admit-max:0@0')!;
  if (all.lines !== own.logged)
    throw new Error(
      `${command.name}: the admit-nothing run logged ${all.lines} lines, its recording ${own.logged}: the command's reads differ run to run`,
    );
  const constant = all.inflations - own.inflations;
  log(`  ${count(all.lines)} reads, ${constant} inflations outside unpack_entry`);

  let seconds = new Map<string, number>();
  if (run.runs > 0) {
    const gitAtZero = path.join(run.builds.get('git')!.dir, 'bin', 'git');
    const best = bestCpu(gitAtZero, run.repo, ['-c', 'core.deltaBaseCacheLimit=0', ...command.args], run.runs);
    const timed = run.limits.filter((l) => run.timeLimits.has(l.text)).map((l) => l.bytes);
    seconds = predictedSeconds(recording, policies, timed, best, gitAtZero);
  }
  const cells: Cell[] = [];
  for (const policy of policies) {
    const build = run.builds.get(policy)!;
    const gitPath = path.join(build.dir, 'bin', 'git');
    for (const limit of run.limits) {
      const args = ['-c', `core.deltaBaseCacheLimit=${limit.bytes}`, ...build.config, ...command.args];
      const real = realRun(gitPath, run.repo, args);
      const p = predicted.get(`${policy}@${limit.bytes}`)!;
      const cell: Cell = {
        repo: path.basename(run.repo),
        command: command.name,
        args: command.args.join(' '),
        policy,
        build: build.label,
        limit: limit.text,
        realLines: real.lines,
        realInflations: real.inflations,
        predictedLines: p.logged,
        predictedInflations: p.inflations + constant,
        exact: real.lines === p.logged && real.inflations === p.inflations + constant,
      };
      if (run.runs > 0 && run.timeLimits.has(limit.text)) {
        cell.load = loadAverage();
        cell.cpuSeconds = bestCpu(gitPath, run.repo, args, run.runs);
        cell.cpuRuns = run.runs;
        const s = seconds.get(`${policy}@${limit.bytes}`);
        if (s !== undefined) cell.predictedSeconds = s;
      }
      cells.push(cell);
      log(
        `  ${policy} ${limit.text}: lines ${count(real.lines)} real, ${count(p.logged)} predicted; inflations ${count(real.inflations)} real, ${count(cell.predictedInflations)} predicted${cell.exact ? ' — exact' : ' — DIFFERENT'}${cell.cpuSeconds !== undefined ? `; ${cell.cpuSeconds.toFixed(2)} s CPU (load ${cell.load})` : ''}`,
      );
    }
  }
  if (values.bounds) withStockBounds(run, command, cells);
  return cells;
}

interface BoundedResult extends SweepResult {
  exact: boolean;
  bounds: { logged: [number, number]; inflations: [number, number] } | null;
}

/**
 * --bounds: the command recorded by today's git at limit 0 (`record --exact`, the recording a user
 * makes), swept under every policy with bounds, and each real run of this bench checked against
 * them: the inflations less the command's constant (git's real count at 0 less that replay's).
 */
function withStockBounds(run: RepoRun, command: Command, cells: Cell[]): void {
  const stock = path.join(work, `${path.basename(run.repo)}-${command.name}-stock.psrec`);
  const gitPath = path.join(run.builds.get('git')!.dir, 'bin', 'git');
  const recorded = spawnSync(
    process.execPath,
    [
      cli,
      'record',
      '--exact',
      '-o',
      stock,
      '-C',
      run.repo,
      '--cache-dir',
      cacheDir,
      '--git',
      gitPath,
      '--',
      ...command.args,
    ],
    { env: baseEnv, maxBuffer: 1 << 30, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (recorded.status !== 0) throw new Error(`record ${command.name}: ${recorded.stderr.toString()}`);
  const swept = sweep(
    stock,
    policies,
    run.limits.map((l) => l.bytes),
  ) as BoundedResult[];
  const gitAtZero = swept.find((r) => r.policy === 'git' && r.limit === 0)!;
  const realAtZero = cells.find((c) => c.policy === 'git' && c.limit === run.limits[0]!.text)!;
  const constant = realAtZero.realInflations - gitAtZero.inflations;
  for (const cell of cells) {
    const bytes = run.limits.find((l) => l.text === cell.limit)!.bytes;
    const r = swept.find((x) => x.policy === cell.policy && x.limit === bytes)!;
    if (r.bounds === null) continue;
    const inflations = cell.realInflations - constant;
    cell.stockBounds = {
      lines: r.bounds.logged,
      inflations: r.bounds.inflations,
      exact: r.exact,
      inBounds:
        cell.realLines >= r.bounds.logged[0] &&
        cell.realLines <= r.bounds.logged[1] &&
        inflations >= r.bounds.inflations[0] &&
        inflations <= r.bounds.inflations[1],
    };
    log(
      `  ${cell.policy} ${cell.limit} from today's limit-0 recording: lines ${r.bounds.logged.join('–')}, inflations ${r.bounds.inflations.join('–')}${r.exact ? ' (exact)' : ''}: ${cell.stockBounds.inBounds ? 'real inside' : 'real OUTSIDE'}`,
    );
  }
}

function bestCpu(gitPath: string, repo: string, args: string[], runs: number): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) best = Math.min(best, cpuSeconds(gitPath, repo, args));
  return best;
}

/** The install directory and label of each policy's build (built once, reused while the patch is the same). */
function buildsFor(source: string, tag: string): RepoRun['builds'] {
  const builds: RepoRun['builds'] = new Map();
  for (const policy of policies) {
    const b = policyBuild(policy);
    const dir = buildGit({ source, tag, patches: b.patch ? [b.patch] : [], log });
    const version = tag.replace(/^v/, '');
    builds.set(policy, {
      dir,
      label: b.patch ? `git ${version} + ${path.basename(b.patch)}` : `git ${version}`,
      config: b.config,
    });
  }
  return builds;
}

const requested = (values.policies ?? DEFAULT_POLICIES).split(',');
/** git-legacy runs its own release (measureLegacy); the others are builds of --tag. */
const legacyWanted = requested.includes('git-legacy');
const policies = requested.filter((p) => p !== 'git-legacy');
if (policies.length > 0) {
  if (!policies.some((p) => p.startsWith('admit-max'))) policies.push('admit-max:1m'); // its build records every read
  if (!policies.includes('git')) policies.unshift('git'); // the reference the timings are read against
}

function main(): void {
  if (!values.repo?.length) throw new Error('--repo DIR is required (repositories to run git in; never written to)');
  const limits = values.limits.split(',').map((text) => {
    const bytes = parseGitSize(text);
    if (bytes === undefined) throw new Error(`--limits: "${text}" is not a size`);
    return { text, bytes };
  });
  const builds = buildsFor(path.resolve(values.source), values.tag);
  const legacy = legacyWanted ? legacyBuilds(path.resolve(values.source)) : undefined;
  const cells: Cell[] = [];
  const only = values.only?.split(',');
  try {
    for (const repoArg of values.repo) {
      const repo = path.resolve(repoArg);
      const gitPath = builds.has('git') ? path.join(builds.get('git')!.dir, 'bin', 'git') : 'git';
      const git = (args: string[]): string => {
        const r = spawnSync(gitPath, args, { cwd: repo, env: baseEnv, encoding: 'utf8', maxBuffer: 1 << 30 });
        if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
        return r.stdout;
      };
      const run: RepoRun = {
        repo,
        gitPath,
        builds,
        limits,
        timeLimits: new Set(values['time-limits'].split(',')),
        runs: Number(values.runs),
      };
      for (const command of commandsOf(repo, git, gitPath, baseEnv).filter((c) => !only || only.includes(c.name))) {
        if (policies.length > 0) cells.push(...measureCommand(run, command));
        if (legacy) cells.push(...measureLegacy(run, legacy, command));
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  if (values.out)
    fs.writeFileSync(values.out, `${JSON.stringify({ date: new Date().toISOString(), cells }, null, 2)}\n`);
  if (values.markdown) fs.writeFileSync(values.markdown, markdownTables(cells));
  const wrong = cells.filter((c) => !c.exact);
  log(`${cells.length} cells, ${cells.length - wrong.length} exact, ${wrong.length} different`);
  const bounded = cells.filter((c) => c.stockBounds !== undefined);
  if (bounded.length > 0)
    log(
      `${bounded.length} cells bounded by today's limit-0 recording: ${bounded.filter((c) => c.stockBounds!.inBounds).length} inside, ${bounded.filter((c) => c.stockBounds!.exact).length} of them exact`,
    );
}

/** One table per repository and command: a row per policy and limit, real beside predicted. */
export function markdownTables(cells: Cell[]): string {
  const out: string[] = [];
  const keys = [...new Set(cells.map((c) => `${c.repo}\u0000${c.command}`))];
  for (const key of keys) {
    const [repo, command] = key.split('\u0000') as [string, string];
    const rows = cells.filter((c) => c.repo === repo && c.command === command);
    const timed = rows.some((c) => c.cpuSeconds !== undefined);
    out.push(`#### ${repo}: ${command}`, '');
    const header = ['policy', 'limit', 'lines real', 'predicted', 'inflations real', 'predicted', 'verdict'];
    if (timed) header.push('CPU s real (best of N, load)', 'predicted s');
    out.push(`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`);
    for (const c of rows) {
      const row = [
        c.policy,
        c.limit,
        count(c.realLines),
        count(c.predictedLines),
        count(c.realInflations),
        count(c.predictedInflations),
        c.exact ? 'exact' : '**different**',
      ];
      if (timed)
        row.push(
          c.cpuSeconds === undefined ? '' : `${c.cpuSeconds.toFixed(2)} (${c.cpuRuns}, ${c.load})`,
          c.predictedSeconds === undefined ? '' : `≈${c.predictedSeconds.toFixed(2)}`,
        );
      out.push(`| ${row.join(' | ')} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

main();
