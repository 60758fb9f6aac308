import { errorMessage } from '../../common/error-message.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { constants as zlibConstants, inflateSync } from 'node:zlib';
import { fail } from '../errors.ts';
import { openRegularFile } from '../format/checked-file.ts';

const LOOSE_TYPES: Record<string, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
/** "<type> <size>\0": the longest type and a 20-digit size. */
const MAX_LOOSE_HEADER_BYTES = 32;

/** The file of a loose object in the first objects directory that has it, or undefined. */
export function looseObjectFile(objectsDirs: readonly string[], oidHex: string): string | undefined {
  for (const dir of objectsDirs) {
    const file = path.join(dir, oidHex.slice(0, 2), oidHex.slice(2));
    try {
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Compressed bytes read to learn a loose object's type: its header inflates from far fewer. */
const LOOSE_HEADER_READ_BYTES = 256;

/**
 * A loose object's type from its header alone (the first bytes inflated, as `git cat-file -t`
 * does), or undefined when the file does not start as a loose object: no content is read.
 */
export function readLooseObjectType(file: string): number | undefined {
  const { fd } = openRegularFile(file);
  const head = Buffer.alloc(LOOSE_HEADER_READ_BYTES);
  let got: number;
  try {
    got = fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  let inflated: Buffer;
  try {
    inflated = inflateSync(head.subarray(0, got), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch {
    return undefined;
  }
  const space = inflated.indexOf(0x20);
  if (space < 0 || space > MAX_LOOSE_HEADER_BYTES) return undefined;
  return LOOSE_TYPES[inflated.toString('latin1', 0, space)];
}

/**
 * A loose object (`objects/xx/…`: zlib of "<type> <size>\0<content>"), read whole and checked:
 * the file is opened as a regular file, inflated to at most `maxObjectBytes` plus its header, and
 * its declared size must be what it inflates to. Errors name the file.
 */
export function readLooseObject(file: string, maxObjectBytes: number): { type: number; content: Buffer } {
  const { fd, stat } = openRegularFile(file);
  let compressed: Buffer;
  try {
    // zlib never shrinks by less than about 1/1000; a file larger than its content can be is refused.
    if (stat.size > maxObjectBytes + Math.ceil(maxObjectBytes / 8) + 1024)
      throw fail(
        'too-large',
        file,
        undefined,
        `loose object file of ${stat.size} bytes is over the ${maxObjectBytes}-byte limit`,
      );
    compressed = Buffer.alloc(stat.size);
    let done = 0;
    while (done < compressed.length) {
      const got = fs.readSync(fd, compressed, done, compressed.length - done, done);
      if (got === 0) break;
      done += got;
    }
    compressed = compressed.subarray(0, done);
  } finally {
    fs.closeSync(fd);
  }
  let inflated: Buffer;
  try {
    inflated = inflateSync(compressed, { maxOutputLength: maxObjectBytes + MAX_LOOSE_HEADER_BYTES });
  } catch (error) {
    throw fail(
      'bad-zlib',
      file,
      undefined,
      `loose object does not inflate within ${maxObjectBytes} bytes: ${errorMessage(error)}`,
    );
  }
  const nul = inflated.indexOf(0, 0);
  const header =
    nul < 0 || nul > MAX_LOOSE_HEADER_BYTES
      ? undefined
      : /^(commit|tree|blob|tag) (\d{1,20})$/.exec(inflated.toString('latin1', 0, nul));
  if (!header) throw fail('bad-header', file, 0, 'loose object header is not "<type> <size>"');
  const content = inflated.subarray(nul + 1);
  if (Number(header[2]) !== content.length)
    throw fail('bad-header', file, 0, `loose object declares ${header[2]} bytes and holds ${content.length}`);
  return { type: LOOSE_TYPES[header[1]!]!, content };
}
