import * as fs from 'node:fs';
import * as path from 'node:path';
import { startNamingByGit, watchListing, type GitNamesRun } from '../core/model/git-object-names.ts';
import { loadOrNamePaths, pathsFileFor } from '../core/model/object-paths-store.ts';
import type { ObjectPaths, StoreWalkInputs } from '../core/model/object-paths.ts';
import type { ObjectStore } from '../core/model/object-store.ts';
import type { Progress } from './progress.ts';

/**
 * Who names the objects when no stored names answer: git (`git rev-list --objects --all`, the same
 * names at about a third of the walk's CPU) when it may, else the walk. PACKSCOPE_NAMES_FROM=walk
 * makes the walk name them (the bench compares the two). git is never asked for one pack file
 * opened on its own, nor when a pack could not be read: git would name through objects the walk
 * cannot see.
 */
function gitMayName(store: ObjectStore): boolean {
  return process.env.PACKSCOPE_NAMES_FROM !== 'walk' && !store.singlePack && store.packs.length > 0;
}

export function namesFromGit(inputs: StoreWalkInputs, store: ObjectStore): boolean {
  return gitMayName(store) && inputs.packs.length === store.packs.length;
}

/**
 * git rev-list naming the objects, started before the models are open (and, bundled, on a worker
 * thread of its own, git-names-worker.js): git runs on one core while this thread opens the models
 * and builds the rest of the report on the other, so that the names cost about git's time alone.
 * While it runs, Ctrl+C (or SIGTERM) stops git and the command exits as cancelled. `stop` ends
 * whatever is left of it (git, the worker, the signal handlers): call it whatever happens.
 */
export interface GitNaming {
  run: GitNamesRun;
  signal: AbortSignal;
  stop(): void;
}

export function startGitNaming(store: ObjectStore): GitNaming {
  const repository = store.repository;
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort();
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);
  const run = startNamingByGit({
    git: 'git',
    gitDir: repository.gitDir,
    commonDir: repository.commonDir,
    hashSize: repository.hash.size,
    signal: controller.signal,
    workerScript: path.join(__dirname, 'git-names-worker.js'),
  });
  return {
    run,
    signal: controller.signal,
    stop: () => {
      run.cancel();
      process.removeListener('SIGINT', onInterrupt);
      process.removeListener('SIGTERM', onInterrupt);
    },
  };
}

/**
 * git started as soon as the store is open, when it is to name the objects and no names are stored
 * for the repository (a stored file of other refs or packs is found out only once the models are
 * open; git then starts at that point).
 */
export function startGitNamingEarly(store: ObjectStore): GitNaming | undefined {
  if (!gitMayName(store)) return undefined;
  const directory = store.modelCacheDirectory;
  if (directory !== undefined && fs.existsSync(pathsFileFor(directory, store.repository.commonDir))) return undefined;
  return startGitNaming(store);
}

/**
 * The store's object paths for `object` and `stats`: read from the model cache, or named (by git,
 * else by the walk, with a progress line: commits, then trees) and saved there; a file not saved
 * is a warning, and so is git not naming them when it was asked to. `bound`: the walk gives up
 * after that long (what it named by then is git's) and is then not saved. Ctrl+C stops git.
 * `naming`: git already started (startGitNaming); it is stopped here if the walk is to name them.
 */
export async function walkWithProgress(
  inputs: StoreWalkInputs,
  store: ObjectStore,
  progress: Progress,
  bound?: { maxMs: number },
  started?: GitNaming,
): Promise<ObjectPaths> {
  const repository = store.repository;
  const useGit = namesFromGit(inputs, store);
  if (!useGit) started?.stop();
  // While git runs, Ctrl+C stops it and the command exits as cancelled; the walk runs on this
  // thread, where a listener would only run once the walk ended, so it keeps the default.
  const naming = useGit ? (started ?? (bound ? undefined : startGitNaming(store))) : undefined;
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort();
  const restore = (): void => {
    naming?.stop();
    process.removeListener('SIGINT', onInterrupt);
    process.removeListener('SIGTERM', onInterrupt);
  };
  if (useGit && !naming) {
    process.once('SIGINT', onInterrupt);
    process.once('SIGTERM', onInterrupt);
  }
  try {
    const loaded = await progress.trackAsync(
      bound ? `Naming objects by their paths (at most ${bound.maxMs / 1000} s)` : 'Naming objects by their paths',
      (onProgress) =>
        whileGitLists(naming?.run, inputs, onProgress, () =>
          loadOrNamePaths(inputs, repository.commonDir, store.modelCacheDirectory, {
            onProgress: (step) => onProgress(step.done, step.total),
            // A bounded walk that gave up is not saved: the next full walk (`stats`) is the store's.
            ...(bound ? { limits: { maxMs: bound.maxMs }, saveStopped: false } : {}),
            ...(naming
              ? { started: naming.run, signal: naming.signal, beforeWalk: restore }
              : useGit
                ? {
                    git: { git: 'git', gitDir: repository.gitDir, commonDir: repository.commonDir },
                    signal: controller.signal,
                    beforeWalk: restore,
                  }
                : {}),
          }),
        ),
    );
    if (loaded.walkedBecause)
      process.stderr.write(`packscope: warning: git did not name the objects, the walk did: ${loaded.walkedBecause}\n`);
    if (loaded.notSavedBecause) process.stderr.write(`packscope: warning: ${loaded.notSavedBecause}\n`);
    return loaded.paths;
  } finally {
    restore();
  }
}

/** How often the count of objects git has listed is shown. */
const LISTED_PROGRESS_MS = 200;

/** Runs `work` (which waits for git's names) while the progress line counts the objects `run`'s git has listed (watchListing); without a run, `work` alone. */
async function whileGitLists<T>(
  run: GitNamesRun | undefined,
  inputs: StoreWalkInputs,
  onProgress: (done: number, total: number) => void,
  work: () => Promise<T>,
): Promise<T> {
  const stop = run && watchListing(run, inputs, LISTED_PROGRESS_MS, onProgress);
  try {
    return await work();
  } finally {
    stop?.();
  }
}
