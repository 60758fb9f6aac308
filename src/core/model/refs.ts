import { errorMessage } from '../../common/error-message.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRepositoryTextFile, SMALL_TEXT_FILE_MAX_BYTES } from '../format/checked-file.ts';
import type { Repository } from './repository.ts';

/** packed-refs of a repository with millions of refs is large; anything beyond this is refused. */
const PACKED_REFS_MAX_BYTES = 512 << 20;
/** Loose ref files looked at: a refs directory with more is read no further (the walk says so). */
const MAX_LOOSE_REFS = 200_000;
const MAX_REF_DIRECTORY_DEPTH = 64;
/** git's SYMREF_MAXDEPTH. */
const MAX_SYMREF_DEPTH = 5;

export interface RefTip {
  /** `refs/heads/main`, `HEAD`, `worktrees/<name>/HEAD`. */
  name: string;
  oidHex: string;
}

export interface RefTips {
  /** In the order `git rev-list --all` takes them: every ref under refs/ by name, then HEAD, then other worktrees' HEADs. */
  tips: RefTip[];
  /** What could not be read (a reftable, too many refs, an unreadable file): the walk is then not git's. */
  problems: string[];
}

/**
 * The starting points of `git rev-list --all` (revision.c, "--all": refs_for_each_ref, then
 * head_ref, then other_head_refs), read from the files-backend: loose refs override packed-refs,
 * symbolic refs are followed, refs that resolve to nothing are skipped as git skips them.
 * Every file is size-capped; the repository's refs are untrusted text.
 */
export function readRefTips(repository: Repository): RefTips {
  const problems: string[] = [];
  const common = repository.commonDir;
  if (repository.config.get('extensions.refstorage') === 'reftable')
    problems.push('the repository keeps its refs in a reftable, which PackScope does not read');
  const values = new Map<string, string>();
  const packedText = readOrNote(path.join(common, 'packed-refs'), PACKED_REFS_MAX_BYTES, problems);
  if (packedText !== undefined) {
    for (const line of packedText.split('\n')) {
      if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
      const space = line.indexOf(' ');
      if (space < 0) continue;
      const name = line.slice(space + 1).replace(/\r$/, '');
      if (isRefName(name)) values.set(name, line.slice(0, space));
    }
  }
  let looseCount = 0;
  const visit = (directory: string, prefix: string, depth: number): void => {
    if (depth > MAX_REF_DIRECTORY_DEPTH) {
      problems.push(`${directory}: refs nested deeper than ${MAX_REF_DIRECTORY_DEPTH} directories were not read`);
      return;
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const name = `${prefix}/${entry.name}`;
      const file = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        visit(file, name, depth + 1);
      } else if (entry.isFile() && isRefName(name)) {
        if (++looseCount > MAX_LOOSE_REFS) {
          if (looseCount === MAX_LOOSE_REFS + 1)
            problems.push(`more than ${MAX_LOOSE_REFS} loose refs: the rest were not read`);
          return;
        }
        const text = readOrNote(file, SMALL_TEXT_FILE_MAX_BYTES, problems);
        if (text !== undefined) values.set(name, text.trim());
      }
    }
  };
  visit(path.join(common, 'refs'), 'refs', 0);

  const resolve = (value: string, depth: number): string | undefined => {
    if (/^[0-9a-f]{40}$|^[0-9a-f]{64}$/.test(value))
      return value.length === repository.hash.size * 2 ? value : undefined;
    if (!value.startsWith('ref:') || depth >= MAX_SYMREF_DEPTH) return undefined;
    const target = values.get(value.slice(4).trim());
    return target === undefined ? undefined : resolve(target, depth + 1);
  };
  const tips: RefTip[] = [];
  const names = [...values.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const name of names) {
    const oidHex = resolve(values.get(name)!, 0);
    if (oidHex !== undefined) tips.push({ name, oidHex });
  }
  const headOf = (gitDir: string, name: string): void => {
    const text = readOrNote(path.join(gitDir, 'HEAD'), SMALL_TEXT_FILE_MAX_BYTES, problems);
    const oidHex = text === undefined ? undefined : resolve(text.trim(), 0);
    if (oidHex !== undefined) tips.push({ name, oidHex });
  };
  headOf(repository.gitDir, 'HEAD');
  const others: [string, string][] = [];
  if (path.resolve(repository.gitDir) !== path.resolve(common)) others.push([common, 'main-worktree/HEAD']);
  try {
    for (const entry of fs.readdirSync(path.join(common, 'worktrees')).sort()) {
      const gitDir = path.join(common, 'worktrees', entry);
      if (path.resolve(gitDir) !== path.resolve(repository.gitDir)) others.push([gitDir, `worktrees/${entry}/HEAD`]);
    }
  } catch {
    // no linked worktrees
  }
  for (const [gitDir, name] of others) headOf(gitDir, name);
  return { tips, problems };
}

function readOrNote(file: string, maxBytes: number, problems: string[]): string | undefined {
  try {
    return readRepositoryTextFile(file, maxBytes);
  } catch (error) {
    problems.push(errorMessage(error));
    return undefined;
  }
}

/** The part of git's check_refname_format that keeps lock files and dot-files out of the list. */
function isRefName(name: string): boolean {
  if (!name.startsWith('refs/') || name.endsWith('.lock') || name.endsWith('/')) return false;
  return !name.split('/').some((part) => part === '' || part.startsWith('.') || part.endsWith('.lock'));
}
