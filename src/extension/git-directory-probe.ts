/**
 * Does a workspace folder hold a git repository PackScope would show? Answered before the server
 * starts, on every window that activates the extension (`onStartupFinished`), so it must stay cheap
 * and must never hang: only lstat/readdir, no symlink followed, no file opened except a regular
 * HEAD (at most its first 64 bytes), levels limited by `packscope.scanDepth` and entries capped.
 *
 * What counts mirrors the server's discovery (src/server/workspace-registry.ts): the folder inside
 * a repository (a `.git` directory or file in it or an ancestor), the folder a git directory itself
 * (a bare repository or mirror: HEAD, objects/, refs/), or a `.git` below it within `scanDepth`.
 * No vscode here: the extension calls it, the unit test calls it on real repositories.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Directories the server's scan skips too (build output, other VCSs, caches). */
const SKIPPED = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'out', 'build', 'target', '.cache']);

/** Directory entries looked at in all, over every level: a huge folder answers "no" instead of taking long. */
export const MAX_PROBED_ENTRIES = 5000;

const HEAD_BYTES = 64;

export interface ProbeResult {
  /** The git directory (or `.git` file) found, or undefined. */
  found: string | undefined;
  /** Directory entries looked at (tests check the cap holds). */
  entries: number;
  /** True when the entry cap stopped the scan before it was complete. */
  capped: boolean;
}

function lstat(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

/** The first bytes of a regular file (never a FIFO, device or symlink: those could block or lead anywhere). */
function head(file: string): string | undefined {
  const stats = lstat(file);
  if (!stats?.isFile()) return undefined;
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const buffer = Buffer.alloc(HEAD_BYTES);
    const got = fs.readSync(fd, buffer, 0, HEAD_BYTES, 0);
    return buffer.toString('latin1', 0, got);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** git's own test (setup.c is_git_directory): HEAD that names a ref or an object id, objects/ and refs/. */
export function isGitDirectory(dir: string): boolean {
  if (!lstat(path.join(dir, 'objects'))?.isDirectory()) return false;
  if (!lstat(path.join(dir, 'refs'))?.isDirectory()) return false;
  const text = head(path.join(dir, 'HEAD'));
  return text !== undefined && (text.startsWith('ref: refs/') || /^[0-9a-f]{40}(?:[0-9a-f]{24})?\s/.test(text));
}

/** A `.git` in `dir`: a git directory, or a file pointing at one (a worktree, a submodule). */
function dotGitIn(dir: string): string | undefined {
  const dotGit = path.join(dir, '.git');
  const stats = lstat(dotGit);
  if (stats?.isDirectory()) return isGitDirectory(dotGit) ? dotGit : undefined;
  if (stats?.isFile()) return head(dotGit)?.startsWith('gitdir: ') ? dotGit : undefined;
  return undefined;
}

/** Bounded answer for one workspace folder; `scanDepth` as the setting (0: only the folder itself). */
export function probeGitDirectory(root: string, scanDepth: number, maxEntries = MAX_PROBED_ENTRIES): ProbeResult {
  const result: ProbeResult = { found: undefined, entries: 0, capped: false };
  const start = path.resolve(root);
  if (isGitDirectory(start)) return { ...result, found: start };
  // The folder inside a checkout (a subfolder opened on its own): the server's discovery walks up too.
  for (let dir = start; ;) {
    const found = dotGitIn(dir);
    if (found) return { ...result, found };
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  // Breadth first, so a shallow repository is found before a deep folder uses up the entry budget.
  let level: string[] = [start];
  for (let depth = 1; depth <= scanDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++result.entries > maxEntries) return { ...result, capped: true };
        // Dirent types come from readdir without following links: a symlink (even a loop) is not a directory here.
        if (!entry.isDirectory() || SKIPPED.has(entry.name) || entry.name.startsWith('.')) continue;
        const child = path.join(dir, entry.name);
        const found = dotGitIn(child) ?? (isGitDirectory(child) ? child : undefined);
        if (found) return { ...result, found };
        next.push(child);
      }
    }
    level = next;
  }
  return result;
}

/** The first git directory found in any of the folders (undefined: none). */
export function probeWorkspace(folders: readonly string[], scanDepth: number): string | undefined {
  for (const folder of folders) {
    const found = probeGitDirectory(folder, scanDepth).found;
    if (found) return found;
  }
  return undefined;
}
