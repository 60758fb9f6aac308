import type { BlobPathPairs } from './history-sizes.ts';

// The blobs that were ever at a path, from the sizes walk's own pairing (history-sizes.ts keeps,
// per blob, the paths it was at): turned around into one index by path, in flat typed arrays, so
// that a worker can hand it to the server in a few transferred buffers and the server can answer
// "the blobs at this path" for any path of the history without walking it again or keeping a list
// of objects per path.

/** Blobs by path, as plain arrays (transferable between threads). */
export interface PathBlobIndex {
  /** Every path, as the sizes document spells it (UTF-8 text), in the walk's order. */
  paths: string[];
  /** Path p's blobs are `blobs[start[p] .. start[p + 1]]`. */
  start: Uint32Array;
  /** Blob numbers, newest first within a path (by the commit that first showed each blob). */
  blobs: Uint32Array;
  /** Object id bytes: blob b's at `b * hashBytes`. */
  blobIds: Uint8Array;
  hashBytes: number;
  /** Blob b's first commit, an index into `commitIds` and `commitDates`. */
  blobCommit: Uint32Array;
  commitIds: Uint8Array;
  /** Committer dates, `YYYY-MM-DD`. */
  commitDates: string[];
}

/** One blob at a path: its id and the commit whose diff showed it first in the history. */
export interface BlobAtPath {
  oid: string;
  commit: string;
  date: string;
}

const utf8 = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');

/**
 * The index of `pairs` by path. Paths are keyed by their UTF-8 text, the name the sizes document
 * (and so a view) gives them: two paths whose bytes are not UTF-8 and decode alike share one entry.
 */
export function pathBlobIndex(pairs: BlobPathPairs, hashBytes: number): PathBlobIndex {
  const blobCount = pairs.pathsOf.size;
  const blobIds = new Uint8Array(blobCount * hashBytes);
  const blobCommit = new Uint32Array(blobCount);
  const pathNumber = new Map<string, number>();
  const paths: string[] = [];
  const perPath: number[][] = [];
  let b = 0;
  let pairCount = 0;
  for (const [oid, names] of pairs.pathsOf) {
    blobIds.set(Buffer.from(oid, 'hex'), b * hashBytes);
    blobCommit[b] = pairs.firstCommit.get(oid)!;
    for (const name of names) {
      const text = utf8(name);
      let p = pathNumber.get(text);
      if (p === undefined) {
        pathNumber.set(text, (p = paths.push(text) - 1));
        perPath.push([]);
      }
      // A blob at two names that decode alike is listed once.
      const list = perPath[p]!;
      if (list[list.length - 1] !== b) {
        list.push(b);
        pairCount++;
      }
    }
    b++;
  }
  const start = new Uint32Array(paths.length + 1);
  const blobs = new Uint32Array(pairCount);
  let at = 0;
  for (let p = 0; p < paths.length; p++) {
    start[p] = at;
    // Blobs were met in the order first seen; a later first commit is a newer blob.
    const list = perPath[p]!.sort((x, y) => blobCommit[y]! - blobCommit[x]! || y - x);
    blobs.set(list, at);
    at += list.length;
  }
  start[paths.length] = at;
  const commitIds = new Uint8Array(pairs.commits.length * hashBytes);
  pairs.commits.forEach((c, i) => commitIds.set(Buffer.from(c.oid, 'hex'), i * hashBytes));
  return {
    paths,
    start,
    blobs,
    blobIds,
    hashBytes,
    blobCommit,
    commitIds,
    commitDates: pairs.commits.map((c) => c.date),
  };
}

/** Looks paths up in an index (the server keeps one per repository's last sizes walk). */
export class PathBlobLookup {
  private readonly byPath = new Map<string, number>();

  constructor(readonly index: PathBlobIndex) {
    index.paths.forEach((p, i) => this.byPath.set(p, i));
  }

  /** How many blobs were at `path`; undefined when the history never had it. */
  count(path: string): number | undefined {
    const p = this.byPath.get(path);
    return p === undefined ? undefined : this.index.start[p + 1]! - this.index.start[p]!;
  }

  /** The blobs at `path` from the `first`-th (newest first), at most `count`; undefined when the history never had it. */
  blobsAt(path: string, first: number, count: number): BlobAtPath[] | undefined {
    const p = this.byPath.get(path);
    if (p === undefined) return undefined;
    const { start, blobs, blobIds, hashBytes, blobCommit, commitIds, commitDates } = this.index;
    const from = start[p]! + first;
    const to = Math.min(start[p + 1]!, from + count);
    const hex = (bytes: Uint8Array, n: number): string =>
      Buffer.from(bytes.buffer, bytes.byteOffset + n * hashBytes, hashBytes).toString('hex');
    const found: BlobAtPath[] = [];
    for (let i = from; i < to; i++) {
      const b = blobs[i]!;
      const c = blobCommit[b]!;
      found.push({ oid: hex(blobIds, b), commit: hex(commitIds, c), date: commitDates[c]! });
    }
    return found;
  }
}
