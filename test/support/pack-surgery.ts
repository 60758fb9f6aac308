/**
 * Byte surgery on packs, idx and .rev files for the bad-input and fuzz tests: take a pack git wrote
 * apart into entries, damage what a test wants damaged, and write pack, idx and .rev again with
 * every checksum and CRC recomputed, so that a reader gets past the outer checks and meets the
 * defect itself (git-internals §6.1–6.3). Written independently of src/core so that a bug in the
 * readers cannot hide in the fixtures.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';

export type HashName = 'sha1' | 'sha256';

export const OBJ_COMMIT = 1;
export const OBJ_TREE = 2;
export const OBJ_BLOB = 3;
export const OBJ_TAG = 4;
export const OBJ_OFS_DELTA = 6;
export const OBJ_REF_DELTA = 7;
const TYPE_NAMES = ['', 'commit', 'tree', 'blob', 'tag'];

const IDX_V2_MAGIC = 0xff744f63;

export function hashSizeOf(hash: HashName): number {
  return hash === 'sha1' ? 20 : 32;
}

export function digest(hash: HashName, ...parts: Uint8Array[]): Buffer {
  const h = createHash(hash);
  for (const part of parts) h.update(part);
  return h.digest();
}

/** The id git gives an object: hash of "<type> <size>\0" and the content. */
export function objectId(type: number, content: Buffer, hash: HashName = 'sha1'): Buffer {
  return digest(hash, Buffer.from(`${TYPE_NAMES[type]} ${content.length}\0`), content);
}

/** One pack entry, with its base kept symbolically so that entries can move. */
export interface PackEntry {
  /** The id the idx lists for this entry. */
  oid: Buffer;
  /** In-pack type: 1–4, 6 (OFS_DELTA) or 7 (REF_DELTA); any 0–7 may be written. */
  type: number;
  /** The header's size field: inflated payload size (for a delta, the delta's size). */
  size: number;
  /** OFS_DELTA: index (in the entry list) of the base entry, which must come earlier. */
  base?: number;
  /** OFS_DELTA: distance written as is instead of the one to `base`. */
  distance?: number;
  /** REF_DELTA: the base id written after the header. */
  baseOid?: Buffer;
  /** The payload as stored (normally a zlib stream). */
  data: Buffer;
}

export interface PackParts {
  hash: HashName;
  version: number;
  /** In pack order. */
  entries: PackEntry[];
}

interface IdxEntry {
  oid: Buffer;
  offset: number;
}

/** Names and offsets of a valid idx v1 or v2 (the fixtures come from git, so no checks here). */
export function readIdxEntries(idx: Buffer, hash: HashName = 'sha1'): IdxEntry[] {
  const hashSize = hashSizeOf(hash);
  const v2 = idx.readUInt32BE(0) === IDX_V2_MAGIC;
  const fanout = v2 ? 8 : 0;
  const count = idx.readUInt32BE(fanout + 255 * 4);
  const entries: IdxEntry[] = [];
  if (v2) {
    const names = fanout + 1024;
    const offsets = names + count * (hashSize + 4);
    const large = offsets + count * 4;
    for (let n = 0; n < count; n++) {
      const word = idx.readUInt32BE(offsets + n * 4);
      const offset = word & 0x80000000 ? Number(idx.readBigUInt64BE(large + (word & 0x7fffffff) * 8)) : word;
      entries.push({ oid: Buffer.from(idx.subarray(names + n * hashSize, names + (n + 1) * hashSize)), offset });
    }
  } else {
    for (let n = 0; n < count; n++) {
      const at = 1024 + n * (hashSize + 4);
      entries.push({ oid: Buffer.from(idx.subarray(at + 4, at + 4 + hashSize)), offset: idx.readUInt32BE(at) });
    }
  }
  return entries;
}

/** Splits a valid pack into entries, using its idx for the names and entry boundaries. */
export function readPack(pack: Buffer, idx: Buffer, hash: HashName = 'sha1'): PackParts {
  const hashSize = hashSizeOf(hash);
  const listed = readIdxEntries(idx, hash).sort((a, b) => a.offset - b.offset);
  const positionOf = new Map(listed.map((e, i) => [e.offset, i]));
  const dataEnd = pack.length - hashSize;
  const entries: PackEntry[] = listed.map(({ oid, offset }, i) => {
    const end = i + 1 < listed.length ? listed[i + 1]!.offset : dataEnd;
    let pos = offset;
    let c = pack[pos++]!;
    const type = (c >> 4) & 7;
    let size = c & 15;
    let scale = 16;
    while (c & 0x80) {
      c = pack[pos++]!;
      size += (c & 0x7f) * scale;
      scale *= 128;
    }
    const entry: PackEntry = { oid, type, size, data: Buffer.alloc(0) };
    if (type === OBJ_OFS_DELTA) {
      c = pack[pos++]!;
      let distance = c & 0x7f;
      while (c & 0x80) {
        c = pack[pos++]!;
        distance = (distance + 1) * 128 + (c & 0x7f);
      }
      const base = positionOf.get(offset - distance);
      if (base === undefined) throw new Error(`OFS base of the entry at ${offset} is not an entry`);
      entry.base = base;
    } else if (type === OBJ_REF_DELTA) {
      entry.baseOid = Buffer.from(pack.subarray(pos, pos + hashSize));
      pos += hashSize;
    }
    entry.data = Buffer.from(pack.subarray(pos, end));
    return entry;
  });
  return { hash, version: pack.readUInt32BE(4), entries };
}

/** §6.1 type and size header: low 4 bits of size first, then 7-bit groups. */
export function encodeEntryHeader(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let c = ((type & 7) << 4) | (size % 16);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(c | 0x80);
    c = rest % 128;
    rest = Math.floor(rest / 128);
  }
  bytes.push(c);
  return Buffer.from(bytes);
}

/** §6.1 OFS_DELTA distance: big-endian 7-bit groups with +1 per continuation (git's writer). */
export function encodeOfsDistance(distance: number): Buffer {
  const bytes = [distance % 128];
  let rest = Math.floor(distance / 128);
  while (rest > 0) {
    rest -= 1;
    bytes.unshift(0x80 | (rest % 128));
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

/** Little-endian base-128 varint of a delta header (§6.1, delta payload). */
export function encodeDeltaSize(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    let c = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest > 0) c |= 0x80;
    bytes.push(c);
  } while (rest > 0);
  return Buffer.from(bytes);
}

/** A delta payload: the two size varints, then raw instruction bytes. */
export function deltaPayload(baseSize: number, resultSize: number, instructions: Uint8Array): Buffer {
  return Buffer.concat([encodeDeltaSize(baseSize), encodeDeltaSize(resultSize), instructions]);
}

/** A copy instruction (§6.1: offset bytes selected by bits 0–3, size bytes by bits 4–6). */
export function copyInstruction(offset: number, length: number): Buffer {
  let op = 0x80;
  const args: number[] = [];
  for (let i = 0; i < 4; i++) {
    const byte = Math.floor(offset / 2 ** (8 * i)) & 0xff;
    if (byte) {
      op |= 1 << i;
      args.push(byte);
    }
  }
  const size = length === 0x10000 ? 0 : length;
  for (let i = 0; i < 3; i++) {
    const byte = (size >> (8 * i)) & 0xff;
    if (byte) {
      op |= 0x10 << i;
      args.push(byte);
    }
  }
  return Buffer.from([op, ...args]);
}

export function insertInstruction(bytes: Uint8Array): Buffer {
  if (bytes.length === 0 || bytes.length > 127) throw new Error('an insert carries 1 to 127 bytes');
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

export function zlib(data: Uint8Array): Buffer {
  return deflateSync(data);
}

export interface WrittenPack {
  pack: Buffer;
  /** Offset of each entry, in entry order. */
  offsets: number[];
  /** CRC32 of each whole entry (§6.1), in entry order. */
  crcs: number[];
}

/** Lays the entries out in order after a header; `count` overrides the header's object count. */
export function writePack(parts: PackParts, options: { count?: number } = {}): WrittenPack {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(parts.version, 4);
  header.writeUInt32BE(options.count ?? parts.entries.length, 8);
  const chunks: Buffer[] = [header];
  const offsets: number[] = [];
  const crcs: number[] = [];
  let at = header.length;
  parts.entries.forEach((entry, i) => {
    const pieces = [encodeEntryHeader(entry.type, entry.size)];
    if (entry.distance !== undefined) {
      pieces.push(encodeOfsDistance(entry.distance));
    } else if (entry.base !== undefined) {
      if (entry.base >= i) throw new Error(`entry ${i}: an OFS base must come earlier (use distance)`);
      pieces.push(encodeOfsDistance(at - offsets[entry.base]!));
    }
    if (entry.baseOid) pieces.push(entry.baseOid);
    pieces.push(entry.data);
    const bytes = Buffer.concat(pieces);
    offsets.push(at);
    crcs.push(crc32(bytes));
    chunks.push(bytes);
    at += bytes.length;
  });
  const body = Buffer.concat(chunks);
  return { pack: Buffer.concat([body, digest(parts.hash, body)]), offsets, crcs };
}

export interface IdxObject {
  oid: Buffer;
  offset: number;
  crc: number;
}

/**
 * An idx for the given objects (§6.2), sorted by id, with the fan-out, large offsets (v2) and both
 * trailing checksums computed.
 */
export function writeIdx(
  objects: IdxObject[],
  packChecksum: Buffer,
  options: { version?: 1 | 2; hash?: HashName; largeOffsetsFrom?: number } = {},
): Buffer {
  const hash = options.hash ?? 'sha1';
  const list = [...objects].sort((a, b) => Buffer.compare(a.oid, b.oid));
  const fanout = Buffer.alloc(1024);
  const counts = new Uint32Array(256);
  for (const o of list) counts[o.oid[0]!]!++;
  let sum = 0;
  for (let i = 0; i < 256; i++) {
    sum += counts[i]!;
    fanout.writeUInt32BE(sum, i * 4);
  }
  const chunks: Buffer[] = [];
  if ((options.version ?? 2) === 1) {
    chunks.push(fanout);
    for (const o of list) {
      const offset = Buffer.alloc(4);
      offset.writeUInt32BE(o.offset);
      chunks.push(offset, o.oid);
    }
  } else {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(IDX_V2_MAGIC, 0);
    head.writeUInt32BE(2, 4);
    chunks.push(head, fanout, ...list.map((o) => o.oid));
    const crcs = Buffer.alloc(list.length * 4);
    const offsets = Buffer.alloc(list.length * 4);
    const large: Buffer[] = [];
    list.forEach((o, n) => {
      crcs.writeUInt32BE(o.crc >>> 0, n * 4);
      // git uses the large-offset table only from 2^31; a lower threshold makes small test packs use it.
      if (o.offset >= (options.largeOffsetsFrom ?? 0x80000000)) {
        offsets.writeUInt32BE((0x80000000 | large.length) >>> 0, n * 4);
        const wide = Buffer.alloc(8);
        wide.writeBigUInt64BE(BigInt(o.offset));
        large.push(wide);
      } else {
        offsets.writeUInt32BE(o.offset, n * 4);
      }
    });
    chunks.push(crcs, offsets, ...large);
  }
  chunks.push(packChecksum);
  const body = Buffer.concat(chunks);
  return Buffer.concat([body, digest(hash, body)]);
}

/** A .rev (§6.3) listing idx positions in pack-offset order, for an idx written by writeIdx. */
export function writeRev(objects: IdxObject[], packChecksum: Buffer, hash: HashName = 'sha1'): Buffer {
  const sorted = objects.map((o, i) => ({ o, i })).sort((a, b) => Buffer.compare(a.o.oid, b.o.oid));
  const idxPosition = new Map(sorted.map((s, n) => [s.i, n]));
  const byOffset = objects.map((o, i) => ({ offset: o.offset, i })).sort((a, b) => a.offset - b.offset);
  const body = Buffer.alloc(12 + objects.length * 4);
  body.write('RIDX', 0, 'latin1');
  body.writeUInt32BE(1, 4);
  body.writeUInt32BE(hash === 'sha1' ? 1 : 2, 8);
  byOffset.forEach((e, p) => body.writeUInt32BE(idxPosition.get(e.i)!, 12 + p * 4));
  const withPack = Buffer.concat([body, packChecksum]);
  return Buffer.concat([withPack, digest(hash, withPack)]);
}

export interface PackSet {
  pack: Buffer;
  idx: Buffer;
  rev?: Buffer | undefined;
}

export interface AssembleOptions {
  idxVersion?: 1 | 2;
  rev?: boolean;
  /** Header object count, when it should differ from the number of entries. */
  count?: number;
  /** See writeIdx. */
  largeOffsetsFrom?: number;
}

/** Pack, idx (same version as `idxVersion`) and optionally .rev for the entries. */
export function assemble(parts: PackParts, options: AssembleOptions = {}): PackSet {
  const written = writePack(parts, options.count === undefined ? {} : { count: options.count });
  const hashSize = hashSizeOf(parts.hash);
  const checksum = written.pack.subarray(written.pack.length - hashSize);
  const objects = parts.entries.map((e, i) => ({ oid: e.oid, offset: written.offsets[i]!, crc: written.crcs[i]! }));
  return {
    pack: written.pack,
    idx: writeIdx(objects, checksum, {
      version: options.idxVersion ?? 2,
      hash: parts.hash,
      ...(options.largeOffsetsFrom === undefined ? {} : { largeOffsetsFrom: options.largeOffsetsFrom }),
    }),
    rev: options.rev ? writeRev(objects, checksum, parts.hash) : undefined,
  };
}

/**
 * After bytes of a pack were changed in place (or the layout shifted), makes everything around them
 * consistent again: the pack trailer, the idx's pack checksum and CRC32s (from the idx's own
 * offsets, clamped to the pack), the idx trailer, and the .rev's pack checksum and trailer. Only
 * what the damage itself breaks is then left to find. Works on any bytes (the fuzz test's too):
 * what does not fit is left alone.
 */
export function reseal(set: PackSet, hash: HashName = 'sha1'): PackSet {
  const hashSize = hashSizeOf(hash);
  const pack = Buffer.from(set.pack);
  if (pack.length >= hashSize)
    digest(hash, pack.subarray(0, pack.length - hashSize)).copy(pack, pack.length - hashSize);
  const checksum = pack.length >= hashSize ? pack.subarray(pack.length - hashSize) : Buffer.alloc(hashSize);
  const idx = Buffer.from(set.idx);
  const v2 = idx.length >= 8 && idx.readUInt32BE(0) === IDX_V2_MAGIC;
  const fanout = v2 ? 8 : 0;
  if (idx.length >= fanout + 1024 + 2 * hashSize) {
    const count = idx.readUInt32BE(fanout + 255 * 4);
    if (v2) {
      const crcStart = fanout + 1024 + count * hashSize;
      const offsetStart = crcStart + count * 4;
      if (offsetStart + count * 4 <= idx.length - 2 * hashSize) {
        const offsets: { n: number; offset: number }[] = [];
        for (let n = 0; n < count; n++) {
          const word = idx.readUInt32BE(offsetStart + n * 4);
          const largeAt = offsetStart + count * 4 + (word & 0x7fffffff) * 8;
          if (word & 0x80000000 && largeAt + 8 > idx.length - 2 * hashSize) continue;
          offsets.push({ n, offset: word & 0x80000000 ? Number(idx.readBigUInt64BE(largeAt)) : word });
        }
        offsets.sort((a, b) => a.offset - b.offset);
        const dataEnd = Math.max(0, pack.length - hashSize);
        offsets.forEach(({ n, offset }, i) => {
          const end = Math.min(i + 1 < offsets.length ? offsets[i + 1]!.offset : dataEnd, dataEnd);
          const start = Math.min(offset, end);
          idx.writeUInt32BE(crc32(pack.subarray(start, end)) >>> 0, crcStart + n * 4);
        });
      }
    }
    checksum.copy(idx, idx.length - 2 * hashSize);
    digest(hash, idx.subarray(0, idx.length - hashSize)).copy(idx, idx.length - hashSize);
  }
  const rev = set.rev ? Buffer.from(set.rev) : undefined;
  if (rev && rev.length >= 12 + 2 * hashSize) {
    checksum.copy(rev, rev.length - 2 * hashSize);
    digest(hash, rev.subarray(0, rev.length - hashSize)).copy(rev, rev.length - hashSize);
  }
  return { pack, idx, rev };
}

/** Recomputes only the idx's own trailing checksum (after editing the idx). */
export function resealIdx(idx: Buffer, hash: HashName = 'sha1'): Buffer {
  const out = Buffer.from(idx);
  const hashSize = hashSizeOf(hash);
  digest(hash, out.subarray(0, out.length - hashSize)).copy(out, out.length - hashSize);
  return out;
}

export interface PackPaths {
  pack: string;
  idx: string;
  rev?: string | undefined;
}

/** Writes the set as `<dir>/<stem>.pack` etc.; returns the paths (rev only when given). */
export function writePackSet(dir: string, stem: string, set: PackSet): PackPaths {
  fs.mkdirSync(dir, { recursive: true });
  const base = path.join(dir, stem);
  fs.writeFileSync(`${base}.pack`, set.pack);
  fs.writeFileSync(`${base}.idx`, set.idx);
  if (set.rev) fs.writeFileSync(`${base}.rev`, set.rev);
  return { pack: `${base}.pack`, idx: `${base}.idx`, rev: set.rev ? `${base}.rev` : undefined };
}

/** Reads `<stem>.pack`, `.idx` and, when present, `.rev`. */
export function readPackSet(stem: string): PackSet {
  const rev = `${stem}.rev`;
  return {
    pack: fs.readFileSync(`${stem}.pack`),
    idx: fs.readFileSync(`${stem}.idx`),
    rev: fs.existsSync(rev) ? fs.readFileSync(rev) : undefined,
  };
}

/** Position of object `n`'s offset word in an idx (v2: offset table; v1: the entry). */
export function idxOffsetPosition(idx: Buffer, n: number, hash: HashName = 'sha1'): number {
  const hashSize = hashSizeOf(hash);
  if (idx.readUInt32BE(0) === IDX_V2_MAGIC) {
    const count = idx.readUInt32BE(8 + 255 * 4);
    return 8 + 1024 + count * (hashSize + 4) + n * 4;
  }
  return 1024 + n * (hashSize + 4);
}

/** Number of objects an idx lists (its last fan-out entry). */
export function idxObjectCount(idx: Buffer): number {
  return idx.readUInt32BE((idx.readUInt32BE(0) === IDX_V2_MAGIC ? 8 : 0) + 255 * 4);
}

/** Position of object `n`'s CRC32 in an idx v2. */
export function idxCrcPosition(idx: Buffer, n: number, hash: HashName = 'sha1'): number {
  return 8 + 1024 + idxObjectCount(idx) * hashSizeOf(hash) + n * 4;
}

export function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}

function u64(value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(Math.floor(value / 2 ** 32));
  b.writeUInt32BE(value % 2 ** 32, 4);
  return b;
}

/**
 * idx v2 (§6.2) for a sparse pack's few entries, sorted by id here: offsets of 2^31 and above go to
 * the large-offset table; CRCs are zero and the idx checksum is filler (the edge tests read no CRC).
 */
export function sparseIdxV2(entries: { oid: Buffer; offset: number }[], packChecksum: Buffer): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(a.oid, b.oid));
  const fanout = Buffer.alloc(1024);
  for (let i = 0; i < 256; i++) fanout.writeUInt32BE(sorted.filter((e) => e.oid[0]! <= i).length, i * 4);
  const small: Buffer[] = [];
  const large: Buffer[] = [];
  for (const e of sorted) {
    if (e.offset < 0x80000000) small.push(u32(e.offset));
    else {
      small.push(u32(0x80000000 + large.length));
      large.push(u64(e.offset));
    }
  }
  const body = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63]),
    u32(2),
    fanout,
    ...sorted.map((e) => e.oid),
    Buffer.alloc(4 * sorted.length),
    ...small,
    ...large,
    packChecksum,
  ]);
  return Buffer.concat([body, Buffer.alloc(20, 0x5a)]);
}
