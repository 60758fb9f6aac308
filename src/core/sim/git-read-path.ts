import type { DeltaBaseCache, SimCounts } from './cache-policy.ts';
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

export function replayGitReads(objects: SimObjects, reads: Int32Array, cache: DeltaBaseCache, options: ReplayOptions = {}): SimCounts {
  const onLogged = options.onLogged;
  const { base, size, payloadSize } = objects;
  const stack = new Int32Array(Math.max(1, maxDepth(objects) + 1));
  const beginRead = cache.beginRead?.bind(cache);
  let logged = 0;
  let inflations = 0;
  let deltaApplications = 0;
  let inflatedBytes = 0;
  for (let r = 0; r < reads.length; r++) {
    beginRead?.(r);
    const id = reads[r]!;
    if (cache.serveTopLevel(id)) continue;
    logged++;
    onLogged?.(r);
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
    let baseId = current;
    while (depth > 0) {
      const delta = stack[--depth]!;
      inflations++;
      inflatedBytes += payloadSize[delta]!;
      deltaApplications++;
      cache.add(baseId);
      baseId = delta;
    }
  }
  return { reads: reads.length, logged, inflations, deltaApplications, inflatedBytes, evictions: cache.evictions, peakCacheBytes: cache.peakBytes };
}

function maxDepth(objects: SimObjects): number {
  let deepest = 0;
  for (let id = 0; id < objects.count; id++) if (objects.depth[id]! > deepest) deepest = objects.depth[id]!;
  return deepest;
}
