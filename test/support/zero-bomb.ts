/**
 * The zero-blob delta bomb: a 64 MiB blob of zeros and a chain of deltas over it, each
 * copying its whole base and inserting one byte (a pack of about 80 KB). git's own delta search
 * over 64 MiB of zeros takes minutes, so the pack's bytes are written here (git-internals §6: the
 * pack format) and real `git index-pack` makes the .idx, which also checks every object's id.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { gitEnv } from './git.ts';

export const ZERO_BLOB_BYTES = 64 << 20;

const OBJ_BLOB = 3;
const OBJ_OFS_DELTA = 6;
/** A copy instruction's size fits 3 bytes; copies of whole bases are cut into pieces of this. */
const COPY_PIECE = 0xff_f000;

/** A pack entry's header: type and size (size in 4 bits, then 7 bits a byte, little end first). */
function entryHeader(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/** OFS_DELTA's distance back to the base: big-endian 7-bit groups, each continued group one more. */
function ofsDistance(distance: number): Buffer {
  const bytes = [distance & 0x7f];
  let rest = Math.floor(distance / 128);
  while (rest > 0) {
    rest -= 1;
    bytes.unshift(0x80 | (rest & 0x7f));
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

/** A delta's size varint (7 bits a byte, little end first). */
function deltaSize(size: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = size & 0x7f;
    size = Math.floor(size / 128);
    if (size > 0) byte |= 0x80;
    bytes.push(byte);
  } while (size > 0);
  return bytes;
}

/** Copy `length` bytes from `offset` of the base: opcode 0x80 with a bit per non-zero offset and size byte. */
function copy(offset: number, length: number): number[] {
  let op = 0x80;
  const args: number[] = [];
  for (let i = 0; i < 4; i++) {
    const byte = Math.floor(offset / 2 ** (8 * i)) & 0xff;
    if (byte !== 0) {
      op |= 1 << i;
      args.push(byte);
    }
  }
  for (let i = 0; i < 3; i++) {
    const byte = (length >> (8 * i)) & 0xff;
    if (byte !== 0) {
      op |= 0x10 << i;
      args.push(byte);
    }
  }
  return [op, ...args];
}

/** The delta from a base of `baseSize` bytes: the whole base copied, then `inserted` appended. */
function appendDelta(baseSize: number, inserted: number): Buffer {
  const bytes = [...deltaSize(baseSize), ...deltaSize(baseSize + 1)];
  for (let at = 0; at < baseSize; at += COPY_PIECE) bytes.push(...copy(at, Math.min(COPY_PIECE, baseSize - at)));
  bytes.push(1, inserted);
  return Buffer.from(bytes);
}

/** The pack's bytes: the zero blob, then `deltas` OFS_DELTA entries, each over the one before. */
export function zeroBombPack(deltas: number): Buffer {
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(deltas + 1, 8);
  parts.push(header);
  let offset = 12;
  let previous = offset;
  const add = (entry: Buffer): void => {
    parts.push(entry);
    offset += entry.length;
  };
  add(
    Buffer.concat([entryHeader(OBJ_BLOB, ZERO_BLOB_BYTES), deflateSync(Buffer.alloc(ZERO_BLOB_BYTES), { level: 9 })]),
  );
  for (let i = 1; i <= deltas; i++) {
    const delta = appendDelta(ZERO_BLOB_BYTES + i - 1, i & 0xff);
    const at = offset;
    add(Buffer.concat([entryHeader(OBJ_OFS_DELTA, delta.length), ofsDistance(at - previous), deflateSync(delta)]));
    previous = at;
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

/** Writes the pack into `repo` through real `git index-pack --stdin` (which writes its .idx and checks it). Returns the pack's stem. */
export function installZeroBomb(repo: string, home: string, deltas: number): string {
  const out = execFileSync('git', ['index-pack', '--stdin'], {
    cwd: repo,
    env: gitEnv(home),
    input: zeroBombPack(deltas),
    maxBuffer: 1 << 20,
  })
    .toString()
    .trim();
  const hash = /^pack\t([0-9a-f]{40})$/.exec(out)?.[1] ?? /^([0-9a-f]{40})$/.exec(out)?.[1];
  if (hash === undefined) throw new Error(`git index-pack printed ${JSON.stringify(out)}`);
  return `${repo}/.git/objects/pack/pack-${hash}`;
}
