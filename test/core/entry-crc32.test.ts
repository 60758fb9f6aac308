/** The checksum pass's CRC32 of an entry equals zlib's, whether computed here or by zlib, and across pieces. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { entryCrc32 } from '../../src/core/verify/checksums.ts';

test('entryCrc32 equals zlib crc32 for any bytes, split anywhere', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 700 }), fc.nat(), fc.nat(), (bytes, a, b) => {
      const expected = crc32(bytes);
      assert.equal(entryCrc32(bytes, 0, bytes.length, 0), expected);
      // An entry that straddles chunks is continued from the CRC of its first piece.
      const cut = bytes.length === 0 ? 0 : a % (bytes.length + 1);
      const inner = cut === 0 ? 0 : b % (cut + 1);
      let crc = entryCrc32(bytes, 0, inner, 0);
      crc = entryCrc32(bytes, inner, cut, crc);
      crc = entryCrc32(bytes, cut, bytes.length, crc);
      assert.equal(crc, expected);
    }),
    { numRuns: 2000, seed: 20261206 },
  );
  assert.equal(entryCrc32(Buffer.from('123456789'), 0, 9, 0), 0xcbf43926); // the CRC-32 check value
});
