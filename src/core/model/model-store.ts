import {
  largestSealedFile,
  openSealedHeader,
  readSealedSection,
  sealFile,
  sealSections,
  type SealedFormat,
} from './sealed-file.ts';
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
import { checkSizeOverflow, checkStoredShape } from './stored-columns-check.ts';
import { PackModel, type PackFiles, type SummaryFacts } from './pack-model.ts';
import type { PackColumns, RankingHead, StoredDerivedColumns } from './pack-columns.ts';
import { rankingHead, STATS_RANKINGS, STORED_RANKING_HEAD } from './rankings.ts';
import type { Repository } from './repository.ts';
import { SizeColumn } from './size-column.ts';

/**
 * Bump when the columns or their meaning change; older files are then rebuilt. 2: keyed HMAC-SHA256
 * trailer. 3: the derived child lists and roots after the columns (rebuilding them was most of a
 * workbench reopen: bench/README.md, "Figures the comments rely on"). 4: family sizes after the
 * roots, the summary and the heads of `stats`' rankings in the header, the pack's and idx's sizes
 * and modification times, sealed by GMAC (sealed-file.ts); a sealed file's values are no longer
 * re-checked column by column (docs/security.md, "The model cache's threat model"). 5: a seal per
 * column in the header and the header's own seal at the end, each column read and checked when it is
 * first used (`stats` needs the header and four columns of twelve).
 */
const MODEL_FILE: SealedFormat = {
  magic: Buffer.from('PSMODEL\0', 'latin1'),
  version: 5,
  maxHeaderBytes: 64 << 20,
  what: 'model',
  seal: 'gmac-aes-256-sections',
};
/** The file's sections in file order, each sealed on its own; their seals are the header's `sections`. */
const SECTIONS = [
  'size',
  'resultSize',
  'diskSize',
  'base',
  'byOffset',
  'depth',
  'inPackType',
  'type',
  'childStart',
  'roots',
  'familySizes',
  'childList',
] as const;
type SectionName = (typeof SECTIONS)[number];
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
  /** One seal per section, in SECTIONS' order (sealed-file.ts, sealSections). */
  sections: string[];
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
  /** The model cache's key, once read (or created by a save). */
  private key: Buffer | undefined;

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
    // The idx's head and every bound of it are checked here; its tables (names, offsets) are read
    // and checked once it is known whether a sealed model built from this very file vouches for it
    // (then only when first used), else before the build (buildAndSave).
    const idx =
      options.index === undefined
        ? readIdxFileWithStat(files.idx, {
            ...(options.hash ? { hash: options.hash } : {}),
            deferNameOrder: true,
            namesOnly: true,
            // Read when first used: a stored model vouches for them, and `stats` needs a few names.
            tablesOnFirstUse: true,
          })
        : undefined;
    const index = options.index ?? idx!.index;
    options.onStage?.('index', index.count);
    const file = this.fileFor(index);
    let rebuiltBecause: string | undefined;
    if (idx !== undefined && fs.existsSync(file)) {
      options.onStage?.('stored', index.count);
      try {
        // Read once per store: 3,000 small packs read it 3,000 times.
        const key = (this.key ??= readCacheKey(this.directory));
        if (key === undefined) throw new Error('no private cache key to check the model file with');
        // A column whose seal fails when it is first read: the model is built from the pack then,
        // its columns taken from that build, and the file replaced (readStoredModel).
        const loaded: LoadedModel = { model: undefined!, source: 'persisted' };
        loaded.model = readStoredModel(file, files, idx, key, (because) => {
          loaded.source = 'built';
          loaded.rebuiltBecause = because;
          return this.buildAndSave(files, { ...options, index }, idx.index);
        });
        return loaded;
      } catch (error) {
        rebuiltBecause = errorMessage(error);
      }
    }
    // The idx just read is the build's too (reading it twice cost a reopen tens of ms).
    const model = this.buildAndSave(files, { ...options, index }, idx?.index);
    return rebuiltBecause === undefined ? { model, source: 'built' } : { model, source: 'built', rebuiltBecause };
  }

  /** Builds (checking `unvouchedIdx`'s name order first: no model vouches for it) and saves; a failed save is reported. */
  private buildAndSave(files: PackFiles, options: BuildOptions, unvouchedIdx: PackIndex | undefined): PackModel {
    // Every table read and checked now, as a build of an idx nobody vouches for has always done.
    unvouchedIdx?.checkNameOrder();
    void unvouchedIdx?.offsets;
    const model = buildPackModel(files, options);
    try {
      this.save(model);
    } catch (error) {
      this.onSaveFailure?.(`could not save the model of ${files.pack} in ${this.directory}: ${errorMessage(error)}`);
    }
    return model;
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
    const key = (this.key = readOrCreateCacheKey(this.directory));
    const bytes = serializeModel(model, key);
    writeFileAtomically(target, 0o600, (fd) => writeAll(fd, bytes));
    return target;
  }
}

/**
 * Reads now whatever of `model` a stored file left to first use (format 5's columns and derived
 * columns, the idx's tables), each checked as its first read checks it: for a thread that hands the
 * whole model on (the server's model worker), so that its timings say where a load's time went.
 */
export function readEveryColumn(model: PackModel): void {
  for (const column of Object.values(model.columns) as ArrayLike<unknown>[]) void column.length;
  if (model.count > 0) void model.rootOf(0);
  void model.index.bytes.length;
}

/** The sections of a model file, in SECTIONS' order. */
function sectionArrays(model: PackModel): ArrayBufferView[] {
  const c = model.columns;
  const derived = model.derivedColumns();
  return [
    c.size.low,
    c.resultSize.low,
    c.diskSize.low,
    c.base,
    c.byOffset,
    c.depth,
    c.inPackType,
    c.type,
    derived.childStart,
    derived.roots,
    derived.familySizes,
    derived.childList,
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
  const sections = sectionArrays(model).map(
    (column) => new Uint8Array(column.buffer, column.byteOffset, column.byteLength),
  );
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
    sections: sealSections(sections, key),
  };
  return sealFile(MODEL_FILE, header, sections, key);
}

/** A size column from a section's bytes, its overflow map checked against them. */
function sizeColumn(buffer: ArrayBuffer, overflow: [number, number][]): SizeColumn {
  const column = new SizeColumn(new Uint32Array(buffer), new Map(overflow));
  checkSizeOverflow(column);
  return column;
}

/** Defines `target[name]` as `load()`, called when it is first read and kept from then on. */
function defineOnFirstRead<T extends object, K extends keyof T>(target: T, name: K, load: () => T[K]): void {
  Object.defineProperty(target, name, {
    configurable: true,
    enumerable: true,
    get: () => {
      const value = load();
      Object.defineProperty(target, name, { value, enumerable: true, writable: false, configurable: false });
      return value;
    },
  });
}

/** What the seal cannot say: that the idx and pack are the files this model was built from. The pack's ends. */
function checkStoredIdentity(header: StoredHeader, idx: ReadIdx, files: PackFiles): ReturnType<typeof readPackEnds> {
  const { index } = idx;
  if (header.count !== index.count) throw new Error('model is for a different object count');
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
  return pack;
}

/**
 * Every section's length and place from the count, the depth width and the summary's deltas:
 * together they must end exactly where the file's seal begins (a section of another width shifts
 * the rest).
 */
function sectionLayout(
  count: number,
  depthBytes: 2 | 4,
  deltas: number,
  bodyStart: number,
  bodyEnd: number,
): { lengths: Record<SectionName, number>; positions: Map<SectionName, number> } {
  if (deltas > count) throw new Error('model child list has the wrong length');
  const lengths: Record<SectionName, number> = {
    size: 4 * count,
    resultSize: 4 * count,
    diskSize: 4 * count,
    base: 4 * count,
    byOffset: 4 * count,
    depth: depthBytes * count,
    inPackType: count,
    type: count,
    childStart: 4 * (count + 1),
    roots: 4 * count,
    familySizes: 4 * count,
    childList: 4 * deltas,
  };
  const positions = new Map<SectionName, number>();
  let at = bodyStart;
  for (const name of SECTIONS) {
    positions.set(name, at);
    at += lengths[name];
  }
  if (at !== bodyEnd) throw new Error('model columns are truncated or of the wrong widths');
  return { lengths, positions };
}

// Stays long: a reader of a model file in file order (header, checks, then each section, read on
// first use); the sections' loaders share the one rebuild.
/**
 * Opens a stored model: the header's seal and every check of the header, the pack and the idx now;
 * each column when it is first read, its own seal checked then (docs/security.md, "The model cache's
 * threat model"). A column whose seal fails then is taken, with every column not yet read, from
 * `rebuild(why)`, a build of the pack, called at most once.
 */
function readStoredModel(
  file: string,
  files: PackFiles,
  idx: ReadIdx,
  key: Buffer,
  rebuild: (because: string) => PackModel,
): PackModel {
  const { index } = idx;
  const count = index.count;
  // Sized by the idx, not by the file: a crafted file cannot make this allocate more.
  const largest = largestSealedFile(MODEL_FILE, MAX_FIXED_COLUMN_BYTES + count * MAX_COLUMN_BYTES_PER_OBJECT);
  const sealed = openSealedHeader(file, MODEL_FILE, key, largest, 'model file is larger than any model of this pack');
  const header = parseStoredHeader(sealed.headerText);
  const pack = checkStoredIdentity(header, idx, files);
  const { overflow } = header;
  checkStoredShape(
    count,
    header.depthBytes,
    [overflow.size, overflow.resultSize, overflow.diskSize],
    header.summary,
    header.rankings,
  );
  const deltas = header.summary.counts.ofsDeltas + header.summary.counts.refDeltas;
  const { lengths, positions } = sectionLayout(count, header.depthBytes, deltas, sealed.bodyStart, sealed.bodyEnd);

  let rebuilt: PackModel | undefined;
  const rebuiltModel = (because: string): PackModel => (rebuilt ??= rebuild(because));
  // The section's bytes, or undefined when its seal fails (the model is then rebuilt).
  const section = (name: SectionName): ArrayBuffer | undefined => {
    if (rebuilt) return undefined;
    try {
      return readSealedSection(
        sealed.snapshot ?? file,
        positions.get(name)!,
        lengths[name],
        header.sections[SECTIONS.indexOf(name)]!,
        key,
      );
    } catch (error) {
      rebuiltModel(`model column ${name}: ${errorMessage(error)}`);
      return undefined;
    }
  };
  const column =
    <K extends keyof PackColumns>(name: K & SectionName, make: (buffer: ArrayBuffer) => PackColumns[K]) =>
    (): PackColumns[K] => {
      const buffer = section(name);
      if (buffer !== undefined)
        try {
          return make(buffer);
        } catch (error) {
          rebuiltModel(`model column ${name}: ${errorMessage(error)}`);
        }
      return rebuilt!.columns[name];
    };
  const columns = {} as PackColumns;
  defineOnFirstRead(columns, 'offset', () => index.offsets);
  defineOnFirstRead(
    columns,
    'size',
    column('size', (b) => sizeColumn(b, overflow.size)),
  );
  defineOnFirstRead(
    columns,
    'resultSize',
    column('resultSize', (b) => sizeColumn(b, overflow.resultSize)),
  );
  defineOnFirstRead(
    columns,
    'diskSize',
    column('diskSize', (b) => sizeColumn(b, overflow.diskSize)),
  );
  defineOnFirstRead(
    columns,
    'base',
    column('base', (b) => new Int32Array(b)),
  );
  defineOnFirstRead(
    columns,
    'byOffset',
    column('byOffset', (b) => new Uint32Array(b)),
  );
  defineOnFirstRead(
    columns,
    'depth',
    column('depth', (b) => (header.depthBytes === 2 ? new Uint16Array(b) : new Uint32Array(b))),
  );
  defineOnFirstRead(
    columns,
    'inPackType',
    column('inPackType', (b) => new Uint8Array(b)),
  );
  defineOnFirstRead(
    columns,
    'type',
    column('type', (b) => new Uint8Array(b)),
  );

  const model = new PackModel(files, index, index.hash, header.packVersion, pack.size, columns);
  model.adoptStoredDerivedLazily((): StoredDerivedColumns => {
    const words = (name: SectionName): Uint32Array | undefined => {
      const buffer = section(name);
      return buffer && new Uint32Array(buffer);
    };
    const childStart = words('childStart');
    const roots = words('roots');
    const familySizes = words('familySizes');
    const childList = words('childList');
    if (childStart && childStart[count] !== deltas) rebuiltModel('model child starts do not end at the child list');
    if (rebuilt || !childStart || !roots || !familySizes || !childList) return rebuilt!.derivedColumns();
    return { childStart, roots, familySizes, childList };
  });
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
  if (
    !Array.isArray(header.sections) ||
    header.sections.length !== SECTIONS.length ||
    !header.sections.every((seal) => typeof seal === 'string')
  )
    throw new Error('model header has no seal for each column');
  return header as StoredHeader;
}
