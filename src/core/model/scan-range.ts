import { fail } from '../errors.ts';
import { positionOfOffsetBefore } from '../format/sorted-offsets.ts';
import type { PackIndex } from '../format/idx.ts';
import { InflateHead, InflateHeadStatus } from '../format/inflate-head.ts';
import { DeltaError, readDeltaResultSize } from '../format/delta.ts';
import {
  isDeltaType,
  MAX_OBJECT_HEADER_BYTES,
  OBJ_OFS_DELTA,
  OBJ_REF_DELTA,
  ObjectHeader,
  readObjectHeader,
} from '../format/pack-file.ts';
import type { RandomAccessFile } from '../format/random-access-file.ts';

const WINDOW_BYTES = 8 << 20;
/**
 * A header-only scan reads up to this much per read(2). Small reads cost a syscall each (nearly
 * half the scan, the copy out of the page cache almost nothing: bench/README.md, "Figures the
 * comments rely on"), so the window is large and only big entries are skipped.
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
/** The base size and the result size (§1.8): the inflate stops once both varints are out. */
const DELTA_SIZE_VARINTS = 2;

/** What every scanner of one pack reads: the pack order, already checked (buildPackModel). */
export interface ScanInput {
  packFile: string;
  /** For REF_DELTA bases (find) and for errors. */
  index: PackIndex;
  /** Object numbers in pack order. */
  byOffset: Uint32Array;
  /** Offsets in pack order, increasing, each inside [12, dataEnd). */
  sortedOffsets: Float64Array;
  /** Where the last entry ends: the pack's size less its trailing checksum. */
  dataEnd: number;
  /** false: a header-only scan (resultSize of deltas stays 0, large bodies are skipped). */
  wantResultSizes: boolean;
}

/**
 * What a scan writes, in pack order (position p is the p-th entry by offset). Plain arrays on one
 * thread; views of shared memory when several threads scan ranges of one pack (parallel-scan.ts).
 * Each position is written by whichever scanner takes it, always with the same values.
 */
export interface ScanOutput {
  /** Type as stored: 1–4, 6 or 7. */
  inPackTypeAt: Uint8Array;
  /** Header size; 0xffffffff means "see the scanner's sizeOverflow". */
  sizeLow: Uint32Array;
  /**
   * Result size (objects: their size; deltas: from the delta header); 0xffffffff as above. Left
   * unwritten by a header-only scan (wantResultSizes false).
   */
  resultSizeLow: Uint32Array;
  /** Pack position of each entry's base, −1 for non-deltas. */
  basePosition: Int32Array;
}

export function allocateScanOutput(count: number, shared: boolean): ScanOutput {
  const bytes = (n: number): ArrayBuffer | SharedArrayBuffer =>
    shared ? new SharedArrayBuffer(n) : new ArrayBuffer(n);
  return {
    inPackTypeAt: new Uint8Array(bytes(count)),
    sizeLow: new Uint32Array(bytes(count * 4)),
    resultSizeLow: new Uint32Array(bytes(count * 4)),
    basePosition: new Int32Array(bytes(count * 4)),
  };
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

/**
 * Decodes the entries of pack positions [from, to): one sequential pass over their headers (and, for
 * a full model, the first bytes of each delta's data). One scanner per thread; its file handle,
 * window and inflater are its own.
 */
export class RangeScanner {
  /** Sizes of 4 GiB or more, by pack position (sizeLow holds 0xffffffff there). */
  readonly sizeOverflow = new Map<number, number>();
  readonly resultSizeOverflow = new Map<number, number>();
  private readonly window: PackWindow;
  private readonly entry = new ObjectHeader();
  /**
   * Made at the first delta whose result size is read: its tables are a dozen typed arrays, and
   * 3,000 one-object packs (no delta) made 3,000 of them for nothing.
   */
  private inflater: InflateHead | undefined;
  private positionOfColumn: Uint32Array | undefined;

  constructor(
    private readonly input: ScanInput,
    private readonly output: ScanOutput,
    private readonly pack: RandomAccessFile,
  ) {
    // A header-only scan reads small windows so that large objects are skipped, not read. Never
    // wider than the pack: 3,000 one-object packs each allocating 8 MiB spent most of a build in GC.
    this.window = new PackWindow(
      pack,
      Math.max(1, Math.min(pack.size, input.wantResultSizes ? WINDOW_BYTES : HEADER_SCAN_WINDOW_BYTES)),
    );
  }

  /** Pack position of each object number; built the first time a REF delta is met (only they need it). */
  private positionOf(): Uint32Array {
    if (!this.positionOfColumn) {
      const { byOffset } = this.input;
      this.positionOfColumn = new Uint32Array(byOffset.length);
      for (let p = 0; p < byOffset.length; p++) this.positionOfColumn[byOffset[p]!] = p;
    }
    return this.positionOfColumn;
  }

  /** Scans positions [from, to); `onEntries(n)` hears of every `every` entries done (and the rest at the end). */
  // Stays long: the scanner's hot loop: columns and the window are hoisted into locals once; steps split out would take
  // them all as arguments.
  scan(from: number, to: number, onEntries?: (entries: number) => void, every = 1 << 16): void {
    const { packFile, index, byOffset, sortedOffsets, dataEnd, wantResultSizes } = this.input;
    const { inPackTypeAt, sizeLow, resultSizeLow, basePosition } = this.output;
    const hashSize = index.hash.size;
    const count = sortedOffsets.length;
    const window = this.window;
    const entry = this.entry;
    let reported = from;
    for (let p = from; p < to; p++) {
      if (onEntries && p - reported >= every) {
        onEntries(p - reported);
        reported = p;
      }
      const offset = sortedOffsets[p]!;
      const next = p + 1 < count ? sortedOffsets[p + 1]! : dataEnd;
      const entryBytes = next - offset;

      const available = Math.min(
        entryBytes,
        wantResultSizes ? MAX_OBJECT_HEADER_BYTES + HEAD_INPUT_BYTES : MAX_OBJECT_HEADER_BYTES,
      );
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
      else {
        sizeLow[p] = 0xffffffff;
        this.sizeOverflow.set(p, objectSize);
      }

      if (type === OBJ_OFS_DELTA) {
        const position = positionOfOffsetBefore(sortedOffsets, p, baseOffset);
        if (position < 0) {
          throw fail(
            'bad-delta-base',
            packFile,
            offset,
            `OFS_DELTA base offset ${baseOffset} is not the start of an object`,
          );
        }
        basePosition[p] = position;
      } else if (type === OBJ_REF_DELTA) {
        const baseObject = index.find(bytes, at + headerLength - hashSize);
        if (baseObject < 0) {
          const baseHex = bytes.toString('hex', at + headerLength - hashSize, at + headerLength);
          throw fail('missing-base', packFile, offset, `REF_DELTA base ${baseHex} is not in this pack`);
        }
        if (baseObject === byOffset[p]!)
          throw fail('delta-cycle', packFile, offset, 'REF_DELTA names itself as its base');
        basePosition[p] = this.positionOf()[baseObject]!;
      } else {
        basePosition[p] = -1;
      }

      // Header-only: resultSizeLow is not written at all; the build derives the column from the
      // type and size (a delta's is 0, an object's its size).
      if (!wantResultSizes) continue;
      let resultSize: number;
      if (isDeltaType(type)) {
        resultSize = this.deltaResultSize(
          bytes,
          at + headerLength,
          at + available,
          offset,
          entryBytes - headerLength,
          headerLength,
        );
      } else {
        resultSize = objectSize;
      }
      if (resultSize < 0xffffffff) resultSizeLow[p] = resultSize;
      else {
        resultSizeLow[p] = 0xffffffff;
        this.resultSizeOverflow.set(p, resultSize);
      }
    }
    if (onEntries && to > reported) onEntries(to - reported);
  }

  /** git-internals §1.8: a delta's result size comes from a partial inflate of its payload. */
  private deltaResultSize(
    bytes: Buffer,
    dataAt: number,
    availableEnd: number,
    offset: number,
    compressedBytes: number,
    headerLength: number,
  ): number {
    const { packFile } = this.input;
    const inflater = (this.inflater ??= new InflateHead(DELTA_HEADER_BYTES));
    let status = inflater.run(
      bytes,
      dataAt,
      Math.min(availableEnd, dataAt + compressedBytes),
      DELTA_HEADER_BYTES,
      DELTA_SIZE_VARINTS,
    );
    if (status === InflateHeadStatus.NeedInput && compressedBytes > availableEnd - dataAt) {
      // Rare: the header lies beyond the first few KiB of compressed data. Read the whole entry.
      if (compressedBytes > MAX_HEAD_INPUT_BYTES) {
        throw fail(
          'bad-zlib',
          packFile,
          offset,
          `delta header not found in the first ${availableEnd - dataAt} compressed bytes`,
        );
      }
      const whole = this.pack.read(offset + headerLength, compressedBytes);
      status = inflater.run(whole, 0, whole.length, DELTA_HEADER_BYTES, DELTA_SIZE_VARINTS);
    }
    if (status === InflateHeadStatus.Corrupt)
      throw fail('bad-zlib', packFile, offset, 'delta data is not a valid zlib stream');
    if (status === InflateHeadStatus.NeedInput)
      throw fail('bad-zlib', packFile, offset, 'zlib data ends before the delta header');
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
