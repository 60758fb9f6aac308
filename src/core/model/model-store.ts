import { sealFile, largestSealedFile, openSealedFile, type SealedFormat } from './sealed-file.ts';
import { errorMessage } from '../../common/error-message.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HashAlgorithm } from '../format/hash-algorithm.ts';
import { readIdxFileWithStat, type PackIndex, type ReadIdx } from '../format/idx.ts';
import { RandomAccessFile } from '../format/random-access-file.ts';
import { fail } from '../errors.ts';
import { makeDirectories, nearestExisting, writeAll, writeFileAtomically } from '../atomic-file.ts';
import { buildPackModel, type BuildOptions } from './build-pack-model.ts';
import { readCacheKey, readOrCreateCacheKey } from './model-cache-key.ts';
import { refuseInsideRepository } from './outside-repository.ts';
import { checkStoredShape } from './stored-columns-check.ts';
import { PackModel, type PackFiles, type SummaryFacts } from './pack-model.ts';
import type { PackColumns, RankingHead } from './pack-columns.ts';
import { rankingHead, STATS_RANKINGS, STORED_RANKING_HEAD } from './rankings.ts';
import type { Repository } from './repository.ts';
import { SizeColumn } from './size-column.ts';

/**
 * Bump when the columns or their meaning change; older files are then rebuilt. 2: keyed HMAC-SHA256
 * trailer. 3: the derived child lists and roots after the columns (rebuilding them was most of a
 * workbench reopen: bench/README.md, "Figures the comments rely on"). 4: family sizes after the
 * roots, the summary and the heads of `stats`' rankings in the header, the pack's and idx's sizes
 * and modification times, sealed by GMAC (sealed-file.ts); a sealed file's values are no longer
 * re-checked column by column (docs/security.md, "The model cache's threat model").
 */
const MODEL_FILE: SealedFormat = {
  magic: Buffer.from('PSMODEL\0', 'latin1'),
  version: 4,
  maxHeaderBytes: 64 << 20,
  what: 'model',
  seal: 'gmac-aes-256',
};
/**
 * Bytes per object of the columns (five 4-byte columns, the depth, two type bytes), depth at its
 * widest, then of the derived ones (child starts, roots, family sizes, at most one child-list
 * entry), plus padding.
 */
const MAX_COLUMN_BYTES_PER_OBJECT = 5 * 4 + 4 + 2 + 4 * 4;
const MAX_FIXED_COLUMN_BYTES = 4 + 4;

interface StoredHeader {
  packChecksum: string;
  idxChecksum: string;
  packSize: number;
  /** What the seal cannot vouch for: that the pack and idx are still the files the model was built from. */
  packMtimeMs: number;
  idxSize: number;
  idxMtimeMs: number;
  packVersion: number;
  count: number;
  hash: string;
  depthBytes: 2 | 4;
  overflow: { size: [number, number][]; resultSize: [number, number][]; diskSize: [number, number][] };
  summary: SummaryFacts;
  rankings: Record<string, RankingHead>;
}

// In model-cache-key.ts, so that the CLI's launcher (src/cli/launcher.ts) finds the cache without this module.
export { defaultModelCacheDir } from './model-cache-key.ts';

/**
 * PackScope never writes inside a repository (README.md, "Trust and safety"): refuses a model cache
 * directory that is the repository's work tree, git directory, or anything below them.
 */
export function assertOutsideRepository(directory: string, repository: Repository): void {
  refuseInsideRepository(
    directory,
    repository,
    (root) => `the model cache must be outside the repository (${root}); PackScope never writes inside a repository`,
  );
}

/**
 * A model cache directory must be a directory or creatable as one: refuses (a 'usage' error) a path
 * that is, or lies below, something else (a file, a device).
 */
export function checkModelCacheDirectory(directory: string): void {
  const existing = nearestExisting(directory);
  if (existing && !existing.stat.isDirectory())
    throw fail('usage', directory, undefined, `the model cache must be a directory, and ${existing.path} is not one`);
}

export type ModelSource = 'built' | 'persisted';

export interface LoadedModel {
  model: PackModel;
  source: ModelSource;
  /** Why a persisted file was not used, when one existed. */
  rebuiltBecause?: string;
}

/**
 * Persists pack models keyed by the pack's trailing checksum (docs/architecture.md). A file is used only
 * when its own checksum, the pack checksum, the idx checksum and the pack size all match; anything
 * else (stale, truncated, corrupt, other format version) is rebuilt and overwritten.
 */
export class ModelStore {
  /** `onSaveFailure` hears why a model was not persisted: never a failure of the command that read it. */
  constructor(
    readonly directory: string | undefined,
    private readonly onSaveFailure?: (message: string) => void,
    /** Options of every build this store makes (a parallel scan), under each load's own. */
    private readonly buildDefaults: Pick<BuildOptions, 'parallel'> = {},
  ) {}

  load(files: PackFiles, loadOptions: BuildOptions = {}): LoadedModel {
    const options: BuildOptions = { ...this.buildDefaults, ...loadOptions };
    if (this.directory === undefined) return { model: buildPackModel(files, options), source: 'built' };
    // Every bound of the idx is checked here; its names' order only once it is known whether a
    // sealed model built from this very file vouches for it (below).
    const idx =
      options.index === undefined
        ? readIdxFileWithStat(files.idx, {
            ...(options.hash ? { hash: options.hash } : {}),
            deferNameOrder: true,
            namesOnly: true,
          })
        : undefined;
    const index = options.index ?? idx!.index;
    options.onStage?.('index', index.count);
    const file = this.fileFor(index);
    let rebuiltBecause: string | undefined;
    if (idx !== undefined && fs.existsSync(file)) {
      options.onStage?.('stored', index.count);
      try {
        const key = readCacheKey(this.directory);
        if (key === undefined) throw new Error('no private cache key to check the model file with');
        const model = readStoredModel(file, files, idx, key);
        return { model, source: 'persisted' };
      } catch (error) {
        rebuiltBecause = errorMessage(error);
      }
    }
    // No model vouches for this idx: check it whole before a build relies on it.
    if (idx !== undefined) index.checkNameOrder();
    // The idx just read is the build's too (reading it twice cost a reopen tens of ms).
    const model = buildPackModel(files, { ...options, index });
    try {
      this.save(model);
    } catch (error) {
      this.onSaveFailure?.(`could not save the model of ${files.pack} in ${this.directory}: ${errorMessage(error)}`);
    }
    return rebuiltBecause === undefined ? { model, source: 'built' } : { model, source: 'built', rebuiltBecause };
  }

  fileFor(index: PackIndex): string {
    const pack = Buffer.from(index.packChecksum).toString('hex');
    const idx = Buffer.from(index.idxChecksum).toString('hex').slice(0, 16);
    return path.join(this.directory!, `${pack}-${idx}.psmodel`);
  }

  /** Writes atomically and exclusively (atomic-file.ts); throws why it could not. */
  save(model: PackModel): string | undefined {
    if (this.directory === undefined) return undefined;
    const target = this.fileFor(model.index);
    makeDirectories(this.directory, 0o700);
    const key = readOrCreateCacheKey(this.directory);
    const bytes = serializeModel(model, key);
    writeFileAtomically(target, 0o600, (fd) => writeAll(fd, bytes));
    return target;
  }
}

function columnArrays(columns: PackColumns): ArrayBufferView[] {
  // Four-byte columns first so every view stays aligned when read back.
  return [
    columns.size.low,
    columns.resultSize.low,
    columns.diskSize.low,
    columns.base,
    columns.byOffset,
    columns.depth,
    columns.inPackType,
    columns.type,
  ];
}

/** Size and modification time of a file now (what a model file records of its pack and idx). */
function fileStat(file: string): { size: number; mtimeMs: number } {
  const handle = RandomAccessFile.open(file);
  const { size, mtimeMs } = handle;
  handle.close();
  return { size, mtimeMs };
}

function serializeModel(model: PackModel, key: Buffer): Buffer {
  const c = model.columns;
  // Read before the columns are written out: a pack or idx replaced since the build makes a file
  // that no later open accepts (the checksums below are the build's), never one that passes.
  const pack = fileStat(model.files.pack);
  const idx = fileStat(model.files.idx);
  const rankings: Record<string, RankingHead> = {};
  for (const ranking of STATS_RANKINGS) rankings[ranking] = rankingHead(model, ranking, STORED_RANKING_HEAD);
  const header: StoredHeader = {
    packChecksum: model.checksumHex,
    idxChecksum: Buffer.from(model.index.idxChecksum).toString('hex'),
    packSize: model.packSize,
    packMtimeMs: pack.mtimeMs,
    idxSize: idx.size,
    idxMtimeMs: idx.mtimeMs,
    packVersion: model.packVersion,
    count: model.count,
    hash: model.hash.name,
    depthBytes: c.depth.BYTES_PER_ELEMENT as 2 | 4,
    overflow: {
      size: [...c.size.overflow],
      resultSize: [...c.resultSize.overflow],
      diskSize: [...c.diskSize.overflow],
    },
    summary: model.summaryFacts(),
    rankings,
  };
  const parts: Uint8Array[] = [];
  // The body starts 8-aligned (sealed-file.ts): padding from its start is padding in the file.
  let length = 0;
  for (const column of columnArrays(c)) {
    parts.push(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
    length += column.byteLength;
  }
  // The derived columns after padding to 4 bytes (the type columns end anywhere), all 4-byte.
  const derived = model.derivedColumns();
  parts.push(new Uint8Array(align4(length) - length));
  for (const column of [derived.childStart, derived.roots, derived.familySizes, derived.childList])
    parts.push(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
  return sealFile(MODEL_FILE, header, parts, key);
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

// Stays long: one read of a stored model in file order; each shape check guards the views after it.
function readStoredModel(file: string, files: PackFiles, idx: ReadIdx, key: Buffer): PackModel {
  const { index } = idx;
  const count = index.count;
  // Sized by the idx, not by the file: a crafted file cannot make this allocate more.
  const largest = largestSealedFile(MODEL_FILE, MAX_FIXED_COLUMN_BYTES + count * MAX_COLUMN_BYTES_PER_OBJECT);
  const sealed = openSealedFile(file, MODEL_FILE, key, largest, 'model file is larger than any model of this pack');
  const { bytes, bodyEnd: end } = sealed;
  const header = parseStoredHeader(sealed.headerText);
  // What the seal cannot say: that the idx and pack are the files this model was built from.
  if (header.count !== count) throw new Error('model is for a different object count');
  if (header.idxChecksum !== Buffer.from(index.idxChecksum).toString('hex'))
    throw new Error('model is for a different idx');
  if (header.packChecksum !== Buffer.from(index.packChecksum).toString('hex'))
    throw new Error('model is for a different pack');
  if (header.hash !== index.hash.name) throw new Error('model is for a different hash algorithm');
  if (header.idxSize !== idx.size || header.idxMtimeMs !== idx.mtimeMs)
    throw new Error('idx size or modification time changed');
  const pack = readPackEnds(files.pack, index.hash);
  if (header.packSize !== pack.size || header.packMtimeMs !== pack.mtimeMs)
    throw new Error('pack size or modification time changed');
  if (!pack.trailer.equals(index.packChecksum)) throw new Error('pack checksum no longer matches its idx');
  if (header.packVersion !== pack.version) throw new Error("model pack version is not the pack header's");

  let at = sealed.bodyStart;
  // Views into the file's own buffer: no copy (the prefix is 8-aligned, columns keep alignment).
  const take = (bytesPerElement: number): number => {
    const length = count * bytesPerElement;
    if (at + length > end) throw new Error('model columns are truncated');
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
  const depth =
    header.depthBytes === 2 ? new Uint16Array(storage, take(2), count) : new Uint32Array(storage, take(4), count);
  const inPackType = new Uint8Array(storage, take(1), count);
  const type = new Uint8Array(storage, take(1), count);
  at = align4(at);
  const takeWords = (length: number): Uint32Array => {
    if (at + length * 4 > end) throw new Error('model derived columns are truncated');
    const view = new Uint32Array(storage, at, length);
    at += length * 4;
    return view;
  };
  const childStart = takeWords(count + 1);
  const roots = takeWords(count);
  const familySizes = takeWords(count);
  const columns: PackColumns = {
    offset: index.offsets,
    inPackType,
    type,
    size,
    resultSize,
    diskSize,
    base,
    depth,
    byOffset,
  };
  checkStoredShape(columns, header.summary, header.rankings);
  // The child list is what is left: one entry per delta, as many as the summary counts (a column
  // laid out at another width than the header says shifts this remainder, and is refused here).
  const deltas = header.summary.counts.ofsDeltas + header.summary.counts.refDeltas;
  if ((end - at) / 4 !== deltas || deltas > count || childStart[count] !== deltas)
    throw new Error('model child list has the wrong length');
  const childList = takeWords(deltas);
  const model = new PackModel(files, index, index.hash, header.packVersion, pack.size, columns);
  model.adoptStoredDerived({ childStart, childList, roots, familySizes });
  model.adoptSummaryFacts(header.summary);
  for (const [ranking, head] of Object.entries(header.rankings)) model.adoptRankingHead(ranking, head);
  return model;
}

/**
 * The pack's size and modification time, its trailing checksum and its header's version (bytes
 * 4..8, big-endian): what a model file must agree with.
 */
function readPackEnds(
  pack: string,
  hash: HashAlgorithm,
): { size: number; mtimeMs: number; trailer: Buffer; version: number } {
  const file = RandomAccessFile.open(pack);
  try {
    if (file.size < 12 + hash.size) throw new Error('pack is too short for its header and checksum');
    return {
      size: file.size,
      mtimeMs: file.mtimeMs,
      trailer: file.read(file.size - hash.size, hash.size),
      version: file.read(4, 4).readUInt32BE(0),
    };
  } finally {
    file.close();
  }
}

/** The header as JSON, its every field checked for its type before anything uses it. */
function parseStoredHeader(text: string): StoredHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('model header is not JSON');
  }
  const header = value as Partial<StoredHeader> | null;
  const isPairs = (pairs: unknown): boolean =>
    Array.isArray(pairs) &&
    pairs.every(
      (pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'number' && typeof pair[1] === 'number',
    );
  if (
    typeof header !== 'object' ||
    header === null ||
    typeof header.packChecksum !== 'string' ||
    typeof header.idxChecksum !== 'string' ||
    typeof header.packSize !== 'number' ||
    typeof header.packMtimeMs !== 'number' ||
    typeof header.idxSize !== 'number' ||
    typeof header.idxMtimeMs !== 'number' ||
    typeof header.packVersion !== 'number' ||
    typeof header.count !== 'number' ||
    typeof header.hash !== 'string' ||
    typeof header.overflow !== 'object' ||
    header.overflow === null ||
    !isPairs(header.overflow.size) ||
    !isPairs(header.overflow.resultSize) ||
    !isPairs(header.overflow.diskSize)
  ) {
    throw new Error('model header has missing or mistyped fields');
  }
  if (header.depthBytes !== 2 && header.depthBytes !== 4) throw new Error('bad depth column width');
  return header as StoredHeader;
}
