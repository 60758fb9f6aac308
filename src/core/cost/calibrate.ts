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
import { cacheHits, CALIBRATION_SCHEMA, readSeconds, type Calibration, type CalibrationBatch, type CostParameters } from './cost-model.ts';

/**
 * Calibrates the cost model (cost-model.ts) on one pack by timing git itself.
 *
 * Why git and not PackScope's own inflate: the prediction is of git's wall time, and node's zlib
 * (a different build, called through a binding, with its own buffer handling) is not git's C zlib
 * in git's read path; timing node would calibrate the wrong program. So every constant comes from
 * `git cat-file --batch` on lists of sampled objects, at core.deltaBaseCacheLimit=0 (every read
 * inflates its whole chain) or a large limit (bases hit), with `git cat-file --batch-check` on the
 * same list subtracted: that takes out process start-up, the idx lookups, the header walk and the
 * output formatting, which `--batch` does too but a log's reads do not. What remains is
 * unpack_entry: inflations, delta applications, cache work. The exact counts of each list come
 * from the simulator's replay of that list at that limit (src/core/sim), the same counts a sweep
 * prices, so the fit and the prediction speak of the same quantities.
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
/** Each list is repeated until it reads at least this much, so the timed difference stands above a process start-up's noise. */
const TARGET_INFLATED_BYTES = 96 << 20;
const TARGET_INFLATIONS = 40000;
const MAX_READS = 60000;
/** The limit of the hit stage: large enough that nothing sampled is evicted. */
const HIT_LIMIT = 1 << 30;

export async function calibratePack(model: PackModel, options: CalibrateOptions): Promise<Calibration> {
  const started = performance.now();
  const git = options.git ?? 'git';
  const seed = options.seed ?? DEFAULT_SEED;
  const repeats = options.repeats ?? 3;
  const perClass = options.perClass ?? 48;
  const objects = simObjectsFrom([model]);
  const diskSize = model.columns.diskSize;
  const lists = calibrationPlan(objects, seed, perClass);
  const gitPolicy = parsePolicy('git');
  const batches: CalibrationBatch[] = [];
  const total = lists.length + 1;
  for (const [i, list] of lists.entries()) {
    options.onStage?.(list.stage, i, total);
    const compact = compactForReads(objects, list.reads);
    const counts = gitPolicy.run(compact.objects, compact.reads, list.limit);
    const input = [...list.reads].map((id) => model.oidHex(id)).join('\n') + '\n';
    const seconds = await timedDifference(git, options.gitDir, list.limit, input, repeats, undefined, options.signal);
    let compressedBytes = 0;
    for (const id of list.reads) compressedBytes += diskSize.get(id);
    batches.push({
      stage: list.stage,
      sizeClass: [CLASS_BOUNDS[list.cls]!, CLASS_BOUNDS[list.cls + 1]! === Infinity ? -1 : CLASS_BOUNDS[list.cls + 1]!],
      objects: list.ids.length,
      reads: list.reads.length,
      limit: list.limit,
      inflations: counts.inflations,
      inflatedBytes: counts.inflatedBytes,
      compressedBytes,
      deltaApplications: counts.deltaApplications,
      appliedBytes: counts.appliedBytes ?? 0,
      hits: cacheHits(counts),
      seconds,
      predicted: 0,
    });
  }
  // The trace stage: the list with the most inflations, timed with and without GIT_TRACE_PACK_ACCESS.
  options.onStage?.('trace', lists.length, total);
  const traced = lists.filter((l) => l.limit === 0).sort((a, b) => b.reads.length - a.reads.length)[0];
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

  const parameters = fit(batches, cTrace);
  for (const b of batches) b.predicted = readSeconds({ reads: b.reads, logged: 0, inflations: b.inflations, deltaApplications: b.deltaApplications, inflatedBytes: b.inflatedBytes, appliedBytes: b.appliedBytes }, parameters);
  return {
    schema: CALIBRATION_SCHEMA,
    date: new Date().toISOString(),
    key: await calibrationKey(model, git),
    pack: { path: model.files.pack, objects: model.count },
    seed,
    repeats,
    method: 'git cat-file --batch minus --batch-check on seeded, size-stratified object lists, CPU time (user + system), best of repeats, at core.deltaBaseCacheLimit=0 (inflate, delta) and 1g (hit); counts from the simulator’s replay of each list',
    parameters,
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
    if (ids.length >= 4) lists.push({ stage: 'inflate', cls: c, ids, limit: 0, reads: repeatList(objects, ids) });
  }
  for (let c = 0; c < deltas.length; c++) {
    const ids = sample(deltas[c]!, perClass, random);
    if (ids.length < 4) continue;
    lists.push({ stage: 'delta', cls: c, ids, limit: 0, reads: repeatList(objects, ids) });
    lists.push({ stage: 'hit', cls: c, ids, limit: HIT_LIMIT, reads: repeatList(objects, ids) });
  }
  return lists;
}

/**
 * Stage by stage, each with non-negative least squares (fit.ts):
 *   inflate lists (non-deltas at limit 0): y = aInflate·inflations + bInflate·inflatedBytes
 *   delta lists (limit 0): y − inflation part = aDelta·deltaApplications + bDelta·appliedBytes
 *   hit lists (large limit): y − inflation and delta parts = cHit·hits
 * Staged rather than one joint fit: in the delta lists inflations and applications move together
 * (one of each per delta), so a joint fit could trade one for the other; the plain lists pin the
 * inflation cost first.
 */
export function fit(batches: CalibrationBatch[], cTrace: number): CostParameters {
  const of = (stage: CalibrationBatch['stage']): CalibrationBatch[] => batches.filter((b) => b.stage === stage);
  const inflate = of('inflate');
  const [aInflate = 0, bInflate = 0] = nonNegativeLeastSquares(inflate.map((b) => [b.inflations, b.inflatedBytes]), inflate.map((b) => b.seconds));
  const inflatePart = (b: CalibrationBatch): number => aInflate * b.inflations + bInflate * b.inflatedBytes;
  const delta = of('delta');
  const [aDelta = 0, bDelta = 0] = delta.length > 0 ? nonNegativeLeastSquares(delta.map((b) => [b.deltaApplications, b.appliedBytes]), delta.map((b) => b.seconds - inflatePart(b))) : [0, 0];
  const hit = of('hit').filter((b) => b.hits > 0);
  const [cHit = 0] = hit.length > 0 ? nonNegativeLeastSquares(hit.map((b) => [b.hits]), hit.map((b) => b.seconds - inflatePart(b) - aDelta * b.deltaApplications - bDelta * b.appliedBytes)) : [0];
  return { aInflate, bInflate, aDelta, bDelta, cHit, cTrace };
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

/** The list repeated until one pass's limit-0 work, times the repeats, reaches one of the targets. */
function repeatList(objects: SimObjects, ids: number[]): Int32Array {
  const once = Int32Array.from(ids);
  const compact = compactForReads(objects, once);
  const counts = parsePolicy('git').run(compact.objects, compact.reads, 0);
  // Whichever target comes first: small objects are repeated up to many inflations, large ones up to many bytes.
  const times = Math.max(1, Math.min(Math.floor(MAX_READS / ids.length), Math.ceil(Math.min(TARGET_INFLATED_BYTES / Math.max(1, counts.inflatedBytes + (counts.appliedBytes ?? 0)), TARGET_INFLATIONS / Math.max(1, counts.inflations)))));
  const out = new Int32Array(ids.length * times);
  for (let t = 0; t < times; t++) out.set(once, t * ids.length);
  return out;
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

async function timedDifference(git: string, gitDir: string, limit: number, input: string, repeats: number, traceFile: string | undefined, signal: AbortSignal | undefined): Promise<number> {
  const full = await timedRun(git, gitDir, limit, '--batch', input, repeats, traceFile, signal);
  const check = await timedRun(git, gitDir, limit, '--batch-check', input, repeats, traceFile, signal);
  return Math.max(0, full - check);
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
    if (traceFile) env.GIT_TRACE_PACK_ACCESS = traceFile;
    else delete env.GIT_TRACE_PACK_ACCESS;
    const seconds = await childCpuSeconds(git, ['--git-dir', gitDir, '-c', `core.deltaBaseCacheLimit=${limit}`, 'cat-file', mode], env, input);
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
