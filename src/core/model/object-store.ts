import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail, type PackFormatError } from '../errors.ts';
import { readRepositoryTextFile, SMALL_TEXT_FILE_MAX_BYTES } from '../format/checked-file.ts';
import { loadMultiPackIndex, type MultiPackIndex } from '../format/midx.ts';
import type { BuildOptions } from './build-pack-model.ts';
import { MergedNameIndex } from './merged-names.ts';
import { type ModelStore, type LoadedModel } from './model-store.ts';
import type { PackFiles, PackModel } from './pack-model.ts';
import type { Repository } from './repository.ts';

/**
 * Above this many packs a lookup searches one merged table of every pack's ids instead of each
 * pack's idx in turn (3,000 one-object packs made every lookup 3,000 binary searches).
 */
export const MERGED_INDEX_MIN_PACKS = 16;

/** git's limit on nested alternates (`link_alt_odb_entries`: depth > 5 is an error). */
const MAX_ALTERNATE_DEPTH = 5;

export interface PackLocation {
  files: PackFiles;
  /** The objects directory the pack belongs to. */
  objectsDir: string;
  /** True for the repository's own packs, false for packs reached through alternates. */
  local: boolean;
  mtimeMs: number;
  /** The pack's file name as a MIDX names it (`pack-<hash>.idx`). */
  idxName: string;
}

export interface ObjectLocation {
  pack: PackLocation;
  model: PackModel;
  object: number;
}

/**
 * Every pack a repository can read objects from: its own, then those of its alternates, in the order
 * git searches them (git-internals §1.12: MIDX first, then local packs before alternates, newer first).
 */
export class ObjectStore {
  readonly packs: PackLocation[];
  readonly midxByObjectsDir = new Map<string, MultiPackIndex>();
  private readonly models = new Map<string, LoadedModel>();
  /** Packs found damaged: lookups go on over the others instead of failing on these every time. */
  private readonly unreadable = new Set<string>();

  /** True when the hash algorithm is not known from a repository and is inferred from each idx. */
  private inferHash = false;

  /** Packs by objects directory and idx name, for the pack a MIDX names. */
  private packsByMidxName: Map<string, Map<string, PackLocation>> | undefined;
  private readonly midxPackNames = new Map<MultiPackIndex, Set<string>>();
  /** Every readable pack's ids in one table (see MERGED_INDEX_MIN_PACKS), built on the first lookup. */
  private merged: { index: MergedNameIndex; packs: PackLocation[] } | undefined;

  /** Told how a model build goes (objects scanned of total), for the CLI's progress line; unset: nothing. */
  onBuildProgress: ((pack: PackLocation, done: number, total: number) => void) | undefined;

  /** True for one pack file opened on its own (not a repository's object store): no layout, no loose objects. */
  singlePack = false;

  /** Idx searches made by lookups (one per pack tried, one per merged-table search): tests count them. */
  idxSearches = 0;

  /** One pack file on its own (a path to a .pack or .idx), outside or inside a repository. */
  static forSinglePack(
    repository: Repository,
    files: PackFiles,
    modelStore: ModelStore,
    inferHash: boolean,
  ): ObjectStore {
    const store = new ObjectStore(repository, modelStore, {}, [
      {
        files,
        objectsDir: path.dirname(path.dirname(files.pack)),
        local: true,
        mtimeMs: 0,
        idxName: path.basename(files.idx),
      },
    ]);
    store.inferHash = inferHash;
    store.singlePack = true;
    return store;
  }

  constructor(
    readonly repository: Repository,
    private readonly modelStore: ModelStore,
    private readonly buildOptions: BuildOptions = {},
    packs?: PackLocation[],
  ) {
    if (packs) {
      this.packs = packs;
      return;
    }
    const objectDirs = [repository.objectsDir, ...alternateObjectDirs(repository.objectsDir)];
    const useMidx = repository.config.get('core.multipackindex') !== 'false';
    const found: PackLocation[] = [];
    for (const [i, objectsDir] of objectDirs.entries()) {
      const packDir = path.join(objectsDir, 'pack');
      const midx = useMidx ? loadMultiPackIndex(packDir) : undefined;
      if (midx) this.midxByObjectsDir.set(objectsDir, midx);
      found.push(...listPacks(objectsDir, i === 0));
    }
    // git-internals §1.12 (packfile.c sort_pack): local packs first, then newer first, by mtime in
    // whole seconds; git installs packs by prepending in directory order, so ties keep the
    // reverse of that order (the sort is stable).
    this.packs = found
      .map((pack, installed) => ({ pack, installed }))
      .sort(
        (a, b) =>
          Number(b.pack.local) - Number(a.pack.local) ||
          Math.floor(b.pack.mtimeMs / 1000) - Math.floor(a.pack.mtimeMs / 1000) ||
          b.installed - a.installed,
      )
      .map(({ pack }) => pack);
  }

  /** Where this store's models persist (undefined: nowhere); other per-pack caches live beside them. */
  get modelCacheDirectory(): string | undefined {
    return this.modelStore.directory;
  }

  /** Leaves a damaged pack out of lookups (the server lists it with its error; hovers keep working). */
  markUnreadable(pack: PackLocation): void {
    this.unreadable.add(pack.files.pack);
    this.merged = undefined;
  }

  isUnreadable(pack: PackLocation): boolean {
    return this.unreadable.has(pack.files.pack);
  }

  /** Packs a MIDX of their objects directory covers: git looks them up only through the MIDX. */
  coveredByMidx(pack: PackLocation): boolean {
    const midx = this.midxByObjectsDir.get(pack.objectsDir);
    if (!midx) return false;
    let names = this.midxPackNames.get(midx);
    if (!names) this.midxPackNames.set(midx, (names = new Set(midx.packNames)));
    return names.has(pack.idxName);
  }

  /** The model of one pack, built (or read from the model store) on first use. */
  model(pack: PackLocation): PackModel {
    return this.loaded(pack).model;
  }

  loaded(pack: PackLocation): LoadedModel {
    let loaded = this.models.get(pack.files.pack);
    if (!loaded) {
      const options = this.inferHash ? this.buildOptions : { ...this.buildOptions, hash: this.repository.hash };
      const report = this.onBuildProgress;
      loaded = this.modelStore.load(
        pack.files,
        report && !options.onProgress
          ? { ...options, onProgress: (done, total) => report(pack, done, total) }
          : options,
      );
      this.models.set(pack.files.pack, loaded);
    }
    return loaded;
  }

  /** Where git would read `oidHex` from: the MIDX's choice when one covers it, else the first pack holding it. */
  locate(oidHex: string): ObjectLocation | undefined {
    const oid = Buffer.from(oidHex, 'hex');
    for (const [objectsDir, midx] of this.midxByObjectsDir) {
      const hit = midx.lookup(oid);
      if (!hit) continue;
      const pack = this.packByMidxName(objectsDir, hit.packName);
      if (!pack || this.unreadable.has(pack.files.pack)) continue;
      const model = this.model(pack);
      this.idxSearches++;
      const object = model.index.find(oid);
      if (object >= 0 && model.columns.offset[object] === hit.offset) return { pack, model, object };
    }
    const merged = this.mergedIndex();
    if (merged) {
      this.idxSearches++;
      const hit = merged.index.find(oid);
      if (!hit) return undefined;
      const pack = merged.packs[hit.holder]!;
      return { pack, model: this.model(pack), object: hit.object };
    }
    for (const pack of this.packs) {
      if (this.coveredByMidx(pack) || this.unreadable.has(pack.files.pack)) continue;
      const model = this.model(pack);
      this.idxSearches++;
      const object = model.index.find(oid);
      if (object >= 0) return { pack, model, object };
    }
    return undefined;
  }

  /** Resolves a full id or unique prefix (4+ hex digits, as git requires) across every pack. */
  resolve(idOrPrefix: string): ObjectLocation {
    const wanted = idOrPrefix.toLowerCase();
    const fullLength = this.repository.hash.size * 2;
    if (!/^[0-9a-f]+$/.test(wanted) || wanted.length < 4 || wanted.length > fullLength) {
      throw fail(
        'usage',
        undefined,
        undefined,
        `"${idOrPrefix}" is not an object id or a prefix of 4 to ${fullLength} hex digits`,
      );
    }
    if (wanted.length === fullLength) {
      const found = this.locate(wanted);
      if (!found)
        throw (
          this.midxFaultFor(Buffer.from(wanted, 'hex')) ??
          fail('not-found', undefined, undefined, `object ${wanted} is not in any pack of ${this.repository.gitDir}`)
        );
      return found;
    }
    const matches = new Set<string>();
    const merged = this.mergedIndex();
    if (merged) {
      this.idxSearches++;
      for (const id of merged.index.idsWithPrefix(wanted, 2)) matches.add(id);
    } else {
      for (const pack of this.packs) {
        if (this.unreadable.has(pack.files.pack)) continue;
        const model = this.model(pack);
        this.idxSearches++;
        for (const n of model.findPrefix(wanted, 2)) matches.add(model.oidHex(n));
        if (matches.size > 1) break;
      }
    }
    if (matches.size === 0)
      throw fail(
        'not-found',
        undefined,
        undefined,
        `no object in any pack of ${this.repository.gitDir} starts with ${wanted}`,
      );
    if (matches.size > 1)
      throw fail(
        'ambiguous',
        undefined,
        undefined,
        `prefix ${wanted} is ambiguous: ${[...matches].sort().join(', ')} …`,
      );
    return this.locate([...matches][0]!)!;
  }

  /**
   * When a pack that a MIDX covers holds `oid` but the MIDX does not lead to it (git then reports
   * the object missing), what is wrong with the MIDX, at its byte offset; undefined otherwise.
   */
  midxFaultFor(oid: Uint8Array): PackFormatError | undefined {
    if (this.midxByObjectsDir.size === 0) return undefined;
    for (const pack of this.packs) {
      if (!this.coveredByMidx(pack) || this.unreadable.has(pack.files.pack)) continue;
      const model = this.model(pack);
      const object = model.index.find(oid);
      if (object < 0) continue;
      const midx = this.midxByObjectsDir.get(pack.objectsDir)!;
      const hit = midx.lookup(oid);
      if (hit && hit.packName === pack.idxName && hit.offset === model.columns.offset[object]) continue;
      return midx.faultFor(oid, pack.idxName, model.columns.offset[object]!);
    }
    return undefined;
  }

  private packByMidxName(objectsDir: string, idxName: string): PackLocation | undefined {
    // Two levels of maps, not a joined string key: this runs once per object a listing locates.
    if (!this.packsByMidxName) {
      this.packsByMidxName = new Map();
      for (const pack of this.packs) {
        let inDir = this.packsByMidxName.get(pack.objectsDir);
        if (!inDir) this.packsByMidxName.set(pack.objectsDir, (inDir = new Map()));
        if (!inDir.has(pack.idxName)) inDir.set(pack.idxName, pack);
      }
    }
    return this.packsByMidxName.get(objectsDir)?.get(idxName);
  }

  /**
   * The merged table over every readable pack, in search order, when there are enough packs for it
   * to pay; a lookup's answer is the first pack no MIDX covers, as in the loop it replaces.
   */
  private mergedIndex(): { index: MergedNameIndex; packs: PackLocation[] } | undefined {
    if (this.merged) return this.merged;
    const packs = this.packs.filter((pack) => !this.unreadable.has(pack.files.pack));
    if (packs.length < MERGED_INDEX_MIN_PACKS) return undefined;
    const indexes = packs.map((pack) => this.model(pack).index);
    const index = MergedNameIndex.build(
      indexes,
      this.repository.hash.size,
      (position) => !this.coveredByMidx(packs[position]!),
    );
    this.merged = { index, packs };
    return this.merged;
  }
}

function listPacks(objectsDir: string, local: boolean): PackLocation[] {
  const packDir = path.join(objectsDir, 'pack');
  // Directory order, as git's readdir sees it (fs.readdirSync sorts by name).
  const names: string[] = [];
  try {
    const dir = fs.opendirSync(packDir);
    try {
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) names.push(entry.name);
    } finally {
      dir.closeSync();
    }
  } catch {
    return [];
  }
  const packs: PackLocation[] = [];
  const listed = new Set(names);
  for (const name of names) {
    if (!name.endsWith('.idx')) continue;
    const stem = path.join(packDir, name.slice(0, -4));
    const pack = `${stem}.pack`;
    let mtimeMs: number;
    try {
      mtimeMs = fs.statSync(pack).mtimeMs;
    } catch {
      continue; // git ignores an idx without its pack
    }
    const rev = `${stem}.rev`;
    packs.push({
      // The listing says which stems have a .rev: a stat only for those (3,000 packs without one
      // paid 3,000 failed stats). existsSync still decides (a dangling link is no .rev).
      files: {
        pack,
        idx: `${stem}.idx`,
        rev: listed.has(`${name.slice(0, -4)}.rev`) && fs.existsSync(rev) ? rev : undefined,
      },
      objectsDir,
      local,
      mtimeMs,
      idxName: name,
    });
  }
  return packs;
}

/** objects/info/alternates, recursively (gitrepository-layout(5)); relative paths are relative to the objects dir. */
export function alternateObjectDirs(objectsDir: string): string[] {
  const seen = new Set<string>([realPath(objectsDir)]);
  const found: string[] = [];
  const visit = (dir: string, depth: number): void => {
    const file = path.join(dir, 'info', 'alternates');
    // A FIFO or a device here is refused, not waited on or read for ever.
    const text = readRepositoryTextFile(file, SMALL_TEXT_FILE_MAX_BYTES);
    if (text === undefined) return;
    if (depth > MAX_ALTERNATE_DEPTH)
      throw fail('not-a-repository', file, undefined, `alternates nested deeper than ${MAX_ALTERNATE_DEPTH}`);
    for (const rawLine of text.split('\n')) {
      const line = rawLine.trim();
      if (line === '' || line.startsWith('#')) continue;
      const target = path.resolve(dir, unquoteCPath(line));
      const real = realPath(target);
      if (seen.has(real) || !fs.existsSync(target)) continue;
      seen.add(real);
      found.push(target);
      visit(target, depth + 1);
    }
  };
  visit(objectsDir, 0);
  return found;
}

function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** git writes alternates with C-style quoting when a path needs it. */
function unquoteCPath(line: string): string {
  if (!line.startsWith('"') || !line.endsWith('"') || line.length < 2) return line;
  const body = line.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body[++i] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else {
      bytes.push(
        ({ n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11 } as Record<string, number>)[next] ?? next.charCodeAt(0),
      );
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
