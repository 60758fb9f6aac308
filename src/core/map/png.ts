/**
 * A PNG writer for the Pack Map (RGB, 8 bits a channel, no interlace): the format is four chunks
 * and zlib, which Node has; no image library is needed for that (PNG spec, ISO/IEC 15948 §11).
 */
import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A PNG of `width` × `height` pixels from row-major RGBA (alpha is dropped: the map is opaque).
 * `text`: tEXt chunks (keyword → Latin-1 text, §11.3.4.3), the words of the picture for a program
 * or a viewer that shows an image's description.
 */
export function encodePng(width: number, height: number, rgba: Uint8Array, text: Record<string, string> = {}): Buffer {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1)
    throw new Error(`a PNG of ${width}×${height} pixels`);
  if (rgba.length !== width * height * 4) throw new Error(`${rgba.length} bytes of RGBA for ${width}×${height} pixels`);
  // Each row: filter type 0 (None), then RGB.
  const rowBytes = 1 + width * 3;
  const raw = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y++) {
    let at = y * rowBytes + 1;
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * 4;
      raw[at++] = rgba[from]!;
      raw[at++] = rgba[from + 1]!;
      raw[at++] = rgba[from + 2]!;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour
  // compression 0, filter 0, interlace 0
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    ...Object.entries(text).map(([keyword, words]) =>
      chunk('tEXt', Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(words, 'latin1')])),
    ),
    chunk('IDAT', deflateSync(raw, { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
  return out;
}
