/**
 * Builds ASCII output directly in a byte buffer: hex ids straight from the idx bytes and decimal
 * numbers without intermediate strings. `verify-pack -v` on an 849k-object pack prints 80 MB, and
 * string building dominated its time.
 */
const HEX_PAIRS = new Uint16Array(256);
{
  const digits = '0123456789abcdef';
  for (let b = 0; b < 256; b++) {
    // Little-endian pair so one 16-bit store writes high nibble first.
    HEX_PAIRS[b] = digits.charCodeAt(b >> 4) | (digits.charCodeAt(b & 15) << 8);
  }
}

const CAPACITY = 1 << 20;

export class AsciiWriter {
  private buffer = Buffer.allocUnsafe(CAPACITY + 4096);
  /** The same bytes as `buffer`, for 4-byte stores at any position. */
  private view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.length);
  private length = 0;

  constructor(private readonly write: (chunk: Buffer) => void = (chunk) => process.stdout.write(chunk)) {}

  hex(bytes: Uint8Array, at: number, count: number): this {
    const view = this.view;
    let out = this.length;
    let i = 0;
    // Two bytes, four digits, one store: a name's 40 digits were 40 byte stores, the most of
    // verify-pack -v's listing after the numbers.
    for (; i + 1 < count; i += 2) {
      view.setUint32(out, HEX_PAIRS[bytes[at + i]!]! | (HEX_PAIRS[bytes[at + i + 1]!]! << 16), true);
      out += 4;
    }
    if (i < count) {
      view.setUint16(out, HEX_PAIRS[bytes[at + i]!]!, true);
      out += 2;
    }
    this.length = out;
    return this;
  }

  /** A non-negative integer below 2^53. */
  number(value: number): this {
    const buffer = this.buffer;
    if (value < 0x80000000) {
      // Integer arithmetic for the common case (every size and offset of a pack under 2 GiB).
      let v = value | 0;
      // Digits counted by a loop, not a tree of comparisons: each branch of the tree was its own
      // type feedback, and the first number of a new length (offsets grow through the listing)
      // deoptimised verify-pack's whole listing loop again.
      let digits = 1;
      for (let rest = v; rest >= 10; rest = (rest / 10) | 0) digits++;
      let out = this.length + digits;
      this.length = out;
      do {
        const q = (v / 10) | 0;
        buffer[--out] = 48 + v - q * 10;
        v = q;
      } while (v !== 0);
      return this;
    }
    return this.text(String(value));
  }

  /** ASCII text only. */
  text(value: string): this {
    const buffer = this.buffer;
    let out = this.length;
    for (let i = 0; i < value.length; i++) buffer[out++] = value.charCodeAt(i);
    this.length = out;
    return this;
  }

  /** Bytes already ASCII (at most the 4 KiB slack between line ends). */
  bytes(value: Uint8Array): this {
    this.buffer.set(value, this.length);
    this.length += value.length;
    return this;
  }

  byte(code: number): this {
    this.buffer[this.length++] = code;
    return this;
  }

  /** Ends a line; flushes when the buffer is nearly full (a line is far below the 4 KiB slack). */
  endLine(): void {
    this.buffer[this.length++] = 10;
    if (this.length >= CAPACITY) this.flush();
  }

  /** Hands the filled bytes over as they are (a fresh buffer takes their place: no copy). */
  flush(): void {
    if (this.length === 0) return;
    this.write(this.buffer.subarray(0, this.length));
    this.buffer = Buffer.allocUnsafe(CAPACITY + 4096);
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.length);
    this.length = 0;
  }
}
