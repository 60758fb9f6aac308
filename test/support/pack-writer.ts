import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

/**
 * Writes small packs with a prescribed object table (git-internals §6.1), so that tests control
 * exactly which object is a delta of which — git's own delta search would choose for itself.
 * `git index-pack` then writes the idx, so every pack here is one git accepts.
 */
export type EntrySpec =
  | { kind: 'blob'; content: Buffer }
  /** A delta on entry `base` (an index into the spec list) producing `content`; REF_DELTA when `ref`. */
  | { kind: 'delta'; base: number; content: Buffer; ref?: boolean };

export interface WrittenPack {
  pack: Buffer;
  oids: string[];
  offsets: number[];
}

function objectId(content: Buffer): Buffer {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest();
}

function sizeVarint(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
}

function entryHeader(type: number, size: number): number[] {
  const out: number[] = [];
  let byte = (type << 4) | (size & 15);
  size = Math.floor(size / 16);
  while (size > 0) {
    out.push(byte | 0x80);
    byte = size & 0x7f;
    size = Math.floor(size / 128);
  }
  out.push(byte);
  return out;
}

/** §6.1 writer: buf[n] = ofs & 127; while (ofs >>= 7) buf[--n] = 128 | (--ofs & 127). */
function ofsDistance(distance: number): number[] {
  const out = [distance & 127];
  let d = Math.floor(distance / 128);
  while (d > 0) {
    d -= 1;
    out.unshift(128 | (d & 127));
    d = Math.floor(d / 128);
  }
  return out;
}

/** A delta from `base` to `result`: copy the longest common prefix, insert the rest. */
export function makeDelta(base: Buffer, result: Buffer): Buffer {
  let common = 0;
  while (common < base.length && common < result.length && base[common] === result[common] && common < 0xffffff) common++;
  const ops: number[] = [...sizeVarint(base.length), ...sizeVarint(result.length)];
  if (common > 0) {
    // copy: offset 0 (no offset bytes), size in up to 3 bytes
    ops.push(0x80 | 0x10 | 0x20 | 0x40, common & 0xff, (common >> 8) & 0xff, (common >> 16) & 0xff);
  }
  for (let at = common; at < result.length; at += 127) {
    const piece = result.subarray(at, Math.min(result.length, at + 127));
    ops.push(piece.length, ...piece);
  }
  return Buffer.from(ops);
}

export function writePack(entries: EntrySpec[]): WrittenPack {
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(entries.length, 8);
  parts.push(header);
  let position = 12;
  const oids: Buffer[] = [];
  const offsets: number[] = [];
  for (const entry of entries) {
    offsets.push(position);
    let bytes: Buffer;
    if (entry.kind === 'blob') {
      bytes = Buffer.concat([Buffer.from(entryHeader(3, entry.content.length)), deflateSync(entry.content)]);
    } else {
      const baseSpec = entries[entry.base]!;
      const delta = makeDelta(baseSpec.content, entry.content);
      const reference = entry.ref ? oids[entry.base] ?? objectId(baseSpec.content) : Buffer.from(ofsDistance(position - offsets[entry.base]!));
      if (!entry.ref && entry.base >= offsets.length - 1) throw new Error('an OFS_DELTA base must come earlier in the pack');
      bytes = Buffer.concat([Buffer.from(entryHeader(entry.ref ? 7 : 6, delta.length)), reference, deflateSync(delta)]);
    }
    oids.push(objectId(entry.content));
    parts.push(bytes);
    position += bytes.length;
  }
  const body = Buffer.concat(parts);
  const pack = Buffer.concat([body, createHash('sha1').update(body).digest()]);
  return { pack, oids: oids.map((o) => o.toString('hex')), offsets };
}
