import { sealFile, largestSealedFile, openSealedFile, SealedBodyReader, type SealedFormat } from './sealed-file.ts';
import { errorMessage } from '../../common/error-message.ts';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeDirectories, writeAll, writeFileAtomically } from '../atomic-file.ts';
import { readCacheKey, readOrCreateCacheKey } from './model-cache-key.ts';
import {
  PATH_RULE,
  PathWalkCancelled,
  walkStorePaths,
  type ObjectPaths,
  type PathWalkOptions,
  type PathWalkSummary,
  type StoreWalkInputs,
} from './object-paths.ts';
import { PathTable } from './path-table.ts';
import { checkpointFileFor, loadCheckpoint, removeCheckpoint, saveCheckpoint } from './walk-checkpoint-store.ts';
import { GitNamesUnusable, startNamingByGitFor, type GitNamesOptions, type GitNamesRun } from './git-object-names.ts';

/**
 * The object paths of a repository persist beside its pack models, in the model cache, under the
 * same rules (model-store.ts): never inside a repository, written atomically, trusted only with
 * the cache's private key (HMAC-SHA256 trailer), and every array checked before use. A file is
 * used only for the walk it was made from: the same packs (checksums, in search order) and the
 * same refs, HEADs and shallow list (`walkKey`); anything else is walked again and overwritten.
 */
const PATHS_FILE: SealedFormat = {
  magic: Buffer.from('PSPATHS\0', 'latin1'),
  version: 1,
  maxHeaderBytes: 1 << 20,
  what: 'paths',
};
/** Bytes of path components a file may hold: far beyond any real history's distinct paths. */
const MAX_POOL_BYTES = 1 << 30;

interface StoredHeader {
  walkKey: string;
  packs: { packChecksum: string; idxChecksum: string; count: number }[];
  nodes: number;
  poolBytes: number;
  summary: PathWalkSummary;
}

export type PathsSource = 'walked' | 'persisted';

export interface LoadedPaths {
  paths: ObjectPaths;
  source: PathsSource;
  /** Why a persisted file was not used, when one existed. */
  rewalkedBecause?: string;
  /** Why the result could not be persisted, when that failed. */
  notSavedBecause?: string;
  /** Why git did not name the objects, when it was asked to and the walk named them instead. */
  walkedBecause?: string;
}

/**
 * loadOrWalkPaths, with git naming the objects when `git` is given (git-object-names.ts: the same
 * names at about a quarter of the walk's CPU): a stored file first, then git, then the walk when
 * git cannot run, fails or prints what does not parse exactly. A cancellation is not a failure: it
 * stops git and rejects.
 */
export async function loadOrNamePaths(
  inputs: StoreWalkInputs,
  commonDir: string,
  directory: string | undefined,
  options: Omit<PathWalkOptions, 'shallow' | 'looseObjectDirs'> & {
    saveStopped?: boolean;
    git?: Omit<GitNamesOptions, 'signal'> | undefined;
    /** git already started (startNamingByGit, before the models were open): its names are used, or it is cancelled. */
    started?: GitNamesRun | undefined;
    /** Called when git is done with and the walk is to name them (the CLI gives Ctrl+C back to the default). */
    beforeWalk?: () => void;
    /** Called with the run when git starts naming them here (`git`): its count of objects listed so far. */
    onGitStarted?: (run: GitNamesRun) => void;
  } = {},
): Promise<LoadedPaths> {
  const { git, started, beforeWalk, onGitStarted, ...walkOptions } = options;
  if (git === undefined && started === undefined) return loadOrWalkPaths(inputs, commonDir, directory, walkOptions);
  const stored = loadStoredPaths(inputs, commonDir, directory);
  if (stored) {
    started?.cancel();
    return { paths: stored, source: 'persisted' };
  }
  // A bounded run (`packscope object`) goes on from a stopped walk rather than start git over:
  // git cannot resume, and within the bound it would end where it ended the last time.
  if (started === undefined && options.limits?.maxMs !== undefined && hasCheckpoint(inputs, commonDir, directory))
    return loadOrWalkPaths(inputs, commonDir, directory, walkOptions);
  let paths: ObjectPaths;
  let timeout: AbortSignal | undefined;
  try {
    if (started !== undefined) paths = await started.finish(inputs);
    else {
      // A caller's time bound (`packscope object`) holds for git too; past it, the walk names what it can in its own bound.
      const maxMs = options.limits?.maxMs;
      timeout = maxMs === undefined ? undefined : AbortSignal.timeout(maxMs);
      const signals = [options.signal, timeout].filter((signal): signal is AbortSignal => signal !== undefined);
      const run = startNamingByGitFor(inputs, { ...git!, signal: AbortSignal.any(signals) });
      onGitStarted?.(run);
      paths = await run.finish(inputs);
    }
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const walkedBecause = timeout?.aborted
      ? `git rev-list took more than ${options.limits?.maxMs} ms`
      : error instanceof GitNamesUnusable
        ? error.message
        : errorMessage(error);
    beforeWalk?.();
    return { ...loadOrWalkPaths(inputs, commonDir, directory, walkOptions), walkedBecause };
  }
  const loaded: LoadedPaths = { paths, source: 'walked' };
  if (directory !== undefined) {
    try {
      const file = pathsFileFor(directory, commonDir);
      savePaths(directory, file, inputs, walkKeyOf(inputs), paths);
      removeCheckpoint(checkpointFileFor(file));
    } catch (error) {
      loaded.notSavedBecause = `could not save the object paths in ${directory}: ${errorMessage(error)}`;
    }
  }
  return loaded;
}

/** The file of a repository's paths: named by its shared git directory, so each repository has one. */
export function pathsFileFor(directory: string, commonDir: string): string {
  let real = path.resolve(commonDir);
  try {
    real = fs.realpathSync(commonDir);
  } catch {
    // a repository that is gone is still named by its path
  }
  return path.join(directory, `paths-${createHash('sha256').update(real).digest('hex').slice(0, 32)}.pspaths`);
}

/** What the walk's result depends on, as one digest. */
export function walkKeyOf(inputs: StoreWalkInputs): string {
  const digest = createHash('sha256');
  digest.update(`rule ${PATH_RULE}\n`);
  for (const model of inputs.models)
    digest.update(`pack ${model.checksumHex} ${Buffer.from(model.index.idxChecksum).toString('hex')}\n`);
  for (const tip of inputs.refs.tips) digest.update(`tip ${tip.oidHex} ${tip.name}\n`);
  for (const shallow of [...inputs.shallow].sort()) digest.update(`shallow ${shallow}\n`);
  for (const problem of inputs.refs.problems) digest.update(`problem ${problem}\n`);
  return digest.digest('hex');
}

/** The paths stored for this very walk in `directory`, when a sound file is there; never walks. */
export function loadStoredPaths(
  inputs: StoreWalkInputs,
  commonDir: string,
  directory: string | undefined,
): ObjectPaths | undefined {
  if (directory === undefined) return undefined;
  const file = pathsFileFor(directory, commonDir);
  if (!fs.existsSync(file)) return undefined;
  const key = readCacheKey(directory);
  if (key === undefined) return undefined;
  try {
    return readStoredPaths(file, inputs, walkKeyOf(inputs), key);
  } catch {
    // Walked again (and the file replaced) by loadOrWalkPaths, which says why.
    return undefined;
  }
}

/**
 * The paths of the store's objects: read from `directory` when a file of this very walk is there
 * and sound, otherwise walked (walkStorePaths) and saved there. `directory` undefined: walked only.
 */
export function loadOrWalkPaths(
  inputs: StoreWalkInputs,
  commonDir: string,
  directory: string | undefined,
  options: Omit<PathWalkOptions, 'shallow' | 'looseObjectDirs'> & { saveStopped?: boolean } = {},
): LoadedPaths {
  if (directory === undefined) return { paths: walkStorePaths(inputs, options), source: 'walked' };
  const file = pathsFileFor(directory, commonDir);
  const walkKey = walkKeyOf(inputs);
  let rewalkedBecause: string | undefined;
  if (fs.existsSync(file)) {
    try {
      const key = readCacheKey(directory);
      if (key === undefined) throw new Error('no private cache key to check the paths file with');
      return { paths: readStoredPaths(file, inputs, walkKey, key), source: 'persisted' };
    } catch (error) {
      rewalkedBecause = errorMessage(error);
    }
  }
  const paths = walkFromCheckpoint(inputs, directory, file, walkKey, options);
  const loaded: LoadedPaths = {
    paths,
    source: 'walked',
    ...(rewalkedBecause === undefined ? {} : { rewalkedBecause }),
  };
  if (paths.checkpoint !== undefined) {
    try {
      saveCheckpoint(directory, checkpointFileFor(file), walkKey, paths.checkpoint);
    } catch (error) {
      loaded.notSavedBecause = `could not save where the walk stopped in ${directory}: ${errorMessage(error)}`;
    }
  }
  // A walk cut short by a caller's tighter bound (`packscope object`'s seconds) is not the store's
  // walk: kept, it would answer every later command with its few names. Its checkpoint is kept:
  // the next walk goes on from it.
  if (paths.stopped !== undefined && options.saveStopped === false) return loaded;
  try {
    savePaths(directory, file, inputs, walkKey, paths);
    if (paths.stopped === undefined) removeCheckpoint(checkpointFileFor(file));
  } catch (error) {
    loaded.notSavedBecause = `could not save the object paths in ${directory}: ${errorMessage(error)}`;
  }
  return loaded;
}

/**
 * The names a stopped walk of this very store had given when it stopped (its checkpoint), or
 * undefined when none is saved: each is git's, and an object it reached needs no more walking.
 */
export function checkpointPaths(
  inputs: StoreWalkInputs,
  commonDir: string,
  directory: string | undefined,
): ObjectPaths | undefined {
  if (directory === undefined) return undefined;
  const file = checkpointFileFor(pathsFileFor(directory, commonDir));
  const checkpoint = loadCheckpoint(directory, file, walkKeyOf(inputs), inputs);
  if (checkpoint === undefined) return undefined;
  const stopped = 'stopped before its end, and was not resumed yet';
  return {
    table: checkpoint.table,
    pathOf: checkpoint.pathOf,
    summary: {
      ...checkpoint.summary,
      complete: false,
      problems: [
        ...checkpoint.summary.problems,
        `the walk ${stopped} (its checkpoint was read); the names given so far are git's`,
      ],
    },
    stopped,
  };
}

/** Whether a stopped walk of this very store is saved, for a walk to go on from. */
export function hasCheckpoint(inputs: StoreWalkInputs, commonDir: string, directory: string | undefined): boolean {
  if (directory === undefined) return false;
  const file = checkpointFileFor(pathsFileFor(directory, commonDir));
  return loadCheckpoint(directory, file, walkKeyOf(inputs), inputs) !== undefined;
}

/**
 * The walk, from where the last walk of this store stopped when it saved a checkpoint. A walk
 * cancelled has its checkpoint saved before the cancellation goes on up. A checkpoint that cannot
 * be resumed (its table does not rebuild) is dropped and the walk starts over.
 */
function walkFromCheckpoint(
  inputs: StoreWalkInputs,
  directory: string,
  file: string,
  walkKey: string,
  options: Omit<PathWalkOptions, 'shallow' | 'looseObjectDirs'>,
): ObjectPaths {
  const checkpointFile = checkpointFileFor(file);
  const resume = loadCheckpoint(directory, checkpointFile, walkKey, inputs);
  try {
    return walkStorePaths(inputs, { ...options, resume });
  } catch (error) {
    if (error instanceof PathWalkCancelled) {
      if (error.checkpoint !== undefined)
        try {
          saveCheckpoint(directory, checkpointFile, walkKey, error.checkpoint);
        } catch {
          // The cancellation is the answer; a checkpoint not saved only costs the next walk its head start.
        }
      throw error;
    }
    if (resume === undefined) throw error;
    removeCheckpoint(checkpointFile);
    return walkStorePaths(inputs, options);
  }
}

function savePaths(
  directory: string,
  file: string,
  inputs: StoreWalkInputs,
  walkKey: string,
  paths: ObjectPaths,
): void {
  makeDirectories(directory, 0o700);
  const key = readOrCreateCacheKey(directory);
  const { table } = paths;
  const header: StoredHeader = {
    walkKey,
    packs: inputs.models.map((model) => ({
      packChecksum: model.checksumHex,
      idxChecksum: Buffer.from(model.index.idxChecksum).toString('hex'),
      count: model.count,
    })),
    nodes: table.count,
    poolBytes: table.pool.length,
    summary: paths.summary,
  };
  const parts: Uint8Array[] = [];
  // Four-byte arrays first, the byte pool last: every view stays aligned when read back.
  for (const column of [...paths.pathOf, table.parent, table.start])
    parts.push(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
  parts.push(table.pool);
  const bytes = sealFile(PATHS_FILE, header, parts, key);
  writeFileAtomically(file, 0o600, (fd) => writeAll(fd, bytes));
}

function readStoredPaths(file: string, inputs: StoreWalkInputs, walkKey: string, key: Buffer): ObjectPaths {
  const objects = inputs.models.reduce((sum, model) => sum + model.count, 0);
  // Sized by the packs, not by the file: a crafted file cannot make this allocate more.
  const largest = largestSealedFile(PATHS_FILE, objects * 4 + (objects + 2) * 8 + MAX_POOL_BYTES);
  const sealed = openSealedFile(file, PATHS_FILE, key, largest, 'paths file is larger than any walk of these packs');
  const header = parseHeader(sealed.headerText);
  if (header.walkKey !== walkKey) throw new Error('the refs or packs changed since the paths were walked');
  if (header.packs.length !== inputs.models.length) throw new Error('paths file is for other packs');
  header.packs.forEach((stored, i) => {
    const model = inputs.models[i]!;
    if (
      stored.packChecksum !== model.checksumHex ||
      stored.idxChecksum !== Buffer.from(model.index.idxChecksum).toString('hex') ||
      stored.count !== model.count
    )
      throw new Error('paths file is for other packs');
  });
  if (header.nodes < 1 || header.nodes > objects + 1 || header.poolBytes > MAX_POOL_BYTES)
    throw new Error('paths table size out of range');
  const body = new SealedBodyReader(sealed, 'paths file');
  const pathOf = inputs.models.map((model) => body.int32(model.count));
  const parent = body.int32(header.nodes);
  const start = body.uint32(header.nodes + 1);
  const pool = body.bytes(header.poolBytes);
  body.end();
  PathTable.check(parent, start, pool);
  PathTable.checkNodes(pathOf, header.nodes, 'paths file');
  return { table: new PathTable(parent, start, pool), pathOf, summary: header.summary };
}

function parseHeader(text: string): StoredHeader {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('paths header is not JSON');
  }
  const header = value as Partial<StoredHeader> | null;
  const summary = header?.summary as Partial<PathWalkSummary> | undefined;
  if (
    typeof header !== 'object' ||
    header === null ||
    typeof header.walkKey !== 'string' ||
    !Array.isArray(header.packs) ||
    !header.packs.every(
      (p) =>
        typeof p === 'object' &&
        p !== null &&
        typeof p.packChecksum === 'string' &&
        typeof p.idxChecksum === 'string' &&
        Number.isInteger(p.count),
    ) ||
    !Number.isInteger(header.nodes) ||
    !Number.isInteger(header.poolBytes) ||
    typeof summary !== 'object' ||
    summary === null ||
    typeof summary.complete !== 'boolean' ||
    !Array.isArray(summary.problems) ||
    !summary.problems.every((p) => typeof p === 'string') ||
    !(summary.namesFrom === undefined || summary.namesFrom === 'walk' || summary.namesFrom === 'git rev-list') ||
    !['tips', 'commits', 'trees', 'named', 'missing', 'bytesRebuilt', 'elapsedMs'].every(
      (field) => typeof (summary as Record<string, unknown>)[field] === 'number',
    )
  ) {
    throw new Error('paths header has missing or mistyped fields');
  }
  return { ...(header as StoredHeader), summary: { ...(summary as PathWalkSummary), rule: PATH_RULE } };
}
