/**
 * Where an object's offset sits among a pack's offsets in pack order (ascending, no two alike):
 * the one search both the pack scan (an OFS_DELTA's base, core/model/scan-range.ts) and indexing
 * a pack without its idx (pack-stream-index.ts) need.
 */

/** Position p in [low, high) with sorted[p] === offset, or −1. */
export function positionOfOffset(sorted: Float64Array, offset: number, low = 0, high = sorted.length): number {
  while (low < high) {
    const mid = (low + high) >>> 1;
    const value = sorted[mid]!;
    if (value === offset) return mid;
    if (value < offset) low = mid + 1;
    else high = mid;
  }
  return -1;
}

/**
 * Position p < limit with sorted[p] === offset, or −1. Bases sit close before their deltas
 * (git-internals §5.2), so the search gallops backwards from `limit` and touches few cache lines.
 */
export function positionOfOffsetBefore(sorted: Float64Array, limit: number, offset: number): number {
  let high = limit;
  let step = 1;
  let low = limit - step;
  while (low > 0 && sorted[low]! > offset) {
    high = low;
    step *= 2;
    low = limit - step;
  }
  return positionOfOffset(sorted, offset, Math.max(0, low), high);
}
