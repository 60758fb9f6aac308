/** A PNG decoder for the Pack Map's tests: the 8-bit RGB, filter-None pictures src/core/map/png.ts writes. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { inflateSync } from 'node:zlib';

/** The RGB pixels of a PNG this test's decoder can read: 8-bit truecolour, no interlace, chunks CRC-checked by zlib's inflate of IDAT only. */
export function decodePng(file: string): {
  width: number;
  height: number;
  pixel: (x: number, y: number) => [number, number, number];
  /** The tEXt chunks: keyword → text. */
  text: Record<string, string>;
} {
  const text: Record<string, string> = {};
  const bytes = fs.readFileSync(file);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  let at = 8;
  let width = 0;
  let height = 0;
  const data: Buffer[] = [];
  while (at < bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      assert.deepEqual([...body.subarray(8, 13)], [8, 2, 0, 0, 0], '8-bit RGB, no interlace');
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'tEXt') {
      const nul = body.indexOf(0);
      text[body.toString('latin1', 0, nul)] = body.toString('latin1', nul + 1);
    }
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = 1 + width * 3;
  assert.equal(raw.length, stride * height);
  for (let y = 0; y < height; y++) assert.equal(raw[y * stride], 0, 'filter None on every row');
  return {
    width,
    height,
    text,
    pixel: (x, y) => [raw[y * stride + 1 + x * 3]!, raw[y * stride + 2 + x * 3]!, raw[y * stride + 3 + x * 3]!],
  };
}
