/**
 * The benchmark's own large repository: a deterministic history from bench/history.ts fed to
 * `git fast-import`, then repacked with `git repack -adf --depth=50 --window=10` into one pack
 * (with a .rev, as git 2.41+ writes by default). The result is cached under .bench/ in a directory
 * named after a hash of everything that shapes it (generator parameters, the generator's source,
 * the repack arguments and the git version), so reruns reuse it and any change regenerates it.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeHistoryStream, type BenchHistoryOptions } from './history.ts';

export const projectRoot = path.resolve(__dirname, '..');
export const benchDir = path.join(projectRoot, '.bench');
/**
 * Where the benches' servers and CLIs keep model caches: outside this checkout, because PackScope
 * never writes a model file inside a repository (and the checkout is one). One folder per checkout.
 */
export const benchModelCacheRoot = path.join(
  os.tmpdir(),
  `packscope-bench-models-${createHash('sha1').update(projectRoot).digest('hex').slice(0, 12)}`,
);

/**
 * Commits of the generated history: 26,000, or PACKSCOPE_BENCH_COMMITS (`npm run bench -- --quick`
 * sets a small one, so that every bench checks its figures in minutes).
 */
function historyCommits(): number {
  const wanted = process.env.PACKSCOPE_BENCH_COMMITS;
  if (wanted === undefined || wanted === '') return 26_000;
  const commits = Number(wanted);
  if (!Number.isInteger(commits) || commits < 1) throw new Error('PACKSCOPE_BENCH_COMMITS needs a positive integer');
  return commits;
}

/** About 11.7 objects per commit (60% trees, 30% blobs, 10% commits): 26,000 commits give ≈ 300,000 objects. */
export const DEFAULT_HISTORY: BenchHistoryOptions = {
  commits: historyCommits(),
  seed: 20240601,
  dirs: 16,
  subdirs: 8,
  files: 400,
  linesPerFile: 60,
  editsPerCommit: 3,
  addRate: 0.1,
  renameRate: 0.03,
  deleteRate: 0.05,
  binaryRate: 0.08,
  tagEvery: 100,
};

export const REPACK_ARGS = ['-adf', '--depth=50', '--window=10'];
/** Config for every git the bench runs: repack writes a .rev (as git ≥ 2.41 does) and no bitmap. */
const REPACK_CONFIG = ['-c', 'pack.writeReverseIndex=true', '-c', 'repack.writeBitmaps=false', '-c', 'pack.threads=2'];

/** git without the user's or the system's configuration, so runs are comparable across machines. */
export function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  return { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' };
}

export function gitVersion(): string {
  return spawnSync('git', ['--version'], { encoding: 'utf8' }).stdout.trim();
}

function git(args: string[], options: { stdinFile?: string } = {}): void {
  const stdin = options.stdinFile ? fs.openSync(options.stdinFile, 'r') : 'ignore';
  let result;
  try {
    result = spawnSync('git', args, { env: gitEnv(), stdio: [stdin, 'ignore', 'pipe'], maxBuffer: 1 << 30 });
  } finally {
    if (typeof stdin === 'number') fs.closeSync(stdin);
  }
  if (result.status !== 0)
    throw new Error(
      `git ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr?.toString() ?? ''}`,
    );
}

export interface GeneratedPack {
  pack: string;
  key: string;
  /** Whether this run generated it (false: reused from the cache). */
  generated: boolean;
  seconds: number;
  parameters: Record<string, unknown>;
}

function findPack(gitDir: string): string | undefined {
  const dir = path.join(gitDir, 'objects', 'pack');
  if (!fs.existsSync(dir)) return undefined;
  const packs = fs.readdirSync(dir).filter((name) => name.endsWith('.pack'));
  return packs.length === 1 ? path.join(dir, packs[0]!) : undefined;
}

export function generatedPack(history: BenchHistoryOptions, log: (line: string) => void): GeneratedPack {
  // The generator and the seeded generator it draws from: either changing changes the history.
  const generatorSource = Buffer.concat([
    fs.readFileSync(path.join(__dirname, 'history.ts')),
    fs.readFileSync(path.join(projectRoot, 'test', 'support', 'seeded-random.ts')),
  ]);
  const parameters = {
    generator: 'bench/history.ts writeHistoryStream',
    generatorSha1: createHash('sha1').update(generatorSource).digest('hex'),
    history,
    repack: REPACK_ARGS,
    repackConfig: REPACK_CONFIG,
    git: gitVersion(),
  };
  const key = createHash('sha1').update(JSON.stringify(parameters)).digest('hex').slice(0, 12);
  const gitDir = path.join(benchDir, `repo-${history.commits}c-${key}.git`);
  const cached = fs.existsSync(path.join(gitDir, 'bench-parameters.json')) ? findPack(gitDir) : undefined;
  if (cached) {
    log(`generated repository: reusing ${path.relative(projectRoot, gitDir)} (key ${key})`);
    return { pack: cached, key, generated: false, seconds: 0, parameters };
  }
  const started = performance.now();
  const building = `${gitDir}.tmp-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(benchDir, { recursive: true });
  log(
    `generated repository: building ${path.relative(projectRoot, gitDir)} (${history.commits} commits, seed ${history.seed}); cached for later runs`,
  );
  git(['init', '--quiet', '--bare', building]);
  let mark = performance.now();
  const streamFile = `${building}.fast-import`;
  const streamBytes = writeHistoryStream(streamFile, history);
  log(`  history stream: ${(streamBytes / 1e6).toFixed(1)} MB in ${((performance.now() - mark) / 1000).toFixed(1)} s`);
  mark = performance.now();
  try {
    git(['--git-dir', building, 'fast-import', '--quiet'], { stdinFile: streamFile });
  } finally {
    fs.rmSync(streamFile, { force: true });
  }
  log(`  git fast-import: ${((performance.now() - mark) / 1000).toFixed(1)} s`);
  mark = performance.now();
  git(['--git-dir', building, ...REPACK_CONFIG, 'repack', '-q', ...REPACK_ARGS]);
  log(`  git repack ${REPACK_ARGS.join(' ')}: ${((performance.now() - mark) / 1000).toFixed(1)} s`);
  if (!findPack(building)) throw new Error(`repack of ${building} did not leave exactly one pack`);
  fs.writeFileSync(path.join(building, 'bench-parameters.json'), `${JSON.stringify(parameters, null, 2)}\n`);
  fs.rmSync(gitDir, { recursive: true, force: true });
  fs.renameSync(building, gitDir);
  const seconds = (performance.now() - started) / 1000;
  log(`  done in ${seconds.toFixed(1)} s`);
  return { pack: findPack(gitDir)!, key, generated: true, seconds, parameters };
}

/**
 * The generated repository's `git log -p --all` recording, recorded once with the built CLI. PackScope
 * never writes inside a repository, and this checkout is one: it records into a temporary directory
 * (its model cache there too), and the bench copies the recording into .bench/ itself.
 */
export function generatedRecording(key: string, repository: string, log: (line: string) => void): string {
  const file = path.join(benchDir, `log-p-${key}.psrec`);
  if (fs.existsSync(file)) return file;
  log(`recording git log -p --all on ${repository} (once; cached as ${file})…`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-bench-record-'));
  try {
    const recorded = path.join(scratch, 'log-p.psrec');
    const result = spawnSync(
      process.execPath,
      [
        path.join(projectRoot, 'dist', 'cli.js'),
        'record',
        '--exact',
        '-o',
        recorded,
        '-C',
        repository,
        '--cache-dir',
        path.join(scratch, 'models'),
        '--',
        'log',
        '-p',
        '--all',
      ],
      {
        cwd: scratch,
        env: { ...gitEnv(), PACKSCOPE_NO_PROGRESS: '1' },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    if (result.status !== 0) throw new Error('recording failed');
    fs.copyFileSync(recorded, `${file}.partial`);
    fs.renameSync(`${file}.partial`, file);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return file;
}
