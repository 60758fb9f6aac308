import type { CountBounds } from '../documents/simulation-documents.ts';
import type { BranchingCache } from './cache-policy.ts';
import {
  chainStack,
  COST_APPLIED,
  COST_BYTES,
  COST_DELTAS,
  COST_INFLATIONS,
  COST_LOGGED,
  READ_COST_LENGTH,
  readThroughCache,
  type ReadCost,
} from './git-read-path.ts';
import type { SimObjects } from './sim-objects.ts';
import { CacheEnvelope } from './cache-envelope.ts';

/**
 * Bounds on what real Git does at a limit L, from a recording made at limit 0 (git-internals §8,
 * §8.1). A recording lists unpack_entry calls only (§1.10): a top-level read that hits the cache
 * writes no line (§1.3), so the recording can hide reads. What it hides, and what that can cost:
 *
 * (a) A top-level hit changes no cache state (§1.3). So git's cache after each recorded read at
 *     limit 0 is the state a replay of the recorded reads alone gives, hidden reads or not.
 * (b) At limit 0 the cache keeps only its newest entry (§1.5: eviction runs while the total is
 *     over 0 and never takes the entry being added). Between recorded reads r and r+1 a hit, and so
 *     a hidden read, can only be of that entry: c_r, the newest base cached after read r. That gap
 *     is a *place*; there is none before the first read (the cache starts empty). (A zero-byte base
 *     would let older zero-byte entries stay too; they are not candidates here.)
 * (c) At limit L, let the place hide k ≥ 0 reads of c_r. If c_r is cached at that point of the
 *     replay at L, each is a hit: no line, no cost, no change. If not, the first is a miss: one line,
 *     c_r's chain from the first cached base down (its cost given the cache state), and the bases
 *     used are re-added. c_r itself is never cached (§1.4: the final result is not), so every further
 *     read of c_r misses as well: one more line and one inflation (plus one delta application when
 *     c_r is a delta: its base was just added, is the newest entry and so kept, §1.5), and it leaves
 *     the state exactly as the first left it (its base is detached and re-added where it was). So the
 *     cache state after a place depends only on whether k ≥ 1: at most one extra miss *changes the
 *     state* per place. The counts do grow with k, and no trace at limit 0 says how many reads a place
 *     hid (`cat-file --batch` given the same id twice hides two). The minimum below holds for every
 *     k (k ≥ 2 leaves the state of k = 1 at a higher count); the maximum takes k ≤ 1 per place:
 *     it is a bound for runs in which no place hides a repeated read of the same object.
 * (d) A hidden miss changes later costs both ways: a base it re-adds can turn a later read into a
 *     hit (fewer), an entry it evicts can turn one into a miss (more). So the bounds follow every
 *     distinct cache state: where a state misses c_r it forks into "no hidden read" and "one hidden
 *     read"; states with the same entries in the same order behave alike from then on and merge,
 *     keeping the smallest and largest count of each kind. The minimum and maximum over the final
 *     states are then exactly the extremes over every choice of places: the tightest bounds the
 *     recording allows. A hidden read that leaves the state as it was (c_r not a delta, or its base
 *     already the newest entry) only widens the counts.
 * (e) Past MAX_STATES distinct states an envelope of them all takes over (cache-envelope.ts,
 *     docs/git-internals.md §8.3: what every state may and must hold, and in what order), adding each
 *     read's least and greatest cost; when it pins one state again, that state is followed exactly.
 *     For a policy not of Git's LRU shape the rest of the process is bounded coarsely: every later
 *     read, recorded or hidden, costs between nothing (a hit) and its whole chain.
 * Each git process has its own cache (§1.2), so processes are bounded one by one and summed.
 */

export type { CountBounds };

export const BOUNDED_COUNTS = ['logged', 'inflations', 'deltaApplications', 'inflatedBytes'] as const;

/** The places where one process's limit-0 recording may hide reads (b). */
export interface HiddenReadPlaces {
  /** Per read: c_r, the object a read hidden right after it would be; −1 when the cache is empty. */
  candidate: Int32Array;
  /** Reads with a candidate. */
  places: number;
  /**
   * Every recorded read misses in the limit-0 replay, as an unpack_entry call must (§1.10). False
   * when reads were left out or the recording was not made at limit 0: then (a) fails and there are
   * no bounds.
   */
  consistent: boolean;
}

/**
 * `cache`: a fresh cache of the policy the recording ran with (Git's own, at limit 0).
 * `inserted` (optional, per read): hidden reads a complete recording put back; they hit at limit 0.
 */
export function hiddenReadPlaces(
  objects: SimObjects,
  reads: Int32Array,
  cache: BranchingCache,
  inserted?: Uint8Array,
): HiddenReadPlaces {
  const stack = chainStack(objects);
  const cost: ReadCost = new Float64Array(READ_COST_LENGTH);
  const candidate = new Int32Array(reads.length);
  let places = 0;
  let consistent = true;
  for (let r = 0; r < reads.length; r++) {
    readThroughCache(objects, reads[r]!, cache, stack, cost);
    if (cost[COST_LOGGED] === 0 && inserted?.[r] !== 1) consistent = false;
    candidate[r] = cache.newest();
    if (candidate[r]! >= 0) places++;
  }
  return { candidate, places, consistent };
}

/** Distinct cache states followed before the envelope (or the coarse bound) of (e) takes over. */
export const MAX_STATES = 48;
/** How often (in reads) states that became equal without a fork are merged. */
const MERGE_EVERY = 512;

interface Branch {
  cache: BranchingCache;
  low: Float64Array;
  high: Float64Array;
}

export interface ProcessBounds {
  low: Float64Array;
  high: Float64Array;
  /** Places where some state missed c_r: where the recording's blind spot mattered at this limit. */
  placesThatMiss: number;
  /** (e) was needed: the envelope or the coarse bound. */
  coarse: boolean;
}

/**
 * Bounds (a)–(e) for one process's reads at the limit `makeCache` builds its caches with. `known`
 * (optional, per read) marks places whose hidden reads are already in `reads` (a complete
 * recording, recording.ts): there nothing more can hide. `maxStates`: states followed one by one
 * before the envelope takes over (tests set 0 to follow the envelope nearly throughout).
 */
// Stays long: one pass over the reads that switches between following states one by one and the envelope (e); the two share the counts and the place logic.
export function boundProcess(
  objects: SimObjects,
  reads: Int32Array,
  places: HiddenReadPlaces,
  makeCache: () => BranchingCache,
  known?: Uint8Array,
  maxStates = MAX_STATES,
): ProcessBounds {
  const stack = chainStack(objects);
  const cost: ReadCost = new Float64Array(READ_COST_LENGTH);
  const first = makeCache();
  const shape = first.lruShape?.();
  // The envelope is started (or brought up to date) when it takes over: it then goes through every
  // read and place since the start (or since it last handed over), so that it covers every state.
  let envelope: CacheEnvelope | undefined;
  let envelopeAt = 0;
  const ignored = new Float64Array(4);
  const envLow = new Float64Array(4);
  const envHigh = new Float64Array(4);
  const throughEnvelope = (r: number, low: Float64Array, high: Float64Array): void => {
    envelope!.read(reads[r]!, false, low, high);
    const c = places.candidate[r]!;
    if (c >= 0 && known?.[r] !== 1 && envelope!.read(c, true, low, high) && low === envLow) placesThatMiss++;
    envelopeAt = r + 1;
  };
  let branches: Branch[] | undefined = [{ cache: first, low: new Float64Array(4), high: new Float64Array(4) }];
  let placesThatMiss = 0;
  let coarse = false;
  for (let r = 0; r < reads.length; r++) {
    if (branches === undefined) {
      throughEnvelope(r, envLow, envHigh);
    } else {
      for (const branch of branches) {
        readThroughCache(objects, reads[r]!, branch.cache, stack, cost);
        for (let k = 0; k < 4; k++) {
          branch.low[k]! += cost[k]!;
          branch.high[k]! += cost[k]!;
        }
      }
      const c = places.candidate[r]!;
      if (c >= 0 && known?.[r] !== 1) {
        const fork = forkAtPlace(objects, branches, c, stack, cost);
        if (fork.missed) placesThatMiss++;
        if (fork.forked || (branches.length > 1 && r % MERGE_EVERY === 0)) branches = merged(branches);
      }
    }
    if (branches !== undefined && branches.length > maxStates) {
      coarse = true;
      const { low, high } = extremes(branches);
      if (shape === undefined) {
        coarseRest(objects, reads, places, r + 1, high, known);
        return { low, high, placesThatMiss, coarse };
      }
      envelope ??= new CacheEnvelope(objects, shape, stack.length);
      while (envelopeAt <= r) throughEnvelope(envelopeAt, ignored, ignored);
      envLow.set(low);
      envHigh.set(high);
      branches = undefined;
    }
    if (branches === undefined && envelope!.determined()) {
      // Every run's cache is the same again: follow it exactly from here.
      const cache = makeCache();
      for (const id of envelope!.entriesOldestFirst()) cache.add(id);
      branches = [{ cache, low: envLow.slice(), high: envHigh.slice() }];
    }
  }
  const { low, high } = branches === undefined ? { low: envLow, high: envHigh } : extremes(branches);
  return { low, high, placesThatMiss, coarse };
}

/** (c), (d) at one place, for every state followed: a state that misses c_r forks (or adds c_r's cost in place). */
function forkAtPlace(
  objects: SimObjects,
  branches: Branch[],
  c: number,
  stack: Int32Array,
  cost: ReadCost,
): { missed: boolean; forked: boolean } {
  let forked = false;
  let missed = false;
  const count = branches.length;
  for (let b = 0; b < count; b++) {
    const branch = branches[b]!;
    if (branch.cache.serveTopLevel(c)) continue;
    missed = true;
    if (leavesStateAsItWas(objects, c, branch.cache)) {
      readCostUnchanged(objects, c, cost);
      for (let k = 0; k < 4; k++) branch.high[k]! += cost[k]!;
      continue;
    }
    const cache = branch.cache.clone();
    readThroughCache(objects, c, cache, stack, cost);
    const low = branch.low.slice();
    const high = branch.high.slice();
    for (let k = 0; k < 4; k++) {
      low[k]! += cost[k]!;
      high[k]! += cost[k]!;
    }
    branches.push({ cache, low, high });
    forked = true;
  }
  return { missed, forked };
}

/**
 * (d): a read of `c`, missing in `cache`, that changes nothing: c is not a delta (inflated, never
 * cached), or its base is cached and is the newest entry (detached and re-added in place; the total
 * is unchanged, so nothing is evicted).
 */
function leavesStateAsItWas(objects: SimObjects, c: number, cache: BranchingCache): boolean {
  const base = objects.base[c]!;
  if (base < 0) return true;
  return cache.reusesInPlace(base);
}

/** The cost of the reads leavesStateAsItWas accepts. */
function readCostUnchanged(objects: SimObjects, c: number, cost: ReadCost): void {
  cost.fill(0);
  cost[COST_LOGGED] = 1;
  cost[COST_INFLATIONS] = 1;
  if (objects.base[c]! < 0) {
    cost[COST_BYTES] = objects.size[c]!;
  } else {
    cost[COST_DELTAS] = 1;
    cost[COST_BYTES] = objects.payloadSize[c]!;
    cost[COST_APPLIED] = objects.size[c]!;
  }
}

function merged(branches: Branch[]): Branch[] {
  const byHash = new Map<number, Branch[]>();
  const kept: Branch[] = [];
  for (const branch of branches) {
    const hash = branch.cache.stateHash();
    const same = byHash.get(hash) ?? [];
    const twin = same.find((other) => other.cache.sameState(branch.cache));
    if (twin === undefined) {
      same.push(branch);
      byHash.set(hash, same);
      kept.push(branch);
      continue;
    }
    for (let k = 0; k < 4; k++) {
      twin.low[k] = Math.min(twin.low[k]!, branch.low[k]!);
      twin.high[k] = Math.max(twin.high[k]!, branch.high[k]!);
    }
  }
  return kept;
}

function extremes(branches: Branch[]): { low: Float64Array; high: Float64Array } {
  const low = branches[0]!.low.slice();
  const high = branches[0]!.high.slice();
  for (const branch of branches) {
    for (let k = 0; k < 4; k++) {
      low[k] = Math.min(low[k]!, branch.low[k]!);
      high[k] = Math.max(high[k]!, branch.high[k]!);
    }
  }
  return { low, high };
}

/** (e) for a policy without an envelope: from read `from` on, every read and every open place adds its whole chain to the maximum. */
function coarseRest(
  objects: SimObjects,
  reads: Int32Array,
  places: HiddenReadPlaces,
  from: number,
  high: Float64Array,
  known: Uint8Array | undefined,
): void {
  const add = (id: number): void => {
    high[COST_LOGGED]!++;
    for (let x = id; x >= 0; x = objects.base[x]!) {
      high[COST_INFLATIONS]!++;
      if (objects.base[x]! >= 0) {
        high[COST_DELTAS]!++;
        high[COST_BYTES]! += objects.payloadSize[x]!;
      } else {
        high[COST_BYTES]! += objects.size[x]!;
      }
    }
  };
  for (let r = from; r < reads.length; r++) {
    add(reads[r]!);
    const c = places.candidate[r]!;
    if (c >= 0 && known?.[r] !== 1) add(c);
  }
}

export function countBounds(low: Float64Array, high: Float64Array): CountBounds {
  return {
    logged: [low[COST_LOGGED]!, high[COST_LOGGED]!],
    inflations: [low[COST_INFLATIONS]!, high[COST_INFLATIONS]!],
    deltaApplications: [low[COST_DELTAS]!, high[COST_DELTAS]!],
    inflatedBytes: [low[COST_BYTES]!, high[COST_BYTES]!],
  };
}

/** Exact: every minimum equals its maximum. */
export function boundsAreExact(bounds: CountBounds): boolean {
  return BOUNDED_COUNTS.every((key) => bounds[key][0] === bounds[key][1]);
}
