/**
 * A test-only writer of multi-pack-index files, for the incremental MIDX chain that git 2.39 cannot
 * write (readers since 2.47). Format per git-internals §6.4 and git's midx.c / chunk-format:
 *
 *   header   "MIDX", version 1, oid version (1 SHA-1, 2 SHA-256), chunk count, base-MIDX count, pack count (u32)
 *   table    (chunks + 1) × { id u32, offset u64 }, the last entry id 0 with the end offset
 *   PNAM     pack names ("pack-<hash>.idx"), each NUL-terminated, sorted, padded to 4 bytes
 *   OIDF     256 × u32 fan-out
 *   OIDL     N × hash, sorted
 *   OOFF     N × { pack id u32 (within this layer), offset u32 (MSB: index into LOFF) }
 *   LOFF     K × u64 (only when some offset is stored there)
 *   trailer  hash of everything before it
 *
 * A chain is `pack/multi-pack-index.d/multi-pack-index-chain` (one layer checksum per line, base first)
 * plus `multi-pack-index-<checksum>.midx` per layer. Layer k has base count k, numbers its packs from
 * 0, and lists only objects that no earlier layer lists.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GitSandbox } from './git.ts';

export type ObjectFormat = 'sha1' | 'sha256';

export interface PackObjects {
  /** The pack's idx file name, as a MIDX names it: `pack-<hash>.idx`. */
  name: string;
  objects: ReadonlyArray<{ oid: string; offset: number }>;
}

export interface MidxEntry {
  pack: string;
  offset: number;
}

export interface LayerOptions {
  /** Store every offset greater than this in the LOFF chunk (git only does so from 2^31 up). */
  largeOffsetsAbove?: number;
}

export interface BuiltLayer {
  bytes: Buffer;
  checksum: string;
  /** The objects this layer lists, and where. */
  entries: Map<string, MidxEntry>;
  largeOffsets: number;
}

const CHUNK_PNAM = 0x504e414d;
const CHUNK_OIDF = 0x4f494446;
const CHUNK_OIDL = 0x4f49444c;
const CHUNK_OOFF = 0x4f4f4646;
const CHUNK_LOFF = 0x4c4f4646;

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value >>> 0);
  return b;
}

function u64(value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(Math.floor(value / 0x100000000));
  b.writeUInt32BE(value % 0x100000000, 4);
  return b;
}

/**
 * One MIDX file over `packs`. Objects in `exclude` (listed by earlier layers) are left out; an object
 * in several of these packs is listed from the pack that sorts first by name.
 */
export function buildMidxLayer(
  format: ObjectFormat,
  baseLayers: number,
  packs: PackObjects[],
  exclude: ReadonlySet<string> = new Set(),
  options: LayerOptions = {},
): BuiltLayer {
  const hashSize = format === 'sha1' ? 20 : 32;
  const sorted = [...packs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const chosen = new Map<string, { packId: number; offset: number }>();
  sorted.forEach((pack, packId) => {
    for (const { oid, offset } of pack.objects) {
      if (oid.length !== hashSize * 2) throw new Error(`${oid} is not a ${format} object id`);
      if (exclude.has(oid) || chosen.has(oid)) continue;
      chosen.set(oid, { packId, offset });
    }
  });
  const oids = [...chosen.keys()].sort();

  const names = Buffer.concat(sorted.map((pack) => Buffer.from(`${pack.name}\0`, 'utf8')));
  const pnam = Buffer.concat([names, Buffer.alloc((4 - (names.length % 4)) % 4)]);

  const fanout = Buffer.alloc(256 * 4);
  const counts = new Array<number>(256).fill(0);
  for (const oid of oids) counts[parseInt(oid.slice(0, 2), 16)]!++;
  let running = 0;
  for (let i = 0; i < 256; i++) {
    running += counts[i]!;
    fanout.writeUInt32BE(running, i * 4);
  }

  const oidl = Buffer.concat(oids.map((oid) => Buffer.from(oid, 'hex')));
  const large: number[] = [];
  const limit = options.largeOffsetsAbove ?? 0x7fffffff;
  const ooff = Buffer.concat(
    oids.map((oid) => {
      const { packId, offset } = chosen.get(oid)!;
      if (offset > limit) {
        large.push(offset);
        return Buffer.concat([u32(packId), u32(0x80000000 | (large.length - 1))]);
      }
      return Buffer.concat([u32(packId), u32(offset)]);
    }),
  );
  const chunks: Array<[number, Buffer]> = [
    [CHUNK_PNAM, pnam],
    [CHUNK_OIDF, fanout],
    [CHUNK_OIDL, oidl],
    [CHUNK_OOFF, ooff],
  ];
  if (large.length > 0) chunks.push([CHUNK_LOFF, Buffer.concat(large.map(u64))]);

  const header = Buffer.concat([
    Buffer.from('MIDX', 'latin1'),
    Buffer.from([1, format === 'sha1' ? 1 : 2, chunks.length, baseLayers]),
    u32(sorted.length),
  ]);
  const table: Buffer[] = [];
  let at = header.length + (chunks.length + 1) * 12;
  for (const [id, data] of chunks) {
    table.push(u32(id), u64(at));
    at += data.length;
  }
  table.push(u32(0), u64(at));
  const body = Buffer.concat([header, ...table, ...chunks.map(([, data]) => data)]);
  const trailer = createHash(format === 'sha1' ? 'sha1' : 'sha256')
    .update(body)
    .digest();

  const entries = new Map<string, MidxEntry>();
  for (const oid of oids) {
    const { packId, offset } = chosen.get(oid)!;
    entries.set(oid, { pack: sorted[packId]!.name, offset });
  }
  return {
    bytes: Buffer.concat([body, trailer]),
    checksum: trailer.toString('hex'),
    entries,
    largeOffsets: large.length,
  };
}

export interface WrittenChain {
  chainFile: string;
  layers: Array<BuiltLayer & { file: string }>;
  /** Every object the chain lists, with the layer that lists it. */
  entries: Map<string, MidxEntry & { layer: number }>;
}

/** Writes `pack/multi-pack-index.d/` for `layers` (base first) into `packDir`, replacing any chain there. */
export function writeMidxChain(
  packDir: string,
  format: ObjectFormat,
  layers: PackObjects[][],
  options: (layer: number) => LayerOptions = () => ({}),
): WrittenChain {
  const dir = path.join(packDir, 'multi-pack-index.d');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  const entries = new Map<string, MidxEntry & { layer: number }>();
  const written: WrittenChain['layers'] = [];
  layers.forEach((packs, k) => {
    const layer = buildMidxLayer(format, k, packs, new Set(entries.keys()), options(k));
    const file = path.join(dir, `multi-pack-index-${layer.checksum}.midx`);
    fs.writeFileSync(file, layer.bytes);
    for (const [oid, entry] of layer.entries) entries.set(oid, { ...entry, layer: k });
    written.push({ ...layer, file });
  });
  const chainFile = path.join(dir, 'multi-pack-index-chain');
  fs.writeFileSync(chainFile, written.map((layer) => `${layer.checksum}\n`).join(''));
  return { chainFile, layers: written, entries };
}

/** The (oid, offset) pairs of a pack's idx, as `git show-index` reads them: independent of PackScope. */
export function packObjectsWithGit(
  sandbox: GitSandbox,
  cwd: string,
  idxFile: string,
  format: ObjectFormat,
): PackObjects {
  const text = sandbox.gitText(cwd, ['show-index', `--object-format=${format}`], { input: fs.readFileSync(idxFile) });
  const objects = text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [offset, oid] = line.split(' ');
      return { oid: oid!, offset: Number(offset) };
    });
  return { name: path.basename(idxFile), objects };
}
