/**
 * Reads and writes PackScope model-cache files (src/core/model/model-store.ts) column by column, so
 * that tests can craft them as an attacker would: change columns, then seal the file with the cache's
 * own key (an attacker who can read it) or without it. Knows format 1 (unkeyed SHA-1 trailer, the
 * format before the key) and format 2 and later (HMAC-SHA256 with the key in the cache directory; 3 adds the derived
 * columns; 4 the family sizes, sealed by GMAC under a key derived from the cache's; 5 a GMAC per
 * column in the header, and the header's own at the end), so that a test crafting a file works
 * against each and shows what the key changed.
 */
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PackModel } from '../../src/core/model/pack-model.ts';

export const CACHE_KEY_FILE = 'packscope-model-cache.key';

export interface ModelFile {
  version: number;
  header: {
    count: number;
    depthBytes: 2 | 4;
    overflow: { size: [number, number][]; resultSize: [number, number][]; diskSize: [number, number][] };
    [field: string]: unknown;
  };
  size: number[];
  resultSize: number[];
  diskSize: number[];
  base: number[];
  byOffset: number[];
  depth: number[];
  inPackType: number[];
  type: number[];
  /** Format 3 and later: the derived columns after the others, 4-byte aligned. */
  childStart?: number[];
  roots?: number[];
  /** Format 4 and later: between the roots and the child list. */
  familySizes?: number[];
  childList?: number[];
}

export type ColumnName = 'size' | 'resultSize' | 'diskSize' | 'base' | 'byOffset' | 'depth' | 'inPackType' | 'type';

/** A seal of what it is given; for format 5, also the key it seals with (each column is sealed on its own). */
export type Sealer = ((body: Buffer) => Buffer) & { key?: Buffer };

function trailerBytes(version: number): number {
  // 1: SHA-1; 2 and 3: HMAC-SHA256; 4: a GCM nonce and tag.
  return version === 1 ? 20 : version >= 4 ? 12 + 16 : 32;
}

/** Format 4's seal: a GMAC under a key derived from the cache's (src/core/model/sealed-file.ts). */
function gmacSeal(key: Buffer): Sealer {
  const gmacKey = createHmac('sha256', key).update('PackScope sealed file: AES-256-GCM key').digest();
  const seal = (body: Buffer): Buffer => {
    const nonce = randomBytes(12);
    const gmac = createCipheriv('aes-256-gcm', gmacKey, nonce);
    gmac.setAAD(body);
    gmac.final();
    return Buffer.concat([nonce, gmac.getAuthTag()]);
  };
  return Object.assign(seal, { key });
}

const align8 = (n: number): number => (n + 7) & ~7;

export function readModelFile(bytes: Buffer): ModelFile {
  const version = bytes.readUInt32LE(8);
  const headerLength = bytes.readUInt32LE(12);
  const header = JSON.parse(bytes.toString('utf8', 16, 16 + headerLength)) as ModelFile['header'];
  const count = header.count;
  let at = align8(16 + headerLength);
  const take = (width: 1 | 2 | 4, signed = false): number[] => {
    const out: number[] = [];
    for (let n = 0; n < count; n++, at += width) {
      out.push(
        width === 1
          ? bytes[at]!
          : width === 2
            ? bytes.readUInt16LE(at)
            : signed
              ? bytes.readInt32LE(at)
              : bytes.readUInt32LE(at),
      );
    }
    return out;
  };
  const file: ModelFile = {
    version,
    header,
    size: take(4),
    resultSize: take(4),
    diskSize: take(4),
    base: take(4, true),
    byOffset: take(4),
    depth: take(header.depthBytes),
    inPackType: take(1),
    type: take(1),
  };
  if (version >= 3) {
    // Format 5's sections follow each other; 3 and 4 padded the derived ones to 4 bytes.
    if (version <= 4) at = (at + 3) & ~3;
    const words = (length: number): number[] => {
      const out: number[] = [];
      for (let i = 0; i < length; i++, at += 4) out.push(bytes.readUInt32LE(at));
      return out;
    };
    file.childStart = words(count + 1);
    file.roots = words(count);
    if (version >= 4) file.familySizes = words(count);
    file.childList = words((bytes.length - trailerBytes(version) - at) / 4);
  }
  if (at + trailerBytes(version) !== bytes.length) throw new Error('test helper: unexpected model file layout');
  return file;
}

/**
 * The file's bytes with `seal` computing the trailer from everything before it (format 5: each
 * column's seal into the header, and the trailer from the prefix and header); `depthLayout` lays the
 * depths out at another width than the header says.
 */
export function writeModelFile(file: ModelFile, seal: Sealer, depthLayout: 2 | 4 = file.header.depthBytes): Buffer {
  const column = (values: number[], width: 1 | 2 | 4, signed = false): Buffer => {
    const out = Buffer.alloc(values.length * width);
    values.forEach((v, n) => {
      if (width === 1) out[n] = v & 0xff;
      else if (width === 2) out.writeUInt16LE(v & 0xffff, n * 2);
      else if (signed) out.writeInt32LE(v | 0, n * 4);
      else out.writeUInt32LE(v >>> 0, n * 4);
    });
    return out;
  };
  const columns = [
    column(file.size, 4),
    column(file.resultSize, 4),
    column(file.diskSize, 4),
    column(file.base, 4, true),
    column(file.byOffset, 4),
    column(file.depth, depthLayout),
    column(file.inPackType, 1),
    column(file.type, 1),
  ];
  const derived =
    file.childStart === undefined || file.roots === undefined || file.childList === undefined
      ? []
      : [
          column(file.childStart, 4),
          column(file.roots, 4),
          ...(file.familySizes === undefined ? [] : [column(file.familySizes, 4)]),
          column(file.childList, 4),
        ];
  if (file.version >= 5) {
    if (seal.key === undefined) throw new Error('test helper: format 5 is sealed with a key');
    const sections = [...columns, ...derived];
    const sectionSeal = gmacSeal(seal.key);
    const header = { ...file.header, sections: sections.map((section) => sectionSeal(section).toString('hex')) };
    const prefix = prefixWith(file.version, header);
    return Buffer.concat([prefix.padded, ...sections, seal(prefix.padded)]);
  }
  const body = Buffer.concat([prefixWith(file.version, file.header).padded, ...columns]);
  if (derived.length === 0) return Buffer.concat([body, seal(body)]);
  const whole = Buffer.concat([body, Buffer.alloc(((body.length + 3) & ~3) - body.length), ...derived]);
  return Buffer.concat([whole, seal(whole)]);
}

/** The magic, version, header length and header, padded to 8 bytes. */
function prefixWith(version: number, header: unknown): { padded: Buffer } {
  const headerJson = Buffer.from(JSON.stringify(header), 'utf8');
  const padded = Buffer.alloc(align8(16 + headerJson.length));
  padded.write('PSMODEL\0', 0, 'latin1');
  padded.writeUInt32LE(version, 8);
  padded.writeUInt32LE(headerJson.length, 12);
  headerJson.copy(padded, 16);
  return { padded };
}

/** The trailer the cache itself computes: an attacker who can read the cache's key (or format 1, which had none). */
export function sealWithCacheKey(cacheDir: string, version: number): Sealer {
  if (version === 1) return (body) => createHash('sha1').update(body).digest();
  const key = fs.readFileSync(path.join(cacheDir, CACHE_KEY_FILE));
  if (version >= 4) return gmacSeal(key);
  return (body) => createHmac('sha256', key).update(body).digest();
}

/** A trailer made by someone without the key: format 1's plain SHA-1 worked; format 2 needs the key, so any other key is a guess. */
export function sealWithoutKey(version: number): Sealer {
  if (version === 1) return (body) => createHash('sha1').update(body).digest();
  const guess = randomBytes(32);
  if (version >= 4) return gmacSeal(guess);
  return (body) => createHmac('sha256', guess).update(body).digest();
}

/** The one model file in `cacheDir`. */
export function modelFileIn(cacheDir: string): string {
  const names = fs.readdirSync(cacheDir).filter((name) => name.endsWith('.psmodel'));
  if (names.length !== 1) throw new Error(`expected one model file in ${cacheDir}, found ${names.length}`);
  return path.join(cacheDir, names[0]!);
}

/** Everything a model says about its pack, as plain data: two models of one pack must give the same. */
export function modelSnapshot(model: PackModel): unknown {
  const c = model.columns;
  return {
    packVersion: model.packVersion,
    packSize: model.packSize,
    count: model.count,
    inPackType: Array.from(c.inPackType),
    type: Array.from(c.type),
    size: [Array.from(c.size.low), [...c.size.overflow]],
    resultSize: [Array.from(c.resultSize.low), [...c.resultSize.overflow]],
    diskSize: [Array.from(c.diskSize.low), [...c.diskSize.overflow]],
    base: Array.from(c.base),
    depth: [c.depth.BYTES_PER_ELEMENT, Array.from(c.depth)],
    byOffset: Array.from(c.byOffset),
    offset: Array.from(c.offset),
    // What the model derives, from the file (checked) or from base: a fresh build's in both cases.
    derived: (() => {
      const d = model.derivedColumns();
      return {
        childStart: Array.from(d.childStart),
        childList: Array.from(d.childList),
        roots: Array.from(d.roots),
        familySizes: Array.from(d.familySizes),
        offsetsInPackOrder: Array.from(d.offsetsInPackOrder),
      };
    })(),
  };
}
