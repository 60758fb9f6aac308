import { CancelledError } from '../errors.ts';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { childUsage } from '../git/child-usage.ts';
import { gitVersionOf } from '../git/git-probe.ts';
import type { PackModel } from '../model/pack-model.ts';
import { compactForReads, simObjectsFrom, type SimObjects } from '../sim/sim-objects.ts';
import { parsePolicy } from '../sim/policy-registry.ts';
import { makeDirectories, writeFileAtomically, writeAll } from '../atomic-file.ts';
import { median, nonNegativeLeastSquares } from './fit.ts';
import { cacheHits } from './cost-model.ts';
import {
  CALIBRATION_SCHEMA,
  type Calibration,
  type CalibrationBatch,
  type CostParameters,
} from '../documents/calibration-document.ts';

/**
 * Calibrates the cost model (cost-model.ts) on one pack by timing git itself.
 *
 * Why git and not PackScope's own inflate: the prediction is of git's wall time, and node's zlib
 * (a different build, called through a binding, with its own buffer handling) is not git's C zlib
 * in git's read path; timing node would calibrate the wrong program. So every constant comes from
 * `git cat-file --batch --buffer` on lists of sampled objects, output to /dev/null, in three kinds
 * of timed difference:
 *
 *  - inflate lists (non-deltas, limit 0): `--batch` minus `--batch-check` on the same list. That
 *    takes out start-up, idx lookups and the header walk, but not cat-file's own per-object work
 *    in `--batch` (a second lookup, the streaming set-up, the copy out): that is one more column
 *    of the fit, `perRead`, which is cat-file's and not a command's, so it is kept apart.
 *  - walk lists (deltas, by result size): whole chains, `--batch` at limit 0 and at 1g, each minus
 *    `--batch-check` on the same list: two rows per list. Their difference is what the cache
 *    saved (the quantity a speed-up between two limits is made of, measured on git's own read
 *    path); each row alone is mostly delta work, applied bytes many times the inflated ones, where
 *    in the inflate rows there are none. (Timing only the difference, with applied and inflated
 *    bytes in the same proportion in every row, left bDelta undetermined: bench/README.md,
 *    "Figures the comments rely on".)
 *  - the growth list: chains at 1g minus at a limit with the same counts and a smaller cache:
 *    the price of the cache's peak (bCache, cost-model.ts).
 *
 * (Timing deltas apart from hits, each minus `--batch-check`, priced cat-file's per-object work as
 * inflation, and a command's reads at several times the command: bench/README.md, "Figures the
 * comments rely on".) The exact counts of each list come from the simulator's replay of that list at
 * that limit (src/core/sim), the same counts a sweep prices.
 *
 * Sampling is stratified by inflated size (deltas: by result size) in powers of four, objects
 * chosen in each class by a seeded generator over the classes' members in idx order, so the same
 * pack and seed give the same lists (the timings of course vary; the shape does not). What the
 * lists read, and why so, is at calibrationPlan.
 */
export interface CalibrateOptions {
  git?: string;
  /** The repository git runs in (its git directory): the pack must be one of its packs. */
  gitDir: string;
  seed?: number;
  /** Timed runs per list; the best is kept (the least disturbed by a shared machine). */
  repeats?: number;
  /** At most this many distinct objects (for deltas, chains) per list; unset, as many as the targets need. Tests keep lists short with it. */
  perClass?: number;
  onStage?: (stage: string, done: number, total: number) => void;
  signal?: AbortSignal;
}

export const DEFAULT_SEED = 16;
const CLASS_BOUNDS = [0, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, Infinity];
/**
 * Each list is repeated until its limit-0 run does about this much (≈0.1 s of git's CPU on a 2020s
 * machine), so the timed difference stands well above a start-up's jitter (~1 ms) and the whole
 * calibration stays near ten seconds (larger targets took minutes: bench/README.md, "Figures the
 * comments rely on").
 */
const TARGET_INFLATED_BYTES = 48 << 20;
const TARGET_INFLATIONS = 20000;
const MAX_READS = 20000;
const MAX_WALK_READS = 40000;
/** What a walk list's cache must save against limit 0: applying deltas is memcpy-fast, so 48 MiB saved is ~20 ms, under a loaded machine's noise. */
const SAVED_TARGET_BYTES = 256 << 20;
const SAVED_TARGET_INFLATIONS = 40000;
export const CALIBRATION_TUNABLES =
  'glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=268435456:glibc.malloc.top_pad=67108864';
/** The large limit a walk list is timed at: large enough that nothing sampled is evicted. */
const WALK_LARGE_LIMIT = 1 << 30;
/** The growth list's cache at 1g: ~32,000 pages first touched, ≈0.1 s on a VM (3–5 µs a page), well above the noise. */
const GROWTH_TARGET_BYTES = 128 << 20;

type GitPolicy = ReturnType<typeof parsePolicy>;

export async function calibratePack(model: PackModel, options: CalibrateOptions): Promise<Calibration> {
  const started = performance.now();
  const git = options.git ?? 'git';
  const seed = options.seed ?? DEFAULT_SEED;
  const repeats = options.repeats ?? 3;
  const perClass = options.perClass ?? Number.MAX_SAFE_INTEGER;
  const objects = simObjectsFrom([model]);
  const lists = calibrationPlan(objects, seed, perClass);
  const gitPolicy = parsePolicy('git');
  const batches: CalibrationBatch[] = [];
  const total = lists.length + 1;
  for (const [i, list] of lists.entries()) {
    options.onStage?.(list.stage, i, total);
    batches.push(...(await timeList(model, objects, list, gitPolicy, git, repeats, options)));
  }
  options.onStage?.('trace', lists.length, total);
  const cTrace = await traceCost(model, objects, lists, gitPolicy, git, repeats, options);

  const { parameters, perRead } = fit(batches, cTrace);
  for (const b of batches) b.predicted = batchPrediction(b, parameters, perRead);
  return {
    schema: CALIBRATION_SCHEMA,
    date: new Date().toISOString(),
    key: await calibrationKey(model, git),
    pack: { path: model.files.pack, objects: model.count },
    seed,
    repeats,
    method:
      'git cat-file --batch --buffer on seeded, size-stratified lists of distinct objects in pack order, output to /dev/null, glibc’s malloc thresholds pinned (GLIBC_TUNABLES, as a long-running command’s heap has them), CPU time (user + system), median over repeats run back to back: non-deltas --batch minus --batch-check at core.deltaBaseCacheLimit=0 (inflate), whole chains read side by side root first, --batch at 0 and at 1g, each minus --batch-check (walk: delta work, and what the cache saves), chains at 1g minus a smaller limit with the same counts (growth: what the cache’s memory costs); counts from the simulator’s replay of each list',
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

/** One list timed by git (each side minus the reference) and counted by the simulator: a batch per side. */
async function timeList(
  model: PackModel,
  objects: SimObjects,
  list: CalibrationList,
  gitPolicy: GitPolicy,
  git: string,
  repeats: number,
  options: CalibrateOptions,
): Promise<CalibrationBatch[]> {
  const diskSize = model.columns.diskSize;
  const batches: CalibrationBatch[] = [];
  const compact = compactForReads(objects, list.reads);
  const at = (limit: number): ReturnType<typeof gitPolicy.run> => gitPolicy.run(compact.objects, compact.reads, limit);
  const input = [...list.reads].map((id) => model.oidHex(id)).join('\n') + '\n';
  // Each timed row is one side minus the reference (see the top of this file), and so are its counts.
  const { sides, reference } = runsOf(list);
  const seconds = await pairedDifferences(git, options.gitDir, sides, reference, input, repeats, options.signal);
  const countsB = reference.mode === '--batch-check' ? undefined : at(reference.limit);
  let compressedBytes = 0;
  for (const id of list.reads) compressedBytes += diskSize.get(id);
  const minus = (x: number, y: number | undefined): number => x - (y ?? 0);
  for (const [s, side] of sides.entries()) {
    const countsA = at(side.limit);
    batches.push({
      stage: list.stage,
      sizeClass:
        list.cls < 0
          ? [0, -1]
          : [CLASS_BOUNDS[list.cls]!, CLASS_BOUNDS[list.cls + 1]! === Infinity ? -1 : CLASS_BOUNDS[list.cls + 1]!],
      objects: list.ids.length,
      reads: list.reads.length,
      limit: side.limit,
      against: countsB ? reference.limit : null,
      inflations: minus(countsA.inflations, countsB?.inflations),
      inflatedBytes: minus(countsA.inflatedBytes, countsB?.inflatedBytes),
      compressedBytes,
      deltaApplications: minus(countsA.deltaApplications, countsB?.deltaApplications),
      appliedBytes: minus(countsA.appliedBytes ?? 0, countsB?.appliedBytes ?? 0),
      hits: minus(cacheHits(countsA), countsB ? cacheHits(countsB) : undefined),
      cacheBytes: minus(countsA.peakCacheBytes, countsB?.peakCacheBytes),
      seconds: seconds[s]!,
      predicted: 0,
    });
  }
  return batches;
}

/** The trace stage: the walk list with the most reads (the most inflations), timed with and without GIT_TRACE_PACK_ACCESS; seconds per logged read. */
async function traceCost(
  model: PackModel,
  objects: SimObjects,
  lists: CalibrationList[],
  gitPolicy: GitPolicy,
  git: string,
  repeats: number,
  options: CalibrateOptions,
): Promise<number> {
  const traced = lists.filter((l) => l.stage === 'walk').sort((a, b) => b.reads.length - a.reads.length)[0];
  if (!traced) return 0;
  const input = [...traced.reads].map((id) => model.oidHex(id)).join('\n') + '\n';
  const traceFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-calibrate-')), 'trace');
  try {
    const withTrace = await timedRun(git, options.gitDir, 0, '--batch', input, repeats, traceFile, options.signal);
    const without = await timedRun(git, options.gitDir, 0, '--batch', input, repeats, undefined, options.signal);
    const compact = compactForReads(objects, traced.reads);
    const logged = gitPolicy.run(compact.objects, compact.reads, 0).logged;
    return Math.max(0, (withTrace - without) / Math.max(1, logged));
  } finally {
    fs.rmSync(path.dirname(traceFile), { recursive: true, force: true });
  }
}

export interface CalibrationList {
  stage: CalibrationBatch['stage'];
  cls: number;
  ids: number[];
  limit: number;
  reads: Int32Array;
}

/**
 * The object lists a calibration times: a function of the pack, the seed and `perClass` only.
 *
 * Every list is cold, as a command's reads are: distinct objects from across the pack, read in
 * pack order. (Objects repeated hundreds of times stay in the CPU's caches and price a command's
 * reads too low: bench/README.md, "Figures the comments rely on".)
 *
 *  - inflate (non-deltas by inflated size): sampled until the targets, each read once; a class
 *    with too few members is read again, pass after pass.
 *  - walk (deltas by result size): sampled tips, each read with its whole chain from the root out,
 *    as git log reads a file's history (the newest version is the base): at limit 0 every read
 *    walks its chain, with a cache the base just read is there.
 *  - growth: chains of every class, read at 1g and at a limit just large enough to give the same
 *    counts (found by the simulator): what is left is the price of the cache's memory, each page
 *    of it touched for the first time (a larger limit can be slower with equal inflations:
 *    bench/README.md, "Figures the comments rely on").
 */
export function calibrationPlan(objects: SimObjects, seed: number, perClass: number): CalibrationList[] {
  const random = mulberry32(seed);
  const plain: number[][] = CLASS_BOUNDS.slice(1).map(() => []);
  const deltas: number[][] = CLASS_BOUNDS.slice(1).map(() => []);
  for (let id = 0; id < objects.count; id++) {
    const c = sizeClass(objects.size[id]!);
    (objects.base[id]! < 0 ? plain : deltas)[c]!.push(id);
  }
  const inPackOrder = (ids: number[]): number[] =>
    ids.sort((a, b) => objects.pack[a]! - objects.pack[b]! || objects.offset[a]! - objects.offset[b]!);
  const lists: CalibrationList[] = [];
  for (let c = 0; c < plain.length; c++) {
    let bytes = 0;
    const ids = inPackOrder(
      sampleUntil(
        plain[c]!,
        perClass,
        random,
        (id, taken) => (bytes += objects.size[id]!) >= TARGET_INFLATED_BYTES || taken >= TARGET_INFLATIONS,
      ),
    );
    if (ids.length < 4) continue;
    const passes = Math.max(
      1,
      Math.min(
        Math.floor(MAX_READS / ids.length),
        Math.ceil(Math.min(TARGET_INFLATED_BYTES / Math.max(1, bytes), TARGET_INFLATIONS / ids.length)),
      ),
    );
    lists.push({ stage: 'inflate', cls: c, ids, limit: 0, reads: repeated(ids, passes) });
  }
  const allChains: number[][] = [];
  for (let c = 0; c < deltas.length; c++) {
    let saved = { inflations: 0, bytes: 0, reads: 0 };
    const tips = sampleUntil(deltas[c]!, perClass, random, (id) => {
      const chain = chainOf(objects, id);
      const s = chainSaving(objects, chain);
      saved = {
        inflations: saved.inflations + s.inflations,
        bytes: saved.bytes + s.bytes,
        reads: saved.reads + chain.length,
      };
      return (
        saved.inflations >= SAVED_TARGET_INFLATIONS ||
        saved.bytes >= SAVED_TARGET_BYTES ||
        saved.reads >= MAX_WALK_READS
      );
    });
    if (tips.length < 4) continue;
    const chains = inPackOrder(tips).map((tip) => chainOf(objects, tip));
    allChains.push(...chains);
    lists.push({ stage: 'walk', cls: c, ids: tips, limit: 0, reads: interleaved(chains) });
  }
  const growth = growthList(objects, allChains);
  if (growth) lists.push(growth);
  return lists;
}

/**
 * The chains read side by side, a step of each in turn (every chain's root, then every chain's first
 * delta, …), as git log reads many files' histories at once. One chain read alone would be served by
 * limit 0 too: git keeps the base it added last (§1.3), the one the next step needs.
 */
function interleaved(chains: number[][]): Int32Array {
  const out: number[] = [];
  const longest = Math.max(0, ...chains.map((c) => c.length));
  for (let d = 0; d < longest; d++) for (const chain of chains) if (d < chain.length) out.push(chain[d]!);
  return Int32Array.from(out);
}

/** The root first, the tip last: the order a walk back through history reads a file's versions in. */
function chainOf(objects: SimObjects, tip: number): number[] {
  const chain: number[] = [];
  for (let x = tip; x >= 0 && chain.length <= objects.count; x = objects.base[x]!) chain.push(x);
  return chain.reverse();
}

/**
 * What reading `chain` root first, beside other chains, saves with a large cache against limit 0,
 * by the read path's rules (§1.6): at 0 the read at depth d walks the whole chain, d + 1
 * inflations and d deltas applied; with the cache, from d = 2 on, 2 and 2 (the previous read's
 * result is not cached, its base is).
 * Only a target for the sampling: the timed lists' counts come from the simulator.
 */
function chainSaving(objects: SimObjects, chain: number[]): { inflations: number; bytes: number } {
  let inflations = 0;
  let bytes = 0;
  let walked = 0;
  for (let d = 0; d < chain.length; d++) {
    const id = chain[d]!;
    walked += objects.payloadSize[id]! + (d > 0 ? objects.size[id]! : 0);
    if (d >= 2) {
      inflations += d + 1 - 2;
      const previous = chain[d - 1]!;
      bytes +=
        walked -
        (objects.payloadSize[id]! + objects.size[id]! + objects.payloadSize[previous]! + objects.size[previous]!);
    }
  }
  return { inflations, bytes };
}

/** The growth list: chains from the walk lists until their bases fill GROWTH_TARGET_BYTES, and the limit it is timed against (none when a limit with the same counts keeps most of that memory). */
function growthList(objects: SimObjects, chains: number[][]): CalibrationList | undefined {
  const git = parsePolicy('git');
  const taken: number[][] = [];
  let bases = 0;
  let count = 0;
  // The largest classes first (`chains` come class by class, small first): the most memory for the fewest reads.
  for (const chain of [...chains].reverse()) {
    taken.push(chain);
    count += chain.length;
    for (let d = 0; d + 1 < chain.length; d++) bases += objects.size[chain[d]!]!;
    if (bases >= GROWTH_TARGET_BYTES || count >= MAX_WALK_READS) break;
  }
  const reads = interleaved(taken);
  const compact = compactForReads(objects, reads);
  const full = git.run(compact.objects, compact.reads, WALK_LARGE_LIMIT);
  // The smallest power of two from 1 MiB that loses nothing against 1g.
  for (let limit = 1 << 20; limit < WALK_LARGE_LIMIT; limit *= 2) {
    const small = git.run(compact.objects, compact.reads, limit);
    if (small.inflations !== full.inflations) continue;
    if (full.peakCacheBytes - small.peakCacheBytes < GROWTH_TARGET_BYTES / 8) return undefined;
    return { stage: 'growth', cls: -1, ids: [], limit, reads };
  }
  return undefined;
}

/**
 * One non-negative least squares fit (fit.ts) over every kind of list, columns
 *   [inflations, inflatedBytes, deltaApplications, appliedBytes, cacheBytes, reads]:
 *   inflate and walk rows (minus --batch-check): the counts, and reads (cat-file's per-object work);
 *   the growth row (1g minus a smaller limit with the same counts): the difference of the cache's
 *   peak, and 0 reads (they cancel).
 * cHit is 0, and not from want of measuring: hits = reads − inflations + deltaApplications, and the
 * reads are the same at every limit, so in any difference between limits (a walk list's two rows,
 * and every speed-up a sweep predicts) a hit's cost is exactly a part of aInflate and aDelta and
 * cannot be told apart from them.
 */
export function fit(batches: CalibrationBatch[], cTrace: number): { parameters: CostParameters; perRead: number } {
  // Unweighted: the longest lists, whose differences stand furthest above the noise, count most.
  // (Weighting by 1/seconds let a noisy list timed at 0 s pull every constant to 0.)
  const rows = batches.map((b) => [
    b.inflations,
    b.inflatedBytes,
    b.deltaApplications,
    b.appliedBytes,
    b.cacheBytes,
    b.against === null ? b.reads : 0,
  ]);
  const [aInflate = 0, bInflate = 0, aDelta = 0, bDelta = 0, bCache = 0, perRead = 0] =
    batches.length > 0
      ? nonNegativeLeastSquares(
          rows,
          batches.map((b) => b.seconds),
        )
      : [];
  return { parameters: { aInflate, bInflate, aDelta, bDelta, bCache, cHit: 0, cTrace }, perRead };
}

/** What the fit says a row took (its counts priced, plus cat-file's per-object work on a row minus --batch-check). */
export function batchPrediction(b: CalibrationBatch, p: CostParameters, perRead: number): number {
  return (
    p.aInflate * b.inflations +
    p.bInflate * b.inflatedBytes +
    p.aDelta * b.deltaApplications +
    p.bDelta * b.appliedBytes +
    p.bCache * b.cacheBytes +
    p.cHit * b.hits +
    (b.against === null ? perRead * b.reads : 0)
  );
}

export async function calibrationKey(model: PackModel, git: string): Promise<Calibration['key']> {
  return {
    packChecksum: model.checksumHex,
    node: process.version,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    git: await gitVersionOf(git),
  };
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

/**
 * Members in a seeded order (a partial Fisher–Yates over a copy; members are in idx order, so it is
 * reproducible), taken until `enough` says the one just taken completes the list, or `most` are taken.
 */
function sampleUntil(
  members: number[],
  most: number,
  random: () => number,
  enough: (id: number, taken: number) => boolean,
): number[] {
  const pool = members.slice();
  const count = Math.min(most, pool.length);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    if (enough(pool[i]!, i + 1)) return pool.slice(0, i + 1);
  }
  return pool.slice(0, count);
}

function repeated(ids: number[], passes: number): Int32Array {
  const out = new Int32Array(ids.length * passes);
  for (let t = 0; t < passes; t++) out.set(ids, t * ids.length);
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

interface TimedSide {
  limit: number;
  mode: '--batch' | '--batch-check';
}

/** What a list's rows time: each side minus the reference, on the same input. */
function runsOf(list: CalibrationList): { sides: TimedSide[]; reference: TimedSide } {
  switch (list.stage) {
    case 'inflate':
      return { sides: [{ limit: 0, mode: '--batch' }], reference: { limit: 0, mode: '--batch-check' } };
    case 'walk':
      return {
        sides: [
          { limit: 0, mode: '--batch' },
          { limit: WALK_LARGE_LIMIT, mode: '--batch' },
        ],
        reference: { limit: 0, mode: '--batch-check' },
      };
    case 'growth':
      return {
        sides: [{ limit: WALK_LARGE_LIMIT, mode: '--batch' }],
        reference: { limit: list.limit, mode: '--batch' },
      };
  }
}

/**
 * For each side, the median over `repeats` of (the side's CPU time − the reference's), all of one
 * repeat run back to back: on a shared machine the load changes from second to second, and runs
 * side by side share it, where the best of three a's and the best of three b's (the first
 * calibration's way) can come from a quiet and a busy moment, and then time lists that save tens
 * of thousands of inflations at nothing (bench/README.md, "Figures the comments rely on").
 * At least 0.
 */
async function pairedDifferences(
  git: string,
  gitDir: string,
  sides: TimedSide[],
  reference: TimedSide,
  input: string,
  repeats: number,
  signal: AbortSignal | undefined,
): Promise<number[]> {
  const differences: number[][] = sides.map(() => []);
  for (let r = 0; r < repeats; r++) {
    const base = await timedRun(git, gitDir, reference.limit, reference.mode, input, 1, undefined, signal);
    for (const [s, side] of sides.entries())
      differences[s]!.push((await timedRun(git, gitDir, side.limit, side.mode, input, 1, undefined, signal)) - base);
  }
  return differences.map((list) => Math.max(0, median(list)));
}

/**
 * Best of `repeats` CPU times (user + system) of `git cat-file <mode>` fed `input`, its output to
 * /dev/null (through a pipe its bytes would be timed as inflation). CPU time, not wall time: on a
 * shared machine wall time grows with every other process's load while git's own work does not,
 * and a pack in the page cache makes these reads CPU-bound. bash's `times` reports its children's.
 */
export async function timedRun(
  git: string,
  gitDir: string,
  limit: number,
  mode: string,
  input: string,
  repeats: number,
  traceFile: string | undefined,
  signal: AbortSignal | undefined,
): Promise<number> {
  let best = Infinity;
  for (let r = 0; r < repeats; r++) {
    if (signal?.aborted) throw new CancelledError('calibration cancelled');
    const env: NodeJS.ProcessEnv = {};
    // cat-file's heap is small, so glibc hands every large inflate or patch_delta buffer back to the
    // kernel on free (munmap, or a trim of the heap's top) and faults it in again on the next read:
    // cat-file's system time can then be several times the command's (bench/README.md, "Figures
    // the comments rely on").
    // A command that reads for seconds keeps a large heap and reuses that memory, so the thresholds
    // are pinned as its are in effect (glibc only; other C libraries ignore the variable).
    env.GLIBC_TUNABLES = CALIBRATION_TUNABLES;
    // The clean environment holds no GIT_* variable: only this run's trace, when asked.
    if (traceFile) env.GIT_TRACE_PACK_ACCESS = traceFile;
    // --buffer: without it cat-file flushes after every object, a write(2) per read that a command does not make.
    let seconds: number;
    try {
      seconds = (
        await childUsage(
          git,
          ['--git-dir', gitDir, '-c', `core.deltaBaseCacheLimit=${limit}`, 'cat-file', mode, '--buffer'],
          { environment: 'clean', env },
          input,
          undefined,
          signal,
        )
      ).cpuSeconds;
    } catch (error) {
      if (error instanceof Error && error.name === 'AbortError') throw new CancelledError('calibration cancelled');
      throw error;
    }
    best = Math.min(best, seconds);
  }
  return best;
}

/**
 * The calibration for this pack on this machine: the cached one when its key (pack checksum, node,
 * CPU model, git version) matches, else a new run, saved under the model cache directory
 * (`<dir>/calibrations/`; none when the cache is off). `refresh` forces a new run; `run` runs it
 * (the server's runs in a worker: the plan walks every object of the pack).
 */
/** How a new calibration is run: calibratePack here, or (the server) the same in a worker thread. */
export type CalibrationRun = (model: PackModel, options: CalibrateOptions) => Promise<Calibration>;

export async function cachedCalibration(
  model: PackModel,
  modelCacheDirectory: string | undefined,
  options: CalibrateOptions,
  refresh = false,
  run: CalibrationRun = calibratePack,
): Promise<{ calibration: Calibration; file: string | undefined; fromCache: boolean }> {
  const key = await calibrationKey(model, options.git ?? 'git');
  const file = modelCacheDirectory === undefined ? undefined : calibrationFile(modelCacheDirectory, key);
  if (file && !refresh) {
    const cached = loadCalibration(file);
    if (cached && JSON.stringify(cached.key) === JSON.stringify(key))
      return { calibration: cached, file, fromCache: true };
  }
  const calibration = await run(model, options);
  if (file) saveCalibration(file, calibration);
  return { calibration, file, fromCache: false };
}
