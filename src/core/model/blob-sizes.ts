import * as fs from 'node:fs';
import { constants, inflateSync } from 'node:zlib';
import { openRegularFile } from '../format/checked-file.ts';
import { looseObjectFile } from './loose-object.ts';
import { alternateObjectDirs, type ObjectStore } from './object-store.ts';

/** An object's two sizes, as `git cat-file --batch-check='%(objectsize) %(objectsize:disk)'` prints them. */
export interface ObjectSizes {
  /** The object's own size (a delta's result, not its instructions). */
  inflated: number;
  /** What it takes where git reads it from: its pack entry (header and compressed data), or its loose file. */
  disk: number;
}

/** A loose object's header ("blob 1234\0") is within the first bytes its zlib stream inflates to. */
const LOOSE_HEAD_BYTES = 256;

/**
 * Sizes of objects as git finds them (object-file.c, oid_object_info_extended): a pack first (the
 * multi-pack-index's choice, else the first pack in git's search order, as ObjectStore.locate
 * answers), then a loose file in the repository's objects directory or an alternate's. Undefined
 * for an object neither holds (a partial clone's, a broken repository's).
 */
export class ObjectSizeReader {
  private readonly looseDirs: string[];

  constructor(private readonly store: ObjectStore) {
    this.looseDirs = store.singlePack
      ? []
      : [store.repository.objectsDir, ...alternateObjectDirs(store.repository.objectsDir)];
  }

  sizes(oidHex: string): ObjectSizes | undefined {
    const found = this.store.locate(oidHex);
    if (found) {
      const { diskSize, resultSize } = found.model.columns;
      return { inflated: resultSize.get(found.object), disk: diskSize.get(found.object) };
    }
    const file = looseObjectFile(this.looseDirs, oidHex);
    return file === undefined ? undefined : looseSizes(file);
  }
}

/** A loose object's sizes: its declared size from the header, and the file's size (git's disk size for it). */
function looseSizes(file: string): ObjectSizes | undefined {
  const header = looseObjectHeader(file);
  return header ? { inflated: header.size, disk: header.fileBytes } : undefined;
}

/** A loose object's type and declared size from its header, read from the file's first bytes only; undefined when malformed. */
export function looseObjectHeader(
  file: string,
): { type: 'commit' | 'tree' | 'blob' | 'tag'; size: number; fileBytes: number } | undefined {
  const { fd, stat } = openRegularFile(file);
  const head = Buffer.alloc(Math.min(LOOSE_HEAD_BYTES, stat.size));
  try {
    let done = 0;
    while (done < head.length) {
      const got = fs.readSync(fd, head, done, head.length - done, done);
      if (got === 0) break;
      done += got;
    }
  } finally {
    fs.closeSync(fd);
  }
  let inflated: Buffer;
  try {
    // A sync flush returns what the first bytes inflate to without asking for the rest of the stream.
    inflated = inflateSync(head, { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    return undefined;
  }
  const nul = inflated.indexOf(0);
  const header = nul < 0 ? undefined : /^(commit|tree|blob|tag) (\d{1,20})$/.exec(inflated.toString('latin1', 0, nul));
  return header
    ? { type: header[1] as 'commit' | 'tree' | 'blob' | 'tag', size: Number(header[2]), fileBytes: stat.size }
    : undefined;
}
