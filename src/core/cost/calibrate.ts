import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cleanGitEnvironment } from '../git/run-git.ts';
import { gitVersionOf } from '../git/git-probe.ts';
import type { PackModel } from '../model/pack-model.ts';
import { compactForReads, simObjectsFrom, type SimObjects } from '../sim/sim-objects.ts';
import { parsePolicy } from '../sim/policy-registry.ts';
import { makeDirectories, writeFileAtomically, writeAll } from '../atomic-file.ts';
import { nonNegativeLeastSquares } from './fit.ts';
import { cacheHits, CALIBRATION_SCHEMA, type Calibration, type CalibrationBatch, type CostParameters } from './cost-model.ts';

/**
 * Calibrates the cost model (cost-model.ts) on one pack by timing git itself.
 *
 * Why git and not PackScope's own inflate: the prediction is of git's wall time, and node's zlib
 * (a different build, called through a binding, with its own buffer handling) is not git's C zlib
 * in git's read path; timing node would calibrate the wrong program. So every constant comes from
 * `git cat-file --batch --buffer` on lists of sampled objects, output to /dev/null, in two kinds
 * of timed difference:
 *
 *  - inflate lists (non-deltas, limit 0): `--batch` minus `--batch-check` on the same list. That
 *    takes out start-up, idx lookups and the header walk, but not cat-file's own per-object work
 *    in `--batch` (a second lookup, the streaming set-up, the copy out): that is one more column
 *    of the fit, `perRead`, which is cat-file's and not a command's, so it is kept apart.
 *  - saved lists (deltas, by result size): the same `--batch` list at limit 0 minus at 1g. Every
 *    per-object cost of cat-file is in both and cancels; what is left is what the cache saved:
 *    the inflations and delta applications of the chains walked at 0 and not at 1g. That is the
 *    quantity a speed-up between two limits is made of, measured on git's own read path.
 *
 * (The first calibration timed deltas apart from hits, each minus `--batch-check`: cat-file's
 * per-object work was priced as inflation, and git.git's blame came out at 11.6 s of reads for a
 * 3.95 s command.) The exact counts of each list come from the simulator's replay of that list at
 * that limit (src/core/sim), the same counts a sweep prices.
 *
 * Sampling is stratified by inflated size (deltas: by result size) in powers of four, objects
 * chosen in each class by a seeded generator over the classes' members in idx order, so the same
 * pack and seed give the same lists (the timings of course vary; the shape does not).
 */
export interface CalibrateOptions {
  git?: string;
  /** The repository git runs in (its git directory): the pack must be one of its packs. */
  gitDir: string;
  seed?: number;
  /** Timed runs per list; the best is kept (the least disturbed by a shared machine). */
  repeats?: number;
  /** Objects sampled per size class. */
  perClass?: number;
  onStage?: (stage: string, done: number, total: number) => void;
  signal?: AbortSignal;
}

export const DEFAULT_SEED = 16;
const CLASS_BOUNDS = [0, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, Infinity];
/**
 * Each list is repeated until its limit-0 run does about this much (≈0.1 s of git's CPU on a 2020s
 * machine), so the timed difference stands well above a start-up's jitter (~1 ms) and the whole
 * calibration stays near ten seconds (the first one's 96 MiB / 40,000 targets took 281 s).
 */
const TARGET_INFLATED_BYTES = 48 << 20;
const TARGET_INFLATIONS = 20000;
const MAX_READS = 20000;
const MAX_SAVED_READS = 40000;
/** What a saved list's cache must save: applying deltas is memcpy-fast, so 48 MiB saved is ~20 ms, under a loaded machine's noise. */
const SAVED_TARGET_BYTES = 256 << 20;
const SAVED_TARGET_INFLATIONS = 40000;
export const CALIBRATION_TUNABLES = 'glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=268435456:glibc.malloc.top_pad=67108864';
/** The limit a saved list is timed against: large enough that nothing sampled is evicted. */
const SAVED_AGAINST = 1 << 30;

export async function calibratePack(model: PackModel, options: CalibrateOptions): Promise<Calibration> {
  const started = performance.now();
  const git = options.git ?? 'git';
  const seed = options.seed ?? DEFAULT_SEED;
  const repeats = options.repeats ?? 3;
  const perClass = options.perClass ?? 32;
  const objects = simObjectsFrom([model]);
  const diskSize = model.columns.diskSize;
  const lists = calibrationPlan(objects, seed, perClass);
  const gitPolicy = parsePolicy('git');
  const batches: CalibrationBatch[] = [];
  const total = lists.length + 1;
  for (const [i, list] of lists.entries()) {
    options.onStage?.(list.stage, i, total);
    const compact = compactForReads(objects, list.reads);
    const at = (limit: number): ReturnType<typeof gitPolicy.run> => gitPolicy.run(compact.objects, compact.reads, limit);
    const counts = at(0);
    const input = [...list.reads].map((id) => model.oidHex(id)).join('\n') + '\n';
    let seconds: number;
    let against: ReturnType<typeof gitPolicy.run> | undefined;
    if (list.stage === 'inflate') {
      seconds = await pairedDifference(git, options.gitDir, { limit: 0, mode: '--batch' }, { limit: 0, mode: '--batch-check' }, input, repeats, options.signal);
    } else {
      against = at(SAVED_AGAINST);
      seconds = await pairedDifference(git, options.gitDir, { limit: 0, mode: '--batch' }, { limit: SAVED_AGAINST, mode: '--batch' }, input, repeats, options.signal);
    }
    const minus = (a: number, b: number | undefined): number => a - (b ?? 0);
    let compressedBytes = 0;
    for (const id of list.reads) compressedBytes += diskSize.get(id);
    batches.push({
      stage: list.stage,
      sizeClass: [CLASS_BOUNDS[list.cls]!, CLASS_BOUNDS[list.cls + 1]! === Infinity ? -1 : CLASS_BOUNDS[list.cls + 1]!],
      objects: list.ids.length,
      reads: list.reads.length,
      limit: 0,
      against: against ? SAVED_AGAINST : null,
      inflations: minus(counts.inflations, against?.inflations),
      inflatedBytes: minus(counts.inflatedBytes, against?.inflatedBytes),
      compressedBytes,
      deltaApplications: minus(counts.deltaApplications, against?.deltaApplications),
      appliedBytes: minus(counts.appliedBytes ?? 0, against?.appliedBytes ?? 0),
      hits: minus(cacheHits(counts), against ? cacheHits(against) : undefined),
      seconds,
      predicted: 0,
    });
  }
  // The trace stage: the list with the most inflations, timed with and without GIT_TRACE_PACK_ACCESS.
  options.onStage?.('trace', lists.length, total);
  const traced = lists.filter((l) => l.stage === 'saved').sort((a, b) => b.reads.length - a.reads.length)[0];
  let cTrace = 0;
  if (traced) {
    const input = [...traced.reads].map((id) => model.oidHex(id)).join('\n') + '\n';
    const traceFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-calibrate-')), 'trace');
    try {
      const withTrace = await timedRun(git, options.gitDir, 0, '--batch', input, repeats, traceFile, options.signal);
      const without = await timedRun(git, options.gitDir, 0, '--batch', input, repeats, undefined, options.signal);
      const compact = compactForReads(objects, traced.reads);
      const logged = gitPolicy.run(compact.objects, compact.reads, 0).logged;
      cTrace = Math.max(0, (withTrace - without) / Math.max(1, logged));
    } finally {
      fs.rmSync(path.dirname(traceFile), { recursive: true, force: true });
    }
  }

  const { parameters, perRead } = fit(batches, cTrace);
  for (const b of batches) b.predicted = batchPrediction(b, parameters, perRead);
  return {
    schema: CALIBRATION_SCHEMA,
    date: new Date().toISOString(),
    key: await calibrationKey(model, git),
    pack: { path: model.files.pack, objects: model.count },
    seed,
    repeats,
    method: 'git cat-file --batch --buffer on seeded, size-stratified object lists, output to /dev/null, glibc’s malloc thresholds pinned (GLIBC_TUNABLES, as a long-running command’s heap has them), CPU time (user + system), median of repeats of back-to-back pairs: non-deltas --batch minus --batch-check at core.deltaBaseCacheLimit=0 (inflate), deltas --batch at 0 minus at 1g (saved: what the cache saves); counts from the simulator’s replay of each list',
    parameters,
    perRead,
    pageCacheMiss: {
      secondsPerByte: null,
      note: 'not measured: a cold read needs the page cache dropped (root, and it disturbs every other process on the machine), which PackScope does not do; the model assumes the pack is in the page cache, as it is for a repeated command',
    },
    loadAverage: os.loadavg(),
    batches,
    seconds: (performance.now() - started) / 1000,
  };
}

export interface CalibrationList {
  stage: CalibrationBatch['stage'];
  cls: number;
  ids: number[];
  limit: number;
  reads: Int32Array;
}

/** The object lists a calibration times: a function of the pack, the seed and the class size only. */
export function calibrationPlan(objects: SimObjects, seed: number, perClass: number): CalibrationList[] {
  const random = mulberry32(seed);

  const plain: number[][] = CLASS_BOUNDS.slice(1).map(() => []);
  const deltas: number[][] = CLASS_BOUNDS.slice(1).map(() => []);
  for (let id = 0; id < objects.count; id++) {
    const c = sizeClass(objects.size[id]!);
    (objects.base[id]! < 0 ? plain : deltas)[c]!.push(id);
  }
  const lists: CalibrationList[] = [];
  for (let c = 0; c < plain.length; c++) {
    const ids = sample(plain[c]!, perClass, random);
    if (ids.length >= 4) lists.push({ stage: 'inflate', cls: c, ids, limit: 0, reads: repeatList(objects, ids, false) });
  }
  for (let c = 0; c < deltas.length; c++) {
    const ids = sample(deltas[c]!, perClass, random);
    if (ids.length < 4) continue;
    lists.push({ stage: 'saved', cls: c, ids, limit: 0, reads: repeatList(objects, ids, true) });
  }
  return lists;
}

/**
 * One non-negative least squares fit (fit.ts) over both kinds of list, columns
 *   [inflations, inflatedBytes, deltaApplications, appliedBytes, reads]:
 *   inflate rows (limit 0, minus --batch-check): the counts, and reads (cat-file's per-object work);
 *   saved rows (limit 0 minus 1g): the differences of the counts, and 0 reads (they cancel).
 * cHit is 0, and not from want of measuring: hits = reads − inflations + deltaApplications, and the
 * reads are the same at every limit, so in any difference between limits (a saved row, and every
 * speed-up a sweep predicts) a hit's cost is exactly a part of aInflate and aDelta and cannot be
 * told apart from them.
 */
export function fit(batches: CalibrationBatch[], cTrace: number): { parameters: CostParameters; perRead: number } {
  // Unweighted: the longest lists, whose differences stand furthest above the noise, count most.
  // (Weighting by 1/seconds let a noisy list timed at 0 s pull every constant to 0.)
  const rows = batches.map((b) => [b.inflations, b.inflatedBytes, b.deltaApplications, b.appliedBytes, b.stage === 'inflate' ? b.reads : 0]);
  const [aInflate = 0, bInflate = 0, aDelta = 0, bDelta = 0, perRead = 0] = batches.length > 0 ? nonNegativeLeastSquares(rows, batches.map((b) => b.seconds)) : [];
  return { parameters: { aInflate, bInflate, aDelta, bDelta, cHit: 0, cTrace }, perRead };
}

/** What the fit says a list took (its counts priced, plus cat-file's per-object work on an inflate list). */
export function batchPrediction(b: CalibrationBatch, p: CostParameters, perRead: number): number {
  return p.aInflate * b.inflations + p.bInflate * b.inflatedBytes + p.aDelta * b.deltaApplications + p.bDelta * b.appliedBytes + p.cHit * b.hits + (b.stage === 'inflate' ? perRead * b.reads : 0);
}

export async function calibrationKey(model: PackModel, git: string): Promise<Calibration['key']> {
  return { packChecksum: model.checksumHex, node: process.version, cpu: os.cpus()[0]?.model ?? 'unknown', git: await gitVersionOf(git) };
}

/** Where a calibration is kept: PackScope's cache directory (never a repository), one file per key. */
export function calibrationFile(cacheRoot: string, key: Calibration['key']): string {
  const digest = createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 32);
  return path.join(cacheRoot, 'calibrations', `${key.packChecksum.slice(0, 16)}-${digest}.json`);
}

export function loadCalibration(file: string): Calibration | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as Calibration;
    return value.schema === CALIBRATION_SCHEMA && value.parameters && Array.isArray(value.batches) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function saveCalibration(file: string, calibration: Calibration): void {
  makeDirectories(path.dirname(file), 0o700);
  writeFileAtomically(file, 0o600, (fd) => writeAll(fd, Buffer.from(JSON.stringify(calibration, null, 2) + '\n')));
}

function sizeClass(size: number): number {
  let c = 0;
  while (size >= CLASS_BOUNDS[c + 1]!) c++;
  return c;
}

/** Up to `n` members, a seeded partial Fisher–Yates over a copy (members in idx order: reproducible). */
function sample(members: number[], n: number, random: () => number): number[] {
  const pool = members.slice();
  const count = Math.min(n, pool.length);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, count);
}

/**
 * The list repeated until the timed difference has enough work in it: for an inflate list its
 * limit-0 work (bytes for large objects, inflations for small ones), for a saved list what the cache
 * saves (limit 0's counts minus 1g's). A saved list's first pass saves little (the 1g run pays the
 * chains once), each further pass the same again, so the passes are worked out from one and two.
 * CPU time comes in milliseconds: a difference of 0.01 s is mostly rounding, hence the targets.
 */
function repeatList(objects: SimObjects, ids: number[], saved: boolean): Int32Array {
  const git = parsePolicy('git');
  const passes = (times: number): Int32Array => {
    const out = new Int32Array(ids.length * times);
    for (let t = 0; t < times; t++) out.set(ids, t * ids.length);
    return out;
  };
  const work = (times: number): { inflations: number; bytes: number } => {
    const compact = compactForReads(objects, passes(times));
    const at0 = git.run(compact.objects, compact.reads, 0);
    const of = (c: typeof at0): { inflations: number; bytes: number } => ({ inflations: c.inflations, bytes: c.inflatedBytes + (c.appliedBytes ?? 0) });
    if (!saved) return of(at0);
    const a = of(at0);
    const b = of(git.run(compact.objects, compact.reads, SAVED_AGAINST));
    return { inflations: a.inflations - b.inflations, bytes: a.bytes - b.bytes };
  };
  const one = work(1);
  const perPass = saved ? ((two) => ({ inflations: two.inflations - one.inflations, bytes: two.bytes - one.bytes }))(work(2)) : one;
  const [bytes, inflations] = saved ? [SAVED_TARGET_BYTES, SAVED_TARGET_INFLATIONS] : [TARGET_INFLATED_BYTES, TARGET_INFLATIONS];
  const wanted = Math.ceil(Math.min(bytes / Math.max(1, perPass.bytes), inflations / Math.max(1, perPass.inflations))) + (saved ? 1 : 0);
  return passes(Math.max(saved ? 2 : 1, Math.min(Math.floor((saved ? MAX_SAVED_READS : MAX_READS) / ids.length), wanted)));
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The median over `repeats` of (a's CPU time − b's), each pair run back to back: on a shared
 * machine the load changes from second to second, and two runs side by side share it, where the
 * best of three a's and the best of three b's (the first calibration's way) can come from a quiet
 * and a busy moment: git.git's calibration at load 13 timed lists that save 40,000 inflations at
 * 0.000 s. At least 0.
 */
async function pairedDifference(git: string, gitDir: string, a: { limit: number; mode: string }, b: { limit: number; mode: string }, input: string, repeats: number, signal: AbortSignal | undefined): Promise<number> {
  const differences: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const ta = await timedRun(git, gitDir, a.limit, a.mode, input, 1, undefined, signal);
    const tb = await timedRun(git, gitDir, b.limit, b.mode, input, 1, undefined, signal);
    differences.push(ta - tb);
  }
  differences.sort((x, y) => x - y);
  const mid = differences.length >> 1;
  const median = differences.length % 2 === 1 ? differences[mid]! : (differences[mid - 1]! + differences[mid]!) / 2;
  return Math.max(0, median);
}

/**
 * Best of `repeats` CPU times (user + system) of `git cat-file <mode>` fed `input`, its output to
 * /dev/null (through a pipe its bytes would be timed as inflation). CPU time, not wall time: on a
 * shared machine wall time grows with every other process's load while git's own work does not,
 * and a pack in the page cache makes these reads CPU-bound. bash's `times` reports its children's.
 */
export async function timedRun(git: string, gitDir: string, limit: number, mode: string, input: string, repeats: number, traceFile: string | undefined, signal: AbortSignal | undefined): Promise<number> {
  let best = Infinity;
  for (let r = 0; r < repeats; r++) {
    if (signal?.aborted) throw new Error('calibration cancelled');
    const env = cleanGitEnvironment();
    // cat-file's heap is small, so glibc hands every large inflate or patch_delta buffer back to the
    // kernel on free (munmap, or a trim of the heap's top) and faults it in again on the next read:
    // git.git's blame reads fed to cat-file at limit 0 took 2.3 s of system time, blame itself 0.4 s.
    // A command that reads for seconds keeps a large heap and reuses that memory, so the thresholds
    // are pinned as its are in effect (glibc only; other C libraries ignore the variable).
    env.GLIBC_TUNABLES = CALIBRATION_TUNABLES;
    if (traceFile) env.GIT_TRACE_PACK_ACCESS = traceFile;
    else delete env.GIT_TRACE_PACK_ACCESS;
    // --buffer: without it cat-file flushes after every object, a write(2) per read that a command does not make.
    const seconds = await childCpuSeconds(git, ['--git-dir', gitDir, '-c', `core.deltaBaseCacheLimit=${limit}`, 'cat-file', mode, '--buffer'], env, input);
    best = Math.min(best, seconds);
  }
  return best;
}

/** User + system seconds of `command args…` (run under bash, whose `times` gives its children's), stdout to /dev/null. */
export function childCpuSeconds(command: string, args: string[], env: NodeJS.ProcessEnv, input: string | undefined, cwd?: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const script = '"$@" >/dev/null; s=$?; times >&2; exit $s';
    const child = spawn('bash', ['-c', script, 'bash', command, ...args], { env, cwd, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8000)));
    child.on('error', reject);
    child.on('close', (status) => {
      const lines = stderr.trimEnd().split('\n');
      const children = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines[lines.length - 1] ?? '');
      if (status !== 0 || !children) {
        reject(new Error(`${command} ${args.join(' ')} failed (status ${status}): ${lines.slice(0, -2).join('\n').trim()}`));
        return;
      }
      resolve(Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4]));
    });
    if (input !== undefined) {
      child.stdin!.on('error', () => {});
      child.stdin!.end(input);
    }
  });
}

/**
 * The calibration for this pack on this machine: the cached one when its key (pack checksum, node,
 * CPU model, git version) matches, else a new run, saved under the model cache directory
 * (`<dir>/calibrations/`; none when the cache is off). `refresh` forces a new run.
 */
export async function cachedCalibration(model: PackModel, modelCacheDirectory: string | undefined, options: CalibrateOptions, refresh = false): Promise<{ calibration: Calibration; file: string | undefined; fromCache: boolean }> {
  const key = await calibrationKey(model, options.git ?? 'git');
  const file = modelCacheDirectory === undefined ? undefined : calibrationFile(modelCacheDirectory, key);
  if (file && !refresh) {
    const cached = loadCalibration(file);
    if (cached && JSON.stringify(cached.key) === JSON.stringify(key)) return { calibration: cached, file, fromCache: true };
  }
  const calibration = await calibratePack(model, options);
  if (file) saveCalibration(file, calibration);
  return { calibration, file, fromCache: false };
}
