import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail, PackScopeError } from '../errors.ts';
import { CONFIG_FILE_MAX_BYTES, readRepositoryTextFile, SMALL_TEXT_FILE_MAX_BYTES } from '../format/checked-file.ts';
import { hashAlgorithmByName, type HashAlgorithm } from '../format/hash-algorithm.ts';
import { parseGitConfig } from './git-config.ts';

/** A repository found on disk (git's setup_git_directory, reduced to what reading packs needs). */
export interface Repository {
  /** The work tree's top, undefined for a bare repository. */
  workTree: string | undefined;
  /** The per-worktree git directory (`.git`, or `.git/worktrees/<name>` for a linked worktree). */
  gitDir: string;
  /** The shared git directory (`commondir`): config, objects and refs live here. */
  commonDir: string;
  objectsDir: string;
  bare: boolean;
  hash: HashAlgorithm;
  config: Map<string, string>;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** git's is_git_directory: HEAD, an objects directory and a refs directory (via commondir). */
function looksLikeGitDir(dir: string): boolean {
  if (!isFile(path.join(dir, 'HEAD'))) return false;
  const common = readCommonDir(dir);
  return isDirectory(path.join(common, 'objects')) && isDirectory(path.join(common, 'refs'));
}

/**
 * A git directory with its HEAD whose `commondir` names no git directory (a FIFO, a device, a path
 * not there): named, rather than passed over for a parent's repository.
 */
function refuseBrokenCommonDir(gitDir: string): void {
  if (!isFile(path.join(gitDir, 'HEAD'))) return;
  const file = path.join(gitDir, 'commondir');
  if (!fs.existsSync(file)) return;
  const common = readCommonDir(gitDir);
  if (!isDirectory(path.join(common, 'objects')) || !isDirectory(path.join(common, 'refs')))
    throw fail('not-a-repository', file, undefined, `names ${common}: ${describeNonGitDir(common)}`);
}

function readCommonDir(gitDir: string): string {
  const file = path.join(gitDir, 'commondir');
  const value = readRepositoryTextFile(file, SMALL_TEXT_FILE_MAX_BYTES)?.trim();
  return value === undefined ? gitDir : path.resolve(gitDir, value);
}

/** Follows a `.git` file (`gitdir: <path>`), as used by linked worktrees and submodules. */
function readGitFile(file: string): string {
  const text = readRepositoryTextFile(file, SMALL_TEXT_FILE_MAX_BYTES) ?? '';
  const match = /^gitdir: (.+?)\s*$/m.exec(text);
  if (!match) throw fail('not-a-repository', file, undefined, 'invalid .git file (no "gitdir:" line)');
  return path.resolve(path.dirname(file), match[1]!);
}

/** What a `.git` file or a `commondir` names when that is no git directory, in the CLI's words. */
function describeNonGitDir(target: string): string {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (stat === undefined) return 'no such file or directory';
  if (stat.isDirectory()) return 'a directory without HEAD, objects and refs, not a git directory';
  return `${fileKind(stat)}, not a git directory`;
}

function fileKind(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a directory';
  return 'a regular file';
}

const NOT_INSIDE = 'not inside a git repository';

/**
 * Whether `error` says only that `start` lies in no repository (a workspace folder that is none),
 * rather than that a repository is there and one of its files is wrong (a `.git` file or a
 * `commondir` that names a FIFO, say): the second is worth showing, the first is not.
 */
export function isOutsideAnyRepository(error: unknown): boolean {
  return error instanceof PackScopeError && error.code === 'not-a-repository' && error.detail === NOT_INSIDE;
}

/** Finds the repository containing `start` (a file or directory), like `git rev-parse`. */
export function discoverRepository(start: string): Repository {
  let dir = path.resolve(start);
  if (!fs.existsSync(dir)) throw fail('not-a-repository', dir, undefined, 'no such file or directory');
  if (!isDirectory(dir)) dir = path.dirname(dir);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    const dotGitStat = fs.statSync(dotGit, { throwIfNoEntry: false });
    if (dotGitStat?.isDirectory()) {
      if (looksLikeGitDir(dotGit)) return openRepository(dotGit, dir);
      refuseBrokenCommonDir(dotGit);
    } else if (dotGitStat?.isFile()) {
      const gitDir = readGitFile(dotGit);
      if (looksLikeGitDir(gitDir)) return openRepository(gitDir, dir);
      refuseBrokenCommonDir(gitDir);
      // git stops here too ("not a git repository: <gitdir>") rather than look further up: the
      // .git file says where this repository is, so a parent's would be the wrong one.
      throw fail('not-a-repository', dotGit, undefined, `gitdir ${gitDir}: ${describeNonGitDir(gitDir)}`);
    } else if (dotGitStat !== undefined) {
      // git passes over such a .git (its setup code marks that as wanting a fix) and may then use a
      // parent's repository: this one is named instead, so that what is wrong is said.
      throw fail(
        'not-a-repository',
        dotGit,
        undefined,
        `${fileKind(dotGitStat)}, neither a git directory nor a .git file`,
      );
    }
    if (looksLikeGitDir(dir)) {
      // Inside a git directory itself: bare, or the .git of a work tree.
      const workTree = path.basename(dir) === '.git' ? path.dirname(dir) : undefined;
      return openRepository(dir, workTree);
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw fail('not-a-repository', path.resolve(start), undefined, NOT_INSIDE);
    dir = parent;
  }
}

function openRepository(gitDir: string, workTree: string | undefined): Repository {
  const commonDir = readCommonDir(gitDir);
  const configPath = path.join(commonDir, 'config');
  const configText = readRepositoryTextFile(configPath, CONFIG_FILE_MAX_BYTES);
  const config = configText === undefined ? new Map<string, string>() : parseGitConfig(configText);
  const bare = config.get('core.bare') === 'true' || workTree === undefined;
  const formatName = config.get('extensions.objectformat') ?? 'sha1';
  const hash = hashAlgorithmByName(formatName);
  if (!hash) throw fail('not-a-repository', configPath, undefined, `unknown extensions.objectFormat "${formatName}"`);
  return {
    workTree: bare ? undefined : workTree,
    gitDir,
    commonDir,
    objectsDir: path.join(commonDir, 'objects'),
    bare,
    hash,
    config,
  };
}

/** The hash algorithm of the repository holding `file`, or SHA-1 when it is in none. */
export function hashAlgorithmNear(file: string): HashAlgorithm | undefined {
  try {
    return discoverRepository(path.dirname(path.resolve(file))).hash;
  } catch {
    return undefined;
  }
}
