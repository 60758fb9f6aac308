/**
 * The idx name-order check (git-internals §6.2: sorted, distinct names, each under its fan-out
 * entry), on names that share their first four bytes: the check decides by those four bytes as
 * one number and compares the rest only when they are equal.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { SHA1 } from '../../src/core/format/hash-algorithm.ts';
import { parseIdx } from '../../src/core/format/idx.ts';

/** A v2 idx of these 20-byte names in the order given (offsets 12, 13, …; CRCs and checksums zero). */
function idxOf(names: Buffer[]): Buffer {
  const count = names.length;
  const fanout = Buffer.alloc(1024);
  for (let b = 0; b < 256; b++) fanout.writeUInt32BE(names.filter((name) => name[0]! <= b).length, b * 4);
  const offsets = Buffer.alloc(count * 4);
  names.forEach((_, n) => offsets.writeUInt32BE(12 + n, n * 4));
  return Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
    fanout,
    ...names,
    Buffer.alloc(count * 4),
    offsets,
    Buffer.alloc(40),
  ]);
}

const name = (hex: string): Buffer => Buffer.from(hex.padEnd(40, '0'), 'hex');

test('names equal in their first four bytes are ordered by the rest', () => {
  const a = name('abcdef01' + '00'.repeat(15) + '01');
  const b = name('abcdef01' + '00'.repeat(15) + '02');
  const c = name('abcdef02');
  assert.equal(parseIdx('ok.idx', idxOf([a, b, c]), { hash: SHA1 }).count, 3);
  assert.throws(() => parseIdx('swapped.idx', idxOf([b, a, c]), { hash: SHA1 }), /not sorted and distinct at object 1/);
  assert.throws(() => parseIdx('twice.idx', idxOf([a, a, c]), { hash: SHA1 }), /not sorted and distinct at object 1/);
  assert.throws(() => parseIdx('heads.idx', idxOf([a, c, b]), { hash: SHA1 }), /not sorted and distinct at object 2/);
});

test('names that differ in their second to fourth byte are ordered by them', () => {
  const names = ['ab00', 'ab0001', 'ab01', 'abff', 'abffff', 'abffffff'].map(name);
  assert.equal(parseIdx('ok.idx', idxOf(names), { hash: SHA1 }).count, names.length);
  for (let i = 1; i < names.length; i++) {
    const swapped = [...names];
    [swapped[i - 1], swapped[i]] = [swapped[i]!, swapped[i - 1]!];
    assert.throws(
      () => parseIdx('swapped.idx', idxOf(swapped), { hash: SHA1 }),
      new RegExp(`not sorted and distinct at object ${i}`),
    );
  }
});
