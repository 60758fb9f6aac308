import * as os from 'node:os';
import * as path from 'node:path';
import { refuseInsideRepository } from '../model/outside-repository.ts';
import type { Repository } from '../model/repository.ts';
import { createOwnedTempDirectory, removeStaleOwnedDirectories } from '../model/owned-temp-directory.ts';

/** Every repack preview's temporary directory is named with this prefix (and nothing else of ours is). */
export const TEMP_PREFIX = 'packscope-repack-';

/**
 * A new preview directory under `tempRoot` (default: os.tmpdir()), with this process's pid written
 * in it, after removing the directories that previews killed by SIGHUP or SIGKILL left behind
 * (their `finally` never ran). A root inside the repository is refused before anything is made.
 */
export function createPreviewDirectory(repository: Repository, tempRootOption: string | undefined): string {
  const tempRoot = path.resolve(tempRootOption ?? os.tmpdir());
  refuseInsideRepository(
    tempRoot,
    repository,
    (root) =>
      `the temporary directory for a repack preview must be outside the repository (${root}); set TMPDIR elsewhere`,
  );
  removeStalePreviewDirectories(tempRoot);
  return createOwnedTempDirectory(tempRoot, TEMP_PREFIX);
}

/**
 * Removes the preview directories under `tempRoot` that are PackScope's (the prefix, a real
 * directory owned by this user) and stale (their owner's process is gone, or they have no owner
 * and are older than UNOWNED_STALE_MS). They hold symbolic links into repositories: fs.rmSync
 * unlinks links and never descends into or deletes what they point to.
 */
export function removeStalePreviewDirectories(tempRoot: string, now = Date.now()): string[] {
  return removeStaleOwnedDirectories(tempRoot, TEMP_PREFIX, now);
}
