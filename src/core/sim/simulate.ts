import type { CellExactness, SimCounts, SimResult } from '../documents/simulation-documents.ts';
import { BOUNDED_COUNTS, boundProcess, boundsAreExact, countBounds, hiddenReadPlaces } from './hidden-reads.ts';
import { GitLruCache } from './policies/git-lru.ts';
import type { PolicyRunner, ReadsPlan } from './policy-definition.ts';
import type { SimObjects } from './sim-objects.ts';

/**
 * What a recording says about the reads it may have hidden (hidden-reads.ts, git-internals §8.1):
 * what a cell needs to know whether it is exact.
 */
export interface RecordingBasis {
  /** The delta base cache limit git ran with while recording; undefined for a raw trace. */
  recordedLimit: number | undefined;
  /** Limits at which the recording is complete (`record --complete`): its replay there is exact. */
  completeAt?: number[] | undefined;
  /** Per read: 1 where a complete recording holds every read hidden after it (no more can hide). */
  known?: Uint8Array | undefined;
  /** Per read: 1 for a hidden read a complete recording found and inserted (a hit at limit 0). */
  inserted?: Uint8Array | undefined;
  /**
   * Why no cell is exact for another run of the command: it reads in threads, or two runs of it
   * read differently (src/common/threaded-readers.ts, `record --check`). Then no cell is exact and
   * none has bounds: a recording of one run bounds nothing about the next.
   */
  notDeterministic?: string | undefined;
  /** The config that made the recorded command read in one thread (`grep.threads=1`): said beside every cell. */
  singleThreaded?: string | undefined;
  /** The reads are a read list (`simulate --reads`): every read, hits included, so nothing is hidden at any limit. */
  readList?: boolean | undefined;
}

/** A raw trace or a bare list of reads: nothing known about what git ran with. */
export const UNKNOWN_BASIS: RecordingBasis = { recordedLimit: undefined };

export function simulate(
  runner: PolicyRunner,
  objects: SimObjects,
  reads: Int32Array,
  limit: number,
  basis: RecordingBasis = UNKNOWN_BASIS,
): SimResult {
  return simulateSegments(runner, objects, reads, [0], limit, basis);
}

/**
 * Each segment of a recording is its own git process with its own, initially empty, delta base
 * cache (git-internals §1.2); a recording's counts are the segments' sums.
 * `segmentStarts` are read indices, ascending, the first 0. `plan`: the runner's plan of these
 * reads (PolicyRunner.planReads), built once for many limits; without it each replay makes its own.
 */
export function simulateSegments(
  runner: PolicyRunner,
  objects: SimObjects,
  reads: Int32Array,
  segmentStarts: number[],
  limit: number,
  basis: RecordingBasis = UNKNOWN_BASIS,
  plan?: ReadsPlan,
): SimResult {
  const started = performance.now();
  let total: SimCounts = {
    reads: 0,
    logged: 0,
    inflations: 0,
    deltaApplications: 0,
    inflatedBytes: 0,
    evictions: 0,
    peakCacheBytes: 0,
  };
  const starts = segmentStarts.length > 0 ? segmentStarts : [0];
  const segments: Int32Array[] = [];
  const segmentFirst: number[] = [];
  for (let i = 0; i < starts.length; i++) {
    const segment = reads.subarray(starts[i]!, i + 1 < starts.length ? starts[i + 1]! : reads.length);
    if (segment.length === 0) continue;
    segments.push(segment);
    segmentFirst.push(starts[i]!);
    const planned = plan === undefined ? undefined : { plan, first: starts[i]! };
    total = accumulate(total, runner.run(objects, segment, limit, planned)) as SimCounts;
  }
  const exactness = withThreadNote(cellExactness(runner, objects, segments, segmentFirst, limit, basis, total), basis);
  return {
    policy: runner.name,
    limit,
    referenceBound: runner.referenceBound,
    checkedAgainst: runner.checkedAgainst ?? null,
    ...total,
    ...exactness,
    seconds: (performance.now() - started) / 1000,
  };
}

/** A single-threaded recording's cells say so: the command as the user runs it reads in threads. */
function withThreadNote(cell: CellExactness, basis: RecordingBasis): CellExactness {
  if (basis.singleThreaded === undefined || basis.notDeterministic !== undefined) return cell;
  return {
    ...cell,
    exactness: `${cell.exactness}; for the command run single-threaded (${basis.singleThreaded}), as recorded: with threads it reads in another order`,
  };
}

/**
 * Whether a cell is exact, and its bounds (hidden-reads.ts):
 * - Git's own policy at the limit the recording was made with, or at a limit a complete recording
 *   covers: exact, because every read hidden there was a hit that changed nothing (§1.3).
 * - A recording made at limit 0, with a policy whose cache can branch: bounded, proof in
 *   hidden-reads.ts; exact when the bounds meet.
 * - Otherwise (a passive recording elsewhere, a raw trace, a policy without branching caches):
 *   not exact, no bounds.
 */
function cellExactness(
  runner: PolicyRunner,
  objects: SimObjects,
  segments: Int32Array[],
  segmentFirst: number[],
  limit: number,
  basis: RecordingBasis,
  total: SimCounts,
): CellExactness {
  const point = (): CellExactness['bounds'] => ({
    logged: [total.logged, total.logged],
    inflations: [total.inflations, total.inflations],
    deltaApplications: [total.deltaApplications, total.deltaApplications],
    inflatedBytes: [total.inflatedBytes, total.inflatedBytes],
  });
  if (basis.notDeterministic !== undefined)
    return { exact: false, bounds: null, hiddenReads: null, exactness: basis.notDeterministic };
  // A trace lists the reads that missed; a read list lists every read, so the replay is the reads.
  if (basis.readList === true)
    return { exact: true, bounds: point(), hiddenReads: null, exactness: 'a read list: every read is listed' };
  if (runner.name === 'git' && (basis.recordedLimit === limit || basis.completeAt?.includes(limit) === true)) {
    return {
      exact: true,
      bounds: point(),
      hiddenReads: null,
      exactness: basis.recordedLimit === limit ? 'recorded at this limit' : 'complete recording at this limit',
    };
  }
  if (basis.recordedLimit === undefined)
    return { exact: false, bounds: null, hiddenReads: null, exactness: 'raw trace: the limit git ran with is unknown' };
  if (basis.recordedLimit !== 0)
    return {
      exact: false,
      bounds: null,
      hiddenReads: null,
      exactness: 'recorded at another limit: reads hidden there are unknown',
    };
  const makeCache = runner.branchingCache;
  if (makeCache === undefined)
    return { exact: false, bounds: null, hiddenReads: null, exactness: 'no bounds for this policy' };
  return boundedExactness(makeCache, objects, segments, segmentFirst, limit, basis, total);
}

/** A limit-0 recording's cell under a policy whose cache can branch: the bounds of hidden-reads.ts, summed over the processes. */
function boundedExactness(
  makeCache: NonNullable<PolicyRunner['branchingCache']>,
  objects: SimObjects,
  segments: Int32Array[],
  segmentFirst: number[],
  limit: number,
  basis: RecordingBasis,
  total: SimCounts,
): CellExactness {
  const low = new Float64Array(4);
  const high = new Float64Array(4);
  let places = 0;
  let placesThatMiss = 0;
  let coarse = false;
  for (let s = 0; s < segments.length; s++) {
    const segment = segments[s]!;
    // The recording ran with Git's own cache at limit 0: its places are that cache's (hidden-reads.ts (b)).
    const found = hiddenReadPlaces(
      objects,
      segment,
      new GitLruCache(objects.count, objects.size, 0),
      basis.inserted?.subarray(segmentFirst[s]!, segmentFirst[s]! + segment.length),
    );
    if (!found.consistent)
      return {
        exact: false,
        bounds: null,
        hiddenReads: null,
        exactness:
          'a recorded read is a cache hit in a limit-0 replay: not a limit-0 recording of these packs made by git processes that read in one thread',
      };
    const known = basis.known?.subarray(segmentFirst[s]!, segmentFirst[s]! + segment.length);
    const bounded = boundProcess(objects, segment, found, () => makeCache(objects, segment, limit), known);
    for (let k = 0; k < 4; k++) {
      low[k]! += bounded.low[k]!;
      high[k]! += bounded.high[k]!;
    }
    places += found.places;
    placesThatMiss += bounded.placesThatMiss;
    coarse ||= bounded.coarse;
  }
  const bounds = countBounds(low, high);
  // The replay without hidden reads is one of the choices the bounds range over.
  for (const key of BOUNDED_COUNTS)
    if (total[key] < bounds[key][0] || total[key] > bounds[key][1])
      throw new Error(`internal: ${key} ${total[key]} outside its bounds ${bounds[key].join('–')}`);
  const exact = boundsAreExact(bounds);
  return {
    exact,
    bounds,
    hiddenReads: { places, placesThatMiss, coarse },
    exactness: exact
      ? 'every read the recording may hide is a cache hit at this limit'
      : coarse
        ? 'bounded (too many cache states to follow one by one: an envelope of them, docs/git-internals.md §8.3)'
        : 'bounded: the recording may hide reads that miss at this limit',
  };
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
