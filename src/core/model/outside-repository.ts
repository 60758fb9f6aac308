import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail } from '../errors.ts';
import { discoverRepository, type Repository } from './repository.ts';

// README.md, "Trust and safety": PackScope never writes inside a repository. The one test of that rule, for
// every place PackScope writes: the model cache, a repack preview's temporary directory, a recording.

/**
 * The repository's root (work tree, common directory or git directory) that `file` is or lies
 * below, or undefined when it is outside all of them. Symbolic links are resolved on both sides;
 * a file not created yet is placed by its nearest existing ancestor.
 */
export function repositoryRootHolding(file: string, repository: Repository): string | undefined {
  const real = realPathOrSelf(path.resolve(file));
  for (const root of [repository.workTree, repository.commonDir, repository.gitDir]) {
    if (root === undefined) continue;
    let realRoot: string;
    try {
      realRoot = fs.realpathSync(root);
    } catch {
      continue;
    }
    const relative = path.relative(realRoot, real);
    if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))) return root;
  }
  return undefined;
}

/** Throws a 'usage' error naming `file` when it is inside the repository; `detail` says what and why, given the root it is in. */
export function refuseInsideRepository(file: string, repository: Repository, detail: (root: string) => string): void {
  const root = repositoryRootHolding(file, repository);
  if (root !== undefined) throw fail('usage', file, undefined, detail(root));
}

/**
 * The root of whatever repository `file` is or lies below (not only the one being read: a HOME that
 * is itself a repository holds the default cache), or undefined when it is in none.
 */
export function enclosingRepositoryRoot(file: string): string | undefined {
  const real = realPathOrSelf(path.resolve(file));
  let existing = real;
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  let repository: Repository;
  try {
    repository = discoverRepository(existing);
  } catch {
    return undefined;
  }
  return repositoryRootHolding(real, repository);
}

/** As refuseInsideRepository, for whatever repository `file` is in. */
export function refuseInsideAnyRepository(file: string, detail: (root: string) => string): void {
  const root = enclosingRepositoryRoot(file);
  if (root !== undefined) throw fail('usage', file, undefined, detail(root));
}

/** The real path of `p`, resolving its nearest existing ancestor when `p` does not exist yet. */
function realPathOrSelf(p: string): string {
  let probe = p;
  while (!fs.existsSync(probe)) {
    const parent = path.dirname(probe);
    if (parent === probe) return p;
    probe = parent;
  }
  return path.join(fs.realpathSync(probe), path.relative(probe, p));
}
