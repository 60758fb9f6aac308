/**
 * PackScope pack-engine benchmark (`npm run bench`). See bench/README.md.
 *
 * For every pack — the repository the bench generates itself (≈ 300,000 objects, cached under
 * .bench/) and any packs named on the command line — it measures, on the same pack in the same
 * run, one process at a time:
 *   1. full model build vs `git cat-file --batch-all-objects --batch-check=…` (target ratio < 1.0 end to end, ≤ 0.3 in process),
 *      both as the CLI end to end (`packscope objects --no-cache`) and as in-process buildPackModel;
 *   2. `packscope verify-pack -v` vs `git verify-pack -v` (target speed-up ≥ 20×, outputs identical);
 *   3. header-only scan rate, buildPackModel({resultSizes:false}) (target ≥ 6,000,000 objects/s);
 *   4. retained heap per object of a model, name table excluded (target ≤ 40 bytes);
 *   5. reopening a persisted model vs its first build+save (target < 5%), and as a user meets it:
 *      `packscope stats --no-paths` with the model stored vs a cold run, whole processes (target < 15%).
 *
 * The reference large pack is git.git's: `fetch github:git/git` leaves it at
 *   /work/.mirror/git+git/repo/objects/pack/pack-5b31da4c48e5198d31c1572301d7159b36759c36.pack
 * (849,014 objects, 496 MB):  npm run bench -- <that path>
 */
import { errorMessage } from '../src/common/error-message.ts';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { packFilesFor } from '../src/core/model/build-pack-model.ts';
import { hashAlgorithmNear } from '../src/core/model/repository.ts';
import { buildSync } from 'esbuild';
import { profileNode, type ThreadProfile } from './cpu-profile.ts';
import { NOISY_CORES, QuietGate } from './quiet.ts';
import {
  benchDir,
  DEFAULT_HISTORY,
  generatedPack,
  gitEnv,
  gitVersion,
  projectRoot,
  type GeneratedPack,
} from './generate.ts';
import { recordFigures, type Figure } from './results.ts';
import { monorepo, scaleRepository } from './scale.ts';

const help = `usage: npm run bench -- [options] [<pack>...]
       node --import tsx bench/pack-engine.bench.ts [options] [<pack>...]

Benchmarks PackScope's pack engine against git on the same packs, one process at a time.
Always measures the repository it generates itself (about 300,000 objects: a deterministic
history fast-imported and repacked with git repack -adf --depth=50 --window=10; cached in
.bench/ by its parameters, so only the first run pays for it), then every <pack> given
(.pack or .idx path; read only, never written).

Reference large pack: git.git, as \`fetch github:git/git\` leaves it:
  npm run bench -- /work/.mirror/git+git/repo/objects/pack/pack-5b31da4c48e5198d31c1572301d7159b36759c36.pack

options:
  --runs N          best of N for every cheap measurement (default 3); git verify-pack runs
                    once when its first run takes over 10 s
  --json            print the results as JSON on stdout (the table then goes to stderr);
                    for clean JSON run node --import tsx bench/pack-engine.bench.ts --json
                    (npm run bench prints npm's banner and runs bench/sim.bench.ts first)
  --profile         always add --cpu-prof summaries (self time per function, mapped to src/)
                    of the measured work; by default only for the figures that miss a target
  --no-profile      never profile
  --no-generated    skip the generated repository; measure only the given packs
  --commits N       commits in the generated history (default ${DEFAULT_HISTORY.commits})
  --seed N          seed of the generated history (default ${DEFAULT_HISTORY.seed})
  --scale           also generate (once; cached in .bench/) and measure the scale repositories
                    (bench/README.md): one pack of about --scale-objects objects, and a monorepo-shaped
                    repository (200+ packs, cruft, geometric, .keep, .promisor, MIDX + bitmap,
                    10,000+ loose objects, an alternate) of about --monorepo-objects objects
  --scale-objects N objects of the one-pack scale repository (default 10000000; it takes tens
                    of minutes of CPU to generate at that size)
  --monorepo        generate (once; cached in .bench/) and measure only the monorepo-shaped
                    repository of --scale, not the one-pack scale repository (a few minutes; with
                    --no-generated it is all this bench measures)
  --repository DIR  measure this repository as a whole like the monorepo-shaped one (objects
                    against cat-file --batch-all-objects, stats against count-objects -v)
  --monorepo-objects N
                    objects of the monorepo-shaped repository (default 300000: what it is for
                    is its shape, the packs, markers, loose objects and alternate, which are the
                    same at every size; the 10 M-object figures come from the one-pack repository.
                    Its new files fill directories of 256, so generation grows with the size, not
                    its square: at 300000 a few minutes)
  --reopen-only     for each <pack> given, measure figure 5 only (reopen in process and as the CLI):
                    seconds on git.git's pack, where the other figures take minutes
  --max-wait S      before every timed run, wait up to S seconds (default 600; 0: never) for
                    other processes to leave the CPUs alone; a run during which they used more
                    than ${NOISY_CORES} of a core is repeated (at most 3 times in all), else flagged
  -h, --help        this text

Targets (bench/README.md): (1) packscope objects time / git cat-file time < 1.0, buildPackModel in process
<= 0.3 of git's; (2) git verify-pack -v time / packscope verify-pack -v time >= 20 with identical
output; (3) header-only scan >= 6,000,000 objects/s; (4) retained heap per object, idx name table
excluded, <= 40 bytes; (5) reopening a persisted model < 5% of the first build+save, and packscope
stats --no-paths with the model stored < 15% of a cold run (--no-cache), whole processes.`;

const CATFILE_FORMAT = '%(objectname) %(objecttype) %(objectsize) %(objectsize:disk) %(deltabase)';
// The targets of bench/README.md (the end-to-end CLI keeps its < 1.0; the model build in
// process must reach 0.3× git's listing).
const TARGETS = {
  catFileRatio: 1.0,
  catFileInProcessRatio: 0.3,
  verifySpeedup: 20,
  scanRate: 6_000_000,
  heapPerObject: 40,
  reopenFraction: 0.05,
  reopenCliFraction: 0.15,
} as const;
/** A git verify-pack run longer than this is not repeated (git.git's takes about a minute). */
const REPEAT_LIMIT_MS = 10_000;

const builtCli = path.join(projectRoot, 'dist', 'cli.js');
/**
 * dist/ as it was when the bench started, copied so that a rebuild by someone else during the run
 * (npm test rebuilds dist/) cannot change the CLI between measurements.
 */
const pinnedDist = path.join(benchDir, 'build', 'dist');
const cli = path.join(pinnedDist, 'cli.js');

function pinDist(): void {
  fs.rmSync(pinnedDist, { recursive: true, force: true });
  fs.mkdirSync(pinnedDist, { recursive: true });
  const dist = path.dirname(builtCli);
  for (const name of fs.readdirSync(dist)) {
    if (name.endsWith('.js')) fs.copyFileSync(path.join(dist, name), path.join(pinnedDist, name));
    if (name.endsWith('.js.map')) {
      // Sources resolved against dist/, so that profiles still point at src/.
      const map = JSON.parse(fs.readFileSync(path.join(dist, name), 'utf8')) as {
        sources: string[];
        sourceRoot?: string;
      };
      map.sources = map.sources.map((source) => path.resolve(dist, map.sourceRoot ?? '', source));
      delete map.sourceRoot;
      fs.writeFileSync(path.join(pinnedDist, name), JSON.stringify(map));
    }
  }
}
const tmpDir = path.join(benchDir, 'tmp');
/** bench/measure.ts bundled by esbuild like dist/cli.js, so children run the code the CLI ships. */
const measureBundle = path.join(benchDir, 'build', 'measure.js');

function bundleMeasureScript(): void {
  buildSync({
    absWorkingDir: projectRoot,
    entryPoints: [path.join(__dirname, 'measure.ts')],
    outfile: measureBundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

// ---------------------------------------------------------------------------------------------
// Running and timing processes

interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where stdout goes; /dev/null when absent. */
  stdoutFile?: string;
}

/** Wall time of one process, spawn to exit, in ms. */
function timeProcess(command: string, args: string[], options: RunOptions = {}): number {
  const out = fs.openSync(options.stdoutFile ?? '/dev/null', 'w');
  try {
    const started = performance.now();
    const result = spawnSync(command, args, {
      cwd: options.cwd ?? projectRoot,
      env: options.env ?? process.env,
      stdio: ['ignore', out, 'pipe'],
      maxBuffer: 256 << 20,
    });
    const ms = performance.now() - started;
    if (result.status !== 0)
      throw new Error(
        `${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr?.toString() ?? ''}`,
      );
    return ms;
  } finally {
    fs.closeSync(out);
  }
}

function sha1File(file: string): string {
  const digest = createHash('sha1');
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(8 << 20);
  try {
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      digest.update(buffer.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return digest.digest('hex');
}

function countLines(file: string): number {
  const bytes = fs.readFileSync(file);
  let lines = 0;
  for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) lines++;
  return lines;
}

const cliEnv = (): NodeJS.ProcessEnv => ({ ...process.env, PACKSCOPE_NO_PROGRESS: '1' });

/** Runs bench/measure.ts (bundled) in a fresh process and returns its JSON line. */
function measure<T>(mode: string, pack: string, arg?: string, env: Record<string, string> = {}): T {
  const args = ['--expose-gc', measureBundle, mode, pack, ...(arg === undefined ? [] : [arg])];
  const result = spawnSync(process.execPath, args, {
    cwd: projectRoot,
    env: { ...cliEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  });
  if (result.status !== 0) throw new Error(`measure ${mode} failed: ${result.stderr.toString()}`);
  const lines = result.stdout.toString().trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}

const min = (values: number[]): number => Math.min(...values);

// ---------------------------------------------------------------------------------------------
// The five figures of one pack

interface PackResult {
  pack: string;
  label: string;
  objects: number;
  packBytes: number;
  hash: string;
  rev: boolean;
  runs: number;
  catFile: {
    gitMs: number[];
    cliMs: number[];
    inProcessMs: number[];
    /** Scan workers beside the main thread in the in-process build (0: one thread). */
    scanWorkers: number;
    inProcessOneThreadBest: number;
    gitBest: number;
    cliBest: number;
    inProcessBest: number;
    cliRatio: number;
    inProcessRatio: number;
    phases: Record<string, number>;
    outputsMatch: boolean;
    gitSha1: string;
    cliSha1: string;
  };
  verifyPack: {
    gitMs: number[];
    cliMs: number[];
    gitBest: number;
    cliBest: number;
    speedup: number;
    outputsMatch: boolean;
    gitSha1: string;
    cliSha1: string;
    lines: number;
  };
  headerScan: { ms: number[]; best: number; objectsPerSecond: number; phases: Record<string, number> };
  heap: {
    retainedBytes: number;
    nameTableBytes: number;
    bytesPerObject: number;
    columnBytesPerObject: number;
    idxOtherBytesPerObject: number;
    before: Record<string, number>;
    after: Record<string, number>;
  };
  reopen: {
    firstMs: number[];
    reopenMs: number[];
    /** The same reopens with every column read too (format 5 reads a column when first used). */
    reopenEveryColumnMs: number[];
    firstBest: number;
    reopenBest: number;
    fraction: number;
    sources: string[];
    /** `stats --no-paths`, whole processes: cold (--no-cache) and with the model stored. */
    cliColdMs: number[];
    cliReopenMs: number[];
    cliFraction: number;
  };
  verdicts: Record<string, boolean>;
  /** Cores' worth of CPU other processes used during each figure's runs (highest run). */
  otherLoad: Record<string, number>;
  /** Runs repeated because other processes were busy; ms spent waiting for a quiet machine. */
  repeatedRuns: number;
  waitedMs: number;
  profiles?: Record<string, ThreadProfile[]>;
}

interface BuildMeasure {
  count: number;
  columnBytes: number;
  times: number[];
  best: number;
  phases: Record<string, number>;
  scanWorkers: number;
}

interface HeapMeasure {
  count: number;
  hashSize: number;
  before: Record<string, number>;
  after: Record<string, number>;
  retained: number;
  nameTableBytes: number;
  idxBytes: number;
  columnBytes: number;
}

interface StoreMeasure {
  /** The load and the pack's stats (bench/measure.ts). */
  ms: number;
  /** Then every column read too. */
  everyColumnMs: number;
  source: string;
  rebuiltBecause?: string;
  count: number;
}

/** A bare repository whose only pack is `files` (symlinked), so that git cat-file sees exactly that pack. */
function scratchRepository(files: ReturnType<typeof packFilesFor>, hashName: string): string {
  const name = path.basename(files.pack, '.pack');
  const dir = path.join(tmpDir, `${name}.git`);
  fs.rmSync(dir, { recursive: true, force: true });
  const init = spawnSync('git', ['init', '--quiet', '--bare', `--object-format=${hashName}`, dir], {
    env: gitEnv(),
    encoding: 'utf8',
  });
  if (init.status !== 0) throw new Error(`git init failed: ${init.stderr}`);
  const packDir = path.join(dir, 'objects', 'pack');
  for (const file of [files.pack, files.idx, files.rev]) {
    if (file) fs.symlinkSync(path.resolve(file), path.join(packDir, path.basename(file)));
  }
  return dir;
}

/**
 * The repository's packed objects alone: a bare repository whose objects/pack holds links to every
 * file of `gitDir`'s (MIDX, bitmaps and markers too) and whose objects/info/alternates is a copy of
 * its, without its loose objects, which cat-file --batch-all-objects lists and `objects` does not.
 */
function packedView(gitDir: string): string {
  const view = path.join(tmpDir, `${path.basename(gitDir)}-packed.git`);
  fs.rmSync(view, { recursive: true, force: true });
  const init = spawnSync('git', ['init', '--quiet', '--bare', view], { env: gitEnv(), encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`git init failed: ${init.stderr}`);
  const packDir = path.join(gitDir, 'objects', 'pack');
  for (const name of fs.readdirSync(packDir))
    fs.symlinkSync(path.join(packDir, name), path.join(view, 'objects', 'pack', name));
  // A relative alternate is relative to the objects directory that names it: made absolute here, or
  // the view (elsewhere) would name nothing and both listings would quietly leave the alternate out.
  const alternates = path.join(gitDir, 'objects', 'info', 'alternates');
  if (fs.existsSync(alternates)) {
    const lines = fs.readFileSync(alternates, 'utf8').split('\n');
    const absolute = lines.map((line) =>
      line === '' || line.startsWith('#') ? line : path.resolve(gitDir, 'objects', line),
    );
    fs.writeFileSync(path.join(view, 'objects', 'info', 'alternates'), absolute.join('\n'));
  }
  return view;
}

/**
 * The monorepo-shaped repository as a whole, each PackScope command against the git command that
 * reports the same (best of `runs`, alternating, after an untimed warm-up of each): `objects`
 * against cat-file --batch-all-objects --batch-check on the repository's packed view (packedView:
 * git's listing of the whole repository also has its loose objects, `objects` lists packed ones),
 * their outputs compared, and `stats --json --no-paths` against count-objects -v.
 */
function measureRepository(gitDir: string, runs: number, maxWaitMs: number): { lines: string[]; figures: Figure[] } {
  const gate = new QuietGate(maxWaitMs, log);
  const env = gitEnv();
  const packed = packedView(gitDir);
  const pairs: { label: string; git: string[]; cli: string[] }[] = [
    {
      label: 'objects vs git cat-file --batch-all-objects --batch-check (packed objects)',
      git: ['--git-dir', packed, 'cat-file', '--batch-all-objects', `--batch-check=${CATFILE_FORMAT}`],
      cli: [cli, 'objects', '--no-cache', packed],
    },
    {
      label: 'stats --json --no-paths vs git count-objects -v',
      git: ['--git-dir', gitDir, 'count-objects', '-v'],
      cli: [cli, 'stats', '--json', '--no-paths', '--no-cache', gitDir],
    },
  ];
  const packCount = fs.readdirSync(path.join(gitDir, 'objects', 'pack')).filter((n) => n.endsWith('.pack')).length;
  const lines = [`\n  monorepo-shaped repository ${path.relative(projectRoot, gitDir)} (${packCount} packs)`];
  const figures: Figure[] = [];
  for (const pair of pairs) {
    const gitOut = path.join(tmpDir, 'repository-git.out');
    const cliOut = path.join(tmpDir, 'repository-cli.out');
    timeProcess('git', pair.git, { env, stdoutFile: gitOut });
    timeProcess(process.execPath, pair.cli, { env: cliEnv(), stdoutFile: cliOut });
    const identical = sha1File(gitOut) === sha1File(cliOut);
    const gitMs: number[] = [];
    const cliMs: number[] = [];
    let load = 0;
    for (let run = 0; run < runs; run++) {
      log(`[monorepo] ${pair.label}: run ${run + 1}/${runs}`);
      const g = gate.run('git', () => timeProcess('git', pair.git, { env }));
      const c = gate.run('packscope', () => timeProcess(process.execPath, pair.cli, { env: cliEnv() }));
      gitMs.push(g.value);
      cliMs.push(c.value);
      load = Math.max(load, g.load, c.load);
    }
    lines.push(
      `  ${pair.label}: packscope ${(min(cliMs) / 1000).toFixed(3)} s, git ${(min(gitMs) / 1000).toFixed(3)} s, ratio ${(min(cliMs) / min(gitMs)).toFixed(2)}${pair.cli[1] === 'objects' ? `, outputs ${identical ? 'identical' : 'DIFFER'}` : ''} (highest other load ${load.toFixed(2)} cores)`,
    );
    if (pair.cli[1] === 'objects')
      figures.push({
        target: 'objects-monorepo',
        subject: `${path.basename(gitDir)} (${packCount} packs)`,
        value: `${(min(cliMs) / min(gitMs)).toFixed(2)}x`,
        met: identical && min(cliMs) <= min(gitMs),
        note: `objects --no-cache ${(min(cliMs) / 1000).toFixed(3)} s, cat-file ${(min(gitMs) / 1000).toFixed(3)} s, best of ${runs}, over the packed objects; outputs ${identical ? 'identical' : 'DIFFER'}`,
      });
  }
  return { lines, figures };
}

/** What one pack's results add to `npm run bench`'s closing table (bench/results.ts). */
function packFigures(r: PackResult, generated: boolean): Figure[] {
  const subject = generated ? 'generated pack' : path.basename(r.pack);
  const figures: Figure[] = [
    {
      target: 'reopen-in-process',
      subject,
      value: `${(r.reopen.fraction * 100).toFixed(1)}%`,
      met: r.verdicts.reopen!,
      note: `ModelStore reopen and the pack's stats ${seconds(r.reopen.reopenBest)} (every column read: ${seconds(min(r.reopen.reopenEveryColumnMs))}) against build+save ${seconds(r.reopen.firstBest)}, fresh processes, best of ${r.runs}`,
    },
    {
      target: 'reopen-cli',
      subject,
      value: `${(r.reopen.cliFraction * 100).toFixed(1)}%`,
      met: r.verdicts.reopenCli!,
      note: `stats --no-paths ${seconds(min(r.reopen.cliReopenMs))} with the model stored against ${seconds(min(r.reopen.cliColdMs))} cold, best of ${r.runs}`,
    },
    {
      target: 'header-scan',
      subject,
      value: `${(r.headerScan.objectsPerSecond / 1e6).toFixed(2)} M objects/s`,
      met: r.verdicts.headerScan!,
    },
    {
      target: 'verify-pack',
      subject,
      value: `${r.verifyPack.speedup.toFixed(1)}x`,
      met: r.verdicts.verifySpeedup! && r.verdicts.verifyOutputsMatch!,
      note: `git ${seconds(r.verifyPack.gitBest)}, packscope ${seconds(r.verifyPack.cliBest)}; outputs ${r.verifyPack.outputsMatch ? 'identical' : 'DIFFER'}`,
    },
  ];
  if (generated)
    figures.push({
      target: 'objects-generated',
      subject,
      value: `${r.catFile.cliRatio.toFixed(2)}x`,
      met: r.catFile.cliRatio <= TARGETS.catFileRatio && r.catFile.outputsMatch,
      note: `objects --no-cache ${seconds(r.catFile.cliBest)}, cat-file ${seconds(r.catFile.gitBest)}; outputs ${r.catFile.outputsMatch ? 'identical' : 'DIFFER'}`,
    });
  return figures;
}

/** Times a figure's run under the quiet gate (measurePack's `timed`). */
type Timed = <T>(figure: string, label: string, work: () => T) => T;

/**
 * Figure 5: ModelStore's first load (build + save) and reopen, each in a fresh process, then the
 * same reopen as a user meets it, `packscope stats --no-paths` with the model stored against a cold
 * run, alternating.
 */
function measureReopen(
  pack: string,
  runs: number,
  timed: Timed,
): Pick<
  PackResult['reopen'],
  'firstMs' | 'reopenMs' | 'reopenEveryColumnMs' | 'sources' | 'cliColdMs' | 'cliReopenMs'
> {
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-bench-store-'));
  const firstMs: number[] = [];
  const reopenMs: number[] = [];
  const reopenEveryColumnMs: number[] = [];
  const sources: string[] = [];
  const cliColdMs: number[] = [];
  const cliReopenMs: number[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      log(`[5/5] ModelStore first load (build+save): run ${run + 1}/${runs}`);
      const first = timed('reopen', 'ModelStore first load', () => {
        for (const entry of fs.readdirSync(storeDir)) fs.rmSync(path.join(storeDir, entry), { force: true });
        return measure<StoreMeasure>('store', pack, storeDir);
      });
      if (first.source !== 'built') throw new Error(`first ModelStore load was "${first.source}", expected "built"`);
      firstMs.push(first.ms);
    }
    for (let run = 0; run < runs; run++) {
      log(`[5/5] ModelStore reopen in a fresh process: run ${run + 1}/${runs}`);
      const again = timed('reopen', 'ModelStore reopen', () => measure<StoreMeasure>('store', pack, storeDir));
      sources.push(again.source);
      if (again.source !== 'persisted')
        log(`      reopen was "${again.source}" (${again.rebuiltBecause ?? 'no reason given'})`);
      reopenMs.push(again.ms);
      reopenEveryColumnMs.push(again.everyColumnMs);
    }
    for (let run = 0; run < runs; run++) {
      log(`[5/5] packscope stats --no-paths, cold and with the model stored: run ${run + 1}/${runs}`);
      cliColdMs.push(
        timed('reopen', 'stats --no-paths --no-cache', () =>
          timeProcess(process.execPath, [cli, 'stats', '--no-paths', '--no-cache', pack], { env: cliEnv() }),
        ),
      );
      cliReopenMs.push(
        timed('reopen', 'stats --no-paths, model stored', () =>
          timeProcess(process.execPath, [cli, 'stats', '--no-paths', '--cache-dir', storeDir, pack], {
            env: cliEnv(),
          }),
        ),
      );
    }
  } finally {
    fs.rmSync(storeDir, { recursive: true, force: true });
  }
  return { firstMs, reopenMs, reopenEveryColumnMs, sources, cliColdMs, cliReopenMs };
}

/**
 * `--reopen-only`: figure 5 alone on a given pack (git.git's, the pack the CLI's reopen target is set
 * on: its other figures take minutes there), recorded for the closing table like any pack's.
 */
function measureReopenOnly(
  packArgument: string,
  runs: number,
  maxWaitMs: number,
): { lines: string[]; figures: Figure[] } {
  const gate = new QuietGate(maxWaitMs, log);
  let load = 0;
  const timed: Timed = (_figure, label, work) => {
    const measured = gate.run(label, work);
    load = Math.max(load, measured.load);
    return measured.value;
  };
  const files = packFilesFor(path.resolve(packArgument));
  if (!fs.existsSync(files.pack) || !fs.existsSync(files.idx))
    throw new Error(`${packArgument}: no .pack and .idx there`);
  log(`== reopen only: ${files.pack}`);
  const r = measureReopen(files.pack, runs, timed);
  const firstBest = min(r.firstMs);
  const reopenBest = min(r.reopenMs);
  const cliFraction = min(r.cliReopenMs) / min(r.cliColdMs);
  const persisted = r.sources.every((source) => source === 'persisted');
  const subject = path.basename(files.pack);
  const lines = [
    `\n${files.pack}: figure 5 only (--reopen-only), best of ${runs}; highest other load ${load.toFixed(2)} cores`,
    row('5. ModelStore first load, build + save (fresh process)', seconds(firstBest)),
    row(`   ModelStore reopen + the pack's stats (fresh process)`, seconds(reopenBest)),
    row('   the same, then every column read', seconds(min(r.reopenEveryColumnMs))),
    row(
      '   reopen / first load',
      `${((reopenBest / firstBest) * 100).toFixed(1)}%`,
      `< ${TARGETS.reopenFraction * 100}%`,
      verdict(reopenBest / firstBest < TARGETS.reopenFraction && persisted),
    ),
    row('   packscope stats --no-paths --no-cache (CLI, cold)', seconds(min(r.cliColdMs))),
    row('   packscope stats --no-paths, model stored (CLI)', seconds(min(r.cliReopenMs))),
    row(
      '   stored / cold',
      `${(cliFraction * 100).toFixed(1)}%`,
      `< ${TARGETS.reopenCliFraction * 100}%`,
      verdict(cliFraction < TARGETS.reopenCliFraction),
    ),
  ];
  const figures: Figure[] = [
    {
      target: 'reopen-in-process',
      subject,
      value: `${((reopenBest / firstBest) * 100).toFixed(1)}%`,
      met: reopenBest / firstBest < TARGETS.reopenFraction && persisted,
      note: `ModelStore reopen and the pack's stats ${seconds(reopenBest)} (every column read: ${seconds(min(r.reopenEveryColumnMs))}) against build+save ${seconds(firstBest)}, fresh processes, best of ${runs}`,
    },
    {
      target: 'reopen-cli',
      subject,
      value: `${(cliFraction * 100).toFixed(1)}%`,
      met: cliFraction < TARGETS.reopenCliFraction,
      note: `stats --no-paths ${seconds(min(r.cliReopenMs))} with the model stored against ${seconds(min(r.cliColdMs))} cold, best of ${runs}`,
    },
  ];
  return { lines, figures };
}

function measurePack(
  packArgument: string,
  label: string,
  runs: number,
  profile: 'auto' | 'always' | 'never',
  maxWaitMs: number,
): PackResult {
  const gate = new QuietGate(maxWaitMs, log);
  /** Highest load other processes put on the machine during each figure's accepted runs. */
  const loads: Record<string, number> = {};
  const timed = <T>(figure: string, label: string, work: () => T): T => {
    const { value, load } = gate.run(label, work);
    loads[figure] = Math.max(loads[figure] ?? 0, load);
    return value;
  };
  const files = packFilesFor(path.resolve(packArgument));
  if (!fs.existsSync(files.pack) || !fs.existsSync(files.idx))
    throw new Error(`${packArgument}: no .pack and .idx there`);
  const hash = hashAlgorithmNear(files.pack)?.name ?? 'sha1';
  const packBytes = fs.statSync(files.pack).size;
  fs.mkdirSync(tmpDir, { recursive: true });
  const gitDir = scratchRepository(files, hash);
  const env = gitEnv();
  const gitCatFile = ['--git-dir', gitDir, 'cat-file', '--batch-all-objects', `--batch-check=${CATFILE_FORMAT}`];
  const cliObjects = [cli, 'objects', '--no-cache', files.pack];

  // 1. Full model build vs git cat-file. The first run of each writes its output for comparison
  //    (and warms the page cache); the timed runs write to /dev/null and alternate git/packscope.
  log(`[1/5] objects vs git cat-file: output check`);
  const gitOut = path.join(tmpDir, 'cat-file.git.out');
  const cliOut = path.join(tmpDir, 'cat-file.packscope.out');
  timeProcess('git', gitCatFile, { env, stdoutFile: gitOut });
  timeProcess(process.execPath, cliObjects, { env: cliEnv(), stdoutFile: cliOut });
  const catGitSha1 = sha1File(gitOut);
  const catCliSha1 = sha1File(cliOut);
  fs.rmSync(gitOut);
  fs.rmSync(cliOut);
  const gitCatMs: number[] = [];
  const cliObjectsMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    log(`[1/5] objects vs git cat-file: run ${run + 1}/${runs}`);
    gitCatMs.push(timed('catFile', 'git cat-file', () => timeProcess('git', gitCatFile, { env })));
    cliObjectsMs.push(
      timed('catFile', 'packscope objects', () => timeProcess(process.execPath, cliObjects, { env: cliEnv() })),
    );
  }
  log(`[1/5] buildPackModel in process: best of ${runs}`);
  const build = timed('catFile', 'buildPackModel', () => measure<BuildMeasure>('build', files.pack, String(runs)));
  // The same build on one thread (PACKSCOPE_SCAN_WORKERS=0): what the scan workers add.
  const buildOneThread = timed('catFile', 'buildPackModel, one thread', () =>
    measure<BuildMeasure>('build', files.pack, String(runs), { PACKSCOPE_SCAN_WORKERS: '0' }),
  );
  const objects = build.count;

  // 2. verify-pack -v, both given the same idx path so that their "<pack>: ok" lines agree.
  const idxArgument = files.idx;
  const gitVerifyOut = path.join(tmpDir, 'verify-pack.git.out');
  const cliVerifyOut = path.join(tmpDir, 'verify-pack.packscope.out');
  const cliVerifyMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    log(`[2/5] packscope verify-pack -v: run ${run + 1}/${runs}`);
    cliVerifyMs.push(
      timed('verifyPack', 'packscope verify-pack', () =>
        timeProcess(process.execPath, [cli, 'verify-pack', '-v', idxArgument], {
          env: cliEnv(),
          ...(run === 0 ? { stdoutFile: cliVerifyOut } : {}),
        }),
      ),
    );
  }
  const gitVerifyMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    log(
      `[2/5] git verify-pack -v: run ${run + 1}${gitVerifyMs.length === 0 ? ' (repeated only if under 10 s)' : `/${runs}`}`,
    );
    gitVerifyMs.push(
      timed('verifyPack', 'git verify-pack', () =>
        timeProcess('git', ['verify-pack', '-v', idxArgument], {
          env,
          cwd: gitDir,
          ...(run === 0 ? { stdoutFile: gitVerifyOut } : {}),
        }),
      ),
    );
    if (gitVerifyMs[0]! > REPEAT_LIMIT_MS) break;
  }
  const verifyGitSha1 = sha1File(gitVerifyOut);
  const verifyCliSha1 = sha1File(cliVerifyOut);
  const verifyLines = countLines(cliVerifyOut);
  fs.rmSync(gitVerifyOut);
  fs.rmSync(cliVerifyOut);

  // 3. Header-only scan.
  log(`[3/5] header-only scan: best of ${runs}`);
  const scan = timed('headerScan', 'header-only scan', () => measure<BuildMeasure>('scan', files.pack, String(runs)));

  // 4. Retained heap of one model, fresh process.
  log(`[4/5] heap per object`);
  const heap = measure<HeapMeasure>('heap', files.pack);

  // 5. ModelStore: first load (build + save) and reopen, each in a fresh process; and as the CLI.
  const { firstMs, reopenMs, reopenEveryColumnMs, sources, cliColdMs, cliReopenMs } = measureReopen(
    files.pack,
    runs,
    timed,
  );
  fs.rmSync(gitDir, { recursive: true, force: true });

  const gitCatBest = min(gitCatMs);
  const cliObjectsBest = min(cliObjectsMs);
  const gitVerifyBest = min(gitVerifyMs);
  const cliVerifyBest = min(cliVerifyMs);
  const scanRate = objects / (scan.best / 1000);
  const heapPerObject = (heap.retained - heap.nameTableBytes) / objects;
  const firstBest = min(firstMs);
  const reopenBest = min(reopenMs);
  const result: PackResult = {
    pack: files.pack,
    label,
    objects,
    packBytes,
    hash,
    rev: files.rev !== undefined,
    runs,
    catFile: {
      gitMs: gitCatMs,
      cliMs: cliObjectsMs,
      inProcessMs: build.times,
      scanWorkers: build.scanWorkers,
      inProcessOneThreadBest: buildOneThread.best,
      gitBest: gitCatBest,
      cliBest: cliObjectsBest,
      inProcessBest: build.best,
      cliRatio: cliObjectsBest / gitCatBest,
      inProcessRatio: build.best / gitCatBest,
      phases: build.phases,
      outputsMatch: catGitSha1 === catCliSha1,
      gitSha1: catGitSha1,
      cliSha1: catCliSha1,
    },
    verifyPack: {
      gitMs: gitVerifyMs,
      cliMs: cliVerifyMs,
      gitBest: gitVerifyBest,
      cliBest: cliVerifyBest,
      speedup: gitVerifyBest / cliVerifyBest,
      outputsMatch: verifyGitSha1 === verifyCliSha1,
      gitSha1: verifyGitSha1,
      cliSha1: verifyCliSha1,
      lines: verifyLines,
    },
    headerScan: { ms: scan.times, best: scan.best, objectsPerSecond: scanRate, phases: scan.phases },
    heap: {
      retainedBytes: heap.retained,
      nameTableBytes: heap.nameTableBytes,
      bytesPerObject: heapPerObject,
      columnBytesPerObject: heap.columnBytes / objects,
      idxOtherBytesPerObject: (heap.idxBytes - heap.nameTableBytes) / objects,
      before: heap.before,
      after: heap.after,
    },
    reopen: {
      firstMs,
      reopenMs,
      reopenEveryColumnMs,
      firstBest,
      reopenBest,
      fraction: reopenBest / firstBest,
      sources,
      cliColdMs,
      cliReopenMs,
      cliFraction: min(cliReopenMs) / min(cliColdMs),
    },
    verdicts: {},
    otherLoad: loads,
    repeatedRuns: gate.repeats,
    waitedMs: gate.waitedMs,
  };
  result.verdicts = {
    catFileCli: result.catFile.cliRatio < TARGETS.catFileRatio,
    catFileInProcess: result.catFile.inProcessRatio <= TARGETS.catFileInProcessRatio,
    catFileOutputsMatch: result.catFile.outputsMatch,
    verifySpeedup: result.verifyPack.speedup >= TARGETS.verifySpeedup,
    verifyOutputsMatch: result.verifyPack.outputsMatch,
    headerScan: scanRate >= TARGETS.scanRate,
    heapPerObject: heapPerObject <= TARGETS.heapPerObject,
    reopen: result.reopen.fraction < TARGETS.reopenFraction && sources.every((s) => s === 'persisted'),
    reopenCli: result.reopen.cliFraction < TARGETS.reopenCliFraction,
  };

  // Where the time goes when a target is missed: a --cpu-prof of the same work, per function.
  const profiles: Record<string, ThreadProfile[]> = {};
  const wanted = (verdictName: string): boolean => {
    const yes = profile === 'always' || (profile === 'auto' && !result.verdicts[verdictName]);
    if (yes) gate.waitForQuiet();
    return yes;
  };
  if (wanted('catFileCli')) {
    log('profiling packscope objects --no-cache');
    profiles['packscope objects --no-cache (CLI)'] = profileNode(
      [cli, 'objects', '--no-cache', files.pack],
      projectRoot,
    );
  }
  if (wanted('catFileInProcess')) {
    log('profiling buildPackModel (in process, 1 run)');
    profiles['buildPackModel, result sizes (in process, 1 run)'] = profileNode(
      [measureBundle, 'build', files.pack, '1'],
      projectRoot,
    );
  }
  if (wanted('verifySpeedup')) {
    log('profiling packscope verify-pack -v');
    profiles['packscope verify-pack -v (CLI)'] = profileNode([cli, 'verify-pack', '-v', idxArgument], projectRoot);
  }
  if (wanted('headerScan')) {
    log(`profiling the header-only scan (in process, ${runs} runs)`);
    profiles[`buildPackModel({resultSizes:false}) (in process, ${runs} runs)`] = profileNode(
      [measureBundle, 'scan', files.pack, String(runs)],
      projectRoot,
    );
  }
  if (wanted('reopenCli')) {
    log('profiling packscope stats --no-paths with the model stored');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-bench-store-'));
    try {
      timeProcess(process.execPath, [cli, 'stats', '--no-paths', '--cache-dir', dir, files.pack], { env: cliEnv() });
      profiles['packscope stats --no-paths, model stored (CLI)'] = profileNode(
        [cli, 'stats', '--no-paths', '--cache-dir', dir, files.pack],
        projectRoot,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  if (wanted('reopen')) {
    log('profiling ModelStore reopen');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-bench-store-'));
    try {
      measure<StoreMeasure>('store', files.pack, dir);
      profiles['ModelStore reopen (fresh process)'] = profileNode(
        [measureBundle, 'store', files.pack, dir],
        projectRoot,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  if (Object.keys(profiles).length > 0) result.profiles = profiles;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Printing

const seconds = (ms: number): string =>
  ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');
const thousands = (n: number): string => Math.round(n).toLocaleString('en-US');
const phaseList = (phases: Record<string, number>): string =>
  Object.entries(phases)
    .map(([name, ms]) => `${name} ${ms.toFixed(0)} ms`)
    .join(', ');
const runList = (times: number[]): string => (times.length === 1 ? '1 run' : `best of ${times.length}`);

function row(figure: string, value: string, target = '', result = ''): string {
  return `  ${figure.padEnd(58)} ${value.padStart(17)}  ${target.padEnd(10)} ${result}`.trimEnd();
}

function renderPack(r: PackResult): string {
  const lines: string[] = [];
  const c = r.catFile;
  const v = r.verifyPack;
  const h = r.heap;
  lines.push(`${r.label}: ${r.pack}`);
  lines.push(
    `  ${thousands(r.objects)} objects, ${(r.packBytes / 1e6).toFixed(1)} MB, ${r.hash}, ${r.rev ? 'with' : 'without'} .rev; best of ${r.runs} unless noted`,
  );
  const noisy = Object.entries(r.otherLoad).filter(([, load]) => load > NOISY_CORES);
  lines.push(
    `  other processes' CPU during timed runs: at most ${Math.max(0, ...Object.values(r.otherLoad)).toFixed(2)} cores` +
      `; ${r.repeatedRuns} run(s) repeated for noise; ${(r.waitedMs / 1000).toFixed(0)} s spent waiting for a quiet machine` +
      (noisy.length > 0
        ? `\n  WARNING: figures ${noisy.map(([figure]) => figure).join(', ')} were measured while other processes were busy`
        : ''),
  );
  lines.push(row('figure', 'value', 'target', 'result'));
  lines.push(row('1. git cat-file --batch-all-objects --batch-check (git)', seconds(c.gitBest)));
  lines.push(row('   packscope objects --no-cache (CLI, end to end)', seconds(c.cliBest)));
  lines.push(
    row(
      `   buildPackModel, result sizes (in process, ${c.scanWorkers === 0 ? 'one thread' : `scan on ${c.scanWorkers + 1} threads`})`,
      seconds(c.inProcessBest),
    ),
  );
  lines.push(row('   buildPackModel, result sizes (in process, one thread)', seconds(c.inProcessOneThreadBest)));
  lines.push(row('   ratio CLI / git', c.cliRatio.toFixed(2), '< 1.0', verdict(r.verdicts.catFileCli!)));
  lines.push(
    row(
      '   ratio in-process / git',
      c.inProcessRatio.toFixed(2),
      `<= ${TARGETS.catFileInProcessRatio}`,
      verdict(r.verdicts.catFileInProcess!),
    ),
  );
  lines.push(
    row(
      '   outputs identical (sha1 of stdout)',
      c.outputsMatch ? `yes ${c.gitSha1.slice(0, 10)}` : 'NO',
      'identical',
      verdict(c.outputsMatch),
    ),
  );
  lines.push(`     in-process phases: ${phaseList(c.phases)}`);
  lines.push(row(`2. git verify-pack -v (${runList(v.gitMs)})`, seconds(v.gitBest)));
  lines.push(row(`   packscope verify-pack -v (CLI, ${runList(v.cliMs)})`, seconds(v.cliBest)));
  lines.push(
    row(
      '   speed-up git / packscope',
      `${v.speedup.toFixed(1)}×`,
      `>= ${TARGETS.verifySpeedup}×`,
      verdict(r.verdicts.verifySpeedup!),
    ),
  );
  lines.push(
    row(
      `   outputs identical (sha1 of stdout, ${thousands(v.lines)} lines)`,
      v.outputsMatch ? `yes ${v.gitSha1.slice(0, 10)}` : 'NO',
      'identical',
      verdict(v.outputsMatch),
    ),
  );
  lines.push(row('3. header-only scan, buildPackModel({resultSizes:false})', seconds(r.headerScan.best)));
  lines.push(
    row(
      '   objects per second',
      thousands(r.headerScan.objectsPerSecond),
      `>= ${(TARGETS.scanRate / 1e6).toFixed(1)} M/s`,
      verdict(r.verdicts.headerScan!),
    ),
  );
  lines.push(`     phases: ${phaseList(r.headerScan.phases)}`);
  lines.push(
    row(
      '4. retained heap per object, name table excluded (measured)',
      `${h.bytesPerObject.toFixed(1)} B`,
      `<= ${TARGETS.heapPerObject} B`,
      verdict(r.verdicts.heapPerObject!),
    ),
  );
  lines.push(row('   columnBytes / count', `${h.columnBytesPerObject.toFixed(1)} B`));
  lines.push(row('   idx buffer without name table / count', `${h.idxOtherBytesPerObject.toFixed(1)} B`));
  lines.push(
    `     retained ${thousands(h.retainedBytes)} bytes (heapUsed +${thousands(h.after.heapUsed! - h.before.heapUsed!)}, external incl. arrayBuffers +${thousands(h.after.external! - h.before.external!)}) − name table ${thousands(h.nameTableBytes)}`,
  );
  lines.push(row('5. ModelStore first load, build + save (fresh process)', seconds(r.reopen.firstBest)));
  lines.push(
    row(
      `   ModelStore reopen + stats, source ${[...new Set(r.reopen.sources)].join('/')} (fresh)`,
      seconds(r.reopen.reopenBest),
    ),
  );
  lines.push(row('   the same, then every column read', seconds(min(r.reopen.reopenEveryColumnMs))));
  lines.push(
    row(
      '   reopen / first load',
      `${(r.reopen.fraction * 100).toFixed(1)}%`,
      `< ${TARGETS.reopenFraction * 100}%`,
      verdict(r.verdicts.reopen!),
    ),
  );
  lines.push(row('   packscope stats --no-paths --no-cache (CLI, cold)', seconds(min(r.reopen.cliColdMs))));
  lines.push(row('   packscope stats --no-paths, model stored (CLI)', seconds(min(r.reopen.cliReopenMs))));
  lines.push(
    row(
      '   stored / cold',
      `${(r.reopen.cliFraction * 100).toFixed(1)}%`,
      `< ${TARGETS.reopenCliFraction * 100}%`,
      verdict(r.verdicts.reopenCli!),
    ),
  );
  for (const [command, threads] of Object.entries(r.profiles ?? {})) {
    lines.push(`  cpu profile of ${command}: self time per function, top ${threads[0]?.top.length ?? 0}`);
    threads.forEach((thread, i) => {
      lines.push(`    ${threads.length > 1 ? `thread ${i + 1}, ` : ''}${seconds(thread.totalMs)} sampled`);
      for (const f of thread.top)
        lines.push(
          `      ${f.selfMs.toFixed(0).padStart(6)} ms ${f.percent.toFixed(1).padStart(5)}%  ${f.name}${f.where ? `  ${f.where}` : ''}`,
        );
    });
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------

function main(): number {
  const started = performance.now();
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      json: { type: 'boolean' },
      runs: { type: 'string' },
      profile: { type: 'boolean' },
      'no-profile': { type: 'boolean' },
      'no-generated': { type: 'boolean' },
      commits: { type: 'string' },
      seed: { type: 'string' },
      'max-wait': { type: 'string' },
      scale: { type: 'boolean' },
      monorepo: { type: 'boolean' },
      'scale-objects': { type: 'string' },
      'monorepo-objects': { type: 'string' },
      repository: { type: 'string' },
      'reopen-only': { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${help}\n`);
    return 0;
  }
  const runs = values.runs === undefined ? 3 : Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a positive integer');
  const maxWaitSeconds = values['max-wait'] === undefined ? 600 : Number(values['max-wait']);
  if (!(maxWaitSeconds >= 0)) throw new Error('--max-wait needs a number of seconds');
  const profile = values['no-profile'] ? 'never' : values.profile ? 'always' : 'auto';
  if (!fs.existsSync(builtCli))
    throw new Error(`${builtCli} is missing: run node scripts/build.mjs (npm run bench does)`);
  pinDist();
  bundleMeasureScript();

  const packs: { path: string; label: string; generated?: GeneratedPack }[] = [];
  if (!values['no-generated']) {
    const history = { ...DEFAULT_HISTORY };
    if (values.commits !== undefined) history.commits = Number(values.commits);
    if (values.seed !== undefined) history.seed = Number(values.seed);
    if (!Number.isInteger(history.commits) || history.commits < 1)
      throw new Error('--commits needs a positive integer');
    const generated = generatedPack(history, log);
    packs.push({
      path: generated.pack,
      label: `generated (${history.commits} commits, seed ${history.seed})`,
      generated,
    });
  }
  let monorepoDir: string | undefined;
  if (values.scale) {
    const objects = values['scale-objects'] === undefined ? 10_000_000 : Number(values['scale-objects']);
    if (!Number.isInteger(objects) || objects < 1000)
      throw new Error('--scale-objects needs an integer of at least 1000');
    const scale = scaleRepository({ objects, log });
    const packDir = path.join(scale.gitDir, 'objects', 'pack');
    const pack = fs.readdirSync(packDir).find((name) => name.endsWith('.pack'))!;
    packs.push({
      path: path.join(packDir, pack),
      label: `scale (about ${objects} objects${scale.generated ? `, generated in ${scale.seconds.toFixed(0)} s` : ', reused from .bench/'})`,
    });
  }
  if (values.scale || values.monorepo) {
    const monorepoObjects = values['monorepo-objects'] === undefined ? 300_000 : Number(values['monorepo-objects']);
    if (!Number.isInteger(monorepoObjects) || monorepoObjects < 1000)
      throw new Error('--monorepo-objects needs an integer of at least 1000');
    monorepoDir = monorepo({ size: monorepoObjects, log }).gitDir;
  }
  if (values.repository !== undefined) monorepoDir = path.resolve(values.repository);
  if (values['reopen-only']) {
    if (positionals.length === 0) throw new Error('--reopen-only needs a <pack>');
    const measured = positionals.map((p) => measureReopenOnly(p, runs, maxWaitSeconds * 1000));
    recordFigures(
      'pack-engine',
      measured.flatMap((m) => m.figures),
    );
    process.stdout.write(`${measured.flatMap((m) => m.lines).join('\n')}\n`);
    return 0;
  }
  for (const p of positionals) packs.push({ path: p, label: 'given pack' });
  if (packs.length === 0 && monorepoDir === undefined)
    throw new Error('nothing to measure (--no-generated and no pack or --repository given)');

  const node = process.version;
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`;
  const environment = `${gitVersion()}, node ${node}, ${machine}`;
  log(environment);

  const results: PackResult[] = [];
  for (const p of packs) {
    log(`== ${p.label}: ${p.path}`);
    results.push(measurePack(p.path, p.label, runs, profile, maxWaitSeconds * 1000));
  }
  const repository = monorepoDir ? measureRepository(monorepoDir, runs, maxWaitSeconds * 1000) : undefined;
  const repositoryLines = repository?.lines ?? [];
  recordFigures('pack-engine', [
    ...results.flatMap((r, i) => packFigures(r, packs[i]!.generated !== undefined)),
    ...(repository?.figures ?? []),
  ]);
  const totalSeconds = (performance.now() - started) / 1000;

  const table = [
    `PackScope pack-engine benchmark — ${environment}`,
    ...results.map((r, i) => {
      const generated = packs[i]!.generated;
      const note = generated
        ? `  (generated repository ${generated.generated ? `built in ${generated.seconds.toFixed(1)} s` : 'reused from .bench/'}, key ${generated.key})\n`
        : '';
      return `\n${note}${renderPack(r)}`;
    }),
    ...repositoryLines,
    `\nbench total: ${totalSeconds.toFixed(1)} s, of which ${(results.reduce((sum, r) => sum + r.waitedMs, 0) / 1000).toFixed(0)} s waiting for other processes to go quiet` +
      (packs[0]?.generated?.generated
        ? ` and ${packs[0].generated.seconds.toFixed(0)} s generating the repository`
        : ''),
  ].join('\n');
  if (values.json) {
    process.stderr.write(`${table}\n`);
    const json = {
      environment,
      targets: TARGETS,
      totalSeconds,
      packs: results.map((r, i) => ({
        ...r,
        generated: packs[i]!.generated
          ? {
              key: packs[i]!.generated!.key,
              parameters: packs[i]!.generated!.parameters,
              generatedThisRun: packs[i]!.generated!.generated,
              seconds: packs[i]!.generated!.seconds,
            }
          : undefined,
      })),
    };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    process.stdout.write(`${table}\n`);
  }
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  process.stderr.write(`bench: ${errorMessage(error)}\n`);
  process.exitCode = 1;
}
