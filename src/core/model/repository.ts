import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail } from '../errors.ts';
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

/** Finds the repository containing `start` (a file or directory), like `git rev-parse`. */
export function discoverRepository(start: string): Repository {
  let dir = path.resolve(start);
  if (!fs.existsSync(dir)) throw fail('not-a-repository', dir, undefined, 'no such file or directory');
  if (!isDirectory(dir)) dir = path.dirname(dir);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    if (isDirectory(dotGit) && looksLikeGitDir(dotGit)) return openRepository(dotGit, dir);
    if (isFile(dotGit)) {
      const gitDir = readGitFile(dotGit);
      if (looksLikeGitDir(gitDir)) return openRepository(gitDir, dir);
    }
    if (looksLikeGitDir(dir)) {
      // Inside a git directory itself: bare, or the .git of a work tree.
      const workTree = path.basename(dir) === '.git' ? path.dirname(dir) : undefined;
      return openRepository(dir, workTree);
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw fail('not-a-repository', path.resolve(start), undefined, 'not inside a git repository');
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
