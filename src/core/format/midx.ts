import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail, type PackFormatError } from '../errors.ts';
import { hashAlgorithmByFormatId, type HashAlgorithm } from './hash-algorithm.ts';
import { readWholeFile } from './random-access-file.ts';

const MIDX_SIGNATURE = 0x4d494458; // "MIDX"
const CHUNK_PNAM = 0x504e414d;
const CHUNK_OIDF = 0x4f494446;
const CHUNK_OIDL = 0x4f49444c;
const CHUNK_OOFF = 0x4f4f4646;
const CHUNK_LOFF = 0x4c4f4646;
const CHUNK_RIDX = 0x52494458;
const MAX_MIDX_BYTES = 2 ** 32 * 64;

/** One MIDX file (a whole `multi-pack-index`, or one layer of an incremental chain), §6.4. */
export interface MidxLayer {
  file: string;
  version: number;
  hash: HashAlgorithm;
  /** Names of the packs this layer covers, as written (`pack-<hash>.idx`). */
  packNames: string[];
  count: number;
  bytes: Buffer;
  fanoutAt: number;
  namesAt: number;
  offsetsAt: number;
  largeOffsetsAt: number | undefined;
  largeOffsetCount: number;
  /** The RIDX chunk (git 2.35 and later write it with a bitmap): MIDX positions in pseudo-pack order. */
  reverseAt: number | undefined;
  /** The layer's own checksum (its last hash-size bytes), which names its `.bitmap` and `.rev`. */
  checksumHex: string;
}

/** A MIDX, possibly incremental: layers from base to newest, with pack ids numbered across layers. */
export class MultiPackIndex {
  /**
   * Per layer: whether its object list is in strictly ascending order with a fan-out that agrees
   * with it (checked at the first lookup), and where the last lookup found its id. When the list is
   * in order, a lookup first tries the entry after the last one found, where the next id of a
   * listing in ascending order is (`objects` over a MIDX: one comparison per lookup instead of a
   * binary search). In a list in order an id has one place, so the search would find the same entry.
   */
  private readonly ordered: (boolean | undefined)[] = [];
  private readonly lastFound: number[] = [];

  constructor(readonly layers: MidxLayer[]) {}

  /** Pack names in global pack-id order. */
  get packNames(): string[] {
    return this.layers.flatMap((layer) => layer.packNames);
  }

  /** The (pack name, offset) the MIDX assigns to `oid` (and where its OOFF entry is), or undefined. */
  lookup(oid: Uint8Array): { packName: string; offset: number; file: string; entryAt: number } | undefined {
    // Newest layer first, as git's lookup walks from the tip of the chain to its base.
    for (let l = this.layers.length - 1; l >= 0; l--) {
      const layer = this.layers[l]!;
      const position = this.find(l, layer, oid);
      if (position < 0) continue;
      const { packId, offset } = layerEntry(layer, position);
      const packName = layer.packNames[packId];
      if (packName === undefined) {
        let base = 0;
        for (let earlier = 0; earlier < l; earlier++) base += this.layers[earlier]!.packNames.length;
        throw fail(
          'bad-offset',
          layer.file,
          layer.offsetsAt + position * 8,
          `object refers to pack id ${packId + base}, but the MIDX names ${this.packNames.length} packs`,
        );
      }
      return { packName, offset, file: layer.file, entryAt: layer.offsetsAt + position * 8 };
    }
    return undefined;
  }

  private find(l: number, layer: MidxLayer, oid: Uint8Array): number {
    if ((this.ordered[l] ??= inOrder(layer))) {
      const next = (this.lastFound[l] ?? -1) + 1;
      const size = layer.hash.size;
      if (next < layer.count && compareName(layer.bytes, layer.namesAt + next * size, oid, size) === 0) {
        this.lastFound[l] = next;
        return next;
      }
    }
    const position = findInLayer(layer, oid);
    if (position >= 0) this.lastFound[l] = position;
    return position;
  }

  /**
   * Why this MIDX does not answer `oid` with (`packName`, `offset`), where that pack's own idx has it:
   * the bytes at fault, as `git multi-pack-index verify` checks them (the object list in order,
   * each entry's pack and offset). git itself then reports the object missing.
   */
  faultFor(oid: Uint8Array, packName: string, offset: number): PackFormatError {
    const hex = Buffer.from(oid).toString('hex');
    const hit = this.lookup(oid);
    if (hit)
      return fail(
        'mismatch',
        hit.file,
        hit.entryAt,
        `the multi-pack-index gives ${hex} at offset ${hit.offset} of ${hit.packName}, but ${packName} holds it at offset ${offset}`,
      );
    for (const layer of this.layers) {
      const size = layer.hash.size;
      for (let i = 1; i < layer.count; i++) {
        const at = layer.namesAt + i * size;
        if (Buffer.compare(layer.bytes.subarray(at - size, at), layer.bytes.subarray(at, at + size)) >= 0) {
          return fail(
            'mismatch',
            layer.file,
            at,
            `the multi-pack-index's object list is out of order at entry ${i} (${layer.bytes.toString('hex', at, at + size)}), so it does not find ${hex}, which ${packName} holds`,
          );
        }
      }
    }
    // The entry where the id belongs: a damaged id is there or just before it.
    const last = this.layers[this.layers.length - 1]!;
    const entry = lowerBound(last, oid);
    return fail(
      'mismatch',
      last.file,
      last.namesAt + entry * last.hash.size,
      `the multi-pack-index does not list ${hex}, which ${packName} holds at offset ${offset} (its object list would have it at entry ${entry})`,
    );
  }
}

/**
 * The pack a layer's pseudo-pack order puts first, given the MIDX position of the object at
 * pseudo-pack position 0 (from the RIDX chunk or a `.rev` file): git's midx_preferred_pack.
 * Throws when that position or its pack id is out of range.
 */
export function packAtMidxPosition(layer: MidxLayer, position: number, source: string, at: number): string {
  if (position >= layer.count)
    throw fail(
      'bad-offset',
      source,
      at,
      `reverse index names MIDX position ${position}, but the MIDX holds ${layer.count} objects`,
    );
  const { packId } = layerEntry(layer, position);
  const name = layer.packNames[packId];
  if (name === undefined)
    throw fail(
      'bad-offset',
      layer.file,
      layer.offsetsAt + position * 8,
      `object refers to pack id ${packId}, but the MIDX names ${layer.packNames.length} packs`,
    );
  return name;
}

/** True when the layer's ids ascend strictly and its fan-out counts them as they are. */
function inOrder(layer: MidxLayer): boolean {
  const { bytes, count, namesAt } = layer;
  const size = layer.hash.size;
  const perFirstByte = new Uint32Array(256);
  for (let n = 0; n < count; n++) {
    const at = namesAt + n * size;
    perFirstByte[bytes[at]!]!++;
    if (n === 0) continue;
    let i = 0;
    while (i < size && bytes[at + i] === bytes[at - size + i]) i++;
    if (i === size || bytes[at + i]! < bytes[at - size + i]!) return false;
  }
  let total = 0;
  for (let b = 0; b < 256; b++) {
    total += perFirstByte[b]!;
    if (bytes.readUInt32BE(layer.fanoutAt + b * 4) !== total) return false;
  }
  return true;
}

function findInLayer(layer: MidxLayer, oid: Uint8Array): number {
  const { bytes, hash } = layer;
  const first = oid[0]!;
  let low = first === 0 ? 0 : bytes.readUInt32BE(layer.fanoutAt + (first - 1) * 4);
  let high = bytes.readUInt32BE(layer.fanoutAt + first * 4);
  while (low < high) {
    const mid = (low + high) >>> 1;
    const cmp = compareName(bytes, layer.namesAt + mid * hash.size, oid, hash.size);
    if (cmp === 0) return mid;
    if (cmp < 0) low = mid + 1;
    else high = mid;
  }
  return -1;
}

/**
 * bytes[at, at + size) against oid[0, size), byte by byte in place: a lookup per object of a
 * 213-pack repository spent a third of `packscope objects` in subarray views and Buffer.compare.
 */
function compareName(bytes: Uint8Array, at: number, oid: Uint8Array, size: number): number {
  for (let i = 0; i < size; i++) {
    const d = bytes[at + i]! - oid[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** The first position in the layer's sorted object list whose id is not below `oid`. */
function lowerBound(layer: MidxLayer, oid: Uint8Array): number {
  const size = layer.hash.size;
  let low = 0;
  let high = layer.count;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareName(layer.bytes, layer.namesAt + mid * size, oid, size) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

function layerEntry(layer: MidxLayer, position: number): { packId: number; offset: number } {
  const at = layer.offsetsAt + position * 8;
  const packId = layer.bytes.readUInt32BE(at);
  const word = layer.bytes.readUInt32BE(at + 4);
  if (word & 0x80000000 && layer.largeOffsetsAt !== undefined) {
    const index = word & 0x7fffffff;
    if (index >= layer.largeOffsetCount)
      throw fail('bad-offset', layer.file, at + 4, `large offset ${index} is past the LOFF chunk`);
    const high = layer.bytes.readUInt32BE(layer.largeOffsetsAt + index * 8);
    const low = layer.bytes.readUInt32BE(layer.largeOffsetsAt + index * 8 + 4);
    if (high >= 0x200000)
      throw fail('bad-offset', layer.file, layer.largeOffsetsAt + index * 8, 'large offset exceeds 2^53');
    return { packId, offset: high * 0x100000000 + low };
  }
  return { packId, offset: word };
}

// Stays long: one bounds-checked read of a MIDX layer, chunk by chunk in file order; each check guards the reads after
// it.
export function parseMidxLayer(file: string, bytes: Buffer, expectedBaseLayers: number): MidxLayer {
  if (bytes.length < 12) throw fail('truncated', file, bytes.length, 'MIDX is shorter than its header');
  if (bytes.readUInt32BE(0) !== MIDX_SIGNATURE)
    throw fail('bad-magic', file, 0, 'not a multi-pack-index (no "MIDX" signature)');
  const version = bytes[4]!;
  if (version !== 1 && version !== 2) throw fail('bad-version', file, 4, `unsupported MIDX version ${version}`);
  const hash = hashAlgorithmByFormatId(bytes[5]!);
  if (!hash) throw fail('bad-header', file, 5, `unknown MIDX hash id ${bytes[5]}`);
  const chunkCount = bytes[6]!;
  const baseLayers = bytes[7]!;
  if (baseLayers !== expectedBaseLayers)
    throw fail(
      'mismatch',
      file,
      7,
      `MIDX says it has ${baseLayers} base layers, the chain gives it ${expectedBaseLayers}`,
    );
  const packCount = bytes.readUInt32BE(8);
  const tableEnd = 12 + (chunkCount + 1) * 12;
  if (bytes.length < tableEnd + hash.size)
    throw fail('truncated', file, bytes.length, 'MIDX ends inside its chunk table');

  const chunks = new Map<number, { start: number; end: number }>();
  const contentEnd = bytes.length - hash.size;
  for (let i = 0; i < chunkCount; i++) {
    const at = 12 + i * 12;
    const id = bytes.readUInt32BE(at);
    const start = readU64(file, bytes, at + 4);
    const end = readU64(file, bytes, at + 16);
    if (start < tableEnd || end < start || end > contentEnd)
      throw fail('bad-offset', file, at, `chunk ${chunkName(id)} spans ${start}..${end}, outside the file`);
    chunks.set(id, { start, end });
  }
  const need = (id: number): { start: number; end: number } => {
    const chunk = chunks.get(id);
    if (!chunk) throw fail('bad-header', file, 12, `MIDX has no ${chunkName(id)} chunk`);
    return chunk;
  };

  const pnam = need(CHUNK_PNAM);
  const packNames = bytes
    .toString('latin1', pnam.start, pnam.end)
    .split('\0')
    .filter((name) => name !== '');
  if (packNames.length !== packCount)
    throw fail('bad-header', file, pnam.start, `PNAM names ${packNames.length} packs, the header says ${packCount}`);
  for (const name of packNames) {
    if (name.includes('/') || name.includes('\\') || name === '..')
      throw fail(
        'bad-header',
        file,
        pnam.start,
        `pack name "${name.replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}" is not a plain file name`,
      );
  }
  const oidf = need(CHUNK_OIDF);
  if (oidf.end - oidf.start !== 1024)
    throw fail('bad-header', file, oidf.start, 'OIDF chunk is not 256 fan-out entries');
  let previous = 0;
  for (let i = 0; i < 256; i++) {
    const value = bytes.readUInt32BE(oidf.start + i * 4);
    if (value < previous) throw fail('bad-fanout', file, oidf.start + i * 4, `fan-out entry ${i} decreases`);
    previous = value;
  }
  const count = previous;
  const oidl = need(CHUNK_OIDL);
  if (oidl.end - oidl.start !== count * hash.size)
    throw fail('bad-header', file, oidl.start, `OIDL chunk does not hold ${count} ids`);
  const ooff = need(CHUNK_OOFF);
  if (ooff.end - ooff.start !== count * 8)
    throw fail('bad-header', file, ooff.start, `OOFF chunk does not hold ${count} entries`);
  const loff = chunks.get(CHUNK_LOFF);
  const ridx = chunks.get(CHUNK_RIDX);
  if (ridx && ridx.end - ridx.start !== count * 4)
    throw fail('bad-header', file, ridx.start, `RIDX chunk does not hold ${count} positions`);
  if (loff && (loff.end - loff.start) % 8 !== 0)
    throw fail('bad-header', file, loff.start, 'LOFF chunk is not a whole number of offsets');

  return {
    file,
    version,
    hash,
    packNames,
    count,
    bytes,
    fanoutAt: oidf.start,
    namesAt: oidl.start,
    offsetsAt: ooff.start,
    largeOffsetsAt: loff?.start,
    largeOffsetCount: loff ? (loff.end - loff.start) / 8 : 0,
    reverseAt: ridx?.start,
    checksumHex: bytes.toString('hex', contentEnd, bytes.length),
  };
}

function readU64(file: string, bytes: Buffer, at: number): number {
  const high = bytes.readUInt32BE(at);
  if (high >= 0x200000) throw fail('bad-offset', file, at, 'chunk offset exceeds 2^53');
  return high * 0x100000000 + bytes.readUInt32BE(at + 4);
}

/** The chunk id as its four letters, or in hex when they are not printable (errors are one line). */
function chunkName(id: number): string {
  const name = String.fromCharCode((id >>> 24) & 255, (id >>> 16) & 255, (id >>> 8) & 255, id & 255);
  return /^[\x20-\x7e]{4}$/.test(name) ? name : `0x${(id >>> 0).toString(16).padStart(8, '0')}`;
}

/**
 * The MIDX of a pack directory (§6.4): `multi-pack-index` when present, as git reads it first,
 * else the incremental chain in `multi-pack-index.d/`. Undefined when there is neither.
 */
export function loadMultiPackIndex(packDir: string): MultiPackIndex | undefined {
  const single = path.join(packDir, 'multi-pack-index');
  if (fs.existsSync(single))
    return new MultiPackIndex([parseMidxLayer(single, readWholeFile(single, MAX_MIDX_BYTES), 0)]);
  const chainFile = path.join(packDir, 'multi-pack-index.d', 'multi-pack-index-chain');
  if (!fs.existsSync(chainFile)) return undefined;
  const hashes = readWholeFile(chainFile, 1 << 20)
    .toString('utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const layers: MidxLayer[] = [];
  for (const [i, hex] of hashes.entries()) {
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(hex))
      throw fail('bad-header', chainFile, undefined, `line ${i + 1} is not a MIDX checksum`);
    const layerFile = path.join(packDir, 'multi-pack-index.d', `multi-pack-index-${hex}.midx`);
    layers.push(parseMidxLayer(layerFile, readWholeFile(layerFile, MAX_MIDX_BYTES), i));
  }
  return layers.length > 0 ? new MultiPackIndex(layers) : undefined;
}
