import { loadOrWalkPaths } from '../core/model/object-paths-store.ts';
import type { ObjectPaths, StoreWalkInputs } from '../core/model/object-paths.ts';
import type { ObjectStore } from '../core/model/object-store.ts';
import type { Progress } from './progress.ts';

/**
 * The store's object paths for `object` and `stats`: read from the model cache, or walked with a
 * progress line (commits, then trees) and saved there; a file not saved is a warning. `bound`: the
 * walk gives up after that long (what it named by then is git's) and is then not saved.
 */
export function walkWithProgress(
  inputs: StoreWalkInputs,
  store: ObjectStore,
  progress: Progress,
  bound?: { maxMs: number },
): ObjectPaths {
  const loaded = progress.track(
    bound
      ? `Walking commits and trees for paths (at most ${bound.maxMs / 1000} s)`
      : 'Walking commits and trees for paths',
    (onProgress) =>
      loadOrWalkPaths(inputs, store.repository.commonDir, store.modelCacheDirectory, {
        onProgress: (step) => onProgress(step.done, step.total),
        // A bounded walk that gave up is not saved: the next full walk (`stats`) is the store's.
        ...(bound ? { limits: { maxMs: bound.maxMs }, saveStopped: false } : {}),
      }),
  );
  if (loaded.notSavedBecause) process.stderr.write(`packscope: warning: ${loaded.notSavedBecause}\n`);
  return loaded.paths;
}
