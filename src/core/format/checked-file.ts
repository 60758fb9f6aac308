import { errorMessage } from '../../common/error-message.ts';
import * as fs from 'node:fs';
import { fail } from '../errors.ts';

/**
 * The one way PackScope opens a file it did not write: packs, idx, .rev, MIDX, traces, recordings
 * and a repository's own small files (`.git`, `commondir`, `config`, `objects/info/alternates`).
 * Links are followed, as git follows them for these files, but what they lead to must be a regular
 * file: a FIFO would block a plain open until a writer comes, and a device such as /dev/zero never
 * ends.
 */

/** Cap for a repository's small text files: `.git` (`gitdir:`), `commondir` and `objects/info/alternates` hold a line or a few paths. */
export const SMALL_TEXT_FILE_MAX_BYTES = 1 << 20;

/** Cap for a repository's `config`: larger than the other small files (many remotes and branches), still read whole. */
export const CONFIG_FILE_MAX_BYTES = 16 << 20;

export interface OpenedRegularFile {
  fd: number;
  /** The opened descriptor's own stat: what was checked is what is read. */
  stat: fs.Stats;
}

/**
 * Opens `path` for reading without blocking and refuses anything that is not a regular file once
 * opened (the check is on the descriptor, so a link swapped between a stat and the open cannot slip
 * a device in). Throws an InputOutputError naming the file.
 */
export function openRegularFile(path: string): OpenedRegularFile {
  return openChecked(path, false)!;
}

/** openRegularFile; when `missingIsAbsent`, undefined instead of an error when nothing is at `path`. */
function openChecked(path: string, missingIsAbsent: boolean): OpenedRegularFile | undefined {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer that never comes;
    // for a regular file the flag changes nothing.
    fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = errorCode(error);
    if (missingIsAbsent && (code === 'ENOENT' || code === 'ENOTDIR')) return undefined;
    throw fail('io', path, undefined, `cannot open: ${describeIoError(error)}`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw fail('io', path, undefined, 'not a regular file');
    return { fd, stat };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** Refuses a whole-file read of more than `maxBytes`, before anything is allocated. */
export function checkFileSize(path: string, size: number, maxBytes: number): void {
  if (size > maxBytes)
    throw fail(
      'too-large',
      path,
      undefined,
      `file is ${size} bytes, more than the ${maxBytes}-byte limit for this kind of file`,
    );
}

/**
 * Reads one of a repository's small text files whole, or returns undefined when there is none.
 * The size is checked against `maxBytes` before anything is allocated, and only the bytes present
 * at open time are read: a file that grows meanwhile is cut there, not followed.
 */
export function readRepositoryTextFile(path: string, maxBytes: number): string | undefined {
  const opened = openChecked(path, true);
  if (!opened) return undefined;
  const { fd, stat } = opened;
  try {
    checkFileSize(path, stat.size, maxBytes);
    const bytes = Buffer.allocUnsafe(stat.size);
    let done = 0;
    while (done < bytes.length) {
      let got: number;
      try {
        got = fs.readSync(fd, bytes, done, bytes.length - done, done);
      } catch (error) {
        throw fail('io', path, done, `read failed: ${describeIoError(error)}`);
      }
      if (got === 0) break;
      done += got;
    }
    return bytes.toString('utf8', 0, done);
  } finally {
    fs.closeSync(fd);
  }
}

function errorCode(error: unknown): string | undefined {
  return error && typeof error === 'object' && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

export function describeIoError(error: unknown): string {
  const code = errorCode(error);
  if (code !== undefined) {
    if (code === 'ENOENT') return 'no such file';
    if (code === 'EACCES') return 'permission denied';
    if (code === 'EISDIR') return 'is a directory';
    return code;
  }
  return errorMessage(error);
}
