import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { deflateSync, constants } from 'node:zlib';
import fc from 'fast-check';
import { InflateHead, InflateHeadStatus } from '../../src/core/format/inflate-head.ts';

/** zlib's own output is the oracle: the head we decode must equal the first bytes of the input. */
function checkHead(data: Buffer, level: number, strategy: number, want: number): void {
  const compressed = deflateSync(data, { level, strategy });
  const inflater = new InflateHead(64);
  const status = inflater.run(compressed, 0, compressed.length, want);
  assert.equal(status, InflateHeadStatus.Done);
  const expected = data.subarray(0, Math.min(want, data.length));
  assert.deepEqual(Buffer.from(inflater.output.subarray(0, inflater.length)), expected);
}

test('stored, fixed and dynamic blocks decode to the same head as zlib', () => {
  const text = Buffer.from('delta base cache '.repeat(200));
  checkHead(text, 0, constants.Z_DEFAULT_STRATEGY, 20); // stored block
  checkHead(text, 9, constants.Z_FIXED, 20); // fixed Huffman
  checkHead(text, 9, constants.Z_DEFAULT_STRATEGY, 20); // dynamic Huffman
  checkHead(text, 9, constants.Z_HUFFMAN_ONLY, 64);
  checkHead(text, 9, constants.Z_RLE, 64);
  checkHead(Buffer.alloc(0), 6, constants.Z_DEFAULT_STRATEGY, 20); // empty stream
});

test('random data of every shape agrees with zlib (property)', () => {
  const strategies = [
    constants.Z_DEFAULT_STRATEGY,
    constants.Z_FIXED,
    constants.Z_HUFFMAN_ONLY,
    constants.Z_RLE,
    constants.Z_FILTERED,
  ];
  fc.assert(
    fc.property(
      fc.oneof(
        fc.uint8Array({ maxLength: 3000 }),
        fc.string({ maxLength: 2000 }).map((s) => new TextEncoder().encode(s.repeat(3))),
      ),
      fc.integer({ min: 0, max: 9 }),
      fc.constantFrom(...strategies),
      fc.integer({ min: 1, max: 64 }),
      (bytes, level, strategy, want) => checkHead(Buffer.from(bytes), level, strategy, want),
    ),
    { numRuns: 2000, seed: 20261130 },
  );
});

test('input that ends early asks for more; garbage is reported corrupt, never thrown', () => {
  const compressed = deflateSync(Buffer.from('x'.repeat(100) + 'abcdefghij'.repeat(50)), { level: 9 });
  const inflater = new InflateHead(64);
  assert.equal(inflater.run(compressed, 0, 1, 20), InflateHeadStatus.NeedInput);
  assert.equal(inflater.run(Buffer.from([0x78, 0x9c]), 0, 2, 20), InflateHeadStatus.NeedInput);
  assert.equal(inflater.run(Buffer.from([0x00, 0x00, 0x00]), 0, 3, 20), InflateHeadStatus.Corrupt); // bad zlib header
  assert.equal(inflater.run(Buffer.from([0x78, 0x9c, 0xff, 0xff]), 0, 4, 20), InflateHeadStatus.Corrupt); // block type 3
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 2, maxLength: 200 }), (garbage) => {
      const withHeader = Buffer.concat([Buffer.from([0x78, 0x9c]), garbage]);
      const status = inflater.run(withHeader, 0, withHeader.length, 20);
      assert.ok(
        status === InflateHeadStatus.Done ||
          status === InflateHeadStatus.NeedInput ||
          status === InflateHeadStatus.Corrupt,
      );
      assert.ok(inflater.length <= 20);
    }),
    { numRuns: 3000, seed: 7 },
  );
});

test('never reads outside [start, end)', () => {
  const compressed = deflateSync(Buffer.from('pack '.repeat(100)));
  const padded = Buffer.concat([Buffer.from([1, 2, 3]), compressed, Buffer.from([9, 9, 9])]);
  const inflater = new InflateHead(64);
  assert.equal(inflater.run(padded, 3, 3 + compressed.length, 20), InflateHeadStatus.Done);
  assert.equal(Buffer.from(inflater.output.subarray(0, inflater.length)).toString(), 'pack pack pack pack ');
  assert.equal(inflater.run(padded, 3, 5, 20), InflateHeadStatus.NeedInput);
});

test('with varints, the run stops once that many varints are out, and they equal the bytes zlib compressed', () => {
  const strategies = [constants.Z_DEFAULT_STRATEGY, constants.Z_FIXED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE];
  const inflater = new InflateHead(20);
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 600 }),
      fc.integer({ min: 0, max: 9 }),
      fc.constantFrom(...strategies),
      fc.integer({ min: 1, max: 3 }),
      (bytes, level, strategy, varints) => {
        const data = Buffer.from(bytes);
        const compressed = deflateSync(data, { level, strategy });
        assert.equal(inflater.run(compressed, 0, compressed.length, 20, varints), InflateHeadStatus.Done);
        // Where the varints end in the data, or 20 bytes, or the data's end: whichever comes first.
        let expected = Math.min(20, data.length);
        let ended = 0;
        for (let i = 0; i < Math.min(20, data.length); i++) {
          if (data[i]! < 0x80 && ++ended === varints) {
            expected = i + 1;
            break;
          }
        }
        assert.deepEqual(Buffer.from(inflater.output.subarray(0, inflater.length)), data.subarray(0, expected));
      },
    ),
    { numRuns: 2000, seed: 20261206 },
  );
  // A stream cut short after the two varints (a stored block: 2 bytes of zlib header, 5 of block
  // header, then 10 of its data): they are read, what is missing is left to a full inflate.
  const head = Buffer.from([0x85, 0x02, 0x90, 0x03]);
  const compressed = deflateSync(Buffer.concat([head, Buffer.alloc(300, 7)]), { level: 0 });
  const cut = compressed.subarray(0, 17);
  assert.equal(inflater.run(cut, 0, cut.length, 20, 2), InflateHeadStatus.Done);
  assert.deepEqual(Buffer.from(inflater.output.subarray(0, inflater.length)), head);
  assert.equal(inflater.run(cut, 0, cut.length, 20), InflateHeadStatus.NeedInput);
});
