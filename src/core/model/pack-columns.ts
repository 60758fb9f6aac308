/**
 * The columns of a pack model as they are stored: below the model (pack-model.ts) and the shape
 * check of a stored model (stored-columns-check.ts), which both read them.
 */
import type { SizeColumn } from './size-column.ts';

/** The columns of one pack, all indexed by object number (idx order) except `byOffset`. */
export interface PackColumns {
  offset: Float64Array;
  /** Type as stored in the pack: 1–4, 6 (OFS_DELTA) or 7 (REF_DELTA). */
  inPackType: Uint8Array;
  /** Type after following the chain to its root: 1–4. */
  type: Uint8Array;
  /** Header size: the object's size, or for a delta the delta's size. */
  size: SizeColumn;
  /** Size of the object itself; for deltas read from the delta header (git-internals §1.8). */
  resultSize: SizeColumn;
  /** Bytes the entry occupies in the pack: next offset − offset. */
  diskSize: SizeColumn;
  /** Object number of the delta base, −1 for non-deltas. */
  base: Int32Array;
  /** Deltas above the root, as `git verify-pack -v` counts them. */
  depth: Uint16Array | Uint32Array;
  /** Object numbers in pack (offset) order. */
  byOffset: Uint32Array;
}

/**
 * The derived columns a model file keeps beside the base column (since format 4; each sealed on its own since format 5): the ones whose build
 * costs a scattered pass or a sort (most of a reopen: bench/README.md, "Figures the comments rely
 * on"). Trusted once the file's seal verifies and their lengths fit (docs/security.md, "The model
 * cache's threat model").
 */
export interface StoredDerivedColumns {
  childStart: Uint32Array;
  childList: Uint32Array;
  roots: Uint32Array;
  familySizes: Uint32Array;
}

/** One entry of a ranking (rankings.ts): an object and the value it is ranked by. */
export interface RankedObject {
  object: number;
  value: number;
}

/**
 * The head of one ranking as a model file keeps it: the first `limit` objects in ranking order
 * (fewer when fewer objects are ranked), so that `stats` lists them without a pass over the columns.
 */
export interface RankingHead {
  limit: number;
  entries: RankedObject[];
}
