import { loadOrNamePaths } from '../core/model/object-paths-store.ts';
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
function namesFromGit(inputs: StoreWalkInputs, store: ObjectStore): boolean {
  if (process.env.PACKSCOPE_NAMES_FROM === 'walk') return false;
  return !store.singlePack && inputs.packs.length === store.packs.length;
}

/**
 * The store's object paths for `object` and `stats`: read from the model cache, or named (by git,
 * else by the walk, with a progress line: commits, then trees) and saved there; a file not saved
 * is a warning, and so is git not naming them when it was asked to. `bound`: the walk gives up
 * after that long (what it named by then is git's) and is then not saved. Ctrl+C stops git.
 */
export async function walkWithProgress(
  inputs: StoreWalkInputs,
  store: ObjectStore,
  progress: Progress,
  bound?: { maxMs: number },
): Promise<ObjectPaths> {
  const repository = store.repository;
  const useGit = namesFromGit(inputs, store);
  // While git runs, Ctrl+C (or SIGTERM) stops it and the command exits as cancelled; the walk runs
  // on this thread, where a listener would only run once the walk ended, so it keeps the default.
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort();
  const restore = (): void => {
    process.removeListener('SIGINT', onInterrupt);
    process.removeListener('SIGTERM', onInterrupt);
  };
  if (useGit) {
    process.once('SIGINT', onInterrupt);
    process.once('SIGTERM', onInterrupt);
  }
  try {
    const loaded = await progress.trackAsync(
      bound ? `Naming objects by their paths (at most ${bound.maxMs / 1000} s)` : 'Naming objects by their paths',
      (onProgress) =>
        loadOrNamePaths(inputs, repository.commonDir, store.modelCacheDirectory, {
          onProgress: (step) => onProgress(step.done, step.total),
          // A bounded walk that gave up is not saved: the next full walk (`stats`) is the store's.
          ...(bound ? { limits: { maxMs: bound.maxMs }, saveStopped: false } : {}),
          ...(useGit
            ? {
                git: { git: 'git', gitDir: repository.gitDir, commonDir: repository.commonDir },
                signal: controller.signal,
                beforeWalk: restore,
              }
            : {}),
        }),
    );
    if (loaded.walkedBecause)
      process.stderr.write(`packscope: warning: git did not name the objects, the walk did: ${loaded.walkedBecause}\n`);
    if (loaded.notSavedBecause) process.stderr.write(`packscope: warning: ${loaded.notSavedBecause}\n`);
    return loaded.paths;
  } finally {
    restore();
  }
}
