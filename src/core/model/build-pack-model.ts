import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fail, PackScopeError } from '../errors.ts';
import type { HashAlgorithm } from '../format/hash-algorithm.ts';
import { readIdxFile, readIdxFileWithStat, type PackIndex } from '../format/idx.ts';
import { isDeltaType, PACK_HEADER_BYTES, parsePackHeader } from '../format/pack-file.ts';
import { RandomAccessFile, readWholeFile } from '../format/random-access-file.ts';
import { parseRev, revEntryPosition } from '../format/rev.ts';
import { PackModel, type PackFiles } from './pack-model.ts';
import type { PackColumns } from './pack-columns.ts';
import { scanInParallel } from './parallel-scan.ts';
import { allocateScanOutput, RangeScanner, type ScanInput, type ScanOutput } from './scan-range.ts';
import { SizeColumn } from './size-column.ts';

export type BuildStage = 'index' | 'stored' | 'objects' | 'chains';

export interface BuildOptions {
  hash?: HashAlgorithm;
  /**
   * Called as a load moves from one stage to the next, with the pack's object count: the idx read,
   * a stored model being read and checked, the objects scanned, the delta chains resolved. For
   * progress that names what is happening, not only a count.
   */
  onStage?: (stage: BuildStage, objects: number) => void;
  /** Called now and then with objects scanned so far; throwing from it cancels the build. */
  onProgress?: (done: number, total: number) => void;
  /** An idx already parsed for this pack (saves reading it twice). */
  index?: PackIndex;
  /**
   * false: a header-only scan. Delta result sizes are not read (their resultSize is 0) and only the
   * bytes around each header are read from disk. For a first quick look at a huge pack, and the
   * benchmark's header-scan figure.
   */
  resultSizes?: boolean;
  /** When given, filled with milliseconds per build phase (for the benchmark). */
  phaseTimes?: Record<string, number>;
  /** Skip the .rev file even when present (the model is then ordered by an in-memory sort). */
  ignoreRev?: boolean;
  /**
   * Scan a pack of PARALLEL_SCAN_MIN_OBJECTS or more with this many worker threads beside this one
   * (parallel-scan.ts), started from `workerScript` (dist/scan-worker.js). The model is the same.
   */
  parallel?: ParallelBuild | undefined;
}

export interface ParallelBuild {
  workerScript: string;
  workers: number;
  /** Tests only: scan packs this small in parallel too (default PARALLEL_SCAN_MIN_OBJECTS). */
  minObjects?: number;
  /** Tests only: entries per chunk (default SCAN_CHUNK_ENTRIES), so that a small pack has many. */
  chunkEntries?: number;
  /** Tests only: false leaves every chunk to the workers (their own paths, and the stall rule). */
  thisThreadScans?: boolean;
}

/**
 * Below this many objects a pack is scanned on one thread: a worker's start (20–50 ms, its bundle
 * loaded and compiled) is more than it could take over from a scan that short.
 */
export const PARALLEL_SCAN_MIN_OBJECTS = 100_000;

/** More scanners than this gain little: the scan then waits on memory, not on the CPU. */
const MAX_SCAN_WORKERS = 3;

/**
 * A parallel build with the scan worker bundled in `directory` (dist/, beside cli.js and server.js):
 * one worker per core besides this thread's, at most MAX_SCAN_WORKERS; undefined with one core or
 * where there is no bundled worker (code run from its TypeScript source).
 */
export function parallelBuildFrom(directory: string, cores = availableParallelism()): ParallelBuild | undefined {
  const workerScript = join(directory, 'scan-worker.js');
  const workers = Math.min(MAX_SCAN_WORKERS, cores - 1);
  if (workers < 1 || !existsSync(workerScript)) return undefined;
  return { workerScript, workers };
}

/**
 * A header-only scan costs about 100 ns per object on one thread (a full one 3–5 times that), so a
 * worker's start and the shared copies of the names and the order (20–50 ms, and 6 MB of fresh
 * memory for 301k objects) pay only on far larger packs. Measured at load 6 on 2 cores: the
 * generated pack (301k objects) took 107–124 ms of CPU on one thread, 144–251 ms with a worker (and
 * twice the wall time); git.git's (849k) 353–401 ms against 419–533 ms.
 */
export const PARALLEL_HEADER_SCAN_MIN_OBJECTS = 2_000_000;

function parallelPlan(options: BuildOptions, count: number): ParallelBuild | undefined {
  const plan = options.parallel;
  const minimum =
    plan?.minObjects ?? (options.resultSizes === false ? PARALLEL_HEADER_SCAN_MIN_OBJECTS : PARALLEL_SCAN_MIN_OBJECTS);
  if (!plan || plan.workers < 1 || count < minimum) return undefined;
  return plan;
}

export function packFilesFor(path: string): PackFiles {
  const stem = path.replace(/\.(pack|idx|rev)$/, '');
  const rev = `${stem}.rev`;
  return { pack: `${stem}.pack`, idx: `${stem}.idx`, rev: existsSync(rev) ? rev : undefined };
}

export function loadIdx(files: PackFiles, hash?: HashAlgorithm): PackIndex {
  return readIdxFile(files.idx, hashOption(hash));
}

function hashOption(hash: HashAlgorithm | undefined): { hash?: HashAlgorithm } {
  return hash ? { hash } : {};
}

/** Builds the columns of one pack: one pass over idx, one sequential pass over the pack's headers. */
export function buildPackModel(files: PackFiles, options: BuildOptions = {}): PackModel {
  const started = performance.now();
  // Read as the model keeps it (names, offsets, checksums; no CRC32 table, no whole-file copy that
  // PackModel would copy its names out of again): 12 MB less fresh memory for 301k objects.
  const index = options.index ?? readIdxFileWithStat(files.idx, { ...hashOption(options.hash), namesOnly: true }).index;
  if (options.phaseTimes) options.phaseTimes.idx = performance.now() - started;
  if (!options.index) options.onStage?.('index', index.count);
  const pack = RandomAccessFile.open(files.pack);
  try {
    const model = scanPack(files, index, pack, options);
    pack.assertUnchanged();
    return model;
  } catch (error) {
    // Bytes rewritten under the scan explain whatever they broke better than the error they caused.
    if (error instanceof PackScopeError && error.code !== 'changed') pack.assertUnchanged();
    throw error;
  } finally {
    pack.close();
  }
}

/** Object numbers in pack order: from the .rev when it is usable, else sorted in memory (§6.3). */
export function packOrder(files: PackFiles, index: PackIndex, ignoreRev: boolean): Uint32Array {
  if (files.rev && !ignoreRev) {
    const bytes = readWholeFile(files.rev, 12 + index.count * 4 + 64);
    return parseRev(files.rev, bytes, index.count, index.hash, index.packChecksum);
  }
  return sortByOffset(index.offsets);
}

/**
 * Below this many objects an insertion sort is cheaper than the radix sort's three passes over its
 * 2,048 buckets: on 3,000 one-object packs those passes were 6% of `objects`' profile.
 */
const INSERTION_SORT_MAX = 32;

/**
 * LSD radix sort of object numbers by offset: 3 passes of 11 bits when every offset fits in 32 bits.
 * Equal offsets (a hostile idx; the caller rejects them) keep ascending object numbers either way.
 */
export function sortByOffset(offsets: Float64Array): Uint32Array {
  const count = offsets.length;
  if (count <= INSERTION_SORT_MAX) return insertionSortByOffset(offsets);
  let max = 0;
  for (let n = 0; n < count; n++) if (offsets[n]! > max) max = offsets[n]!;
  let order = new Uint32Array(count);
  for (let n = 0; n < count; n++) order[n] = n;
  if (max >= 2 ** 32) return order.sort((a, b) => offsets[a]! - offsets[b]!);
  const keys = Uint32Array.from(offsets);
  let scratch = new Uint32Array(count);
  const buckets = new Uint32Array(2048);
  for (let shift = 0; shift < 32; shift += 11) {
    buckets.fill(0);
    for (let i = 0; i < count; i++) buckets[(keys[i]! >>> shift) & 2047]!++;
    let sum = 0;
    for (let b = 0; b < 2048; b++) {
      const c = buckets[b]!;
      buckets[b] = sum;
      sum += c;
    }
    for (let i = 0; i < count; i++) {
      const n = order[i]!;
      scratch[buckets[(keys[n]! >>> shift) & 2047]!++] = n;
    }
    [order, scratch] = [scratch, order];
  }
  return order;
}

/** sortByOffset for a few objects: stable, so ties stay in object-number order as in the radix sort. */
function insertionSortByOffset(offsets: Float64Array): Uint32Array {
  const order = new Uint32Array(offsets.length);
  for (let i = 0; i < offsets.length; i++) {
    const key = offsets[i]!;
    let j = i;
    for (; j > 0 && offsets[order[j - 1]!]! > key; j--) order[j] = order[j - 1]!;
    order[j] = i;
  }
  return order;
}

/** The pack's header and trailer checked against the idx, its order read, then its one pass (scanInOrder). */
function scanPack(files: PackFiles, index: PackIndex, pack: RandomAccessFile, options: BuildOptions): PackModel {
  const hash = index.hash;
  const hashSize = hash.size;
  const count = index.count;
  const packFile = files.pack;

  const headerBytes = pack.read(0, Math.min(pack.size, PACK_HEADER_BYTES));
  const header = parsePackHeader(packFile, headerBytes, pack.size, hashSize);
  if (header.count !== count) {
    throw fail(
      'mismatch',
      packFile,
      8,
      `pack holds ${header.count} objects but ${files.idx} lists ${count}: idx and pack do not belong together`,
    );
  }
  const trailer = pack.read(pack.size - hashSize, hashSize);
  if (!trailer.equals(index.packChecksum)) {
    // Like git ("packfile does not match index"), but say so when the idx points past the end.
    let last = 0;
    for (const offset of index.offsets) if (offset > last) last = offset;
    const hint =
      last >= pack.size - hashSize ? `, or the pack is truncated (the idx lists an object at offset ${last})` : '';
    throw fail(
      'mismatch',
      packFile,
      pack.size - hashSize,
      `pack checksum ${trailer.toString('hex')} differs from the one ${files.idx} was written for (${Buffer.from(index.packChecksum).toString('hex')}): idx and pack do not belong together${hint}`,
    );
  }
  const dataEnd = pack.size - hashSize;

  const orderStarted = performance.now();
  const byOffset = packOrder(files, index, options.ignoreRev ?? false);
  if (options.phaseTimes) options.phaseTimes.order = performance.now() - orderStarted;
  const parallel = parallelPlan(options, count);
  const scratch = parallel ? undefined : allocateScratch(count);
  return scanInOrder(files, index, pack, options, header.version, dataEnd, byOffset, parallel, scratch);
}

// Stays long: the scan proper, in pack order, then the one scatter of every column to object order; the pack-order
// arrays it fills are shared by every step.
function scanInOrder(
  files: PackFiles,
  givenIndex: PackIndex,
  pack: RandomAccessFile,
  options: BuildOptions,
  version: number,
  dataEnd: number,
  byOffset: Uint32Array,
  parallel: ParallelBuild | undefined,
  scratch: ScanScratch | undefined,
): PackModel {
  let index = givenIndex;
  const count = index.count;
  const packFile = files.pack;
  const phaseTimes = options.phaseTimes;
  let mark = performance.now();
  const phase = (name: string): void => {
    if (!phaseTimes) return;
    const now = performance.now();
    phaseTimes[name] = now - mark;
    mark = now;
  };
  const offsets = index.offsets;
  // One gather pass that also checks the order. Shared memory when other threads scan too.
  const sortedOffsets = scratch ? scratch.sortedOffsets : new Float64Array(new SharedArrayBuffer(count * 8));
  for (let p = 0; p < count; p++) {
    const offset = offsets[byOffset[p]!]!;
    sortedOffsets[p] = offset;
    if (offset < PACK_HEADER_BYTES || offset >= dataEnd) {
      throw fail(
        'bad-offset',
        files.idx,
        index.offsetPosition(byOffset[p]!),
        `object ${index.oidHex(byOffset[p]!)} has offset ${offset}, outside the pack's objects (${PACK_HEADER_BYTES}..${dataEnd})`,
      );
    }
    if (p > 0 && offset <= sortedOffsets[p - 1]!) {
      const fromRev = files.rev !== undefined && !options.ignoreRev;
      const [source, at] = fromRev ? [files.rev, revEntryPosition(p)] : [files.idx, index.offsetPosition(byOffset[p]!)];
      throw fail(
        'bad-offset',
        source,
        at,
        `objects ${index.oidHex(byOffset[p - 1]!)} and ${index.oidHex(byOffset[p]!)} are not in increasing offset order (${sortedOffsets[p - 1]} then ${offset})`,
      );
    }
  }
  phase('offsets');
  // The scan writes in pack order (sequential stores); the columns in object order are scattered
  // from these afterwards in tight loops. Five scattered stores per object inside the scan (object
  // numbers are random in pack order) were cache misses the header decoding waited on.
  const wantResultSizes = options.resultSizes ?? true;
  options.onStage?.('objects', count);
  const output = scratch ? scratch.output : allocateScanOutput(count, true);
  let sizeOverflow: Map<number, number>;
  let resultSizeOverflow: Map<number, number>;
  if (parallel) {
    // Workers read the names (REF_DELTA bases) and the pack order from shared memory, not copies.
    const sharedIndex = index.namesOnly(true);
    const sharedOrder = new Uint32Array(new SharedArrayBuffer(count * 4));
    sharedOrder.set(byOffset);
    const input: ScanInput = {
      packFile,
      index: sharedIndex,
      byOffset: sharedOrder,
      sortedOffsets,
      dataEnd,
      wantResultSizes,
    };
    const run = scanInParallel({
      workerScript: parallel.workerScript,
      workers: parallel.workers,
      chunkEntries: parallel.chunkEntries,
      thisThreadScans: parallel.thisThreadScans,
      count,
      scanner: new RangeScanner(input, output, pack),
      pack,
      task: {
        packFile,
        index: sharedIndex.toTransfer(),
        byOffset: sharedOrder,
        sortedOffsets,
        dataEnd,
        wantResultSizes,
        output,
      },
      onProgress: options.onProgress,
    });
    sizeOverflow = run.sizeOverflow;
    resultSizeOverflow = run.resultSizeOverflow;
    index = sharedIndex;
    options.onProgress?.(count, count);
  } else {
    const scanner = new RangeScanner(
      { packFile, index, byOffset, sortedOffsets, dataEnd, wantResultSizes },
      output,
      pack,
    );
    const onProgress = options.onProgress;
    let done = 0;
    if (onProgress) onProgress(0, count);
    scanner.scan(0, count, onProgress ? (entries) => onProgress((done += entries), count) : undefined);
    sizeOverflow = scanner.sizeOverflow;
    resultSizeOverflow = scanner.resultSizeOverflow;
  }
  const sizeAt = new SizeColumn(output.sizeLow, sizeOverflow);
  phase('scan');
  options.onStage?.('chains', count);
  const { inPackTypeAt, basePosition } = output;
  const typeAt = scratch ? scratch.typeAt : new Uint8Array(count);
  const depthAt = scratch ? scratch.depthAt : new Uint32Array(count);
  const maxDepth = resolveChains(packFile, index, inPackTypeAt, basePosition, byOffset, typeAt, depthAt);
  phase('chains');
  // One scatter of every column to object order (one pass over byOffset: its random stores are
  // what a scatter costs, so each extra pass paid them again).
  const inPackType = new Uint8Array(count);
  const type = new Uint8Array(count);
  const depth = maxDepth <= 0xffff ? new Uint16Array(count) : new Uint32Array(count);
  const base = new Int32Array(count);
  const diskSize = new SizeColumn(count);
  const size = new SizeColumn(count);
  const resultSize = new SizeColumn(count);
  const diskLow = diskSize.low;
  const sizeLow = size.low;
  const resultLow = resultSize.low;
  const sizeLowAt = output.sizeLow;
  const resultLowAt = output.resultSizeLow;
  for (let p = 0; p < count; p++) {
    const n = byOffset[p]!;
    const inPack = inPackTypeAt[p]!;
    inPackType[n] = inPack;
    type[n] = typeAt[p]!;
    depth[n] = depthAt[p]!;
    const b = basePosition[p]!;
    base[n] = b < 0 ? -1 : byOffset[b]!;
    const disk = (p + 1 < count ? sortedOffsets[p + 1]! : dataEnd) - sortedOffsets[p]!;
    if (disk < 0xffffffff) diskLow[n] = disk;
    else diskSize.set(n, disk);
    const objectSize = sizeLowAt[p]!;
    sizeLow[n] = objectSize;
    // Header-only: the scan left resultSizeLow unwritten; a delta's is 0, an object's its size.
    resultLow[n] = wantResultSizes ? resultLowAt[p]! : isDeltaType(inPack) ? 0 : objectSize;
  }
  for (const [p, value] of sizeAt.overflow) {
    size.overflow.set(byOffset[p]!, value);
    if (!wantResultSizes && !isDeltaType(inPackTypeAt[p]!)) resultSize.overflow.set(byOffset[p]!, value);
  }
  if (wantResultSizes) for (const [p, value] of resultSizeOverflow) resultSize.overflow.set(byOffset[p]!, value);
  phase('scatter');
  const columns: PackColumns = { offset: offsets, inPackType, type, size, resultSize, diskSize, base, depth, byOffset };
  return new PackModel(files, index, index.hash, version, pack.size, columns);
}

/**
 * The pack-order arrays of a one-thread build: about 30 bytes per object, none of them kept by the
 * model. Not kept for the next build either: that saved about 3,000 of the second build's 7,700
 * page faults on the generated pack, but the retained heap per object of a model (bench/README.md,
 * target 4: at most 40 bytes) went from 33 to 59 bytes.
 */
interface ScanScratch {
  sortedOffsets: Float64Array;
  output: ScanOutput;
  typeAt: Uint8Array;
  depthAt: Uint32Array;
}

function allocateScratch(count: number): ScanScratch {
  return {
    sortedOffsets: new Float64Array(count),
    output: allocateScanOutput(count, false),
    typeAt: new Uint8Array(count),
    depthAt: new Uint32Array(count),
  };
}

const UNRESOLVED = 0xffffffff;
const IN_PROGRESS = 0xfffffffe;

/**
 * Resolved types and depths in pack order (into `typeAt`, `depthAt`), from each entry's base
 * position; returns the deepest chain. The build scatters them to object order. An OFS base always comes first (§6.1), so most entries take their
 * base's depth directly; only REF deltas whose base comes later need a walk, and those walks report
 * cycles instead of following them forever.
 */
function resolveChains(
  packFile: string,
  index: PackIndex,
  inPackTypeAt: Uint8Array,
  basePosition: Int32Array,
  byOffset: Uint32Array,
  typeAt: Uint8Array,
  depthAt: Uint32Array,
): number {
  const count = index.count;
  depthAt.fill(UNRESOLVED);
  const stack: number[] = [];
  let maxDepth = 0;
  for (let p = 0; p < count; p++) {
    if (depthAt[p] !== UNRESOLVED) continue;
    const b = basePosition[p]!;
    if (b < 0) {
      depthAt[p] = 0;
      typeAt[p] = inPackTypeAt[p]!;
      continue;
    }
    const baseDepth = depthAt[b]!;
    if (baseDepth < IN_PROGRESS) {
      const d = baseDepth + 1;
      depthAt[p] = d;
      typeAt[p] = typeAt[b]!;
      if (d > maxDepth) maxDepth = d;
      continue;
    }
    let current = p;
    while (depthAt[current] === UNRESOLVED && basePosition[current]! >= 0) {
      depthAt[current] = IN_PROGRESS;
      stack.push(current);
      current = basePosition[current]!;
    }
    if (depthAt[current] === IN_PROGRESS) {
      const object = byOffset[current]!;
      throw fail(
        'delta-cycle',
        packFile,
        index.offsets[object]!,
        `delta chain through ${index.oidHex(object)} loops back on itself`,
      );
    }
    if (depthAt[current] === UNRESOLVED) {
      depthAt[current] = 0;
      typeAt[current] = inPackTypeAt[current]!;
    }
    const rootType = typeAt[current]!;
    let d = depthAt[current]!;
    while (stack.length > 0) {
      const x = stack.pop()!;
      d++;
      depthAt[x] = d;
      typeAt[x] = rootType;
    }
    if (d > maxDepth) maxDepth = d;
  }
  return maxDepth;
}
