import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HashAlgorithm } from '../format/hash-algorithm.ts';
import type { PackIndex } from '../format/idx.ts';
import { RandomAccessFile } from '../format/random-access-file.ts';
import { buildPackModel, loadIdx, type BuildOptions } from './build-pack-model.ts';
import { refuseInsideRepository } from './outside-repository.ts';
import { PackModel, type PackColumns, type PackFiles } from './pack-model.ts';
import type { Repository } from './repository.ts';
import { SizeColumn } from './size-column.ts';

const MAGIC = Buffer.from('PSMODEL\0', 'latin1');
/** Bump when the columns or their meaning change; older files are then rebuilt. */
const FORMAT_VERSION = 1;
const MAX_HEADER_BYTES = 64 << 20;

interface StoredHeader {
  packChecksum: string;
  idxChecksum: string;
  packSize: number;
  packVersion: number;
  count: number;
  hash: string;
  depthBytes: 2 | 4;
  overflow: { size: [number, number][]; resultSize: [number, number][]; diskSize: [number, number][] };
}

/** Where persisted models live by default: outside every repository, in the user's cache. */
export function defaultModelCacheDir(): string {
  if (process.env.PACKSCOPE_CACHE_DIR) return path.resolve(process.env.PACKSCOPE_CACHE_DIR);
  const base = process.env.XDG_CACHE_HOME ? path.resolve(process.env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache');
  return path.join(base, 'packscope', 'models');
}

/**
 * PackScope never writes inside a repository (ARCHITECTURE.md, "Safety"): refuses a model cache
 * directory that is the repository's work tree, git directory, or anything below them.
 */
export function assertOutsideRepository(directory: string, repository: Repository): void {
  refuseInsideRepository(directory, repository, (root) => `the model cache must be outside the repository (${root}); PackScope never writes inside a repository`);
}

export type ModelSource = 'built' | 'persisted';

export interface LoadedModel {
  model: PackModel;
  source: ModelSource;
  /** Why a persisted file was not used, when one existed. */
  rebuiltBecause?: string;
}

/**
 * Persists pack models keyed by the pack's trailing checksum (ARCHITECTURE.md). A file is used only
 * when its own checksum, the pack checksum, the idx checksum and the pack size all match; anything
 * else (stale, truncated, corrupt, other format version) is rebuilt and overwritten.
 */
export class ModelStore {
  constructor(readonly directory: string | undefined) {}

  load(files: PackFiles, options: BuildOptions = {}): LoadedModel {
    if (this.directory === undefined) return { model: buildPackModel(files, options), source: 'built' };
    const index = loadIdx(files, options.hash);
    const packSize = currentPackSize(files.pack);
    const file = this.fileFor(index);
    let rebuiltBecause: string | undefined;
    if (fs.existsSync(file)) {
      try {
        const model = readStoredModel(file, files, index, packSize);
        return { model, source: 'persisted' };
      } catch (error) {
        rebuiltBecause = error instanceof Error ? error.message : String(error);
      }
    }
    const model = buildPackModel(files, options);
    this.save(model);
    return rebuiltBecause === undefined ? { model, source: 'built' } : { model, source: 'built', rebuiltBecause };
  }

  fileFor(index: PackIndex): string {
    const pack = Buffer.from(index.packChecksum).toString('hex');
    const idx = Buffer.from(index.idxChecksum).toString('hex').slice(0, 16);
    return path.join(this.directory!, `${pack}-${idx}.psmodel`);
  }

  /** Writes atomically (temporary file, then rename); failure to persist is not fatal to reading. */
  save(model: PackModel): string | undefined {
    if (this.directory === undefined) return undefined;
    const target = this.fileFor(model.index);
    const temporary = `${target}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(this.directory, { recursive: true });
      fs.writeFileSync(temporary, serializeModel(model));
      fs.renameSync(temporary, target);
      return target;
    } catch {
      fs.rmSync(temporary, { force: true });
      return undefined;
    }
  }
}

function currentPackSize(pack: string): number {
  const file = RandomAccessFile.open(pack);
  const size = file.size;
  file.close();
  return size;
}

function columnArrays(columns: PackColumns): ArrayBufferView[] {
  // Four-byte columns first so every view stays aligned when read back.
  return [columns.size.low, columns.resultSize.low, columns.diskSize.low, columns.base, columns.byOffset, columns.depth, columns.inPackType, columns.type];
}

function serializeModel(model: PackModel): Buffer {
  const c = model.columns;
  const header: StoredHeader = {
    packChecksum: model.checksumHex,
    idxChecksum: Buffer.from(model.index.idxChecksum).toString('hex'),
    packSize: model.packSize,
    packVersion: model.packVersion,
    count: model.count,
    hash: model.hash.name,
    depthBytes: c.depth.BYTES_PER_ELEMENT as 2 | 4,
    overflow: { size: [...c.size.overflow], resultSize: [...c.resultSize.overflow], diskSize: [...c.diskSize.overflow] },
  };
  const headerJson = Buffer.from(JSON.stringify(header), 'utf8');
  const prefixLength = align8(MAGIC.length + 8 + headerJson.length);
  const prefix = Buffer.alloc(prefixLength);
  MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(FORMAT_VERSION, 8);
  prefix.writeUInt32LE(headerJson.length, 12);
  headerJson.copy(prefix, 16);
  const parts: Uint8Array[] = [prefix];
  for (const column of columnArrays(c)) parts.push(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
  const digest = createHash('sha1');
  for (const part of parts) digest.update(part);
  parts.push(digest.digest());
  return Buffer.concat(parts);
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

function readStoredModel(file: string, files: PackFiles, index: PackIndex, packSize: number): PackModel {
  const handle = RandomAccessFile.open(file);
  let bytes: Buffer;
  try {
    // A fresh ArrayBuffer keeps the typed views below aligned.
    const storage = new ArrayBuffer(handle.size);
    bytes = Buffer.from(storage);
    handle.readInto(bytes, 0, handle.size, 0);
  } finally {
    handle.close();
  }
  if (bytes.length < 16 + 20 || !bytes.subarray(0, 8).equals(MAGIC)) throw new Error('not a PackScope model file');
  if (bytes.readUInt32LE(8) !== FORMAT_VERSION) throw new Error(`model format ${bytes.readUInt32LE(8)} is not ${FORMAT_VERSION}`);
  const headerLength = bytes.readUInt32LE(12);
  if (headerLength > MAX_HEADER_BYTES || 16 + headerLength > bytes.length - 20) throw new Error('model header is truncated');
  const digest = createHash('sha1').update(bytes.subarray(0, bytes.length - 20)).digest();
  if (!digest.equals(bytes.subarray(bytes.length - 20))) throw new Error('model file checksum mismatch (corrupt or truncated)');
  const header = JSON.parse(bytes.toString('utf8', 16, 16 + headerLength)) as StoredHeader;
  const count = index.count;
  if (header.count !== count) throw new Error('model is for a different object count');
  if (header.packChecksum !== Buffer.from(index.packChecksum).toString('hex')) throw new Error('model is for a different pack');
  if (header.idxChecksum !== Buffer.from(index.idxChecksum).toString('hex')) throw new Error('model is for a different idx');
  if (header.packSize !== packSize) throw new Error('pack size changed');
  if (header.hash !== index.hash.name) throw new Error('model is for a different hash algorithm');
  if (header.depthBytes !== 2 && header.depthBytes !== 4) throw new Error('bad depth column width');
  const trailer = readPackTrailer(files.pack, packSize, index.hash);
  if (!trailer.equals(index.packChecksum)) throw new Error('pack checksum no longer matches its idx');

  let at = align8(16 + headerLength);
  // Views into the file's own buffer: no copy (the prefix is 8-aligned, columns keep alignment).
  const take = (bytesPerElement: number): number => {
    const length = count * bytesPerElement;
    if (at + length > bytes.length - 20) throw new Error('model columns are truncated');
    const start = at;
    at += length;
    return start;
  };
  const storage = bytes.buffer;
  const size = new SizeColumn(new Uint32Array(storage, take(4), count), new Map(header.overflow.size));
  const resultSize = new SizeColumn(new Uint32Array(storage, take(4), count), new Map(header.overflow.resultSize));
  const diskSize = new SizeColumn(new Uint32Array(storage, take(4), count), new Map(header.overflow.diskSize));
  const base = new Int32Array(storage, take(4), count);
  const byOffset = new Uint32Array(storage, take(4), count);
  const depth = header.depthBytes === 2 ? new Uint16Array(storage, take(2), count) : new Uint32Array(storage, take(4), count);
  const inPackType = new Uint8Array(storage, take(1), count);
  const type = new Uint8Array(storage, take(1), count);
  if (at !== bytes.length - 20) throw new Error('model file has trailing bytes');
  checkStoredColumns(count, base, byOffset, inPackType, type);
  const columns: PackColumns = { offset: index.offsets, inPackType, type, size, resultSize, diskSize, base, depth, byOffset };
  return new PackModel(files, index, index.hash, header.packVersion, packSize, columns);
}

function readPackTrailer(pack: string, packSize: number, hash: HashAlgorithm): Buffer {
  const file = RandomAccessFile.open(pack);
  try {
    return file.read(packSize - hash.size, hash.size);
  } finally {
    file.close();
  }
}

/** The checksum catches accidents; these bounds make sure no stored value can index out of range. */
function checkStoredColumns(count: number, base: Int32Array, byOffset: Uint32Array, inPackType: Uint8Array, type: Uint8Array): void {
  for (let n = 0; n < count; n++) {
    const b = base[n]!;
    if (b < -1 || b >= count || byOffset[n]! >= count) throw new Error('model column out of range');
    const stored = inPackType[n]!;
    const resolved = type[n]!;
    if (resolved < 1 || resolved > 4 || (stored !== resolved && stored !== 6 && stored !== 7)) throw new Error('model type column out of range');
  }
}
