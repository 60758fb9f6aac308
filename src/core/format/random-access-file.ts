import * as buffer from 'node:buffer';
import * as fs from 'node:fs';
import { fail } from '../errors.ts';
import { checkFileSize, describeIoError, openRegularFile } from './checked-file.ts';

/** One read(2) at most: Node refuses lengths beyond 2^31 − 1. */
const MAX_READ_BYTES = 1 << 30;

/**
 * A file this small is read whole by one read(2) when it is opened, and every read is a copy out of
 * those bytes: an idx read its head and then itself, a pack its header, its trailer and its entries,
 * each a read(2) of its own, and 3,000 one-object packs paid 15,000 of them (bench/README.md, "Many
 * packs benchmark"). What changes on disk afterwards is still caught by assertUnchanged.
 */
export const READ_WHOLE_MAX_BYTES = 64 << 10;

/**
 * A file opened once and read at explicit offsets. Every read is bounds-checked against the size
 * seen at open time, and the identity (inode, size, mtime) is kept so that a pack rewritten or
 * deleted while it is being read is reported as such instead of yielding mixed bytes.
 */
export class RandomAccessFile {
  private fd: number | undefined;
  /** The whole file, read at open, when it is at most READ_WHOLE_MAX_BYTES. */
  private whole: Buffer | undefined;

  private constructor(
    readonly path: string,
    fd: number,
    readonly size: number,
    /** Device, inode, size and mtime at open: another thread opening the path checks it has the same file. */
    readonly identity: string,
    /** Modification time at open, in ms with its fraction (what a model file records of its pack and idx). */
    readonly mtimeMs: number,
  ) {
    this.fd = fd;
  }

  static open(path: string): RandomAccessFile {
    const { fd, stat } = openRegularFile(path);
    const file = new RandomAccessFile(path, fd, stat.size, identityOf(stat), stat.mtimeMs);
    if (stat.size > 0 && stat.size <= READ_WHOLE_MAX_BYTES) {
      try {
        const whole = Buffer.allocUnsafe(stat.size);
        file.readInto(whole, 0, stat.size, 0);
        file.whole = whole;
      } catch (error) {
        file.close();
        throw error;
      }
    }
    return file;
  }

  /**
   * The bytes read at open, as a file of their own that needs no descriptor (undefined for a file
   * larger than READ_WHOLE_MAX_BYTES): reads after this one is closed come from them instead of
   * another open(2), and are what was first opened. A stored model reopened column by column, or an
   * idx whose tables are read on first use, opened its file again for each read: 3,000 small packs
   * paid about 15,000 opens of their model files and idx (bench/README.md, "Many packs benchmark").
   */
  snapshot(): RandomAccessFile | undefined {
    if (this.whole === undefined) return undefined;
    const copy = new RandomAccessFile(this.path, -1, this.size, this.identity, this.mtimeMs);
    copy.fd = undefined;
    copy.whole = this.whole;
    return copy;
  }

  /** Reads exactly `length` bytes at `position` into `target` (from `targetOffset`). */
  readInto(target: Uint8Array, targetOffset: number, length: number, position: number): void {
    if (position < 0 || length < 0 || position + length > this.size) {
      throw fail(
        'truncated',
        this.path,
        position,
        `read of ${length} bytes runs past the end of the file (${this.size} bytes)`,
      );
    }
    if (this.whole) {
      this.whole.copy(target, targetOffset, position, position + length);
      return;
    }
    const fd = this.descriptor();
    let done = 0;
    while (done < length) {
      let n: number;
      try {
        n = fs.readSync(fd, target, targetOffset + done, Math.min(length - done, MAX_READ_BYTES), position + done);
      } catch (error) {
        throw fail('io', this.path, position + done, `read failed: ${describeIoError(error)}`);
      }
      if (n === 0) throw fail('changed', this.path, position + done, 'file became shorter while it was being read');
      done += n;
    }
  }

  read(position: number, length: number): Buffer {
    if (length > buffer.constants.MAX_LENGTH) {
      throw fail(
        'too-large',
        this.path,
        position,
        `a read of ${length} bytes is more than the ${buffer.constants.MAX_LENGTH} bytes PackScope can hold in memory`,
      );
    }
    const bytes = Buffer.allocUnsafe(length);
    this.readInto(bytes, 0, length, position);
    return bytes;
  }

  /** Throws when the file on disk is no longer the one that was opened (deleted, replaced or rewritten). */
  assertUnchanged(): void {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(this.path);
    } catch {
      throw fail('changed', this.path, undefined, 'file was deleted while it was being read');
    }
    if (identityOf(stat) !== this.identity) {
      throw fail('changed', this.path, undefined, 'file was replaced or rewritten while it was being read');
    }
  }

  close(): void {
    this.whole = undefined;
    if (this.fd !== undefined) {
      fs.closeSync(this.fd);
      this.fd = undefined;
    }
  }

  private descriptor(): number {
    if (this.fd === undefined) throw fail('io', this.path, undefined, 'file is closed');
    return this.fd;
  }
}

function identityOf(stat: fs.Stats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

/** Reads a whole small file (an idx, a .rev, a MIDX) after checking its size against a cap. */
export function readWholeFile(path: string, maxBytes: number): Buffer {
  const file = RandomAccessFile.open(path);
  try {
    checkFileSize(path, file.size, maxBytes);
    return file.read(0, file.size);
  } finally {
    file.close();
  }
}
