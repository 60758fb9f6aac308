/**
 * Inflates only the first few bytes of a zlib stream (RFC 1950/1951).
 *
 * Why by hand: git-internals §1.8 reads a delta's result size from the first bytes of its inflated
 * payload. Node's zlib allocates a native stream per call and cannot stop after N output bytes
 * cheaply; a full model of a large pack needs this hundreds of thousands of times. This decoder
 * follows the canonical-Huffman decoding of RFC 1951 §3.2, keeps all tables in preallocated typed
 * arrays, and stops as soon as `want` bytes are produced. It never reads outside [start, end).
 */

export const enum InflateHeadStatus {
  /** `want` bytes (or the whole stream, if shorter) were produced. */
  Done = 0,
  /** The input ended before `want` bytes or the end of the stream. */
  NeedInput = 1,
  /** The data is not a valid zlib stream. */
  Corrupt = 2,
}

const MAX_BITS = 15;
const LENGTH_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** A canonical Huffman code: symbols per length and symbols in code order. */
class HuffmanTable {
  readonly count = new Uint16Array(MAX_BITS + 1);
  readonly symbol: Uint16Array;
  private readonly offsets = new Uint16Array(MAX_BITS + 1);
  constructor(maxSymbols: number) {
    this.symbol = new Uint16Array(maxSymbols);
  }

  /** Builds from `lengths[0..n)`; false when the code is over-subscribed. */
  build(lengths: Uint8Array, n: number): boolean {
    const { count, offsets, symbol } = this;
    count.fill(0);
    for (let s = 0; s < n; s++) count[lengths[s]!]!++;
    if (count[0] === n) return true; // no codes: only valid if never used
    let left = 1;
    for (let len = 1; len <= MAX_BITS; len++) {
      left <<= 1;
      left -= count[len]!;
      if (left < 0) return false;
    }
    offsets[1] = 0;
    for (let len = 1; len < MAX_BITS; len++) offsets[len + 1] = offsets[len]! + count[len]!;
    for (let s = 0; s < n; s++) {
      const len = lengths[s]!;
      if (len !== 0) symbol[offsets[len]!++] = s;
    }
    return true;
  }
}

const fixedLengths = new HuffmanTable(288);
const fixedDistances = new HuffmanTable(30);
{
  const lengths = new Uint8Array(288);
  for (let s = 0; s < 144; s++) lengths[s] = 8;
  for (let s = 144; s < 256; s++) lengths[s] = 9;
  for (let s = 256; s < 280; s++) lengths[s] = 7;
  for (let s = 280; s < 288; s++) lengths[s] = 8;
  fixedLengths.build(lengths, 288);
  const distances = new Uint8Array(30).fill(5);
  fixedDistances.build(distances, 30);
}

/** varintsLeft when the run stops at `want` only: never counted down to 0. */
const NO_VARINT_STOP = 0x7fffffff;

class OutOfInput extends Error {}
class CorruptStream extends Error {}
const outOfInput = new OutOfInput();
const corruptStream = new CorruptStream();

/** Decodes the head of zlib streams; one instance is reused for every object of a scan. */
export class InflateHead {
  /** The bytes produced by the last call (valid up to `length`). */
  readonly output: Uint8Array;
  length = 0;
  private input: Uint8Array = new Uint8Array(0);
  private pos = 0;
  private end = 0;
  private bitBuffer = 0;
  private bitCount = 0;
  private readonly lengthCode = new HuffmanTable(288);
  private readonly distanceCode = new HuffmanTable(30);
  /** Code-length code as a 7-bit lookup: entry = symbol | length << 8 (0 = no code). */
  private readonly codeLengthLookup = new Uint16Array(128);
  private readonly codeLengthCount = new Uint8Array(8);
  private readonly nextCode = new Uint16Array(8);
  private readonly lengths = new Uint8Array(320);
  /** Base-128 varints still to complete before the run may stop (NO_VARINT_STOP: stop at `want` only). */
  private varintsLeft = NO_VARINT_STOP;

  constructor(private readonly capacity = 64) {
    // Room for `want` plus one maximal back-reference copy (258 bytes).
    this.output = new Uint8Array(capacity + 258);
  }

  /**
   * Inflates `input[start, end)` until `want` bytes are out (want <= capacity), or, when `varints`
   * is given, as soon as the output holds that many complete base-128 varints (bytes with the top
   * bit clear): a delta's two size varints are usually 4–6 bytes, and every symbol decoded past
   * them was most of a model build's inflate time.
   */
  run(input: Uint8Array, start: number, end: number, want: number, varints = 0): InflateHeadStatus {
    this.input = input;
    this.pos = start;
    this.end = end;
    this.bitBuffer = 0;
    this.bitCount = 0;
    this.length = 0;
    this.varintsLeft = varints > 0 ? varints : NO_VARINT_STOP;
    if (want > this.capacity) want = this.capacity;
    try {
      this.readZlibHeader();
      let last = 0;
      while (!last && this.length < want && this.varintsLeft > 0) {
        last = this.bits(1);
        const blockType = this.bits(2);
        if (blockType === 0) this.storedBlock(want);
        else if (blockType === 1) this.codes(fixedLengths, fixedDistances, want);
        else if (blockType === 2) this.dynamicBlock(want);
        else throw corruptStream;
      }
      if (this.length > want) this.length = want;
      return InflateHeadStatus.Done;
    } catch (error) {
      if (error === outOfInput) return InflateHeadStatus.NeedInput;
      if (error === corruptStream) return InflateHeadStatus.Corrupt;
      throw error;
    }
  }

  private readZlibHeader(): void {
    if (this.pos + 2 > this.end) throw outOfInput;
    const cmf = this.input[this.pos]!;
    const flg = this.input[this.pos + 1]!;
    this.pos += 2;
    // RFC 1950: deflate method, window <= 32K, header checksum, no preset dictionary.
    if ((cmf & 0x0f) !== 8 || cmf >> 4 > 7 || (cmf * 256 + flg) % 31 !== 0 || flg & 0x20) throw corruptStream;
  }

  private bits(need: number): number {
    let buffer = this.bitBuffer;
    while (this.bitCount < need) {
      if (this.pos >= this.end) throw outOfInput;
      buffer |= this.input[this.pos++]! << this.bitCount;
      this.bitCount += 8;
    }
    this.bitBuffer = buffer >>> need;
    this.bitCount -= need;
    return buffer & ((1 << need) - 1);
  }

  /** The next 7 bits without consuming them (zero-padded when the input ends first). */
  private peek7(): number {
    while (this.bitCount < 7 && this.pos < this.end) {
      this.bitBuffer |= this.input[this.pos++]! << this.bitCount;
      this.bitCount += 8;
    }
    return this.bitBuffer & 127;
  }

  private consume(count: number): void {
    if (count > this.bitCount) throw outOfInput;
    this.bitBuffer >>>= count;
    this.bitCount -= count;
  }

  /** RFC 1951 §3.2.2 canonical codes for the 19 code-length symbols, bit-reversed into a lookup. */
  private buildCodeLengthLookup(lengths: Uint8Array): void {
    const count = this.codeLengthCount;
    const next = this.nextCode;
    const lookup = this.codeLengthLookup;
    count.fill(0);
    lookup.fill(0);
    for (let s = 0; s < 19; s++) count[lengths[s]!]!++;
    count[0] = 0;
    let code = 0;
    let left = 1;
    for (let len = 1; len <= 7; len++) {
      code = (code + count[len - 1]!) << 1;
      next[len] = code;
      left = (left << 1) - count[len]!;
      if (left < 0) throw corruptStream; // over-subscribed
    }
    for (let s = 0; s < 19; s++) {
      const len = lengths[s]!;
      if (len === 0) continue;
      const value = next[len]!++;
      let reversed = 0;
      for (let b = 0; b < len; b++) reversed |= ((value >> b) & 1) << (len - 1 - b);
      for (let k = reversed; k < 128; k += 1 << len) lookup[k] = s | (len << 8);
    }
  }

  private storedBlock(want: number): void {
    this.bitBuffer = 0;
    this.bitCount = 0;
    if (this.pos + 4 > this.end) throw outOfInput;
    const input = this.input;
    const len = input[this.pos]! | (input[this.pos + 1]! << 8);
    const nlen = input[this.pos + 2]! | (input[this.pos + 3]! << 8);
    this.pos += 4;
    if (len !== (~nlen & 0xffff)) throw corruptStream;
    const take = Math.min(len, want - this.length);
    const out = this.output;
    for (let i = 0; i < take; i++) {
      if (this.pos + i >= this.end) throw outOfInput;
      const byte = input[this.pos + i]!;
      out[this.length++] = byte;
      if (byte < 0x80 && --this.varintsLeft === 0) return;
    }
    // The rest of the block is not needed; skip it when present so a following block could be read.
    this.pos += len;
    if (this.pos > this.end && this.length < want) throw outOfInput;
  }

  /** One symbol, a bit at a time (RFC 1951 §3.2.2 canonical order), the bit buffer kept in locals. */
  private decode(table: HuffmanTable): number {
    const { count, symbol } = table;
    let buffer = this.bitBuffer;
    let bitCount = this.bitCount;
    let code = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len <= MAX_BITS; len++) {
      if (bitCount === 0) {
        if (this.pos >= this.end) throw outOfInput;
        buffer = this.input[this.pos++]!;
        bitCount = 8;
      }
      code |= buffer & 1;
      buffer >>>= 1;
      bitCount--;
      const n = count[len]!;
      if (code - n < first) {
        this.bitBuffer = buffer;
        this.bitCount = bitCount;
        return symbol[index + (code - first)]!;
      }
      index += n;
      first += n;
      first <<= 1;
      code <<= 1;
    }
    throw corruptStream; // ran out of codes: incomplete code
  }

  private codes(lengthCode: HuffmanTable, distanceCode: HuffmanTable, want: number): void {
    const out = this.output;
    for (;;) {
      let symbol = this.decode(lengthCode);
      if (symbol < 256) {
        out[this.length++] = symbol;
        if ((symbol < 0x80 && --this.varintsLeft === 0) || this.length >= want) return;
      } else if (symbol === 256) {
        return;
      } else {
        symbol -= 257;
        if (symbol >= 29) throw corruptStream;
        const len = LENGTH_BASE[symbol]! + this.bits(LENGTH_EXTRA[symbol]!);
        const distSymbol = this.decode(distanceCode);
        if (distSymbol >= 30) throw corruptStream;
        const distance = DIST_BASE[distSymbol]! + this.bits(DIST_EXTRA[distSymbol]!);
        if (distance > this.length) throw corruptStream; // reaches before the stream's start
        for (let i = 0; i < len; i++) {
          const byte = out[this.length - distance]!;
          out[this.length++] = byte;
          if (byte < 0x80 && --this.varintsLeft === 0) return;
        }
        if (this.length >= want) return;
      }
    }
  }

  private dynamicBlock(want: number): void {
    const literalCount = this.bits(5) + 257;
    const distanceCount = this.bits(5) + 1;
    const codeLengthCount = this.bits(4) + 4;
    if (literalCount > 286 || distanceCount > 30) throw corruptStream;
    const lengths = this.lengths;
    lengths.fill(0, 0, 19);
    for (let i = 0; i < codeLengthCount; i++) lengths[CODE_LENGTH_ORDER[i]!] = this.bits(3);
    this.buildCodeLengthLookup(lengths);
    const lookup = this.codeLengthLookup;
    const total = literalCount + distanceCount;
    let index = 0;
    while (index < total) {
      const entry = lookup[this.peek7()]!;
      const length = entry >> 8;
      if (length === 0) throw corruptStream;
      this.consume(length);
      let symbol = entry & 0xff;
      if (symbol < 16) {
        lengths[index++] = symbol;
        continue;
      }
      let repeatValue = 0;
      let repeat: number;
      if (symbol === 16) {
        if (index === 0) throw corruptStream;
        repeatValue = lengths[index - 1]!;
        repeat = 3 + this.bits(2);
      } else if (symbol === 17) {
        repeat = 3 + this.bits(3);
      } else {
        repeat = 11 + this.bits(7);
      }
      if (index + repeat > total) throw corruptStream;
      for (symbol = 0; symbol < repeat; symbol++) lengths[index++] = repeatValue;
    }
    if (lengths[256] === 0) throw corruptStream; // no end-of-block code
    if (!this.lengthCode.build(lengths, literalCount)) throw corruptStream;
    if (!this.distanceCode.build(lengths.subarray(literalCount), distanceCount)) throw corruptStream;
    this.codes(this.lengthCode, this.distanceCode, want);
  }
}
