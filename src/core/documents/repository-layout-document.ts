/**
 * The shape of a repository's object storage as git sees it: its packs with their kind and marker
 * files, what the multi-pack-index covers, the loose objects (as `git count-objects -v` counts
 * them) and the alternates. Part of `packscope stats --json` ("layout", docs/json.md) and of the
 * server's repository listing. Shapes only, importing nothing (the webviews type-check these).
 */

/**
 * What a pack is, by the files beside it (git's packfile.c): a cruft pack has `.mtimes`
 * (`git repack --cruft`), a promisor pack `.promisor` (fetched from a promisor remote in a partial
 * clone), any other pack is `normal`. `.keep` is a marker, not a kind: a cruft or promisor pack
 * can be kept too.
 */
export type PackKind = 'normal' | 'cruft' | 'promisor';

export type PackMarker = 'keep' | 'promisor' | 'mtimes' | 'bitmap' | 'rev';

export interface PackLayout {
  /** The .pack file's absolute path. */
  pack: string;
  /** `pack-<checksum>.pack`. */
  name: string;
  objectsDir: string;
  /** False for a pack of an alternate. */
  local: boolean;
  kind: PackKind;
  /** The marker files beside the pack, in PackMarker order. */
  markers: PackMarker[];
  /**
   * A `.keep`'s text (git writes why it keeps the pack, e.g. "receive-pack 1234 on host"), trimmed;
   * absent when empty, or when it cannot be read (then `keepProblem` says why: a FIFO, too large…).
   */
  keepReason?: string;
  keepProblem?: string;
  /** Commits with a bitmap in the pack's `.bitmap` (its header's entry count), when readable. */
  bitmapCommits?: number;
  /** True when the objects directory's multi-pack-index names this pack: git then finds its objects through the MIDX only. */
  inMidx: boolean;
  /** Objects, from the idx's fan-out; absent when the idx cannot be read (`problem` says why). */
  objects?: number;
  packFileBytes?: number;
  idxFileBytes?: number;
  problem?: string;
  /** 0 for the pack git searches first (after any MIDX), 1 for the next, … (git-internals §1.12). */
  searchOrder: number;
}

export interface MidxLayout {
  objectsDir: string;
  /** `multi-pack-index`, or the newest layer of an incremental chain. */
  file: string;
  layers: number;
  objects: number;
  /** Names of the packs it covers (`pack-<checksum>.idx`), in its pack-id order. */
  packs: string[];
  /** Packs it names that are not in the directory (git cannot read their objects through it). */
  missingPacks: string[];
  /** The pack its bitmap's pseudo-pack order puts first (`--preferred-pack`); absent without a reverse index. */
  preferredPack?: string;
  /** `multi-pack-index-<checksum>.bitmap` is there. */
  bitmap: boolean;
  bitmapCommits?: number;
  /** The MIDX has a RIDX chunk (git 2.35 and later) … */
  reverseIndexChunk: boolean;
  /** … or an older `multi-pack-index-<checksum>.rev` beside it. */
  reverseIndexFile: boolean;
  /** Why it could not be read (then the other fields are empty). */
  problem?: string;
}

/**
 * `git count-objects -v`, field by field (builtin/count-objects.c, git 2.39): loose objects of the
 * repository's own objects directory, its own packs, and the garbage found in it and in its
 * alternates' pack directories. Sizes are in KiB, rounded down, as git prints them.
 */
export interface CountObjects {
  /** Loose objects: `objects/xx/<rest of the id>` regular files. */
  count: number;
  /** Their disk usage (allocated blocks, not file sizes) in KiB. */
  size: number;
  /** Objects in local packs (from each idx). */
  inPack: number;
  packs: number;
  /** .pack plus .idx file sizes of the local packs, in KiB. */
  sizePack: number;
  /** Loose objects that some pack also holds (`git prune-packed` would remove them); absent where no pack model was at hand to tell (the server's listing). */
  prunePackable?: number;
  /** Files git does not recognise in the loose-object and pack directories. */
  garbage: number;
  /** Their file sizes in KiB. */
  sizeGarbage: number;
  /** What git reports for each garbage file (stderr's "warning: …" without the prefix). */
  garbageFiles: { path: string; reason: string }[];
  /** The exact bytes behind `size` and `sizePack` (git prints KiB only). */
  looseBytesOnDisk: number;
  packBytes: number;
}

export interface RepositoryLayout {
  /** Every pack in git's search order (local before alternates, newer first). */
  packs: PackLayout[];
  /** One per objects directory that has a multi-pack-index, the repository's own first. */
  midx: MidxLayout[];
  loose: CountObjects;
  /** Every alternate objects directory, depth first as git links them (`git count-objects -v`'s `alternate:` lines). */
  alternates: string[];
}

/** Where git reads one object from, and where else it is (`packscope object`, hovers). */
export interface ObjectWhereabouts {
  /** The pack git's lookup answers from: a MIDX's choice when one covers the object, else the first pack in search order. */
  answeredBy: { pack: string; viaMidx: boolean } | { loose: string };
  /** Other packs that hold it too, in search order. */
  alsoInPacks: string[];
  /** Loose copies (in the repository's objects directory or an alternate's): git reads packs first, so these are never read while a pack has it. */
  alsoLoose: string[];
}
