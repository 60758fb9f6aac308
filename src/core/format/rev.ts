import { fail } from '../errors.ts';
import type { HashAlgorithm } from './hash-algorithm.ts';
import { bigEndianWords } from './idx.ts';

const RIDX_SIGNATURE = 0x52494458; // "RIDX"

/**
 * git-internals §6.3: a .rev lists idx positions in pack-offset order. The caller still checks that
 * the offsets it yields increase, so a corrupt .rev cannot mislead the model.
 */
export function parseRev(
  file: string,
  bytes: Buffer,
  count: number,
  hash: HashAlgorithm,
  packChecksum: Uint8Array,
): Uint32Array {
  const expected = 12 + count * 4 + 2 * hash.size;
  if (bytes.length < 12) throw fail('truncated', file, bytes.length, '.rev is shorter than its 12-byte header');
  if (bytes.readUInt32BE(0) !== RIDX_SIGNATURE)
    throw fail('bad-magic', file, 0, 'not a reverse index (no "RIDX" signature)');
  const version = bytes.readUInt32BE(4);
  if (version !== 1) throw fail('bad-version', file, 4, `unsupported .rev version ${version}`);
  const hashId = bytes.readUInt32BE(8);
  if (hashId !== hash.formatId)
    throw fail('mismatch', file, 8, `.rev is for hash id ${hashId}, the pack uses ${hash.name}`);
  if (bytes.length !== expected)
    throw fail(
      bytes.length < expected ? 'truncated' : 'bad-header',
      file,
      bytes.length,
      `.rev of ${count} objects must be ${expected} bytes, not ${bytes.length}`,
    );
  const checksumAt = 12 + count * 4;
  if (!bytes.subarray(checksumAt, checksumAt + hash.size).equals(packChecksum)) {
    throw fail('mismatch', file, checksumAt, '.rev was written for a different pack');
  }
  const order = bigEndianWords(bytes, 12, count);
  // A permutation: a position listed twice leaves another object out, and the caller's offset
  // check would then blame the idx.
  const listed = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const n = order[i]!;
    if (n >= count)
      throw fail(
        'bad-offset',
        file,
        revEntryPosition(i),
        `.rev entry ${i} names object ${n}, but the pack has ${count}`,
      );
    if (listed[n])
      throw fail(
        'bad-offset',
        file,
        revEntryPosition(i),
        `.rev entry ${i} names object ${n}, which an earlier entry already named`,
      );
    listed[n] = 1;
  }
  return order;
}

/** Byte position of entry `i` (the object at pack position i) inside a .rev. */
export function revEntryPosition(i: number): number {
  return 12 + i * 4;
}
