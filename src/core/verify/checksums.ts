import { crc32 } from 'node:zlib';
import { fail, type PackFormatError, PackScopeError } from '../errors.ts';
import { RandomAccessFile } from '../format/random-access-file.ts';
import { readIdxFile, type PackIndex } from '../format/idx.ts';
import { PACK_HEADER_BYTES } from '../format/pack-file.ts';
import { revEntryPosition } from '../format/rev.ts';
import type { PackFiles } from '../model/pack-model.ts';

const CHUNK_BYTES = 8 << 20;

export interface ChecksumReport {
  packChecksum: string;
  idxChecksum: string;
  /** Objects whose CRC32 was compared with the idx (0 for idx v1, which has none). */
  crcChecked: number;
}

/**
 * What "ok" means without --full (git-internals §6.1–6.2): the idx's own checksum, the pack's
 * trailing checksum over all preceding bytes (and that the idx was written for it), and every
 * entry's CRC32 against the idx. One sequential read of the pack does the hash and the CRCs.
 */
// Stays long: one sequential read of the pack computes its hash and every entry's CRC32 at once; the CRC state spans
// chunks.
export function verifyChecksums(
  files: PackFiles,
  given: PackIndex,
  byOffset: Uint32Array,
  onProgress?: (done: number, total: number) => void,
): ChecksumReport {
  // A model's index keeps only its names: the idx checksum and the CRC32s need the whole file.
  const index = given.whole ? given : readIdxFile(files.idx, { hash: given.hash });
  if (!index.idxChecksum.equals(given.idxChecksum))
    throw fail('changed', files.idx, undefined, 'the idx changed while it was being verified');
  const hash = index.hash;
  const idxBytes = index.bytes;
  const idxDigest = hash
    .create()
    .update(idxBytes.subarray(0, idxBytes.length - hash.size))
    .digest();
  if (!idxDigest.equals(index.idxChecksum)) {
    throw fail(
      'checksum',
      files.idx,
      idxBytes.length - hash.size,
      `idx checksum mismatch: the file says ${Buffer.from(index.idxChecksum).toString('hex')}, its contents hash to ${idxDigest.toString('hex')}`,
    );
  }

  const pack = RandomAccessFile.open(files.pack);
  try {
    if (pack.size < hash.size) throw fail('truncated', files.pack, 0, 'pack is shorter than its trailer');
    const dataEnd = pack.size - hash.size;
    const digest = hash.create();
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    const offsets = index.offsets;
    const withCrc = index.hasCrc();
    const count = index.count;
    if (withCrc) checkEntryBounds(files, index, byOffset, dataEnd);
    let position = 0; // next object, in pack order
    let crc = 0;
    let crcChecked = 0;
    let crcProblem: PackFormatError | undefined;
    for (let chunkStart = 0; chunkStart < dataEnd; chunkStart += CHUNK_BYTES) {
      const length = Math.min(CHUNK_BYTES, dataEnd - chunkStart);
      pack.readInto(chunk, 0, length, chunkStart);
      const bytes = chunk.subarray(0, length);
      digest.update(bytes);
      if (!withCrc) continue;
      const chunkEnd = chunkStart + length;
      // CRC32 of each entry, carried across chunk boundaries.
      while (position < count) {
        const n = byOffset[position]!;
        const entryStart = offsets[n]!;
        const entryEnd = position + 1 < count ? offsets[byOffset[position + 1]!]! : dataEnd;
        const from = Math.max(entryStart, chunkStart);
        const to = Math.min(entryEnd, chunkEnd);
        if (from < to) crc = entryCrc32(bytes, from - chunkStart, to - chunkStart, crc);
        if (entryEnd > chunkEnd) break;
        const expected = index.crc32(n);
        if (crc >>> 0 !== expected && crcProblem === undefined) {
          // Blame the idx only once the pack's own checksum has shown the pack is sound (below).
          crcProblem = fail(
            'crc',
            files.idx,
            index.crcPosition(n),
            `CRC32 of object ${index.oidHex(n)} (pack offset ${entryStart}) is ${hex32(crc)} in the pack, the idx says ${hex32(expected)}`,
          );
        }
        crcChecked++;
        crc = 0;
        position++;
      }
      onProgress?.(position, count);
    }
    const trailer = pack.read(dataEnd, hash.size);
    const packDigest = digest.digest();
    if (!packDigest.equals(trailer)) {
      throw fail(
        'checksum',
        files.pack,
        dataEnd,
        `pack checksum mismatch: the trailer says ${trailer.toString('hex')}, the contents hash to ${packDigest.toString('hex')}`,
      );
    }
    if (crcProblem) throw crcProblem;
    if (!trailer.equals(index.packChecksum)) {
      throw fail('mismatch', files.idx, idxBytes.length - 2 * hash.size, 'idx was written for a different pack');
    }
    pack.assertUnchanged();
    return { packChecksum: trailer.toString('hex'), idxChecksum: idxDigest.toString('hex'), crcChecked };
  } catch (error) {
    // A pack rewritten during the pass fails its CRCs or checksum; say what really happened.
    if (error instanceof PackScopeError && error.code !== 'changed') pack.assertUnchanged();
    throw error;
  } finally {
    pack.close();
  }
}

/**
 * The CRC pass cuts the pack at the idx's offsets in `byOffset` order, which in the checksum worker
 * come straight from the idx or .rev (the model build checks them at the same time, not before). An
 * offset past the data would leave entries unchecked and the pass "ok"; say what is wrong instead.
 */
function checkEntryBounds(files: PackFiles, index: PackIndex, byOffset: Uint32Array, dataEnd: number): void {
  const offsets = index.offsets;
  let previous = 0;
  for (let p = 0; p < byOffset.length; p++) {
    const n = byOffset[p]!;
    const offset = offsets[n]!;
    if (offset < PACK_HEADER_BYTES || offset >= dataEnd) {
      throw fail(
        'bad-offset',
        files.idx,
        index.offsetPosition(n),
        `object ${index.oidHex(n)} has offset ${offset}, outside the pack's objects (${PACK_HEADER_BYTES}..${dataEnd})`,
      );
    }
    if (offset <= previous) {
      const [source, at] = files.rev ? [files.rev, revEntryPosition(p)] : [files.idx, index.offsetPosition(n)];
      throw fail(
        'bad-offset',
        source,
        at,
        `object ${index.oidHex(n)} at offset ${offset} is not after the previous object in pack order (offset ${previous})`,
      );
    }
    previous = offset;
  }
}

/**
 * Entries up to this many bytes get their CRC32 here, in JavaScript: zlib's crc32 is far faster per
 * byte, but one call (with the subarray it needs) cost about 0.3 µs, more than the bytes of a typical
 * entry (the generated pack's median is 53 bytes): 87 ms of the checksum worker's 335 ms sampled.
 */
const SMALL_ENTRY_BYTES = 256;

/** CRC-32 (ISO-HDLC, zlib's) of single bytes: the table of the reflected polynomial 0xedb88320. */
const CRC_TABLE = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_TABLE[n] = c;
}

/** zlib's crc32(bytes[from, to), crc): the running CRC of an entry, continued from `crc`. */
export function entryCrc32(bytes: Uint8Array, from: number, to: number, crc: number): number {
  if (to - from > SMALL_ENTRY_BYTES) return crc32(bytes.subarray(from, to), crc);
  let c = ~crc;
  for (let i = from; i < to; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}
