/**
 * git-internals §6.1, delta payloads: base-size varint, result-size varint, then copy and insert
 * instructions. Every field is checked against the buffers it refers to.
 */

export class DeltaError extends Error {
  constructor(
    message: string,
    /** Byte position inside the delta payload. */
    readonly at: number,
  ) {
    super(message);
  }
}

export interface DeltaSizes {
  baseSize: number;
  resultSize: number;
  /** Position of the first instruction. */
  instructionsAt: number;
}

/** Reads one little-endian base-128 varint; returns -1 when it does not end inside [at, end). */
function readSizeVarint(bytes: Uint8Array, at: number, end: number, out: { value: number; next: number }): boolean {
  let value = 0;
  let scale = 1;
  let pos = at;
  for (;;) {
    if (pos >= end) return false;
    const c = bytes[pos++]!;
    value += (c & 0x7f) * scale;
    // The eighth group reaches 2^56: check the value, not only the number of groups.
    if (value > Number.MAX_SAFE_INTEGER) throw new DeltaError('delta size does not fit in 53 bits', pos);
    if (!(c & 0x80)) break;
    scale *= 128;
    if (scale > 2 ** 53) throw new DeltaError('delta size does not fit in 53 bits', pos);
  }
  out.value = value;
  out.next = pos;
  return true;
}

const varint = { value: 0, next: 0 };

/** Decodes the two sizes at the start of a delta; undefined when `bytes[0, end)` is too short. */
export function readDeltaSizes(bytes: Uint8Array, end: number): DeltaSizes | undefined {
  if (!readSizeVarint(bytes, 0, end, varint)) return undefined;
  const baseSize = varint.value;
  if (!readSizeVarint(bytes, varint.next, end, varint)) return undefined;
  return { baseSize, resultSize: varint.value, instructionsAt: varint.next };
}

/** Only the result size: the hot path of a model build (no allocation). -1 when too short. */
export function readDeltaResultSize(bytes: Uint8Array, end: number): number {
  if (!readSizeVarint(bytes, 0, end, varint)) return -1;
  if (!readSizeVarint(bytes, varint.next, end, varint)) return -1;
  return varint.value;
}

export type DeltaInstruction =
  | { op: 'copy'; at: number; baseOffset: number; length: number }
  | { op: 'insert'; at: number; length: number; dataAt: number };

/** Walks the instructions of a delta, checking each against the base and result sizes. */
export function* deltaInstructions(delta: Uint8Array): Generator<DeltaInstruction> {
  const sizes = readDeltaSizes(delta, delta.length);
  if (!sizes) throw new DeltaError('delta header is truncated', delta.length);
  let pos = sizes.instructionsAt;
  let produced = 0;
  while (pos < delta.length) {
    const at = pos;
    const c = delta[pos++]!;
    if (c & 0x80) {
      let baseOffset = 0;
      let length = 0;
      for (let i = 0; i < 4; i++) {
        if (c & (1 << i)) {
          if (pos >= delta.length) throw new DeltaError('copy instruction is truncated', at);
          baseOffset += delta[pos++]! * 2 ** (8 * i);
        }
      }
      for (let i = 0; i < 3; i++) {
        if (c & (0x10 << i)) {
          if (pos >= delta.length) throw new DeltaError('copy instruction is truncated', at);
          length |= delta[pos++]! << (8 * i);
        }
      }
      if (length === 0) length = 0x10000;
      if (baseOffset + length > sizes.baseSize)
        throw new DeltaError(
          `copy of ${length} bytes at ${baseOffset} reaches past the base (${sizes.baseSize} bytes)`,
          at,
        );
      produced += length;
      if (produced > sizes.resultSize)
        throw new DeltaError('delta produces more bytes than its declared result size', at);
      yield { op: 'copy', at, baseOffset, length };
    } else if (c !== 0) {
      if (pos + c > delta.length) throw new DeltaError('insert instruction runs past the end of the delta', at);
      produced += c;
      if (produced > sizes.resultSize)
        throw new DeltaError('delta produces more bytes than its declared result size', at);
      yield { op: 'insert', at, length: c, dataAt: pos };
      pos += c;
    } else {
      throw new DeltaError('reserved delta instruction 0x00', at);
    }
  }
  if (produced !== sizes.resultSize)
    throw new DeltaError(`delta produces ${produced} bytes, but declares ${sizes.resultSize}`, delta.length);
}

/** Declared result sizes above this are checked against the instructions before allocating. */
const CHECK_BEFORE_ALLOCATING_BYTES = 1 << 20;

/**
 * Applies `delta` to `base` (the inner loop of `git verify-pack --full`; kept free of allocation
 * per instruction). `maxResult` caps the declared result size before anything is allocated.
 */
export function applyDelta(base: Uint8Array, delta: Uint8Array, maxResult: number): Buffer {
  const sizes = readDeltaSizes(delta, delta.length);
  if (!sizes) throw new DeltaError('delta header is truncated', delta.length);
  if (sizes.baseSize !== base.length)
    throw new DeltaError(`delta expects a base of ${sizes.baseSize} bytes, but the base has ${base.length}`, 0);
  if (sizes.resultSize > maxResult)
    throw new DeltaError(`delta declares a result of ${sizes.resultSize} bytes, over the ${maxResult}-byte limit`, 0);
  const resultSize = sizes.resultSize;
  // A few bytes of delta may declare gigabytes: before a large allocation, walk the instructions
  // once (deltaInstructions throws unless they produce exactly the declared size).
  if (resultSize > CHECK_BEFORE_ALLOCATING_BYTES) for (const instruction of deltaInstructions(delta)) void instruction;
  const result = Buffer.allocUnsafe(resultSize);
  const deltaLength = delta.length;
  let pos = sizes.instructionsAt;
  let out = 0;
  while (pos < deltaLength) {
    const at = pos;
    const c = delta[pos++]!;
    if (c & 0x80) {
      let baseOffset = 0;
      let length = 0;
      if (c & 0x01) baseOffset = delta[pos++]!;
      if (c & 0x02) baseOffset |= delta[pos++]! << 8;
      if (c & 0x04) baseOffset |= delta[pos++]! << 16;
      if (c & 0x08) baseOffset = (baseOffset >>> 0) + delta[pos++]! * 0x1000000;
      if (c & 0x10) length = delta[pos++]!;
      if (c & 0x20) length |= delta[pos++]! << 8;
      if (c & 0x40) length |= delta[pos++]! << 16;
      if (pos > deltaLength) throw new DeltaError('copy instruction is truncated', at);
      if (length === 0) length = 0x10000;
      if (baseOffset + length > base.length)
        throw new DeltaError(
          `copy of ${length} bytes at ${baseOffset} reaches past the base (${base.length} bytes)`,
          at,
        );
      if (out + length > resultSize)
        throw new DeltaError('delta produces more bytes than its declared result size', at);
      result.set(base.subarray(baseOffset, baseOffset + length), out);
      out += length;
    } else if (c !== 0) {
      if (pos + c > deltaLength) throw new DeltaError('insert instruction runs past the end of the delta', at);
      if (out + c > resultSize) throw new DeltaError('delta produces more bytes than its declared result size', at);
      result.set(delta.subarray(pos, pos + c), out);
      pos += c;
      out += c;
    } else {
      throw new DeltaError('reserved delta instruction 0x00', at);
    }
  }
  if (out !== resultSize) throw new DeltaError(`delta produces ${out} bytes, but declares ${resultSize}`, deltaLength);
  return result;
}
