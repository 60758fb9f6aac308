import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Files PackScope writes outside repositories (model cache, recordings) land in directories others
// may share (a cache on a multi-user machine, /tmp): a temporary file at a name someone could guess
// would follow a planted symbolic link. So: a random name, created exclusively without following
// links, written, synced, then renamed over the target (rename replaces a link, never its target).

const EXCLUSIVE_CREATE =
  fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

/**
 * Writes `target` through a fresh temporary file beside it; `write` fills the open descriptor.
 * With `replace: false` an existing `target` (even one that appeared after the caller looked) is
 * left alone and the call fails with EEXIST: the file is linked into place, which never replaces.
 */
export function writeFileAtomically(
  target: string,
  mode: number,
  write: (fd: number) => void,
  { replace = true }: { replace?: boolean } = {},
): void {
  const temporary = `${target}.${randomBytes(12).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, EXCLUSIVE_CREATE, mode);
  try {
    try {
      write(fd);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (replace) fs.renameSync(temporary, target);
    else {
      fs.linkSync(temporary, target);
      fs.rmSync(temporary, { force: true });
    }
  } catch (error) {
    // Only this call created the file, so removing it cannot remove anyone else's.
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** Writes all of `buffer` to `fd` (writeSync may write less than asked). */
export function writeAll(fd: number, buffer: Uint8Array): void {
  for (let done = 0; done < buffer.length;) done += fs.writeSync(fd, buffer, done, buffer.length - done);
}

/** The nearest of `file` and its ancestors that exists, with its stat (followed links), or undefined when none does. */
export function nearestExisting(file: string): { path: string; stat: fs.Stats } | undefined {
  for (let probe = path.resolve(file); ; probe = path.dirname(probe)) {
    try {
      return { path: probe, stat: fs.statSync(probe) };
    } catch {
      if (path.dirname(probe) === probe) return undefined;
    }
  }
}

/**
 * Creates `directory` and its missing parents one level at a time: fs.mkdirSync's recursive mode
 * loops for ever on some pseudo file systems (a path under /proc/<pid>/), a single level fails
 * with the kernel's own error.
 */
export function makeDirectories(directory: string, mode: number): void {
  const resolved = path.resolve(directory);
  const existing = nearestExisting(resolved);
  if (existing && !existing.stat.isDirectory())
    throw Object.assign(new Error(`${existing.path} is not a directory`), { code: 'ENOTDIR' });
  const missing: string[] = [];
  for (let level = resolved; level !== existing?.path && path.dirname(level) !== level; level = path.dirname(level))
    missing.push(level);
  for (const level of missing.reverse()) {
    try {
      fs.mkdirSync(level, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !fs.statSync(level).isDirectory()) throw error;
    }
  }
}
