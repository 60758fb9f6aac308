import { errorMessage } from '../../common/error-message.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRepositoryTextFile, SMALL_TEXT_FILE_MAX_BYTES } from '../format/checked-file.ts';
import { peekIdxObjectCount } from '../format/idx.ts';
import { packAtMidxPosition, type MultiPackIndex } from '../format/midx.ts';
import { RandomAccessFile } from '../format/random-access-file.ts';
import type {
  CountObjects,
  MidxLayout,
  ObjectWhereabouts,
  PackLayout,
  PackMarker,
  RepositoryLayout,
} from '../documents/repository-layout-document.ts';
import { alternateObjectDirs, type ObjectStore, type PackLocation } from './object-store.ts';

const BITMAP_SIGNATURE = 0x4249544d; // "BITM"
const RIDX_SIGNATURE = 0x52494458; // "RIDX"

/** The marker files git looks for beside `pack-<checksum>.pack` (packfile.c, repack.c), in the order PackLayout lists them. */
const MARKER_SUFFIXES: [PackMarker, string][] = [
  ['keep', '.keep'],
  ['promisor', '.promisor'],
  ['mtimes', '.mtimes'],
  ['bitmap', '.bitmap'],
  ['rev', '.rev'],
];

/** The pack directory's entries git's prepare_packed_git_one collects for report_pack_garbage; anything else there is plain garbage. */
const PACK_FILE_SUFFIXES = ['.idx', '.rev', '.pack', '.bitmap', '.keep', '.promisor', '.mtimes'];

/**
 * Whether something is at `file`, as git's file_exists (stat, links followed): a FIFO or a
 * directory named `.keep` keeps the pack for git too. Nothing is opened.
 */
function exists(file: string): boolean {
  try {
    fs.statSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * The entry count of a pack or MIDX `.bitmap` (its 12-byte header: "BITM", version, options,
 * entries), read through the checked reader; undefined when it is not a bitmap git would take.
 */
function bitmapCommits(file: string): number | undefined {
  try {
    const handle = RandomAccessFile.open(file);
    try {
      if (handle.size < 12) return undefined;
      const head = handle.read(0, 12);
      return head.readUInt32BE(0) === BITMAP_SIGNATURE ? head.readUInt32BE(8) : undefined;
    } finally {
      handle.close();
    }
  } catch {
    return undefined;
  }
}

function packLayout(store: ObjectStore, pack: PackLocation, searchOrder: number): PackLayout {
  const stem = pack.files.pack.slice(0, -'.pack'.length);
  const markers = MARKER_SUFFIXES.filter(([, suffix]) => exists(stem + suffix)).map(([marker]) => marker);
  const layout: PackLayout = {
    pack: pack.files.pack,
    name: path.basename(pack.files.pack),
    objectsDir: pack.objectsDir,
    local: pack.local,
    // packfile.c: is_cruft from .mtimes, pack_promisor from .promisor (a cruft pack is never fetched).
    kind: markers.includes('mtimes') ? 'cruft' : markers.includes('promisor') ? 'promisor' : 'normal',
    markers,
    inMidx: store.coveredByMidx(pack),
    searchOrder,
  };
  if (markers.includes('keep')) {
    // The checked reader: a FIFO named .keep is refused at once instead of waiting for a writer.
    try {
      const reason = readRepositoryTextFile(`${stem}.keep`, SMALL_TEXT_FILE_MAX_BYTES)?.trim();
      if (reason) layout.keepReason = reason;
    } catch (error) {
      layout.keepProblem = errorMessage(error);
    }
  }
  if (markers.includes('bitmap')) {
    const commits = bitmapCommits(`${stem}.bitmap`);
    if (commits !== undefined) layout.bitmapCommits = commits;
  }
  try {
    layout.packFileBytes = fs.statSync(pack.files.pack).size;
    layout.idxFileBytes = fs.statSync(pack.files.idx).size;
    layout.objects = peekIdxObjectCount(pack.files.idx);
  } catch (error) {
    layout.problem = errorMessage(error);
  }
  return layout;
}

function midxLayout(objectsDir: string, midx: MultiPackIndex, present: ReadonlySet<string>): MidxLayout {
  const newest = midx.layers[midx.layers.length - 1]!;
  const packs = midx.packNames;
  const layout: MidxLayout = {
    objectsDir,
    file: newest.file,
    layers: midx.layers.length,
    objects: midx.layers.reduce((sum, layer) => sum + layer.count, 0),
    packs,
    missingPacks: packs.filter((name) => !present.has(name)),
    bitmap: false,
    reverseIndexChunk: newest.reverseAt !== undefined,
    reverseIndexFile: false,
  };
  const bitmapFile = path.join(path.dirname(newest.file), `multi-pack-index-${newest.checksumHex}.bitmap`);
  const revFile = path.join(path.dirname(newest.file), `multi-pack-index-${newest.checksumHex}.rev`);
  layout.bitmap = exists(bitmapFile);
  if (layout.bitmap) {
    const commits = bitmapCommits(bitmapFile);
    if (commits !== undefined) layout.bitmapCommits = commits;
  }
  layout.reverseIndexFile = exists(revFile);
  try {
    // git's midx_preferred_pack: the pack of the object at pseudo-pack position 0.
    if (newest.reverseAt !== undefined && newest.count > 0) {
      layout.preferredPack = packAtMidxPosition(
        newest,
        newest.bytes.readUInt32BE(newest.reverseAt),
        newest.file,
        newest.reverseAt,
      );
    } else if (layout.reverseIndexFile && newest.count > 0) {
      const handle = RandomAccessFile.open(revFile);
      try {
        const head = handle.read(0, 16);
        if (head.readUInt32BE(0) === RIDX_SIGNATURE)
          layout.preferredPack = packAtMidxPosition(newest, head.readUInt32BE(12), revFile, 12);
      } finally {
        handle.close();
      }
    }
  } catch (error) {
    layout.problem = errorMessage(error);
  }
  return layout;
}

/** The reason count-objects gives a garbage file of a pack group, by which of .pack (1) and .idx (2) the group has (count-objects.c bits_to_msg). */
const GARBAGE_REASONS = ['no corresponding .idx or .pack', 'no corresponding .idx', 'no corresponding .pack'];

interface GarbageTally {
  files: { path: string; reason: string }[];
  bytes: number;
}

function addGarbage(tally: GarbageTally, file: string, reason: string): void {
  tally.files.push({ path: file, reason });
  try {
    // real_report_garbage adds st_size (stat, links followed), not the blocks a loose object is counted by.
    tally.bytes += fs.statSync(file).size;
  } catch {
    // counted, but without a size, as git does when its stat fails
  }
}

function readDirectory(dir: string): string[] | undefined {
  try {
    return fs.readdirSync(dir);
  } catch {
    return undefined;
  }
}

/**
 * packfile.c prepare_packed_git_one and report_pack_garbage for one pack directory: files of a
 * known pack suffix are grouped by name up to the last dot; a group with both .pack and .idx is
 * fine, any other group's files are garbage; unknown names are garbage outright. The MIDX's own
 * files (`multi-pack-index`, `multi-pack-index-<checksum>.*`, `multi-pack-index.d`) are skipped.
 */
function packDirectoryGarbage(packDir: string, tally: GarbageTally): void {
  const names = readDirectory(packDir);
  if (names === undefined) return;
  const candidates: string[] = [];
  for (const name of names) {
    if (name.startsWith('multi-pack-index')) continue;
    const full = path.join(packDir, name);
    if (PACK_FILE_SUFFIXES.some((suffix) => name.endsWith(suffix))) candidates.push(full);
    else addGarbage(tally, full, 'garbage found');
  }
  // string_list_sort: byte order.
  candidates.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  let first = 0;
  while (first < candidates.length) {
    const base = candidates[first]!.slice(0, candidates[first]!.lastIndexOf('.') + 1);
    let end = first;
    let seen = 0;
    while (end < candidates.length && candidates[end]!.startsWith(base)) {
      const rest = candidates[end]!.slice(base.length);
      if (rest === 'pack') seen |= 1;
      else if (rest === 'idx') seen |= 2;
      end++;
    }
    if (seen !== 3) for (let i = first; i < end; i++) addGarbage(tally, candidates[i]!, GARBAGE_REASONS[seen]!);
    first = end;
  }
}

/** One entry of a loose-object fan-out directory: `stat` is its lstat when its name is an object's (null: not an object's name; undefined: lstat failed). */
export interface LooseEntry {
  oidHex: string;
  file: string;
  stat: fs.Stats | null | undefined;
}

const isObjectName = (name: string, restLength: number): boolean =>
  name.length === restLength && /^[0-9a-fA-F]+$/.test(name);

/** for_each_loose_file_in_objdir: the 256 fan-out directories, each entry lstat'ed when its name is an object's. */
export function scanLooseObjects(objectsDir: string, restLength: number): LooseEntry[] {
  const entries: LooseEntry[] = [];
  for (let fanout = 0; fanout < 256; fanout++) {
    const prefix = fanout.toString(16).padStart(2, '0');
    const dir = path.join(objectsDir, prefix);
    for (const name of readDirectory(dir) ?? []) {
      const file = path.join(dir, name);
      let stat: fs.Stats | null | undefined = null;
      if (isObjectName(name, restLength)) stat = fs.lstatSync(file, { throwIfNoEntry: false });
      entries.push({ oidHex: (prefix + name).toLowerCase(), file, stat });
    }
  }
  return entries;
}

/**
 * scanLooseObjects without blocking the thread: the directory reads and lstats go to libuv's pool
 * (the server lists while it answers hovers; 10,000 loose objects are 10,000 lstats, about 200 ms).
 */
export async function scanLooseObjectsAsync(objectsDir: string, restLength: number): Promise<LooseEntry[]> {
  const perDirectory = await Promise.all(
    Array.from({ length: 256 }, async (_, fanout) => {
      const prefix = fanout.toString(16).padStart(2, '0');
      const dir = path.join(objectsDir, prefix);
      let names: string[];
      try {
        names = await fs.promises.readdir(dir);
      } catch {
        return [];
      }
      const entries: LooseEntry[] = [];
      for (const name of names) {
        const file = path.join(dir, name);
        let stat: fs.Stats | null | undefined = null;
        if (isObjectName(name, restLength)) stat = await fs.promises.lstat(file).catch(() => undefined);
        entries.push({ oidHex: (prefix + name).toLowerCase(), file, stat });
      }
      return entries;
    }),
  );
  return perDirectory.flat();
}

/**
 * `git count-objects -v` for the store's repository (builtin/count-objects.c, git 2.39): the loose
 * objects of its own objects directory (for_each_loose_file_in_objdir: names of hash-size − 2 hex
 * digits in the 256 fan-out directories, lstat'ed, regular files only), its local packs, and the
 * garbage of its loose directories and of every pack directory, its alternates' included.
 * `inSomePack` answers prune-packable; without it (no models at hand) that field is left at 0 and
 * `prunePackableKnown` is false. `loose` is the scan of the fan-out directories, when made already.
 */
export function countObjects(
  store: ObjectStore,
  packs: readonly PackLayout[],
  alternates: readonly string[],
  inSomePack?: (oidHex: string) => boolean,
  loose?: readonly LooseEntry[],
): CountObjects & { prunePackableKnown: boolean } {
  const objectsDir = store.repository.objectsDir;
  const restLength = store.repository.hash.size * 2 - 2;
  const garbage: GarbageTally = { files: [], bytes: 0 };
  let count = 0;
  let blocksBytes = 0;
  let prunePackable = 0;
  for (const entry of loose ?? scanLooseObjects(objectsDir, restLength)) {
    // Not an object's name, gone since the readdir, or not a regular file: count_cruft / loose_garbage.
    if (!entry.stat || !entry.stat.isFile()) {
      addGarbage(garbage, entry.file, 'garbage found');
      continue;
    }
    count++;
    // on_disk_bytes: the blocks allocated, where the platform reports them.
    blocksBytes += entry.stat.blocks !== undefined ? entry.stat.blocks * 512 : entry.stat.size;
    if (inSomePack?.(entry.oidHex)) prunePackable++;
  }
  for (const dir of [objectsDir, ...alternates]) packDirectoryGarbage(path.join(dir, 'pack'), garbage);
  let inPack = 0;
  let packCount = 0;
  let packBytes = 0;
  for (const pack of packs) {
    if (!pack.local || pack.objects === undefined) continue;
    inPack += pack.objects;
    packCount++;
    packBytes += (pack.packFileBytes ?? 0) + (pack.idxFileBytes ?? 0);
  }
  return {
    count,
    size: Math.floor(blocksBytes / 1024),
    inPack,
    packs: packCount,
    sizePack: Math.floor(packBytes / 1024),
    prunePackable,
    prunePackableKnown: inSomePack !== undefined,
    garbage: garbage.files.length,
    sizeGarbage: Math.floor(garbage.bytes / 1024),
    garbageFiles: garbage.files,
    looseBytesOnDisk: blocksBytes,
    packBytes,
  };
}

/**
 * The repository's storage as git sees it (RepositoryLayout). Reads only small files and headers
 * (idx fan-outs, bitmap headers, `.keep`s), never a pack model; `inSomePack` (given where the
 * models are at hand) makes `loose.prunePackable` exact, else it is absent. `loose`: the fan-out
 * directories' scan when made already (scanLooseObjectsAsync), else it is made here.
 */
export function repositoryLayout(
  store: ObjectStore,
  inSomePack?: (oidHex: string) => boolean,
  loose?: readonly LooseEntry[],
): RepositoryLayout {
  let alternates: string[];
  try {
    alternates = alternateObjectDirs(store.repository.objectsDir);
  } catch {
    // The store reports a broken alternates file itself; the layout lists what it found.
    alternates = [...new Set(store.packs.filter((p) => !p.local).map((p) => p.objectsDir))];
  }
  const packs = store.packs.map((pack, order) => packLayout(store, pack, order));
  const midx: MidxLayout[] = [];
  for (const [objectsDir, index] of store.midxByObjectsDir) {
    const present = new Set(store.packs.filter((p) => p.objectsDir === objectsDir).map((p) => p.idxName));
    midx.push(midxLayout(objectsDir, index, present));
  }
  const { prunePackableKnown, ...counted } = countObjects(store, packs, alternates, inSomePack, loose);
  const layout: RepositoryLayout = { packs, midx, loose: counted, alternates };
  if (!prunePackableKnown) delete (layout.loose as Partial<CountObjects>).prunePackable;
  return layout;
}

/** Every loose copy of `oidHex`, in the repository's objects directory and its alternates'. */
function looseCopies(store: ObjectStore, oidHex: string): string[] {
  let dirs: string[];
  try {
    dirs = [store.repository.objectsDir, ...alternateObjectDirs(store.repository.objectsDir)];
  } catch {
    dirs = [store.repository.objectsDir];
  }
  const found: string[] = [];
  for (const dir of dirs) {
    const file = path.join(dir, oidHex.slice(0, 2), oidHex.slice(2));
    try {
      if (fs.lstatSync(file).isFile()) found.push(file);
    } catch {
      // not loose here
    }
  }
  return found;
}

/**
 * Where git reads `oidHex` from and where else it is: git's lookup (object-file.c
 * do_oid_object_info_extended) tries the packs (MIDX first) before loose objects, so a loose copy
 * answers only when no pack has the object. `loaded` says which packs may be looked into (the
 * server asks only those whose model is in memory); by default every pack.
 */
export function whereabouts(
  store: ObjectStore,
  oidHex: string,
  loaded: (pack: PackLocation) => boolean = () => true,
): ObjectWhereabouts | undefined {
  const oid = oidHex.toLowerCase();
  const location = store.locate(oid);
  const loose = looseCopies(store, oid);
  if (!location && loose.length === 0) return undefined;
  const alsoInPacks: string[] = [];
  for (const pack of store.packs) {
    if (pack === location?.pack || store.isUnreadable(pack) || !loaded(pack)) continue;
    if (store.model(pack).findHex(oid) >= 0) alsoInPacks.push(pack.files.pack);
  }
  if (location)
    return {
      answeredBy: { pack: location.pack.files.pack, viaMidx: store.coveredByMidx(location.pack) },
      alsoInPacks,
      alsoLoose: loose,
    };
  return { answeredBy: { loose: loose[0]! }, alsoInPacks, alsoLoose: loose.slice(1) };
}
