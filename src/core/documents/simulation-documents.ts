/**
 * The shapes of `packscope simulate --json` and `sweep --json` (packscope.simulate/1,
 * packscope.sweep/1), of `locality --json` (packscope.locality/1) and of `index-pack-sim --json`
 * (packscope.index-pack-sim/1), docs/json.md. Shapes only, importing only other shapes (see
 * stats-document.ts).
 */
import type { PackLocality, PageCacheOptions } from '../locality/locality.ts';
import type { SimCounts } from '../sim/cache-policy.ts';
import type { RecordingSummary } from './recording-document.ts';

export type { PackLocality, PageCacheOptions } from '../locality/locality.ts';

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
