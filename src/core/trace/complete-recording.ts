import { fail } from '../errors.ts';
import { chainStack, COST_LOGGED, readThroughCache } from '../sim/git-read-path.ts';
import { hiddenReadPlaces } from '../sim/hidden-reads.ts';
import { GitLruCache } from '../sim/policies/git-lru.ts';
import type { SimObjects } from '../sim/sim-objects.ts';

/**
 * Complete recordings (git-internals §8.1, §8.3): the limit-0 trace cannot show reads that hit the
 * one entry a limit-0 cache keeps. Run again at a limit L, git logs each such read that misses at L.
 * Replaying the limit-0 reads at L next to that trace finds them: a read hidden at a place
 * (hidden-reads.ts (b)) is a read of the place's candidate c_r, and where c_r misses at L every one
 * of them is logged. With them inserted the replay at L is git's read for read.
 *
 * Finding them is an alignment, not a scan: where the recorded reads after a place are cache hits
 * at L, a trace line equal to c_r can be a hidden read at that place or a later read (a recorded one,
 * or one hidden at a later place with the same candidate). Each reading leads to a different cache
 * state, so the wrong one fails later, sometimes much later. The search below keeps every reading
 * alive, all limits at once (a place's count is one number, whatever the limit), and merges readings
 * that reach the same trace positions with the same cache at every limit: from there they explain the
 * rest of the traces alike, so the search stays as small as the number of distinct states.
 *
 * When more than one reading explains every trace to the end, the places where they differ are
 * ambiguous: the result names them, and the replay treats them as places it knows nothing about
 * (bounded as in hidden-reads.ts) instead of choosing.
 */

/** The reads of one git process: hidden reads found so far, as read index → count. */
export type HiddenReadCounts = Map<number, number>;

/** What the traces at other limits say about one process's hidden reads. */
export interface HiddenReadAlignment {
  /** Per place, the count of one reading that explains every trace (the only one unless `ambiguous` is not empty). */
  hidden: HiddenReadCounts;
  /** Places where readings that explain every trace differ (in count, or in whether a trace shows the place at all). */
  ambiguous: number[];
  /** The most readings alive at once. */
  peakReadings: number;
}

/** One trace of the same process, at another limit. */
export interface LimitTrace {
  limit: number;
  reads: Int32Array;
}

/** Readings followed at once before the search gives up (each costs one cache per limit). */
export const MAX_READINGS = 512;

/** A place's count in one reading, where some trace shows the place (its candidate misses there). Newest first. */
interface Decision {
  place: number;
  count: number;
  next: Decision | null;
}

interface Reading {
  position: Int32Array;
  caches: GitLruCache[];
  decisions: Decision | null;
  ambiguous: Set<number> | null;
}

/**
 * Aligns one process's limit-0 reads with git's traces of the same process at other limits and
 * returns the hidden reads they show. Throws when no reading explains every trace (the command read
 * differently in another run) or when the readings are too many to follow.
 */
// Stays long: one step per recorded read, over every reading alive; the readings and their merge
// are the loop's state.
export function alignHiddenReads(
  objects: SimObjects,
  recorded: Int32Array,
  traces: readonly LimitTrace[],
  where: string,
): HiddenReadAlignment {
  const { candidate } = hiddenReadPlaces(objects, recorded, new GitLruCache(objects.count, objects.size, 0));
  const stack = chainStack(objects);
  const cost = new Float64Array(5);
  let readings: Reading[] = [
    {
      position: new Int32Array(traces.length),
      caches: traces.map((t) => new GitLruCache(objects.count, objects.size, t.limit)),
      decisions: null,
      ambiguous: null,
    },
  ];
  let peakReadings = 1;
  // Where the readings that got furthest stopped, for the error.
  let lost: { read: number; trace: number; line: number } | undefined;
  for (let r = 0; r < recorded.length; r++) {
    const id = recorded[r]!;
    const alive: Reading[] = [];
    for (const reading of readings) {
      let agrees = true;
      for (let t = 0; t < traces.length && agrees; t++) {
        readThroughCache(objects, id, reading.caches[t]!, stack, cost);
        if (cost[COST_LOGGED] === 0) continue;
        const p = reading.position[t]!;
        if (traces[t]!.reads[p] !== id) {
          agrees = false;
          lost = { read: r, trace: t, line: p };
          break;
        }
        reading.position[t] = p + 1;
      }
      if (agrees) alive.push(reading);
    }
    if (alive.length === 0) throw disagreement(traces, lost!, where);
    const c = candidate[r]!;
    readings = c < 0 ? alive : branchAtPlace(objects, alive, traces, r, c, stack, cost);
    if (readings.length > peakReadings) peakReadings = readings.length;
    if (readings.length > MAX_READINGS)
      throw fail(
        'usage',
        where,
        undefined,
        `more than ${MAX_READINGS} readings of the hidden reads explain the runs up to trace read ${r + 1}; cannot complete the recording`,
      );
  }
  const finished = readings.filter((reading) => traces.every((trace, t) => reading.position[t] === trace.reads.length));
  if (finished.length === 0) {
    const reading = readings[0]!;
    const t = traces.findIndex((trace, i) => reading.position[i] !== trace.reads.length);
    throw fail(
      'usage',
      where,
      undefined,
      `the run at core.deltaBaseCacheLimit=${traces[t]!.limit} logged ${traces[t]!.reads.length - reading.position[t]!} reads the run at 0 does not explain; is the command deterministic?`,
    );
  }
  // Readings that end in different cache states all explain every trace: the places where they
  // differ stay ambiguous, as with readings merged on the way.
  const chosen = finished[0]!;
  for (const other of finished.slice(1)) mergeInto(chosen, other);
  const hidden: HiddenReadCounts = new Map();
  for (let d = chosen.decisions; d !== null; d = d.next) if (d.count > 0) hidden.set(d.place, d.count);
  return { hidden, ambiguous: [...(chosen.ambiguous ?? [])].sort((a, b) => a - b), peakReadings };
}

/**
 * The readings after place r: where c misses in some trace, one reading per count the traces allow
 * (0, or as many c lines as every trace that misses c has next), then readings in the same state merged.
 */
function branchAtPlace(
  objects: SimObjects,
  alive: Reading[],
  traces: readonly LimitTrace[],
  r: number,
  c: number,
  stack: Int32Array,
  cost: Float64Array,
): Reading[] {
  const next: Reading[] = [];
  let branched = false;
  for (const reading of alive) {
    const misses: number[] = [];
    for (let t = 0; t < traces.length; t++) if (!reading.caches[t]!.serveTopLevel(c)) misses.push(t);
    if (misses.length === 0) {
      // Every hidden read here is a hit at every limit: no trace says how many; nothing changes.
      next.push(reading);
      continue;
    }
    let most = Infinity;
    for (const t of misses) {
      const reads = traces[t]!.reads;
      let run = 0;
      for (let p = reading.position[t]!; p < reads.length && reads[p] === c; p++) run++;
      most = Math.min(most, run);
    }
    if (most > 0) {
      // git-internals §8.1 (hidden-reads.ts (c)): the first hidden read that misses re-adds c's
      // bases; every further one leaves the state as the first left it. So one state for all k ≥ 1.
      for (let k = 1; k <= most; k++) {
        // Each reading owns its caches: the later reads step them on their own.
        const caches = reading.caches.map((cache) => cache.clone());
        for (const t of misses) readThroughCache(objects, c, caches[t]!, stack, cost);
        const position = reading.position.slice();
        for (const t of misses) position[t]! += k;
        next.push({
          position,
          caches,
          decisions: { place: r, count: k, next: reading.decisions },
          ambiguous: reading.ambiguous,
        });
      }
      branched = true;
    }
    reading.decisions = { place: r, count: 0, next: reading.decisions };
    next.push(reading);
  }
  return branched || next.length > 1 ? merged(next) : next;
}

/** Readings at the same trace positions with the same cache at every limit, kept once. */
function merged(readings: Reading[]): Reading[] {
  const byKey = new Map<string, Reading[]>();
  const kept: Reading[] = [];
  for (const reading of readings) {
    const key = `${reading.position.join(',')}|${reading.caches.map((cache) => cache.stateHash()).join(',')}`;
    const same = byKey.get(key) ?? [];
    const twin = same.find((other) => other.caches.every((cache, t) => cache.sameState(reading.caches[t]!)));
    if (twin === undefined) {
      same.push(reading);
      byKey.set(key, same);
      kept.push(reading);
    } else {
      mergeInto(twin, reading);
    }
  }
  return kept;
}

/**
 * `other` explains the traces as far as `kept` does and goes on alike: the places where their
 * decisions differ become ambiguous in `kept`. Both decision lists share their tail from where the
 * readings parted, so the walk stops there.
 */
function mergeInto(kept: Reading, other: Reading): void {
  const ambiguous = new Set<number>(kept.ambiguous ?? []);
  for (const place of other.ambiguous ?? []) ambiguous.add(place);
  let a = kept.decisions;
  let b = other.decisions;
  while (a !== b && (a !== null || b !== null)) {
    if (b === null || (a !== null && a.place > b.place)) {
      ambiguous.add(a!.place);
      a = a!.next;
    } else if (a === null || b.place > a.place) {
      ambiguous.add(b.place);
      b = b.next;
    } else {
      if (a.count !== b.count) ambiguous.add(a.place);
      a = a.next;
      b = b.next;
    }
  }
  kept.ambiguous = ambiguous.size > 0 ? ambiguous : null;
}

function disagreement(
  traces: readonly LimitTrace[],
  lost: { read: number; trace: number; line: number },
  where: string,
): Error {
  const trace = traces[lost.trace]!;
  const saw = lost.line < trace.reads.length ? `trace read ${lost.line + 1}` : 'the end of its trace';
  return fail(
    'usage',
    where,
    undefined,
    `the run at core.deltaBaseCacheLimit=${trace.limit} read differently from the run at 0 (no reading of the hidden reads explains recorded read ${lost.read + 1} against ${saw}); is the command deterministic?`,
  );
}

/**
 * One process's reads with its hidden reads inserted (each after the read it follows), and per
 * read of the result whether no more reads can hide after it: the inserted ones and every place
 * whose candidate missed at one of `limits` (there every hidden read was logged). Ambiguous places
 * (alignHiddenReads) get no reads and stay open: what may hide there is bounded, not chosen. Whether
 * a candidate missed is read from the replay of the whole reading the alignment kept, ambiguous
 * places included: that reading is one git may have made, and it agrees with every other reading
 * everywhere but at the ambiguous places.
 */
export function withHiddenReads(
  objects: SimObjects,
  recorded: Int32Array,
  hidden: HiddenReadCounts,
  limits: readonly number[],
  ambiguous: ReadonlySet<number> = new Set(),
): { reads: Int32Array; known: Uint8Array; inserted: Uint8Array } {
  const { candidate } = hiddenReadPlaces(objects, recorded, new GitLruCache(objects.count, objects.size, 0));
  const stack = chainStack(objects);
  const cost = new Float64Array(5);
  // Per place: some limit's trace showed it (its count was logged, whatever it is).
  const shown = new Uint8Array(recorded.length);
  for (const limit of limits) {
    const cache = new GitLruCache(objects.count, objects.size, limit);
    for (let r = 0; r < recorded.length; r++) {
      readThroughCache(objects, recorded[r]!, cache, stack, cost);
      const c = candidate[r]!;
      if (c < 0) continue;
      if (!cache.serveTopLevel(c)) shown[r] = 1;
      for (let k = hidden.get(r) ?? 0; k > 0; k--) readThroughCache(objects, c, cache, stack, cost);
    }
  }
  let extra = 0;
  for (const [place, count] of hidden) if (!ambiguous.has(place)) extra += count;
  const reads = new Int32Array(recorded.length + extra);
  const inserted = new Uint8Array(reads.length);
  const known = new Uint8Array(reads.length);
  let at = 0;
  for (let r = 0; r < recorded.length; r++) {
    const open = ambiguous.has(r);
    const count = open ? 0 : (hidden.get(r) ?? 0);
    const isKnown = !open && (count > 0 || shown[r] === 1);
    // Positions of a place: after the original read and after each inserted one, all one gap.
    if (isKnown) known[at] = 1;
    reads[at++] = recorded[r]!;
    for (let k = count; k > 0; k--) {
      inserted[at] = 1;
      known[at] = 1;
      reads[at++] = candidate[r]!;
    }
  }
  return { reads, known, inserted };
}
