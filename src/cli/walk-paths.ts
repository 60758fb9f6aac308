import { loadOrWalkPaths } from '../core/model/object-paths-store.ts';
import type { ObjectPaths, StoreWalkInputs } from '../core/model/object-paths.ts';
import type { ObjectStore } from '../core/model/object-store.ts';
import type { Progress } from './progress.ts';

/**
 * The store's object paths for `object` and `stats`: read from the model cache, or walked with a
 * progress line (commits, then trees) and saved there; a file not saved is a warning.
 */
export function walkWithProgress(inputs: StoreWalkInputs, store: ObjectStore, progress: Progress): ObjectPaths {
  const loaded = progress.track('Walking commits and trees for paths', (onProgress) =>
    loadOrWalkPaths(inputs, store.repository.commonDir, store.modelCacheDirectory, {
      onProgress: (step) => onProgress(step.done, step.total),
    }),
  );
  if (loaded.notSavedBecause) process.stderr.write(`packscope: warning: ${loaded.notSavedBecause}\n`);
  return loaded.paths;
}
