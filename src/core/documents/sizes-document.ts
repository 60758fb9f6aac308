/**
 * `packscope sizes --json` (docs/json.md): where the bytes of a repository's history go, by path,
 * directory, extension and commit, by the rules of `git filter-repo --analyze`. Shapes only.
 */

/** A path, a directory or an extension, with the bytes of the blobs counted for it. */
export interface SizesRow {
  /**
   * The path as UTF-8 text (bytes that are not UTF-8 show as U+FFFD); a directory's `""` is the
   * top level, an extension's `""` is "no extension"; an extension keeps its dot (`.c`).
   */
  path: string;
  /** Bytes inflated ("unpacked" in filter-repo's reports). */
  inflated: number;
  /** Bytes on disk ("packed"): pack entries, or loose files. */
  disk: number;
  /** The date (`YYYY-MM-DD`, the committer's) it was deleted, or null while present. */
  deleted: string | null;
}

/** A commit and the blobs it added to the history (those its diff showed first). */
export interface SizesCommit {
  commit: string;
  /** Its committer date, `YYYY-MM-DD`. */
  date: string;
  /** Its subject, when the commit is packed (undefined for a loose commit). */
  subject?: string;
  blobs: number;
  inflated: number;
  disk: number;
}

export interface SizesDocument {
  schema: 'packscope.sizes/1';
  repository: { gitDir: string; objectFormat: string };
  /** `per-path` (filter-repo's: a blob counts at every path it was at) or `per-blob` (once in the history). */
  count: 'per-path' | 'per-blob';
  /** Commits read (every commit reachable from a ref), distinct blobs in them, and those no pack or loose file holds. */
  history: { commits: number; blobs: number; missingBlobs: number };
  /** The sums over `paths` (filter-repo's "Total unpacked/packed size"). */
  total: { inflated: number; disk: number };
  /** Every path, directory and extension, most on-disk bytes first, then by name descending (as bytes). */
  paths: SizesRow[];
  directories: SizesRow[];
  extensions: SizesRow[];
  /** The commits that added the most on-disk bytes (at most `--top`), most first. */
  commits: SizesCommit[];
}
