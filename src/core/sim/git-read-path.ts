import type { DeltaBaseCache } from './cache-policy.ts';
import type { SimCounts } from '../documents/simulation-documents.ts';
import type { SimObjects } from './sim-objects.ts';

/**
 * Replays top-level reads through Git's read path, git-internals §1.6 (validated against real git):
 *
 *   read(obj): if cached: return            (copy; no log; no inflate; LRU unchanged)
 *              log; walk down the chain until a cached base (detached) or the root (1 inflation);
 *              then innermost first: 1 inflation + 1 delta application per delta, and the base
 *              just used is added to the cache. The final result is never cached.
 */
export interface ReplayOptions {
  /** Called with the index of every read that unpack_entry would log (tests compare the sequence with git's). */
  onLogged?: (readIndex: number) => void;
}

/**
 * What one top-level read cost: [logged (0 or 1), inflations, delta applications, inflated bytes,
 * applied bytes]. The first four are the bounded counts (hidden-reads.ts); applied bytes (the
 * result sizes of the deltas applied) price delta application in the cost model (src/core/cost).
 */
export type ReadCost = Float64Array;
export const COST_LOGGED = 0;
export const COST_INFLATIONS = 1;
export const COST_DELTAS = 2;
export const COST_BYTES = 3;
export const COST_APPLIED = 4;
export const READ_COST_LENGTH = 5;

/** A scratch stack deep enough for any chain of `objects`. */
export function chainStack(objects: SimObjects): Int32Array {
  return new Int32Array(Math.max(1, maxDepth(objects) + 1));
}

/**
 * One top-level read of `id` through `cache` (§1.6), its cost written into `cost`. The one
 * implementation of the read path: the replay below and the hidden-read bounds (hidden-reads.ts)
 * both step through it.
 */
export function readThroughCache(
  objects: SimObjects,
  id: number,
  cache: DeltaBaseCache,
  stack: Int32Array,
  cost: ReadCost,
): void {
  if (cache.serveTopLevel(id)) {
    cost.fill(0);
    return;
  }
  const { base, size, payloadSize } = objects;
  // Summed in locals and stored once: a typed-array store per step was a tenth of a replay.
  let inflations = 0;
  let inflatedBytes = 0;
  let depth = 0;
  let current = id;
  for (;;) {
    if (cache.takeBase(current)) break;
    const b = base[current]!;
    if (b < 0) {
      inflations++;
      inflatedBytes += size[current]!;
      break;
    }
    stack[depth++] = current;
    current = b;
  }
  const deltas = depth;
  let appliedBytes = 0;
  let baseId = current;
  while (depth > 0) {
    const delta = stack[--depth]!;
    inflations++;
    inflatedBytes += payloadSize[delta]!;
    appliedBytes += size[delta]!;
    cache.add(baseId);
    baseId = delta;
  }
  cost[COST_LOGGED] = 1;
  cost[COST_INFLATIONS] = inflations;
  cost[COST_DELTAS] = deltas;
  cost[COST_BYTES] = inflatedBytes;
  cost[COST_APPLIED] = appliedBytes;
}

export function replayGitReads(
  objects: SimObjects,
  reads: Int32Array,
  cache: DeltaBaseCache,
  options: ReplayOptions = {},
): SimCounts {
  const onLogged = options.onLogged;
  const stack = chainStack(objects);
  const cost: ReadCost = new Float64Array(READ_COST_LENGTH);
  const beginRead = cache.beginRead?.bind(cache);
  let logged = 0;
  let inflations = 0;
  let deltaApplications = 0;
  let inflatedBytes = 0;
  let appliedBytes = 0;
  for (let r = 0; r < reads.length; r++) {
    beginRead?.(r);
    readThroughCache(objects, reads[r]!, cache, stack, cost);
    if (cost[COST_LOGGED] === 0) continue;
    logged++;
    onLogged?.(r);
    inflations += cost[COST_INFLATIONS]!;
    deltaApplications += cost[COST_DELTAS]!;
    inflatedBytes += cost[COST_BYTES]!;
    appliedBytes += cost[COST_APPLIED]!;
  }
  return {
    reads: reads.length,
    logged,
    inflations,
    deltaApplications,
    inflatedBytes,
    appliedBytes,
    evictions: cache.evictions,
    peakCacheBytes: cache.peakBytes,
  };
}

function maxDepth(objects: SimObjects): number {
  let deepest = 0;
  for (let id = 0; id < objects.count; id++) if (objects.depth[id]! > deepest) deepest = objects.depth[id]!;
  return deepest;
}
