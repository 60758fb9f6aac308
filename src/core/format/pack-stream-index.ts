import { errorMessage } from '../../common/error-message.ts';
import { GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import { constants as bufferConstants } from 'node:buffer';
import { crc32, inflateSync } from 'node:zlib';
import { fail, PackScopeError } from '../errors.ts';
import { applyDelta, DeltaError } from './delta.ts';
import { positionOfOffset } from './sorted-offsets.ts';
import type { HashAlgorithm } from './hash-algorithm.ts';
import { parseIdx, type PackIndex } from './idx.ts';
import {
  isDeltaType,
  MAX_OBJECT_HEADER_BYTES,
  OBJ_OFS_DELTA,
  OBJ_REF_DELTA,
  ObjectHeader,
  PACK_HEADER_BYTES,
  parsePackHeader,
  readObjectHeader,
  TYPE_NAMES,
} from './pack-file.ts';
import { RandomAccessFile } from './random-access-file.ts';

/**
 * The index of a bare .pack (a fetch's, `pack-objects --stdout`'s), computed from the pack alone
 * the way `git index-pack` does (git-internals §2.1, §6.1): one sequential pass that parses each
 * entry's header and inflates its zlib stream to find where the entry ends (the pack stores no
 * compressed lengths), hashing every non-delta object ("type size\0" + content); then a pass that
 * applies every delta to its base, depth-first from each root in pack order, to hash the deltas
 * too, so REF_DELTA bases are found by id wherever they are. The result is the v2 .idx index-pack
 * would write, parsed like one read from disk, so everything built on a PackIndex works unchanged.
 *
 * Memory is bounded: one object inflated at a time (at most `maxObjectBytes`), and while resolving,
 * only the bases on the current path of the walk, within `maxHeldBaseBytes` (a base dropped over
 * the budget is rebuilt from its chain when a child still needs it, as index-pack's
 * prune_base_data/get_base_data do, §2.3).
 */
export interface StreamIndexOptions {
  /** The pack does not say (§6.5): SHA-1 unless the caller knows better. */
  hash: HashAlgorithm;
  /** Objects done out of 2 × count: the first pass, then the resolution of every object. */
  onProgress?: (done: number, total: number) => void;
  /** Largest object (or delta) inflated; larger ones are refused by offset. */
  maxObjectBytes?: number;
  /** Bases held while resolving deltas; index-pack's default core.deltaBaseCacheLimit (§2.2). */
  maxHeldBaseBytes?: number;
}

const DEFAULT_MAX_OBJECT_BYTES = Math.min(bufferConstants.MAX_LENGTH, 2 ** 32);
/** The sequential pass reads the pack through a window of this size. */
const WINDOW_BYTES = 1 << 20;
const PROGRESS_EVERY = 1 << 12;
const FANOUT_BYTES = 256 * 4;

/** What the first pass keeps per entry (pack order): never the data. */
interface Entries {
  offset: Float64Array;
  /** Offset where the entry ends (the next entry, or the trailer). */
  end: Float64Array;
  inPackType: Uint8Array;
  size: Float64Array;
  headerLength: Uint8Array;
  crc: Uint32Array;
  /** OFS_DELTA: the base's offset; −1 otherwise. */
  baseOffset: Float64Array;
  /** REF_DELTA base ids (`hash.size` bytes per entry) and object ids once known. */
  refBase: Buffer;
  oid: Buffer;
  known: Uint8Array;
}

/** Reads `packPath` alone and returns the index git index-pack would write for it. */
export function indexPackWithoutIdx(packPath: string, options: StreamIndexOptions): PackIndex {
  const file = RandomAccessFile.open(packPath);
  try {
    const reader = new PackStreamReader(packPath, file, options);
    const entries = reader.firstPass();
    reader.resolveDeltas(entries);
    const index = idxFor(packPath, entries, reader.trailer, options.hash);
    file.assertUnchanged();
    return index;
  } catch (error) {
    if (error instanceof PackScopeError && error.code !== 'changed') file.assertUnchanged();
    throw error;
  } finally {
    file.close();
  }
}

class PackStreamReader {
  private readonly hashSize: number;
  private readonly maxObjectBytes: number;
  private readonly maxHeldBaseBytes: number;
  private readonly dataEnd: number;
  private readonly header = new ObjectHeader();
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;
  private count = 0;
  private progressDone = 0;
  trailer: Buffer = Buffer.alloc(0);

  constructor(
    private readonly packPath: string,
    private readonly file: RandomAccessFile,
    private readonly options: StreamIndexOptions,
  ) {
    this.hashSize = options.hash.size;
    this.maxObjectBytes = options.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
    this.maxHeldBaseBytes = options.maxHeldBaseBytes ?? GIT_DEFAULT_LIMIT;
    this.dataEnd = file.size - this.hashSize;
  }

  /** §2.1 pass 1: every entry in stream order, inflated once to find its end; non-deltas hashed. */
  // Stays long: §2.1 pass 1 is one loop over the stream; the running offset and the pack's hash span every entry.
  firstPass(): Entries {
    const { packPath, file, hashSize, dataEnd } = this;
    const packHeader = parsePackHeader(
      packPath,
      file.read(0, Math.min(file.size, PACK_HEADER_BYTES)),
      file.size,
      hashSize,
    );
    const count = packHeader.count;
    // An entry is at least a header byte and a minimal zlib stream (8 bytes): refuse a count the
    // file cannot hold before allocating per-object columns for it.
    const most = Math.floor((dataEnd - PACK_HEADER_BYTES) / 9);
    if (count > most)
      throw fail(
        'bad-header',
        packPath,
        8,
        `pack header claims ${count} objects, but its ${file.size} bytes hold at most ${most}`,
      );
    this.count = count;
    const entries: Entries = {
      offset: new Float64Array(count),
      end: new Float64Array(count),
      inPackType: new Uint8Array(count),
      size: new Float64Array(count),
      headerLength: new Uint8Array(count),
      crc: new Uint32Array(count),
      baseOffset: new Float64Array(count).fill(-1),
      refBase: Buffer.alloc(count * hashSize),
      oid: Buffer.alloc(count * hashSize),
      known: new Uint8Array(count),
    };
    const packHash = this.options.hash.create();
    packHash.update(file.read(0, PACK_HEADER_BYTES));
    const header = this.header;
    let offset = PACK_HEADER_BYTES;
    for (let k = 0; k < count; k++) {
      if (offset >= dataEnd)
        throw fail(
          'truncated',
          packPath,
          offset,
          `the pack ends after ${k} of the ${count} objects its header announces (is it truncated?)`,
        );
      const head = this.bytesAt(offset, Math.min(MAX_OBJECT_HEADER_BYTES, dataEnd - offset));
      readObjectHeader(
        packPath,
        head.bytes,
        head.at,
        head.at + Math.min(MAX_OBJECT_HEADER_BYTES, dataEnd - offset),
        offset,
        hashSize,
        header,
      );
      const type = header.type;
      entries.offset[k] = offset;
      entries.inPackType[k] = type;
      entries.size[k] = header.size;
      entries.headerLength[k] = header.headerLength;
      if (type === OBJ_OFS_DELTA) entries.baseOffset[k] = header.baseOffset;
      if (type === OBJ_REF_DELTA)
        head.bytes.copy(entries.refBase, k * hashSize, header.baseOidAt, header.baseOidAt + hashSize);
      const { data, compressedBytes } = this.inflateStream(offset, offset + header.headerLength, header.size);
      const end = offset + header.headerLength + compressedBytes;
      entries.end[k] = end;
      const whole = this.bytesAt(offset, end - offset);
      const entryBytes = whole.bytes.subarray(whole.at, whole.at + end - offset);
      entries.crc[k] = crc32(entryBytes);
      packHash.update(entryBytes);
      if (!isDeltaType(type)) this.storeOid(entries, k, objectId(this.options.hash, type, data));
      offset = end;
      this.tick();
    }
    if (offset !== dataEnd) {
      throw fail(
        'bad-header',
        packPath,
        offset,
        `${dataEnd - offset} bytes follow the last of the ${count} objects before the ${hashSize}-byte trailer`,
      );
    }
    this.trailer = file.read(dataEnd, hashSize);
    const computed = packHash.digest();
    if (!computed.equals(this.trailer)) {
      throw fail(
        'checksum',
        packPath,
        dataEnd,
        `pack trailer ${this.trailer.toString('hex')} is not the checksum of the pack's bytes (${computed.toString('hex')})`,
      );
    }
    return entries;
  }

  /**
   * Pass 2: from each non-delta in pack order, apply its delta children (OFS children by base
   * offset, REF children by base id, REF first as index-pack dispatches them, §2.2) depth-first,
   * hashing each result. A REF child whose base comes later in the pack waits for that base.
   */
  resolveDeltas(entries: Entries): void {
    const { count, hashSize } = this;
    const ofsChildren = new Map<number, number[]>();
    const refChildren = new Map<string, number[]>();
    for (let k = 0; k < count; k++) {
      const type = entries.inPackType[k]!;
      if (type === OBJ_OFS_DELTA) {
        const base = positionOfOffset(entries.offset, entries.baseOffset[k]!);
        if (base < 0)
          throw fail(
            'bad-delta-base',
            this.packPath,
            entries.offset[k]!,
            `OFS_DELTA base offset ${entries.baseOffset[k]} is not the start of an object`,
          );
        pushTo(ofsChildren, base, k);
      } else if (type === OBJ_REF_DELTA) {
        pushTo(refChildren, entries.refBase.toString('hex', k * hashSize, (k + 1) * hashSize), k);
      }
    }
    const childrenOf = (k: number): number[] => [
      ...(refChildren.get(entries.oid.toString('hex', k * hashSize, (k + 1) * hashSize)) ?? []),
      ...(ofsChildren.get(k) ?? []),
    ];
    for (let root = 0; root < count; root++) {
      if (isDeltaType(entries.inPackType[root]!)) continue;
      this.tick();
      const children = childrenOf(root);
      if (children.length > 0) this.resolveFamily(entries, root, children, childrenOf);
    }
    for (let k = 0; k < count; k++) {
      if (entries.known[k]) continue;
      const offset = entries.offset[k]!;
      if (entries.inPackType[k] === OBJ_REF_DELTA) {
        const baseHex = entries.refBase.toString('hex', k * hashSize, (k + 1) * hashSize);
        throw fail(
          'missing-base',
          this.packPath,
          offset,
          `REF_DELTA base ${baseHex} is not in this pack (a thin pack: git index-pack --fix-thin completes it from a repository)`,
        );
      }
      throw fail(
        'delta-cycle',
        this.packPath,
        offset,
        'delta never resolves: its chain does not end in an object of this pack',
      );
    }
  }

  /** One family, depth-first, holding only the bases on the current path (rebuilt when dropped). */
  private resolveFamily(
    entries: Entries,
    root: number,
    rootChildren: number[],
    childrenOf: (k: number) => number[],
  ): void {
    const rootType = entries.inPackType[root]!;
    const path: number[] = [root];
    const data: (Buffer | undefined)[] = [this.inflateEntry(entries, root)];
    const pending: number[][] = [rootChildren];
    let held = data[0]!.length;
    while (path.length > 0) {
      const top = path.length - 1;
      const child = pending[top]!.shift();
      if (child === undefined) {
        held -= data[top]?.length ?? 0;
        path.pop();
        data.pop();
        pending.pop();
        continue;
      }
      if (entries.known[child]) continue; // a second copy of a REF base names it again (git ≥ 2.50 skips it too)
      const base = data[top] ?? this.rebuild(entries, path, data, top);
      if (data[top] === undefined) {
        data[top] = base;
        held += base.length;
      }
      const result = this.applyEntry(entries, child, base);
      this.storeOid(entries, child, objectId(this.options.hash, rootType, result));
      this.tick();
      const grandchildren = childrenOf(child);
      if (grandchildren.length === 0) continue;
      path.push(child);
      data.push(result);
      pending.push(grandchildren);
      held += result.length;
      // Over the budget: drop bases root-most first, never the newest.
      for (let i = 0; held > this.maxHeldBaseBytes && i < path.length - 1; i++) {
        held -= data[i]?.length ?? 0;
        data[i] = undefined;
      }
    }
  }

  /** The data of path[at], from the nearest held base below it (or the root inflated again). */
  private rebuild(entries: Entries, path: number[], data: (Buffer | undefined)[], at: number): Buffer {
    let from = at;
    while (from > 0 && data[from] === undefined) from--;
    let current = data[from] ?? this.inflateEntry(entries, path[0]!);
    for (let i = from + 1; i <= at; i++) current = this.applyEntry(entries, path[i]!, current);
    return current;
  }

  private applyEntry(entries: Entries, k: number, base: Buffer): Buffer {
    const delta = this.inflateEntry(entries, k);
    try {
      return applyDelta(base, delta, this.maxObjectBytes);
    } catch (error) {
      if (error instanceof DeltaError) throw fail('bad-delta', this.packPath, entries.offset[k]!, error.message);
      throw error;
    }
  }

  /**
   * Pass 2's reads are in family order, not pack order: read just the entry's own zlib bytes (its
   * end is known now), not a window around it.
   */
  private inflateEntry(entries: Entries, k: number): Buffer {
    const offset = entries.offset[k]!;
    const dataAt = offset + entries.headerLength[k]!;
    const declared = entries.size[k]!;
    const compressed = this.file.read(dataAt, entries.end[k]! - dataAt);
    try {
      const data = inflateSync(compressed, { maxOutputLength: Math.max(1, declared) });
      if (data.length === declared) return data;
    } catch {
      // The first pass inflated these very bytes: only a pack rewritten since can get here.
    }
    this.file.assertUnchanged();
    throw fail('changed', this.packPath, offset, 'object data no longer inflates as it did in the first pass');
  }

  /**
   * Inflates the zlib stream at `dataAt` to its declared size; returns the data and how many
   * compressed bytes the stream took. The input window grows until the stream ends inside it.
   */
  private inflateStream(offset: number, dataAt: number, declared: number): { data: Buffer; compressedBytes: number } {
    const { packPath, dataEnd } = this;
    if (declared > this.maxObjectBytes)
      throw fail(
        'too-large',
        packPath,
        offset,
        `object of ${declared} bytes is over the ${this.maxObjectBytes}-byte limit`,
      );
    const available = dataEnd - dataAt;
    // zlib's stored blocks cost 5 bytes per 64 KiB: a stream git wrote fits the first window.
    let length = Math.min(available, declared + Math.ceil(declared / 16384) * 5 + 64);
    for (;;) {
      const input = this.bytesAt(dataAt, length);
      let result: { buffer: Buffer; engine: { bytesWritten: number } };
      try {
        result = inflateSync(input.bytes.subarray(input.at, input.at + length), {
          info: true,
          maxOutputLength: Math.max(1, declared),
        }) as unknown as typeof result;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'Z_BUF_ERROR' && length < available) {
          length = Math.min(available, length * 2);
          continue;
        }
        if (code === 'Z_BUF_ERROR')
          throw fail(
            'truncated',
            packPath,
            offset,
            `the object's zlib stream runs past the end of the pack's objects (offset ${dataEnd}): the pack is truncated`,
          );
        const reason = errorMessage(error);
        throw fail(
          'bad-zlib',
          packPath,
          offset,
          `object data does not inflate to its declared ${declared} bytes: ${reason}`,
        );
      }
      if (result.buffer.length !== declared)
        throw fail(
          'bad-zlib',
          packPath,
          offset,
          `object inflates to ${result.buffer.length} bytes, its header declares ${declared}`,
        );
      return { data: result.buffer, compressedBytes: result.engine.bytesWritten };
    }
  }

  /** [position, position + length) of the pack, through the read window (re-read when outside it). */
  private bytesAt(position: number, length: number): { bytes: Buffer; at: number } {
    const start = this.windowStart;
    if (position < start || position + length > start + this.window.length) {
      const n = Math.min(Math.max(length, WINDOW_BYTES), this.file.size - position);
      this.window = this.file.read(position, n);
      this.windowStart = position;
    }
    return { bytes: this.window, at: position - this.windowStart };
  }

  private storeOid(entries: Entries, k: number, oid: Buffer): void {
    oid.copy(entries.oid, k * this.hashSize);
    entries.known[k] = 1;
  }

  private tick(): void {
    this.progressDone++;
    if (this.options.onProgress && (this.progressDone % PROGRESS_EVERY === 0 || this.progressDone === 2 * this.count))
      this.options.onProgress(this.progressDone, 2 * this.count);
  }
}

/** git's object id: the hash of "type size\0" and the content. */
function objectId(hash: HashAlgorithm, type: number, data: Buffer): Buffer {
  return hash.create().update(`${TYPE_NAMES[type]} ${data.length}\0`).update(data).digest();
}

function pushTo<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** The v2 .idx bytes for the entries (§6.2), parsed as if read from disk. */
function idxFor(packPath: string, entries: Entries, trailer: Buffer, hash: HashAlgorithm): PackIndex {
  const hashSize = hash.size;
  const count = entries.offset.length;
  const { oid } = entries;
  // source.compare(target, targetStart, targetEnd, sourceStart, sourceEnd): a's id against b's.
  const order = Array.from({ length: count }, (_, k) => k).sort((a, b) =>
    oid.compare(oid, b * hashSize, (b + 1) * hashSize, a * hashSize, (a + 1) * hashSize),
  );
  for (let i = 1; i < count; i++) {
    if (
      oid.compare(
        oid,
        order[i - 1]! * hashSize,
        order[i - 1]! * hashSize + hashSize,
        order[i]! * hashSize,
        order[i]! * hashSize + hashSize,
      ) === 0
    ) {
      throw fail(
        'mismatch',
        packPath,
        entries.offset[order[i]!]!,
        `object ${oid.toString('hex', order[i]! * hashSize, order[i]! * hashSize + hashSize)} is in the pack twice`,
      );
    }
  }
  let large = 0;
  for (let k = 0; k < count; k++) if (entries.offset[k]! >= 0x80000000) large++;
  const namesAt = 8 + FANOUT_BYTES;
  const crcAt = namesAt + count * hashSize;
  const offsetsAt = crcAt + count * 4;
  const largeAt = offsetsAt + count * 4;
  const checksumsAt = largeAt + large * 8;
  const bytes = Buffer.alloc(checksumsAt + 2 * hashSize);
  bytes.writeUInt32BE(0xff744f63, 0);
  bytes.writeUInt32BE(2, 4);
  const fanout = new Uint32Array(256);
  let nextLarge = 0;
  order.forEach((k, n) => {
    oid.copy(bytes, namesAt + n * hashSize, k * hashSize, (k + 1) * hashSize);
    fanout[oid[k * hashSize]!]!++;
    bytes.writeUInt32BE(entries.crc[k]!, crcAt + n * 4);
    const offset = entries.offset[k]!;
    if (offset < 0x80000000) {
      bytes.writeUInt32BE(offset, offsetsAt + n * 4);
    } else {
      bytes.writeUInt32BE((0x80000000 | nextLarge) >>> 0, offsetsAt + n * 4);
      bytes.writeUInt32BE(Math.floor(offset / 0x100000000), largeAt + nextLarge * 8);
      bytes.writeUInt32BE(offset % 0x100000000, largeAt + nextLarge * 8 + 4);
      nextLarge++;
    }
  });
  let total = 0;
  for (let b = 0; b < 256; b++) {
    total += fanout[b]!;
    bytes.writeUInt32BE(total, 8 + b * 4);
  }
  trailer.copy(bytes, checksumsAt);
  hash
    .create()
    .update(bytes.subarray(0, checksumsAt + hashSize))
    .digest()
    .copy(bytes, checksumsAt + hashSize);
  return parseIdx(`${packPath} (index computed from the pack)`, bytes, { hash });
}
