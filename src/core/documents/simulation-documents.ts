/**
 * The shapes of `packscope simulate --json` and `sweep --json` (packscope.simulate/1,
 * packscope.sweep/1), of `locality --json` (packscope.locality/1) and of `index-pack-sim --json`
 * (packscope.index-pack-sim/1), docs/json.md. Shapes only, importing only other shapes (see
 * stats-document.ts).
 */
import type { RecordingSummary } from './recording-document.ts';

/** What one replay of reads through a delta base cache counts (every policy; src/core/sim/cache-policy.ts). */
export interface SimCounts {
  reads: number;
  /** Predicted GIT_TRACE_PACK_ACCESS lines: one per unpack_entry call (§1.10). */
  logged: number;
  inflations: number;
  deltaApplications: number;
  /** Bytes produced by those inflations: whole objects' sizes and deltas' payload sizes. */
  inflatedBytes: number;
  /**
   * Result bytes of the deltas applied (each delta's object size): what delta application costs in
   * time (src/core/cost). Not bounded by hidden-reads.ts; optional for policies that do not count it.
   */
  appliedBytes?: number;
  evictions: number;
  peakCacheBytes: number;
}

export interface PageCacheOptions {
  /** Page cache size (MiB); reads past it evict least recently used pages. */
  cacheMiB: number;
  /** On a fault, this many KiB from the faulting page on are read in (a fixed readahead window). */
  readaheadKiB: number;
}

export interface PackLocality {
  pack: string;
  reads: number;
  /** Distances between consecutive reads of this pack (reads − 1 of them). */
  seeks: number;
  percentiles: { p: number; bytes: number }[];
  shortSeekShare: number;
  backwardSeekShare: number;
  pagesTouched: number;
  /** From the lowest offset read to the end of the furthest entry read. */
  byteSpan: number;
  pageFaults: number;
}

/** [min, max] of each count a replay predicts: bounds that contain real Git's (src/core/sim/hidden-reads.ts). */
export interface CountBounds {
  logged: [number, number];
  inflations: [number, number];
  deltaApplications: [number, number];
  inflatedBytes: [number, number];
}

/**
 * Whether a cell's counts are real Git's (git-internals §8.1: a recording can hide reads), and
 * bounds that contain real Git's counts when the recording allows them (src/core/sim/hidden-reads.ts).
 */
export interface CellExactness {
  /** Every bound's minimum equals its maximum: the counts are real Git's. */
  exact: boolean;
  /** [min, max] of each count; null when the recording allows no bounds (see `exactness`). */
  bounds: CountBounds | null;
  /** Where the recording may hide reads, and how many of those places miss at this limit. */
  hiddenReads: { places: number; placesThatMiss: number; coarse: boolean } | null;
  /** Why the cell is exact, bounded or neither, in words. */
  exactness: string;
}

/** One (policy, limit) cell, as `simulate --json` and `sweep --json` print it. Policy-specific counts ride along unnamed. */
export interface SimResult extends SimCounts, CellExactness {
  policy: string;
  /** Cache limit in bytes. */
  limit: number;
  referenceBound: boolean;
  /** The real build of git the policy was checked against (PolicyDescription.checkedAgainst), or null; simulate always sets it, older documents may lack it. */
  checkedAgainst?: string | null;
  /** Wall time of the replay itself. */
  seconds: number;
  [extra: string]: unknown;
}

export interface SimulationDocument {
  schema: 'packscope.simulate/1' | 'packscope.sweep/1';
  recording: RecordingSummary;
  /** Sweep: limits in the order given, policies within each limit. */
  results: SimResult[];
}

export interface LocalityDocument {
  schema: 'packscope.locality/1';
  recording: RecordingSummary;
  pageCache: PageCacheOptions;
  packs: PackLocality[];
}

/** A pack's locality plus the seek distances at p = 0, 1, …, 100 (nearest rank, as the percentiles): the distance CDF the Locality chart draws. */
export interface PackLocalityWithQuantiles extends PackLocality {
  distanceQuantiles: number[];
}

/** The variants of git-internals §2 the simulation tells apart. */
export type IndexPackVariant = 'v2.36' | 'v2.55' | 'release-when-done';

/** A type, not an interface, so that it fits the protocol's IndexPackSimResult, whose counts the Cache Lab reads by name. */
export type IndexPackCounts = {
  /** Pass 1 (one per object, §2.1) plus every pass-2 inflation. */
  inflations: number;
  /** One per delta, plus one per delta rebuilt by get_base_data. */
  deltaApplications: number;
  /** Bases rebuilt by get_base_data: re-inflated roots and re-applied deltas. */
  reconstructions: number;
  /** Highest base_cache_used (inflated bytes of base data held). */
  peakBytes: number;
};

export type IndexPackVariantResult = { variant: IndexPackVariant } & IndexPackCounts;

export interface IndexPackSimDocument {
  schema: 'packscope.index-pack-sim/1';
  pack: string;
  objects: number;
  limit: number;
  results: IndexPackVariantResult[];
}
