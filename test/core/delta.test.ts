import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { applyDelta, deltaInstructions, DeltaError, readDeltaSizes } from '../../src/core/format/delta.ts';

function varint(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
}

/** base "hello world", result "hello, packed world": copy 5, insert ", packed", copy 6 from 5. */
const base = Buffer.from('hello world');
const delta = Buffer.from([...varint(11), ...varint(19), 0x90, 5, 8, ...Buffer.from(', packed'), 0x91, 5, 6]);

test('applies copy and insert instructions (git-internals §6.1)', () => {
  assert.deepEqual(readDeltaSizes(delta, delta.length), { baseSize: 11, resultSize: 19, instructionsAt: 2 });
  assert.equal(applyDelta(base, delta, 1 << 20).toString(), 'hello, packed world');
  const ops = [...deltaInstructions(delta)].map((i) =>
    i.op === 'copy' ? `copy ${i.baseOffset}+${i.length}` : `insert ${i.length}`,
  );
  assert.deepEqual(ops, ['copy 0+5', 'insert 8', 'copy 5+6']);
});

test('a copy size of 0 means 0x10000', () => {
  const big = Buffer.alloc(0x10000, 7);
  const d = Buffer.from([...varint(0x10000), ...varint(0x10000), 0x80]);
  assert.deepEqual(applyDelta(big, d, 1 << 20), big);
});

test('rejects deltas that do not fit their base or their declared size', () => {
  const cases: [string, Buffer][] = [
    ['base size mismatch', Buffer.from([...varint(12), ...varint(5), 0x90, 5])],
    ['copy past the base', Buffer.from([...varint(11), ...varint(20), 0x91, 5, 20])],
    ['more than declared', Buffer.from([...varint(11), ...varint(3), 0x90, 5])],
    ['less than declared', Buffer.from([...varint(11), ...varint(9), 0x90, 5])],
    ['reserved opcode', Buffer.from([...varint(11), ...varint(1), 0x00])],
    ['truncated insert', Buffer.from([...varint(11), ...varint(5), 0x05, 1, 2])],
    ['truncated header', Buffer.from([0x80])],
  ];
  for (const [name, bad] of cases) {
    assert.throws(() => applyDelta(base, bad, 1 << 20), DeltaError, name);
  }
});

test('refuses an absurd declared result size before allocating', () => {
  const absurd = Buffer.from([...varint(11), ...varint(2 ** 50), 0x90, 5]);
  assert.throws(() => applyDelta(base, absurd, 1 << 30), /over the .*limit/);
});
