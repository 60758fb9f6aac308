import { fail } from '../errors.ts';

/** git-internals §6.1 object types as stored in a pack. */
export const OBJ_COMMIT = 1;
export const OBJ_TREE = 2;
export const OBJ_BLOB = 3;
export const OBJ_TAG = 4;
export const OBJ_OFS_DELTA = 6;
export const OBJ_REF_DELTA = 7;

export const TYPE_NAMES: readonly string[] = ['', 'commit', 'tree', 'blob', 'tag', '', 'ofs-delta', 'ref-delta'];

export function isDeltaType(type: number): boolean {
  return type === OBJ_OFS_DELTA || type === OBJ_REF_DELTA;
}

export const PACK_HEADER_BYTES = 12;
const PACK_SIGNATURE = 0x5041434b; // "PACK"

export interface PackHeader {
  version: 2 | 3;
  count: number;
}

/** §6.1: "PACK", version (2 or 3), object count. */
export function parsePackHeader(file: string, bytes: Uint8Array, fileSize: number, hashSize: number): PackHeader {
  if (fileSize < PACK_HEADER_BYTES + hashSize || bytes.length < PACK_HEADER_BYTES) {
    throw fail(
      'truncated',
      file,
      fileSize,
      `pack is only ${fileSize} bytes; a pack needs a 12-byte header and a ${hashSize}-byte trailer`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0) !== PACK_SIGNATURE) throw fail('bad-magic', file, 0, 'not a pack file (no "PACK" signature)');
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3)
    throw fail('bad-version', file, 4, `unsupported pack version ${version} (2 and 3 are valid)`);
  return { version, count: view.getUint32(8) };
}

/**
 * The header of one pack entry, decoded into a reusable record so that the scan over a whole pack
 * allocates nothing per object.
 */
export class ObjectHeader {
  type = 0;
  /** Inflated payload size: the object's size, or for a delta the delta's size (§6.1). */
  size = 0;
  /** Bytes from the entry's start to its zlib data. */
  headerLength = 0;
  /** OFS_DELTA: absolute offset of the base. */
  baseOffset = 0;
  /** REF_DELTA: position of the base id inside the buffer given to `readObjectHeader`. */
  baseOidAt = 0;
}

/**
 * Decodes the entry header at `bytes[at]` (pack offset `offset`), reading no further than `end`.
 * Throws a PackFormatError naming the pack offset on anything malformed.
 */
export function readObjectHeader(
  file: string,
  bytes: Uint8Array,
  at: number,
  end: number,
  offset: number,
  hashSize: number,
  out: ObjectHeader,
): void {
  let pos = at;
  if (pos >= end) throw fail('truncated', file, offset, 'object header runs past the end of its entry');
  let c = bytes[pos++]!;
  const type = (c >> 4) & 7;
  let size = c & 15;
  let scale = 16;
  while (c & 0x80) {
    if (pos >= end) throw fail('truncated', file, offset, 'object header runs past the end of its entry');
    if (scale > 2 ** 46) throw fail('bad-header', file, offset, 'object size in header does not fit in 53 bits');
    c = bytes[pos++]!;
    size += (c & 0x7f) * scale;
    scale *= 128;
  }
  if (type === 0 || type === 5) throw fail('bad-header', file, offset, `invalid object type ${type}`);
  out.type = type;
  out.size = size;
  if (type === OBJ_OFS_DELTA) {
    // §6.1: big-endian 7-bit groups with +1 per continuation, relative to this entry's start.
    if (pos >= end) throw fail('truncated', file, offset, 'OFS_DELTA base offset runs past the end of its entry');
    c = bytes[pos++]!;
    let distance = c & 0x7f;
    while (c & 0x80) {
      if (pos >= end) throw fail('truncated', file, offset, 'OFS_DELTA base offset runs past the end of its entry');
      if (distance > 2 ** 45)
        throw fail('bad-delta-base', file, offset, 'OFS_DELTA base offset does not fit in 53 bits');
      c = bytes[pos++]!;
      distance = (distance + 1) * 128 + (c & 0x7f);
    }
    if (distance <= 0 || distance >= offset) {
      throw fail(
        'bad-delta-base',
        file,
        offset,
        `OFS_DELTA base ${offset - distance} is not before the delta and after the pack header`,
      );
    }
    out.baseOffset = offset - distance;
  } else if (type === OBJ_REF_DELTA) {
    if (pos + hashSize > end) throw fail('truncated', file, offset, 'REF_DELTA base id runs past the end of its entry');
    out.baseOidAt = pos;
    pos += hashSize;
  }
  out.headerLength = pos - at;
}

/** Largest encoded header: type/size varint (up to 10 bytes), OFS varint (10) or a SHA-256 id. */
export const MAX_OBJECT_HEADER_BYTES = 10 + 32;
