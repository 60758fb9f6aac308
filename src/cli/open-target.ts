import type { Progress } from './progress.ts';
import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { packFilesFor, parallelBuildFrom, type BuildOptions } from '../core/model/build-pack-model.ts';
import {
  assertOutsideRepository,
  checkModelCacheDirectory,
  defaultModelCacheDir,
  ModelStore,
} from '../core/model/model-store.ts';
import { enclosingRepositoryRoot } from '../core/model/outside-repository.ts';
import { ObjectStore } from '../core/model/object-store.ts';
import { discoverRepository, type Repository } from '../core/model/repository.ts';
import { hashAlgorithmByName, SHA1 } from '../core/format/hash-algorithm.ts';

export interface CacheOptions {
  cacheDir?: string | undefined;
  noCache?: boolean | undefined;
}

/**
 * The model store for this run: the user's cache directory unless --no-cache; never inside the
 * repository (refused), nor inside any other one (a warning, and nothing persisted). A model that
 * cannot be saved is a warning too: the command's answer does not depend on the cache.
 */
export function modelStoreFor(options: CacheOptions, repository: Repository | undefined): ModelStore {
  const build = cliBuildOptions();
  if (options.noCache) return new ModelStore(undefined, undefined, build);
  const directory = path.resolve(options.cacheDir ?? defaultModelCacheDir());
  if (repository) assertOutsideRepository(directory, repository);
  checkModelCacheDirectory(directory);
  const enclosing = enclosingRepositoryRoot(directory);
  if (enclosing !== undefined) {
    warn(
      `the model cache ${directory} is inside the repository ${enclosing}; PackScope never writes inside a repository, so models are not persisted`,
    );
    return new ModelStore(undefined, undefined, build);
  }
  return new ModelStore(directory, warn, build);
}

/**
 * How the CLI builds models: a big pack's scan split over the cores, with the scan worker bundled
 * beside cli.js (none when run from source; PACKSCOPE_SCAN_WORKERS=0 turns it off, N sets the count).
 * `busyCores`: cores the command keeps busy otherwise while the model builds (verify-pack's checksum worker).
 */
export function cliBuildOptions(busyCores = 0): Pick<BuildOptions, 'parallel'> {
  const plan = parallelBuildFrom(__dirname, availableParallelism() - busyCores);
  const wanted = process.env.PACKSCOPE_SCAN_WORKERS;
  if (!plan || wanted === undefined || wanted === '') return plan ? { parallel: plan } : {};
  const workers = Number(wanted);
  return Number.isInteger(workers) && workers >= 1 ? { parallel: { ...plan, workers } } : {};
}

function warn(message: string): void {
  process.stderr.write(`packscope: warning: ${message}\n`);
}

/**
 * What a `[path]` argument names: a repository (any path inside one), or a single .pack/.idx file.
 * A single pack still gets its repository's hash algorithm when it lives inside one.
 */
export function openObjectStore(target: string, options: CacheOptions, progress?: Progress): ObjectStore {
  const store = openStore(target, options);
  progress?.reportBuilds(store);
  return store;
}

function openStore(target: string, options: CacheOptions): ObjectStore {
  const resolved = path.resolve(target);
  if (/\.(pack|idx)$/.test(resolved) && fs.existsSync(resolved) && fs.statSync(resolved).isFile()) {
    let repository: Repository | undefined;
    try {
      repository = discoverRepository(path.dirname(resolved));
    } catch {
      repository = undefined;
    }
    const files = packFilesFor(resolved);
    const hash = repository?.hash ?? hashAlgorithmByName(process.env.PACKSCOPE_OBJECT_FORMAT ?? '') ?? undefined;
    const pseudo: Repository = repository ?? {
      workTree: undefined,
      gitDir: path.dirname(resolved),
      commonDir: path.dirname(resolved),
      objectsDir: path.dirname(path.dirname(resolved)),
      bare: true,
      hash: hash ?? SHA1,
      config: new Map(),
    };
    return ObjectStore.forSinglePack(pseudo, files, modelStoreFor(options, repository), hash === undefined);
  }
  const repository = discoverRepository(resolved);
  return new ObjectStore(repository, modelStoreFor(options, repository));
}
