import * as fs from 'node:fs';
import * as path from 'node:path';

/** The file inside an owned temporary directory that names the process that made it. */
const OWNER_FILE = 'owner.pid';
/** A directory without a readable owner is left alone until it is this old (one in its first moments has none yet). */
const UNOWNED_STALE_MS = 24 * 60 * 60 * 1000;

/**
 * A new directory `<tempRoot>/<prefix>XXXXXX` with this process's pid written in it, so that a
 * later process can tell it was left behind (its maker killed by SIGHUP or SIGKILL, whose
 * `finally` and shutdown never ran) and remove it: removeStaleOwnedDirectories.
 */
export function createOwnedTempDirectory(tempRoot: string, prefix: string): string {
  const directory = fs.mkdtempSync(path.join(tempRoot, prefix));
  fs.writeFileSync(path.join(directory, OWNER_FILE), `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
  return directory;
}

/**
 * Removes the directories under `tempRoot` named with `prefix` that are ours (a real directory
 * owned by this user) and stale (their owner's process is gone, or they have no owner and are
 * older than UNOWNED_STALE_MS). fs.rmSync unlinks symbolic links in them and never descends into
 * or deletes what they point to.
 */
export function removeStaleOwnedDirectories(tempRoot: string, prefix: string, now = Date.now()): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(tempRoot);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const directory = path.join(tempRoot, name);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(directory);
    } catch {
      continue;
    }
    if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) continue;
    const owner = ownerOf(directory);
    const stale =
      owner === undefined ? now - stat.mtimeMs > UNOWNED_STALE_MS : owner !== process.pid && !isRunning(owner);
    if (!stale) continue;
    try {
      fs.rmSync(directory, { recursive: true, force: true });
      removed.push(directory);
    } catch {
      // Someone else's cleanup raced this one, or a file in it is not ours: leave it.
    }
  }
  return removed;
}

function ownerOf(directory: string): number | undefined {
  let text: string;
  try {
    const fd = fs.openSync(
      path.join(directory, OWNER_FILE),
      fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0),
    );
    try {
      if (!fs.fstatSync(fd).isFile()) return undefined;
      const buffer = Buffer.alloc(32);
      text = buffer.toString('latin1', 0, fs.readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** Signal 0 tests for the process without touching it; EPERM means it exists under another user. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
