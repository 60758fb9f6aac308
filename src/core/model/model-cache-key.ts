import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeAll } from '../atomic-file.ts';

/** Where persisted models live by default: outside every repository, in the user's cache. */
export function defaultModelCacheDir(): string {
  if (process.env.PACKSCOPE_CACHE_DIR) return path.resolve(process.env.PACKSCOPE_CACHE_DIR);
  const base = process.env.XDG_CACHE_HOME
    ? path.resolve(process.env.XDG_CACHE_HOME)
    : path.join(os.homedir(), '.cache');
  return path.join(base, 'packscope', 'models');
}

/**
 * The model cache's per-user key (every model and paths file is sealed under it: sealed-file.ts):
 * a file is trusted only when its trailer was made with this key, so a file written by anyone who cannot read the key
 * (another user, a crafted download) is rebuilt instead of printed. The key is a regular file of
 * KEY_BYTES random bytes, mode 0600, owned by this user, created exclusively without following links.
 */
export const CACHE_KEY_FILE = 'packscope-model-cache.key';
const KEY_BYTES = 32;
const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** The key, or undefined when there is none or it is not private to this user (then nothing is trusted). */
export function readCacheKey(directory: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(
      path.join(directory, CACHE_KEY_FILE),
      fs.constants.O_RDONLY | NO_FOLLOW | (fs.constants.O_NONBLOCK ?? 0),
    );
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size !== KEY_BYTES || (stat.mode & 0o077) !== 0) return undefined;
    if (process.getuid && stat.uid !== process.getuid()) return undefined;
    const key = Buffer.alloc(KEY_BYTES);
    if (fs.readSync(fd, key, 0, KEY_BYTES, 0) !== KEY_BYTES) return undefined;
    return key;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The key, created on first use: written to a fresh temporary file and published by a hard link,
 * which fails if the name exists (a planted link included), so no reader ever sees half a key.
 * Throws when a key file exists that is not private to this user.
 */
export function readOrCreateCacheKey(directory: string): Buffer {
  const existing = readCacheKey(directory);
  if (existing) return existing;
  const file = path.join(directory, CACHE_KEY_FILE);
  const key = randomBytes(KEY_BYTES);
  const temporary = `${file}.${randomBytes(12).toString('hex')}.tmp`;
  const fd = fs.openSync(
    temporary,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NO_FOLLOW,
    0o600,
  );
  try {
    try {
      writeAll(fd, key);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(temporary, file);
    return key;
  } catch (error) {
    // Another process may have published its key first: use theirs if it is sound.
    const raced = (error as NodeJS.ErrnoException).code === 'EEXIST' ? readCacheKey(directory) : undefined;
    if (raced) return raced;
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new Error(
        `${file} is not a private key file of this user (a regular file of ${KEY_BYTES} bytes, mode 0600); remove it`,
      );
    throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}
