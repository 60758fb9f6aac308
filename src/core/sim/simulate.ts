import type { SimCounts } from './cache-policy.ts';
import type { PolicyRunner } from './policy-registry.ts';
import type { SimObjects } from './sim-objects.ts';

/** One (policy, limit) cell, as `simulate --json` and `sweep --json` print it. */
export interface SimResult extends SimCounts {
  policy: string;
  /** Cache limit in bytes. */
  limit: number;
  referenceBound: boolean;
  /** Wall time of the replay itself. */
  seconds: number;
}

export function simulate(runner: PolicyRunner, objects: SimObjects, reads: Int32Array, limit: number): SimResult {
  const started = performance.now();
  const counts = runner.run(objects, reads, limit);
  return { policy: runner.name, limit, referenceBound: runner.referenceBound, ...counts, seconds: (performance.now() - started) / 1000 };
}

/**
 * Each segment of a recording is its own git process with its own, initially empty, delta base
 * cache (git-internals §1.2: one cache per process); a recording's counts are the segments' sums.
 * `segmentStarts` are read indices, ascending, the first 0.
 */
export function simulateSegments(runner: PolicyRunner, objects: SimObjects, reads: Int32Array, segmentStarts: number[], limit: number): SimResult {
  const started = performance.now();
  const total: SimCounts = { reads: 0, logged: 0, inflations: 0, deltaApplications: 0, inflatedBytes: 0, evictions: 0, peakCacheBytes: 0 };
  const starts = segmentStarts.length > 0 ? segmentStarts : [0];
  for (let i = 0; i < starts.length; i++) {
    const segment = reads.subarray(starts[i]!, i + 1 < starts.length ? starts[i + 1]! : reads.length);
    if (segment.length === 0) continue;
    const counts = runner.run(objects, segment, limit);
    total.reads += counts.reads;
    total.logged += counts.logged;
    total.inflations += counts.inflations;
    total.deltaApplications += counts.deltaApplications;
    total.inflatedBytes += counts.inflatedBytes;
    total.evictions += counts.evictions;
    total.peakCacheBytes = Math.max(total.peakCacheBytes, counts.peakCacheBytes);
  }
  return { policy: runner.name, limit, referenceBound: runner.referenceBound, ...total, seconds: (performance.now() - started) / 1000 };
}
