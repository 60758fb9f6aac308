/**
 * Seek statistics of the reads of each pack, as in the pack-locality thread: the distance between
 * consecutive reads of the same pack, as percentiles, the share of short and of backward seeks,
 * the 4 KiB pages touched, and a cold page-cache replay.
 *
 * Percentiles use the nearest-rank definition: P(p) is the smallest distance d such that at least
 * p% of the distances are <= d, i.e. sorted[ceil(p/100 · n) − 1] (P(0) is the minimum).
 */
import type { PackLocality, PageCacheOptions } from '../documents/simulation-documents.ts';

export const LOCALITY_PERCENTILES = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9];
export const SHORT_SEEK_BYTES = 2 * 1024 * 1024;
export const PAGE_BYTES = 4096;

export interface LocalityInput {
  pack: string;
  /** Offsets of the reads of this pack, in recording order. */
  offsets: Float64Array;
  /** Size in the pack of the entry read at each offset. */
  entryBytes: Float64Array;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function packLocality(input: LocalityInput, cache: PageCacheOptions): PackLocality {
  const { offsets, entryBytes } = input;
  const reads = offsets.length;
  const distances = new Float64Array(Math.max(0, reads - 1));
  let backward = 0;
  let short = 0;
  for (let i = 1; i < reads; i++) {
    const delta = offsets[i]! - offsets[i - 1]!;
    if (delta < 0) backward++;
    const distance = Math.abs(delta);
    if (distance < SHORT_SEEK_BYTES) short++;
    distances[i - 1] = distance;
  }
  distances.sort();
  const pages = new Set<number>();
  let low = Infinity;
  let high = -Infinity;
  for (let i = 0; i < reads; i++) {
    const start = offsets[i]!;
    const end = start + Math.max(1, entryBytes[i]!);
    low = Math.min(low, start);
    high = Math.max(high, end);
    for (let page = Math.floor(start / PAGE_BYTES); page * PAGE_BYTES < end; page++) pages.add(page);
  }
  return {
    pack: input.pack,
    reads,
    seeks: distances.length,
    percentiles: LOCALITY_PERCENTILES.map((p) => ({ p, bytes: percentile(distances, p) })),
    shortSeekShare: distances.length === 0 ? 0 : short / distances.length,
    backwardSeekShare: distances.length === 0 ? 0 : backward / distances.length,
    pagesTouched: pages.size,
    byteSpan: reads === 0 ? 0 : high - low,
    pageFaults: replayPageCache(offsets, entryBytes, cache),
  };
}

/**
 * A cold page cache of `cacheMiB`, LRU over 4 KiB pages: every page of each entry read must be
 * resident; a missing page is a fault that brings in the readahead window from that page.
 * `faultedReads`, when given (one byte per read), gets 1 for each read that faulted at least once
 * (the Pack Map marks those reads).
 */
export function replayPageCache(
  offsets: Float64Array,
  entryBytes: Float64Array,
  options: PageCacheOptions,
  faultedReads?: Uint8Array,
): number {
  const capacity = Math.max(1, Math.floor((options.cacheMiB * 1024 * 1024) / PAGE_BYTES));
  const window = Math.max(1, Math.floor((options.readaheadKiB * 1024) / PAGE_BYTES));
  // A Map keeps insertion order: delete + set moves a page to the most recent end.
  const resident = new Map<number, true>();
  let faults = 0;
  const touch = (page: number): void => {
    resident.delete(page);
    resident.set(page, true);
    if (resident.size > capacity) resident.delete(resident.keys().next().value!);
  };
  for (let i = 0; i < offsets.length; i++) {
    const start = offsets[i]!;
    const end = start + Math.max(1, entryBytes[i]!);
    for (let page = Math.floor(start / PAGE_BYTES); page * PAGE_BYTES < end; page++) {
      if (resident.has(page)) {
        touch(page);
        continue;
      }
      faults++;
      if (faultedReads !== undefined) faultedReads[i] = 1;
      for (let ahead = 0; ahead < window; ahead++) touch(page + ahead);
      touch(page);
    }
  }
  return faults;
}
