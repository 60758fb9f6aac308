/**
 * The reused inflate (Inflater) refuses what inflateDeclared refuses, with the same kind of error
 * naming the file and offset: a stream cut short, one giving more or fewer bytes than declared,
 * bytes after the stream's end, a wrong checksum, bytes that are no zlib at all; and it keeps
 * working after each refusal.
 */
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { test } from 'node:test';
import { Inflater, inflateDeclared } from '../../src/core/format/inflate-entry.ts';

const text = Buffer.from('100644 file\0'.repeat(50));
const good = deflateSync(text);
const badChecksum = Buffer.from(good);
badChecksum[badChecksum.length - 1]! ^= 1;

const cases: [string, Uint8Array, number, RegExp][] = [
  ['cut short', good.subarray(0, good.length - 3), text.length, /does not inflate to its declared/],
  ['more than declared', good, text.length - 1, /more|declared/],
  ['fewer than declared', good, text.length + 1, /inflates to 600 bytes, its header declares 601/],
  [
    'bytes after the end',
    Buffer.concat([good, Buffer.from('xy')]),
    text.length,
    /ends after \d+ of the entry's \d+ bytes/,
  ],
  ['wrong checksum', badChecksum, text.length, /does not inflate/],
  ['no zlib', Buffer.from('not zlib at all'), text.length, /does not inflate/],
  ['empty', Buffer.alloc(0), 0, /does not inflate/],
];

test('the reused inflate refuses what inflateDeclared refuses, and goes on working', () => {
  const inflater = new Inflater();
  assert.deepEqual(inflater.inflate(good, text.length, 'p.pack', 12, 'entry'), text);
  for (const [what, bytes, declared, message] of cases) {
    assert.throws(() => inflateDeclared(bytes, declared, 'p.pack', 12, 'entry'), { code: 'bad-zlib' }, what);
    assert.throws(
      () => inflater.inflate(bytes, declared, 'p.pack', 12, 'entry'),
      (error: Error & { code?: string; file?: string; offset?: number }) =>
        error.code === 'bad-zlib' && error.file === 'p.pack' && error.offset === 12 && message.test(error.message),
      what,
    );
    assert.deepEqual(inflater.inflate(good, text.length, 'p.pack', 12, 'entry'), text, `after ${what}`);
  }
});
