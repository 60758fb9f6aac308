import { constants } from 'node:buffer';
import { fail } from '../errors.ts';
import { SHA1, SHA256, type HashAlgorithm } from './hash-algorithm.ts';
import { RandomAccessFile } from './random-access-file.ts';

/** git-internals §6.2: `ff 74 4f 63`, the v2+ idx signature. */
const IDX_V2_MAGIC = 0xff744f63;
const FANOUT_BYTES = 256 * 4;
const MAX_LENGTH = constants.MAX_LENGTH;

/**
 * Where an idx file keeps its name and CRC32 tables: positions in the file itself, for error
 * messages and for reading the CRCs, whatever part of the file `PackIndex.bytes` still holds.
 */
export interface IdxFileLayout {
  namesStart: number;
  nameStride: number;
  /** Byte offset of the CRC32 table (v2 only). */
  crcStart: number | undefined;
}

/**
 * A parsed .idx (v1 or v2). The name table stays inside the file's own buffer; offsets are decoded
 * once into a Float64Array because packs over 4 GiB use the large-offset table (§6.2).
 *
 * A model keeps `namesOnly()`: the names and the two trailing checksums, without the CRC32 and
 * 32-bit offset tables (8 bytes per object that the decoded offsets and a re-read cover; the retained
 * heap budget of bench/README.md, "Retained heap per object").
 */
export class PackIndex {
  /** Where the tables lie in the file (the same as in `bytes` while `bytes` is the whole file). */
  readonly fileLayout: IdxFileLayout;

  constructor(
    readonly file: string,
    readonly version: 1 | 2,
    readonly hash: HashAlgorithm,
    readonly count: number,
    /** The whole idx file, or after namesOnly() the name table followed by the trailer's two checksums. */
    readonly bytes: Buffer,
    readonly fanout: Uint32Array,
    /** Byte offset of the first name inside `bytes`; names are `hash.size` apart (v2) or `hash.size + 4` (v1). */
    private readonly namesStart: number,
    private readonly nameStride: number,
    /** Byte offset of the CRC32 table inside `bytes` (v2 while the whole file is kept). */
    private readonly crcStart: number | undefined,
    readonly offsets: Float64Array,
    readonly largeOffsetCount: number,
    fileLayout?: IdxFileLayout,
  ) {
    this.fileLayout = fileLayout ?? { namesStart, nameStride, crcStart };
  }

  /** True while `bytes` is the whole idx file (its checksum can be recomputed, its CRC32s read). */
  get whole(): boolean {
    return (
      this.namesStart === this.fileLayout.namesStart &&
      this.nameStride === this.fileLayout.nameStride &&
      this.crcStart === this.fileLayout.crcStart
    );
  }

  /**
   * This index keeping only what lookups need: the names (copied, `hash.size` apart) and the two
   * trailing checksums. The file's CRC32 table and 32-bit offset table are dropped; positions for
   * errors still name the file's bytes (fileLayout). `shared`: the copy lives in a SharedArrayBuffer.
   */
  namesOnly(shared = false): PackIndex {
    const size = this.hash.size;
    if (!this.whole && (!shared || this.bytes.buffer instanceof SharedArrayBuffer)) return this;
    // Shared: for the threads of a parallel build (parallel-scan.ts), which read it without a copy.
    const length = this.count * size + 2 * size;
    const compact = shared ? Buffer.from(new SharedArrayBuffer(length)) : Buffer.allocUnsafeSlow(length);
    if (this.nameStride === size) this.bytes.copy(compact, 0, this.namesStart, this.namesStart + this.count * size);
    else
      for (let n = 0; n < this.count; n++)
        this.bytes.copy(compact, n * size, this.namePosition(n), this.namePosition(n) + size);
    this.bytes.copy(compact, this.count * size, this.bytes.length - 2 * size);
    return new PackIndex(
      this.file,
      this.version,
      this.hash,
      this.count,
      compact,
      this.fanout,
      0,
      size,
      undefined,
      this.offsets,
      this.largeOffsetCount,
      this.fileLayout,
    );
  }

  /** Everything needed to rebuild this index in another thread without parsing it again. */
  toTransfer(): TransferredIndex {
    return {
      file: this.file,
      version: this.version,
      hashName: this.hash.name,
      count: this.count,
      bytes: this.bytes,
      fanout: this.fanout,
      namesStart: this.namesStart,
      nameStride: this.nameStride,
      crcStart: this.crcStart,
      offsets: this.offsets,
      largeOffsetCount: this.largeOffsetCount,
      fileLayout: this.fileLayout,
    };
  }

  static fromTransfer(t: TransferredIndex): PackIndex {
    const hash = t.hashName === SHA256.name ? SHA256 : t.hashName === SHA1.name ? SHA1 : undefined;
    if (!hash) throw new Error(`unknown hash algorithm ${t.hashName}`);
    // Structured cloning turns a Buffer into a plain Uint8Array.
    const bytes = Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength);
    return new PackIndex(
      t.file,
      t.version,
      hash,
      t.count,
      bytes,
      t.fanout,
      t.namesStart,
      t.nameStride,
      t.crcStart,
      t.offsets,
      t.largeOffsetCount,
      t.fileLayout,
    );
  }

  /** Throws unless the names are sorted, distinct and under their fan-out entries (parseIdx runs it unless deferred). */
  checkNameOrder(): void {
    checkNamesSorted(this, this.bytes, this.namesStart, this.nameStride, this.hash.size);
  }

  /** Byte position of object `n`'s name inside `bytes`. */
  namePosition(n: number): number {
    return this.namesStart + n * this.nameStride;
  }

  /** Byte position of object `n`'s name inside the idx file (for errors: `bytes` may hold names only). */
  nameFilePosition(n: number): number {
    return this.fileLayout.namesStart + n * this.fileLayout.nameStride;
  }

  /** Byte position of object `n`'s offset inside the idx file (v2: its word in the 32-bit offset table). */
  offsetPosition(n: number): number {
    const { namesStart, nameStride, crcStart } = this.fileLayout;
    return crcStart === undefined ? namesStart - 4 + n * nameStride : crcStart + (this.count + n) * 4;
  }

  oidHex(n: number): string {
    const at = this.namePosition(n);
    return this.bytes.toString('hex', at, at + this.hash.size);
  }

  oidBytes(n: number): Buffer {
    const at = this.namePosition(n);
    return this.bytes.subarray(at, at + this.hash.size);
  }

  /** True when the idx file has a CRC32 table (v2). */
  hasCrc(): boolean {
    return this.fileLayout.crcStart !== undefined;
  }

  /** Byte position of object `n`'s CRC32 inside the idx file (v2). */
  crcPosition(n: number): number {
    if (this.fileLayout.crcStart === undefined) throw new Error('idx v1 has no CRC32 table');
    return this.fileLayout.crcStart + n * 4;
  }

  crc32(n: number): number {
    if (this.fileLayout.crcStart === undefined) throw new Error('idx v1 has no CRC32 table');
    if (this.crcStart === undefined)
      throw new Error('this index kept only its names (namesOnly): read the idx again for its CRC32 table');
    return this.bytes.readUInt32BE(this.crcStart + n * 4);
  }

  /** The pack checksum the idx was written for (§6.2 trailer). */
  get packChecksum(): Buffer {
    const end = this.bytes.length - this.hash.size;
    return this.bytes.subarray(end - this.hash.size, end);
  }

  get idxChecksum(): Buffer {
    return this.bytes.subarray(this.bytes.length - this.hash.size);
  }

  /** Object number of the exact id in `oid` (from `at`), or -1. */
  find(oid: Uint8Array, at = 0): number {
    const first = oid[at]!;
    let low = first === 0 ? 0 : this.fanout[first - 1]!;
    let high = this.fanout[first]!;
    const size = this.hash.size;
    const names = this.bytes;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const base = this.namesStart + mid * this.nameStride;
      let cmp = 0;
      for (let i = 0; i < size; i++) {
        const d = names[base + i]! - oid[at + i]!;
        if (d !== 0) {
          cmp = d;
          break;
        }
      }
      if (cmp === 0) return mid;
      if (cmp < 0) low = mid + 1;
      else high = mid;
    }
    return -1;
  }

  /**
   * The range [first, end) of objects whose hex id starts with `prefixHex` (any length up to the
   * full id; odd lengths allowed). Both are equal when nothing matches.
   */
  prefixRange(prefixHex: string): [number, number] {
    const nibbles = prefixHex.length;
    if (nibbles === 0) return [0, this.count];
    const firstByte = nibbles >= 2 ? parseInt(prefixHex.slice(0, 2), 16) : parseInt(prefixHex[0]!, 16) << 4;
    const lowBucket = firstByte === 0 ? 0 : this.fanout[firstByte - 1]!;
    const lastByte = nibbles >= 2 ? firstByte : firstByte | 0x0f;
    const highBucket = this.fanout[lastByte]!;
    const lower = this.searchPrefix(prefixHex, lowBucket, highBucket, false);
    const upper = this.searchPrefix(prefixHex, lower, highBucket, true);
    return [lower, upper];
  }

  /** First object in [low, high) whose id compares >= (or >, when `after`) the prefix. */
  private searchPrefix(prefixHex: string, low: number, high: number, after: boolean): number {
    while (low < high) {
      const mid = (low + high) >>> 1;
      const cmp = this.comparePrefix(mid, prefixHex);
      if (cmp < 0 || (after && cmp === 0)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private comparePrefix(n: number, prefixHex: string): number {
    const base = this.namePosition(n);
    for (let i = 0; i < prefixHex.length; i++) {
      const byte = this.bytes[base + (i >> 1)]!;
      const nibble = i & 1 ? byte & 0x0f : byte >> 4;
      const want = parseInt(prefixHex[i]!, 16);
      if (nibble !== want) return nibble - want;
    }
    return 0;
  }
}

/** Sizes that an idx of `count` objects can have for a hash size, or undefined. */
function largeOffsetCountFor(version: 1 | 2, count: number, hashSize: number, fileSize: number): number | undefined {
  if (version === 1) {
    return fileSize === FANOUT_BYTES + count * (hashSize + 4) + 2 * hashSize ? 0 : undefined;
  }
  const minimum = 8 + FANOUT_BYTES + count * (hashSize + 8) + 2 * hashSize;
  if (fileSize < minimum || (fileSize - minimum) % 8 !== 0) return undefined;
  const large = (fileSize - minimum) / 8;
  // §6.2: only objects whose offset needs it use the table, so it cannot hold more than one per object.
  return large <= count ? large : undefined;
}

/** A PackIndex as plain data (typed arrays), for postMessage between threads. */
export interface TransferredIndex {
  file: string;
  version: 1 | 2;
  hashName: string;
  count: number;
  bytes: Uint8Array;
  fanout: Uint32Array;
  namesStart: number;
  nameStride: number;
  crcStart: number | undefined;
  offsets: Float64Array;
  largeOffsetCount: number;
  fileLayout: IdxFileLayout;
}

export interface ParseIdxOptions {
  /** The repository's hash algorithm when known; otherwise it is inferred from the idx's size. */
  hash?: HashAlgorithm;
  /**
   * Leave the O(count) name-order check to the caller (`PackIndex.checkNameOrder`): a model file
   * built from this very idx (its size, time and checksum recorded under the seal) vouches that a
   * build already ran it (docs/security.md, "The model cache's threat model"). Every bound is still
   * checked here: a lookup stays inside the name table whatever order the names are in.
   */
  deferNameOrder?: boolean;
}

export interface ReadIdxOptions extends ParseIdxOptions {
  /**
   * Read only what a model keeps (PackIndex.namesOnly: names, offsets, the two checksums), never
   * the CRC32 table, and the names straight into their own buffer. A v1 idx is read whole.
   */
  namesOnly?: boolean;
  /**
   * With namesOnly, for a v2 idx: the name and offset tables are read when first used, and until
   * then an object's name alone from the file (the few that `stats` lists). For a caller whose model
   * file vouches for this very idx (model-store.ts); every later read checks that the file is still
   * the one opened (its inode, size and time), or fails as changed.
   */
  tablesOnFirstUse?: boolean;
}

/** An idx as read, with the size and modification time it had when it was opened. */
export interface ReadIdx {
  index: PackIndex;
  size: number;
  mtimeMs: number;
}

/**
 * Reads an idx whole once its size fits what its fan-out table declares (at most 8 + 1024 bytes
 * read first): a sparse file of gigabytes is refused by name before anything of its size is
 * allocated. parseIdx then checks the exact size.
 */
export function readIdxFile(file: string, options: ParseIdxOptions = {}): PackIndex {
  return readIdxFileWithStat(file, options).index;
}

/** readIdxFile, with the file's size and modification time as read when it was opened. */
export function readIdxFileWithStat(file: string, options: ReadIdxOptions = {}): ReadIdx {
  const handle = RandomAccessFile.open(file);
  try {
    const namesOnly = options.namesOnly
      ? ((options.tablesOnFirstUse ? idxTablesOnFirstUse(handle, options) : undefined) ??
        readIdxNamesOnly(handle, options))
      : undefined;
    if (namesOnly) {
      if (!options.deferNameOrder) namesOnly.checkNameOrder();
      return { index: namesOnly, size: handle.size, mtimeMs: handle.mtimeMs };
    }
    const head = handle.read(0, Math.min(handle.size, 8 + FANOUT_BYTES));
    const largest = largestIdxSize(head, options.hash);
    if (largest !== undefined && handle.size > largest) {
      throw fail(
        'bad-header',
        file,
        undefined,
        `idx is ${handle.size} bytes, more than its fan-out table's object count allows (at most ${largest} bytes)`,
      );
    }
    return { index: parseIdx(file, handle.read(0, handle.size), options), size: handle.size, mtimeMs: handle.mtimeMs };
  } finally {
    handle.close();
  }
}

/**
 * The most bytes an idx with this header can have (every object with a large offset, names of the
 * longest hash), or undefined while the header is incomplete. Without the v2 signature the count is
 * read both where v1 keeps it and where a v2 with a damaged signature would, so that such a file
 * still gets parseIdx's own diagnosis.
 */
function largestIdxSize(head: Buffer, hash: HashAlgorithm | undefined): number | undefined {
  const hashSize = (hash ?? SHA256).size;
  const largestV2 = (count: number): number => 8 + FANOUT_BYTES + count * (hashSize + 16) + 2 * hashSize;
  if (head.length < 8 + FANOUT_BYTES) return undefined;
  const v2Count = head.readUInt32BE(8 + FANOUT_BYTES - 4);
  if (head.readUInt32BE(0) === IDX_V2_MAGIC) return largestV2(v2Count);
  const v1Count = head.readUInt32BE(FANOUT_BYTES - 4);
  return Math.max(FANOUT_BYTES + v1Count * (hashSize + 4) + 2 * hashSize, largestV2(v2Count));
}

/** What an idx's first 1032 bytes and its size say: where its tables are, checked against its size. */
interface IdxHead {
  version: 1 | 2;
  hash: HashAlgorithm;
  count: number;
  fanout: Uint32Array;
  largeOffsetCount: number;
  namesStart: number;
  nameStride: number;
  crcStart: number | undefined;
}

/**
 * The whole idx in `bytes`, every bound checked (git-internals §6.2): the fan-out table, the file's
 * size against the count, each offset, and (unless deferred) the names' order.
 */
export function parseIdx(file: string, bytes: Buffer, options: ParseIdxOptions = {}): PackIndex {
  const head = parseIdxHead(file, bytes, bytes.length, options);
  const { version, hash, count, fanout, largeOffsetCount, namesStart, nameStride, crcStart } = head;
  let offsets: Float64Array;
  if (version === 2) {
    const offsetStart = crcStart! + count * 4;
    const largeStart = offsetStart + count * 4;
    offsets = decodeOffsets(file, head, bigEndianWords(bytes, offsetStart, count), bytes, largeStart, largeStart);
  } else {
    offsets = new Float64Array(count);
    for (let n = 0; n < count; n++) offsets[n] = bytes.readUInt32BE(FANOUT_BYTES + n * nameStride);
  }
  const index = new PackIndex(
    file,
    version,
    hash,
    count,
    bytes,
    fanout,
    namesStart,
    nameStride,
    crcStart,
    offsets,
    largeOffsetCount,
  );
  if (!options.deferNameOrder) index.checkNameOrder();
  return index;
}

/**
 * A v2 idx read as a model keeps it (PackIndex.namesOnly), straight from the file: the names into
 * a buffer of their own followed by the two checksums, the offset tables decoded, the CRC32 table
 * never read. The same bounds as parseIdx; none of the 24 MB whole-file read and 17 MB copy of
 * git.git's idx that a reopen otherwise paid in fresh memory (bench/README.md, "Persisted reopen").
 * Undefined for a v1 idx (names and offsets interleaved): read it whole.
 */
function readIdxNamesOnly(handle: RandomAccessFile, options: ParseIdxOptions): PackIndex | undefined {
  const head = readV2Head(handle, options);
  if (head === undefined) return undefined;
  const { names, offsets } = readNamesAndOffsets(handle, head);
  return new PackIndex(
    handle.path,
    2,
    head.hash,
    head.count,
    names,
    head.fanout,
    0,
    head.hash.size,
    undefined,
    offsets,
    head.largeOffsetCount,
    {
      namesStart: head.namesStart,
      nameStride: head.nameStride,
      crcStart: head.crcStart,
    },
  );
}

/** A v2 idx's head, every bound of it checked; undefined for a v1 idx or one too large for a Buffer. */
function readV2Head(handle: RandomAccessFile, options: ParseIdxOptions): IdxHead | undefined {
  // A file larger than a Buffer can hold gets the whole read's own refusal, by name.
  if (handle.size > MAX_LENGTH) return undefined;
  const headBytes = handle.read(0, Math.min(handle.size, 8 + FANOUT_BYTES));
  if (headBytes.length < 8 || headBytes.readUInt32BE(0) !== IDX_V2_MAGIC) return undefined;
  return parseIdxHead(handle.path, headBytes, handle.size, options);
}

/** The name table with the two trailing checksums after it, and the decoded offsets, of a v2 idx. */
function readNamesAndOffsets(handle: RandomAccessFile, head: IdxHead): { names: Buffer; offsets: Float64Array } {
  const { hash, count, largeOffsetCount, namesStart, crcStart } = head;
  const size = hash.size;
  const names = Buffer.allocUnsafeSlow(count * size + 2 * size);
  handle.readInto(names, 0, count * size, namesStart);
  handle.readInto(names, count * size, 2 * size, handle.size - 2 * size);
  const offsetStart = crcStart! + count * 4;
  const words = Buffer.allocUnsafeSlow(count * 4);
  handle.readInto(words, 0, count * 4, offsetStart);
  words.swap32();
  const largeStart = offsetStart + count * 4;
  const large = handle.read(largeStart, largeOffsetCount * 8);
  const offsets = decodeOffsets(handle.path, head, new Uint32Array(words.buffer, 0, count), large, 0, largeStart);
  return { names, offsets };
}

/**
 * A v2 idx as readIdxNamesOnly gives it, its tables read on first use (ReadIdxOptions
 * tablesOnFirstUse): `bytes` and `offsets` are read when first touched; the checksums come from the
 * trailer read now, and an object's name from the file until the tables are read.
 */
function idxTablesOnFirstUse(handle: RandomAccessFile, options: ParseIdxOptions): PackIndex | undefined {
  const head = readV2Head(handle, options);
  if (head === undefined) return undefined;
  return new IdxTablesOnFirstUse(handle, head);
}

class IdxTablesOnFirstUse extends PackIndex {
  private readonly identity: string;
  private readonly trailer: Buffer;
  private tables: { names: Buffer; offsets: Float64Array } | undefined;
  /** A small idx's bytes, read at open: its tables and names come from them, not from another open. */
  private snapshot: RandomAccessFile | undefined;

  constructor(handle: RandomAccessFile, head: IdxHead) {
    const size = head.hash.size;
    const trailer = handle.read(handle.size - 2 * size, 2 * size);
    super(
      handle.path,
      2,
      head.hash,
      head.count,
      trailer,
      head.fanout,
      0,
      size,
      undefined,
      new Float64Array(0),
      head.largeOffsetCount,
      {
        namesStart: head.namesStart,
        nameStride: head.nameStride,
        crcStart: head.crcStart,
      },
    );
    this.identity = handle.identity;
    this.trailer = trailer;
    this.snapshot = handle.snapshot();
    const read = (): { names: Buffer; offsets: Float64Array } => {
      this.tables ??= this.withSameFile((file) => readNamesAndOffsets(file, head));
      this.snapshot = undefined; // the tables hold all that is read of it from now on
      return this.tables;
    };
    for (const [field, value] of [
      ['bytes', () => read().names],
      ['offsets', () => read().offsets],
    ] as const)
      Object.defineProperty(this, field, {
        configurable: true,
        enumerable: true,
        get: () => {
          const loaded = value();
          Object.defineProperty(this, field, { value: loaded, enumerable: true, writable: false, configurable: false });
          return loaded;
        },
      });
  }

  /** Runs `read` on the idx (its bytes read at open, when small), failing as changed when it is no longer the file first opened. */
  private withSameFile<T>(read: (file: RandomAccessFile) => T): T {
    if (this.snapshot !== undefined) return read(this.snapshot);
    const file = RandomAccessFile.open(this.file);
    try {
      if (file.identity !== this.identity)
        throw fail('changed', this.file, undefined, 'idx changed since it was opened (replaced, or written in place)');
      return read(file);
    } finally {
      file.close();
    }
  }

  override get packChecksum(): Buffer {
    return this.trailer.subarray(0, this.hash.size);
  }

  override get idxChecksum(): Buffer {
    return this.trailer.subarray(this.hash.size);
  }

  override oidBytes(n: number): Buffer {
    if (this.tables !== undefined) return super.oidBytes(n);
    if (!(Number.isInteger(n) && n >= 0 && n < this.count)) return Buffer.alloc(0);
    return this.withSameFile((file) => file.read(this.nameFilePosition(n), this.hash.size));
  }

  override oidHex(n: number): string {
    return this.tables !== undefined ? super.oidHex(n) : this.oidBytes(n).toString('hex');
  }
}

// Stays long: the idx's header and fan-out in file order (git-internals §6.2); each check guards the reads after it.
function parseIdxHead(file: string, bytes: Buffer, fileSize: number, options: ParseIdxOptions): IdxHead {
  if (fileSize < 8) throw fail('truncated', file, fileSize, `idx is only ${fileSize} bytes`);
  const version: 1 | 2 = bytes.readUInt32BE(0) === IDX_V2_MAGIC ? 2 : 1;
  if (version === 2) {
    const declared = bytes.readUInt32BE(4);
    if (declared !== 2)
      throw fail('bad-version', file, 4, `unsupported idx version ${declared} (PackScope reads 1 and 2)`);
  } else {
    // §6.2: v1 has no signature. Its first word counts the objects under 00, which the file must
    // have room to list; a damaged v2 signature (or not an idx at all) fails this.
    const hashSize = (options.hash ?? SHA1).size;
    const first = bytes.readUInt32BE(0);
    if (first > Math.max(0, Math.floor((fileSize - FANOUT_BYTES - 2 * hashSize) / (hashSize + 4)))) {
      throw fail(
        'bad-magic',
        file,
        0,
        `not an idx: no v2 signature (ff 74 4f 63), and read as v1 its first fan-out entry (${first}) counts more objects than ${fileSize} bytes can list`,
      );
    }
  }
  const fanoutStart = version === 2 ? 8 : 0;
  if (fileSize < fanoutStart + FANOUT_BYTES || bytes.length < fanoutStart + FANOUT_BYTES) {
    throw fail('truncated', file, fileSize, 'idx ends inside the fan-out table');
  }
  const fanout = new Uint32Array(256);
  let previous = 0;
  for (let i = 0; i < 256; i++) {
    const value = bytes.readUInt32BE(fanoutStart + i * 4);
    if (value < previous) {
      throw fail(
        'bad-fanout',
        file,
        fanoutStart + i * 4,
        `fan-out entry ${i} (${value}) is smaller than entry ${i - 1} (${previous})`,
      );
    }
    fanout[i] = value;
    previous = value;
  }
  const count = fanout[255]!;

  const candidates = options.hash ? [options.hash] : [SHA1, SHA256];
  for (const candidate of candidates) {
    const large = largeOffsetCountFor(version, count, candidate.size, fileSize);
    if (large === undefined) continue;
    const hashSize = candidate.size;
    const namesStart = version === 2 ? 8 + FANOUT_BYTES : FANOUT_BYTES + 4;
    return {
      version,
      hash: candidate,
      count,
      fanout,
      largeOffsetCount: large,
      namesStart,
      nameStride: version === 2 ? hashSize : hashSize + 4,
      crcStart: version === 2 ? namesStart + count * hashSize : undefined,
    };
  }
  const hashSize = (options.hash ?? SHA1).size;
  const expected =
    version === 2
      ? 8 + FANOUT_BYTES + count * (hashSize + 8) + 2 * hashSize
      : FANOUT_BYTES + count * (hashSize + 4) + 2 * hashSize;
  const code = fileSize < expected ? 'truncated' : 'bad-header';
  throw fail(
    code,
    file,
    fileSize,
    `idx v${version} of ${count} objects cannot be ${fileSize} bytes long (expected ${expected}${version === 2 ? ' plus 8 per large offset' : ''})`,
  );
}

/**
 * A v2 idx's offsets: `words` is the 32-bit offset table in native order; `large` holds the
 * large-offset table from its byte `largeAt`, which is the file's byte `largeStart` (for errors).
 */
function decodeOffsets(
  file: string,
  head: IdxHead,
  words: Uint32Array,
  large: Buffer,
  largeAt: number,
  largeStart: number,
): Float64Array {
  const { count, largeOffsetCount } = head;
  const offsetStart = head.crcStart! + count * 4;
  const offsets = new Float64Array(count);
  for (let n = 0; n < count; n++) {
    const word = words[n]!;
    if (word & 0x80000000) {
      const index = word & 0x7fffffff;
      if (index >= largeOffsetCount) {
        throw fail(
          'bad-offset',
          file,
          offsetStart + n * 4,
          `object ${n} refers to large offset ${index}, but the table has ${largeOffsetCount}`,
        );
      }
      const high = large.readUInt32BE(largeAt + index * 8);
      const low = large.readUInt32BE(largeAt + index * 8 + 4);
      if (high >= 0x200000) {
        throw fail('bad-offset', file, largeStart + index * 8, `large offset of object ${n} exceeds 2^53`);
      }
      offsets[n] = high * 0x100000000 + low;
    } else {
      offsets[n] = word;
    }
  }
  return offsets;
}

/**
 * Binary search needs sorted, distinct names that agree with the fan-out table. `fileLayout`
 * gives the positions errors name (`bytes` may hold the names only).
 */
function checkNamesSorted(
  index: PackIndex,
  bytes: Buffer,
  namesStart: number,
  nameStride: number,
  hashSize: number,
): void {
  const { fanout, count, file } = index;
  let bucket = 0;
  let previousHead = -1;
  for (let n = 0; n < count; n++) {
    const at = namesStart + n * nameStride;
    const first = bytes[at]!;
    // The first four bytes as one number decide almost every comparison (neighbours in a pack of
    // a million objects share about 2.5 bytes); only equal heads compare the rest.
    const head = first * 0x1000000 + ((bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!);
    while (fanout[bucket]! <= n) bucket++;
    if (first !== bucket) {
      throw fail(
        'bad-fanout',
        file,
        index.nameFilePosition(n),
        `object ${n} starts with byte ${first.toString(16).padStart(2, '0')}, but the fan-out table puts it under ${bucket.toString(16).padStart(2, '0')}`,
      );
    }
    if (head <= previousHead) {
      const prev = at - nameStride;
      let cmp = head - previousHead;
      for (let i = 4; cmp === 0 && i < hashSize; i++) cmp = bytes[at + i]! - bytes[prev + i]!;
      if (cmp <= 0)
        throw fail(
          'bad-header',
          file,
          index.nameFilePosition(n),
          `object names are not sorted and distinct at object ${n}`,
        );
    }
    previousHead = head;
  }
}

/** `count` big-endian u32 values from `bytes[at]`, as a native-order Uint32Array (a copy). */
export function bigEndianWords(bytes: Uint8Array, at: number, count: number): Uint32Array {
  const copy = Buffer.from(bytes.subarray(at, at + count * 4));
  copy.swap32();
  return new Uint32Array(copy.buffer, copy.byteOffset, count);
}

/**
 * The object count of an idx from its fan-out table alone (the last entry, §6.2), reading at most
 * 8 + 1024 bytes: what a listing shows before the pack's model is built. Full validation is
 * parseIdx's job; this only refuses what cannot be an idx.
 */
export function peekIdxObjectCount(file: string): number {
  const handle = RandomAccessFile.open(file);
  try {
    const length = Math.min(handle.size, 8 + FANOUT_BYTES);
    if (length < FANOUT_BYTES) throw fail('truncated', file, handle.size, `idx is only ${handle.size} bytes`);
    const head = handle.read(0, length);
    const fanoutStart = head.readUInt32BE(0) === IDX_V2_MAGIC ? 8 : 0;
    if (fanoutStart + FANOUT_BYTES > head.length)
      throw fail('truncated', file, head.length, 'idx ends inside the fan-out table');
    return head.readUInt32BE(fanoutStart + FANOUT_BYTES - 4);
  } finally {
    handle.close();
  }
}
