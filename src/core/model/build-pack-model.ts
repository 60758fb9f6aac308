import { existsSync } from 'node:fs';
import { fail, PackFormatError } from '../errors.ts';
import type { HashAlgorithm } from '../format/hash-algorithm.ts';
import { readIdxFile, type PackIndex } from '../format/idx.ts';
import { InflateHead, InflateHeadStatus } from '../format/inflate-head.ts';
import { DeltaError, readDeltaResultSize } from '../format/delta.ts';
import {
  isDeltaType,
  MAX_OBJECT_HEADER_BYTES,
  OBJ_OFS_DELTA,
  OBJ_REF_DELTA,
  ObjectHeader,
  PACK_HEADER_BYTES,
  parsePackHeader,
  readObjectHeader,
} from '../format/pack-file.ts';
import { RandomAccessFile, readWholeFile } from '../format/random-access-file.ts';
import { parseRev, revEntryPosition } from '../format/rev.ts';
import { PackModel, type PackColumns, type PackFiles } from './pack-model.ts';
import { SizeColumn } from './size-column.ts';

const WINDOW_BYTES = 8 << 20;
/**
 * A header-only scan reads up to this much per read(2). Small reads cost a syscall each (4,700
 * reads of ~7 KiB took 45% of the scan on the generated 301k-object pack, the copy out of the page
 * cache almost nothing), so the window is large and only big entries are skipped.
 */
const HEADER_SCAN_WINDOW_BYTES = 1 << 20;
/** A header-only refill stops at an entry larger than this: its body is skipped, not read. */
const HEADER_SCAN_SKIP_BYTES = 256 << 10;
/** Compressed bytes offered to the partial inflate first; a delta header needs far fewer. */
const HEAD_INPUT_BYTES = 4096;
/** Upper bound on compressed bytes read to find a delta header (pathological empty blocks). */
const MAX_HEAD_INPUT_BYTES = 16 << 20;
/** git-internals §1.8: get_size_from_delta inflates at most 20 bytes; two varints fit. */
const DELTA_HEADER_BYTES = 20;

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
}

export function packFilesFor(path: string): PackFiles {
  const stem = path.replace(/\.(pack|idx|rev)$/, '');
  const rev = `${stem}.rev`;
  return { pack: `${stem}.pack`, idx: `${stem}.idx`, rev: existsSync(rev) ? rev : undefined };
}

export function loadIdx(files: PackFiles, hash?: HashAlgorithm): PackIndex {
  return readIdxFile(files.idx, hash ? { hash } : {});
}

/** Builds the columns of one pack: one pass over idx, one sequential pass over the pack's headers. */
export function buildPackModel(files: PackFiles, options: BuildOptions = {}): PackModel {
  const started = performance.now();
  const index = options.index ?? loadIdx(files, options.hash);
  if (options.phaseTimes) options.phaseTimes.idx = performance.now() - started;
  if (!options.index) options.onStage?.('index', index.count);
  const pack = RandomAccessFile.open(files.pack);
  try {
    const model = scanPack(files, index, pack, options);
    pack.assertUnchanged();
    return model;
  } catch (error) {
    // Bytes rewritten under the scan explain whatever they broke better than the error they caused.
    if (error instanceof PackFormatError && error.code !== 'changed') pack.assertUnchanged();
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

/** LSD radix sort of object numbers by offset: 3 passes of 11 bits when every offset fits in 32 bits. */
export function sortByOffset(offsets: Float64Array): Uint32Array {
  const count = offsets.length;
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

/** A sliding window over the pack, refilled by sequential reads. */
class PackWindow {
  readonly bytes: Buffer;
  start = 0;
  end = 0;
  constructor(
    private readonly pack: RandomAccessFile,
    private readonly readBytes: number,
  ) {
    this.bytes = Buffer.allocUnsafe(readBytes);
  }

  /**
   * Makes [position, position + length) available (length <= the window); returns its start inside
   * `bytes`. On a refill it reads up to `wanted` bytes (at least `length`, at most the window), so a
   * header-only scan can skip the bodies of large objects instead of reading them.
   */
  ensure(position: number, length: number, wanted = this.readBytes): number {
    if (position < this.start || position + length > this.end) {
      const n = Math.min(Math.max(length, Math.min(wanted, this.readBytes)), this.pack.size - position);
      this.pack.readInto(this.bytes, 0, n, position);
      this.start = position;
      this.end = position + n;
    }
    return position - this.start;
  }
}

function scanPack(files: PackFiles, index: PackIndex, pack: RandomAccessFile, options: BuildOptions): PackModel {
  const hash = index.hash;
  const hashSize = hash.size;
  const count = index.count;
  const packFile = files.pack;

  const headerBytes = pack.read(0, Math.min(pack.size, PACK_HEADER_BYTES));
  const header = parsePackHeader(packFile, headerBytes, pack.size, hashSize);
  if (header.count !== count) {
    throw fail('mismatch', packFile, 8, `pack holds ${header.count} objects but ${files.idx} lists ${count}: idx and pack do not belong together`);
  }
  const trailer = pack.read(pack.size - hashSize, hashSize);
  if (!trailer.equals(index.packChecksum)) {
    // Like git ("packfile does not match index"), but say so when the idx points past the end.
    let last = 0;
    for (const offset of index.offsets) if (offset > last) last = offset;
    const hint = last >= pack.size - hashSize ? `, or the pack is truncated (the idx lists an object at offset ${last})` : '';
    throw fail('mismatch', packFile, pack.size - hashSize, `pack checksum ${trailer.toString('hex')} differs from the one ${files.idx} was written for (${Buffer.from(index.packChecksum).toString('hex')}): idx and pack do not belong together${hint}`);
  }
  const dataEnd = pack.size - hashSize;

  const phaseTimes = options.phaseTimes;
  let mark = performance.now();
  const phase = (name: string): void => {
    if (!phaseTimes) return;
    const now = performance.now();
    phaseTimes[name] = now - mark;
    mark = now;
  };
  const byOffset = packOrder(files, index, options.ignoreRev ?? false);
  phase('order');
  const offsets = index.offsets;
  // One gather pass that also checks the order. (A scatter through positionOf, the inverse of
  // byOffset, needed that inverse first: two random passes instead of one. Only REF deltas need
  // positionOf, and it is built the first time one is met.)
  let positionOfColumn: Uint32Array | undefined;
  const positionOf = (): Uint32Array => {
    if (!positionOfColumn) {
      positionOfColumn = new Uint32Array(count);
      for (let p = 0; p < count; p++) positionOfColumn[byOffset[p]!] = p;
    }
    return positionOfColumn;
  };
  const sortedOffsets = new Float64Array(count);
  for (let p = 0; p < count; p++) {
    const offset = offsets[byOffset[p]!]!;
    sortedOffsets[p] = offset;
    if (offset < PACK_HEADER_BYTES || offset >= dataEnd) {
      throw fail('bad-offset', files.idx, index.offsetPosition(byOffset[p]!), `object ${index.oidHex(byOffset[p]!)} has offset ${offset}, outside the pack's objects (${PACK_HEADER_BYTES}..${dataEnd})`);
    }
    if (p > 0 && offset <= sortedOffsets[p - 1]!) {
      const fromRev = files.rev !== undefined && !options.ignoreRev;
      const [source, at] = fromRev ? [files.rev, revEntryPosition(p)] : [files.idx, index.offsetPosition(byOffset[p]!)];
      throw fail('bad-offset', source, at, `objects ${index.oidHex(byOffset[p - 1]!)} and ${index.oidHex(byOffset[p]!)} are not in increasing offset order (${sortedOffsets[p - 1]} then ${offset})`);
    }
  }
  phase('offsets');
  // The scan writes in pack order (sequential stores); the columns in object order are scattered
  // from these afterwards in tight loops. Five scattered stores per object inside the scan (object
  // numbers are random in pack order) were cache misses the header decoding waited on.
  const inPackTypeAt = new Uint8Array(count);
  const sizeAt = new SizeColumn(count);
  const sizeLow = sizeAt.low;
  const resultSizeAt = new SizeColumn(count);
  /** Pack position of each entry's base (−1 for non-deltas), in pack order: chains resolve from it. */
  const basePosition = new Int32Array(count).fill(-1);

  const wantResultSizes = options.resultSizes ?? true;
  // A header-only scan reads small windows so that large objects are skipped, not read.
  // Never wider than the pack: 3,000 one-object packs each allocating 8 MiB spent most of a build in GC.
  const window = new PackWindow(pack, Math.max(1, Math.min(pack.size, wantResultSizes ? WINDOW_BYTES : HEADER_SCAN_WINDOW_BYTES)));
  const entry = new ObjectHeader();
  const inflater = new InflateHead(DELTA_HEADER_BYTES);
  const progressEvery = 1 << 16;
  options.onStage?.('objects', count);

  for (let p = 0; p < count; p++) {
    if (options.onProgress && (p & (progressEvery - 1)) === 0) options.onProgress(p, count);
    const offset = sortedOffsets[p]!;
    const next = p + 1 < count ? sortedOffsets[p + 1]! : dataEnd;
    const entryBytes = next - offset;

    const available = Math.min(entryBytes, wantResultSizes ? MAX_OBJECT_HEADER_BYTES + HEAD_INPUT_BYTES : MAX_OBJECT_HEADER_BYTES);
    // Header-only: on a refill, read through the small entries that follow and stop before a large one.
    let at: number;
    if (wantResultSizes) at = window.ensure(offset, available);
    else if (offset >= window.start && offset + available <= window.end) at = offset - window.start;
    else at = window.ensure(offset, available, headerScanExtent(sortedOffsets, p, dataEnd));
    const bytes = window.bytes;
    // The common header (a base type or an OFS_DELTA, varints of at most 7 bytes, an entry with
    // room for the longest header) is decoded here without bounds checks; anything else goes
    // through readObjectHeader, which decodes the same or throws its own error. A call per object
    // with its checks was most of the scan's time.
    let type: number;
    let objectSize: number;
    let headerLength: number;
    let baseOffset = 0;
    decode: {
      if (available >= MAX_OBJECT_HEADER_BYTES) {
        let pos = at;
        let c = bytes[pos++]!;
        type = (c >> 4) & 7;
        if (type !== 0 && type !== 5 && type !== OBJ_REF_DELTA) {
          objectSize = c & 15;
          let scale = 16;
          let extra = 0;
          while (c & 0x80 && extra < 6) {
            c = bytes[pos++]!;
            objectSize += (c & 0x7f) * scale;
            scale *= 128;
            extra++;
          }
          if (!(c & 0x80)) {
            if (type !== OBJ_OFS_DELTA) {
              headerLength = pos - at;
              break decode;
            }
            c = bytes[pos++]!;
            let distance = c & 0x7f;
            extra = 0;
            while (c & 0x80 && extra < 6) {
              c = bytes[pos++]!;
              distance = (distance + 1) * 128 + (c & 0x7f);
              extra++;
            }
            if (!(c & 0x80) && distance > 0 && distance < offset) {
              baseOffset = offset - distance;
              headerLength = pos - at;
              break decode;
            }
          }
        }
      }
      readObjectHeader(packFile, bytes, at, at + available, offset, hashSize, entry);
      type = entry.type;
      objectSize = entry.size;
      headerLength = entry.headerLength;
      baseOffset = entry.baseOffset;
    }
    inPackTypeAt[p] = type;
    if (objectSize < 0xffffffff) sizeLow[p] = objectSize;
    else sizeAt.set(p, objectSize);

    if (type === OBJ_OFS_DELTA) {
      const position = findPositionBefore(sortedOffsets, p, baseOffset);
      if (position < 0) {
        throw fail('bad-delta-base', packFile, offset, `OFS_DELTA base offset ${baseOffset} is not the start of an object`);
      }
      basePosition[p] = position;
    } else if (type === OBJ_REF_DELTA) {
      const baseObject = index.find(bytes, at + headerLength - hashSize);
      if (baseObject < 0) {
        const baseHex = bytes.toString('hex', at + headerLength - hashSize, at + headerLength);
        throw fail('missing-base', packFile, offset, `REF_DELTA base ${baseHex} is not in this pack`);
      }
      if (baseObject === byOffset[p]!) throw fail('delta-cycle', packFile, offset, 'REF_DELTA names itself as its base');
      basePosition[p] = positionOf()[baseObject]!;
    }

    if (isDeltaType(type)) {
      if (!wantResultSizes) continue;
      resultSizeAt.set(p, deltaResultSize(packFile, pack, inflater, bytes, at + headerLength, at + available, offset, entryBytes - headerLength, headerLength));
    } else {
      resultSizeAt.set(p, objectSize);
    }
  }
  options.onProgress?.(count, count);
  phase('scan');
  options.onStage?.('chains', count);
  const { type, depth } = resolveChains(packFile, index, inPackTypeAt, basePosition, byOffset);
  phase('chains');
  const inPackType = new Uint8Array(count);
  const base = new Int32Array(count);
  const diskSize = new SizeColumn(count);
  for (let p = 0; p < count; p++) {
    const n = byOffset[p]!;
    inPackType[n] = inPackTypeAt[p]!;
    const b = basePosition[p]!;
    base[n] = b < 0 ? -1 : byOffset[b]!;
    diskSize.set(n, (p + 1 < count ? sortedOffsets[p + 1]! : dataEnd) - sortedOffsets[p]!);
  }
  const size = toObjectOrder(sizeAt, byOffset);
  const resultSize = toObjectOrder(resultSizeAt, byOffset);
  phase('scatter');
  const columns: PackColumns = { offset: offsets, inPackType, type, size, resultSize, diskSize, base, depth, byOffset };
  return new PackModel(files, index, hash, header.version, pack.size, columns);
}

/** A size column kept in pack order, scattered to object order. */
function toObjectOrder(packOrder: SizeColumn, byOffset: Uint32Array): SizeColumn {
  const from = packOrder.low;
  const low = new Uint32Array(from.length);
  for (let p = 0; p < from.length; p++) low[byOffset[p]!] = from[p]!;
  const overflow = new Map<number, number>();
  for (const [p, value] of packOrder.overflow) overflow.set(byOffset[p]!, value);
  return new SizeColumn(low, overflow);
}

/**
 * Bytes from entry p's start that a header-only refill reads: every following header that fits in
 * the window, stopping after the header of the first entry over HEADER_SCAN_SKIP_BYTES (its body
 * is what the next refill skips). Only called on a refill, and each entry is walked over about
 * once, since the window it computes then serves those entries.
 */
function headerScanExtent(sortedOffsets: Float64Array, p: number, dataEnd: number): number {
  const start = sortedOffsets[p]!;
  const limit = start + HEADER_SCAN_WINDOW_BYTES;
  const count = sortedOffsets.length;
  let q = p;
  let end = start + MAX_OBJECT_HEADER_BYTES;
  while (q + 1 < count) {
    const next = sortedOffsets[q + 1]!;
    if (next - sortedOffsets[q]! > HEADER_SCAN_SKIP_BYTES || next + MAX_OBJECT_HEADER_BYTES > limit) break;
    q++;
    end = next + MAX_OBJECT_HEADER_BYTES;
  }
  return Math.min(end, dataEnd) - start;
}

/**
 * Position p' < limit with sortedOffsets[p'] === offset, or −1. Bases sit close before their deltas
 * (git-internals §5.2), so the search gallops backwards from `limit` and touches few cache lines.
 */
function findPositionBefore(sortedOffsets: Float64Array, limit: number, offset: number): number {
  let high = limit;
  let step = 1;
  let low = limit - step;
  while (low > 0 && sortedOffsets[low]! > offset) {
    high = low;
    step *= 2;
    low = limit - step;
  }
  if (low < 0) low = 0;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const value = sortedOffsets[mid]!;
    if (value === offset) return mid;
    if (value < offset) low = mid + 1;
    else high = mid;
  }
  return -1;
}

/** git-internals §1.8: a delta's result size comes from a partial inflate of its payload. */
function deltaResultSize(
  packFile: string,
  pack: RandomAccessFile,
  inflater: InflateHead,
  bytes: Buffer,
  dataAt: number,
  availableEnd: number,
  offset: number,
  compressedBytes: number,
  headerLength: number,
): number {
  let status = inflater.run(bytes, dataAt, Math.min(availableEnd, dataAt + compressedBytes), DELTA_HEADER_BYTES);
  if (status === InflateHeadStatus.NeedInput && compressedBytes > availableEnd - dataAt) {
    // Rare: the header lies beyond the first few KiB of compressed data. Read the whole entry.
    if (compressedBytes > MAX_HEAD_INPUT_BYTES) {
      throw fail('bad-zlib', packFile, offset, `delta header not found in the first ${availableEnd - dataAt} compressed bytes`);
    }
    const whole = pack.read(offset + headerLength, compressedBytes);
    status = inflater.run(whole, 0, whole.length, DELTA_HEADER_BYTES);
  }
  if (status === InflateHeadStatus.Corrupt) throw fail('bad-zlib', packFile, offset, 'delta data is not a valid zlib stream');
  if (status === InflateHeadStatus.NeedInput) throw fail('bad-zlib', packFile, offset, 'zlib data ends before the delta header');
  let result: number;
  try {
    result = readDeltaResultSize(inflater.output, inflater.length);
  } catch (error) {
    // A size varint longer than 53 bits; anything else is a bug and stays one.
    if (error instanceof DeltaError) throw fail('bad-delta', packFile, offset, `delta header: ${error.message}`);
    throw error;
  }
  if (result < 0) throw fail('bad-delta', packFile, offset, 'delta header is truncated');
  return result;
}

const UNRESOLVED = 0xffffffff;
const IN_PROGRESS = 0xfffffffe;

/**
 * Resolved types and depths, computed in pack order from each entry's base position and then
 * scattered to object order. An OFS base always comes first (§6.1), so most entries take their
 * base's depth directly; only REF deltas whose base comes later need a walk, and those walks report
 * cycles instead of following them forever.
 */
function resolveChains(packFile: string, index: PackIndex, inPackTypeAt: Uint8Array, basePosition: Int32Array, byOffset: Uint32Array): { type: Uint8Array; depth: Uint16Array | Uint32Array } {
  const count = index.count;
  const typeAt = new Uint8Array(count);
  const depthAt = new Uint32Array(count).fill(UNRESOLVED);
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
      throw fail('delta-cycle', packFile, index.offsets[object]!, `delta chain through ${index.oidHex(object)} loops back on itself`);
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
  const type = new Uint8Array(count);
  const depth = maxDepth <= 0xffff ? new Uint16Array(count) : new Uint32Array(count);
  for (let p = 0; p < count; p++) {
    const n = byOffset[p]!;
    type[n] = typeAt[p]!;
    depth[n] = depthAt[p]!;
  }
  return { type, depth };
}

