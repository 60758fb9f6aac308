/**
 * The two seals of the model cache's files (src/core/model/sealed-file.ts): HMAC-SHA256 (the
 * object-path files) and GMAC (model files). Each verifies what it sealed, and refuses a file with
 * any one bit changed (header, body, nonce or tag), a file sealed under another key, and one sealed
 * by the other kind.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { openSealedFile, sealFile, type SealedFormat } from '../../src/core/model/sealed-file.ts';
import { tempDir } from '../support/git.ts';

const base = { magic: Buffer.from('PSTEST\0\0', 'latin1'), version: 1, maxHeaderBytes: 1 << 16, what: 'test' };
const FORMATS: SealedFormat[] = [
  { ...base, seal: 'hmac-sha256' },
  { ...base, seal: 'gmac-aes-256' },
];

test('each seal verifies what it sealed and refuses any bit changed, another key and the other seal', (t) => {
  const dir = tempDir(t, 'packscope-sealed-file-');
  const key = randomBytes(32);
  const body = [new Uint8Array(randomBytes(300_001)), new Uint8Array(randomBytes(5))];
  for (const format of FORMATS) {
    const file = path.join(dir, `${format.seal}.sealed`);
    const bytes = sealFile(format, { hello: 'world' }, body, key);
    fs.writeFileSync(file, bytes);
    const opened = openSealedFile(file, format, key, bytes.length, 'too large');
    assert.equal(opened.headerText, JSON.stringify({ hello: 'world' }));
    assert.deepEqual(
      opened.bytes.subarray(opened.bodyStart, opened.bodyEnd),
      Buffer.concat(body),
      `${format.seal}: the body as sealed`,
    );
    // A bit in the header, early and late in the body, in the seal's first and last byte.
    for (const at of [20, opened.bodyStart + 1, opened.bodyEnd - 1, opened.bodyEnd, bytes.length - 1]) {
      const damaged = Buffer.from(bytes);
      damaged[at]! ^= 0x10;
      fs.writeFileSync(file, damaged);
      assert.throws(
        () => openSealedFile(file, format, key, bytes.length, 'too large'),
        /checksum mismatch/,
        `${format.seal}: byte ${at} changed`,
      );
    }
    fs.writeFileSync(file, bytes);
    assert.throws(() => openSealedFile(file, format, randomBytes(32), bytes.length, 'too large'), /checksum mismatch/);
    assert.throws(() => openSealedFile(file, format, key, bytes.length - 1, 'too large'), /too large/);
    const other = FORMATS.find((f) => f.seal !== format.seal)!;
    assert.throws(() => openSealedFile(file, other, key, bytes.length, 'too large'), /checksum mismatch/);
  }
  // Two files of the same content under GMAC: each its own nonce.
  const gmac = FORMATS[1]!;
  const a = sealFile(gmac, {}, body, key);
  const b = sealFile(gmac, {}, body, key);
  assert.notDeepEqual(a.subarray(-28, -16), b.subarray(-28, -16));
});
