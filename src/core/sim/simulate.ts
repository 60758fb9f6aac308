import type { SimResult } from '../report/simulation-documents.ts';
import type { SimCounts } from './cache-policy.ts';
import type { PolicyRunner } from './policy-definition.ts';
import type { SimObjects } from './sim-objects.ts';

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
  let total: SimCounts = { reads: 0, logged: 0, inflations: 0, deltaApplications: 0, inflatedBytes: 0, evictions: 0, peakCacheBytes: 0 };
  const starts = segmentStarts.length > 0 ? segmentStarts : [0];
  for (let i = 0; i < starts.length; i++) {
    const segment = reads.subarray(starts[i]!, i + 1 < starts.length ? starts[i + 1]! : reads.length);
    if (segment.length === 0) continue;
    total = accumulate(total, runner.run(objects, segment, limit)) as SimCounts;
  }
  return { policy: runner.name, limit, referenceBound: runner.referenceBound, ...total, seconds: (performance.now() - started) / 1000 };
}

/**
 * Adds one process's counts to the total, policy-specific ones included (libgit2's flushes, the
 * object cache's buckets scanned, …): numbers add up, except peaks and end states, which take the
 * largest; nested records are merged the same way.
 */
function accumulate(total: object, counts: object): object {
  const sum: Record<string, unknown> = { ...total };
  for (const [key, value] of Object.entries(counts)) {
    const before = sum[key];
    if (typeof value === 'number') {
      const keepLargest = /^peak|^buckets$/.test(key);
      sum[key] = typeof before === 'number' ? (keepLargest ? Math.max(before, value) : before + value) : value;
    } else if (value && typeof value === 'object') {
      sum[key] = before && typeof before === 'object' ? accumulate(before, value) : value;
    } else if (!(key in sum)) {
      sum[key] = value;
    }
  }
  return sum;
}
