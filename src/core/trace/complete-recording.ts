import { fail } from '../errors.ts';
import { chainStack, COST_LOGGED, readThroughCache } from '../sim/git-read-path.ts';
import { hiddenReadPlaces } from '../sim/hidden-reads.ts';
import { GitLruCache } from '../sim/policies/git-lru.ts';
import type { SimObjects } from '../sim/sim-objects.ts';

/**
 * Complete recordings (git-internals §8.1): the limit-0 trace cannot show reads that hit the one
 * entry a limit-0 cache keeps. Run again at a limit L, git logs each such read that misses at L.
 * Replaying the limit-0 reads at L next to that trace finds them: wherever git logged the place's
 * candidate (hidden-reads.ts (b)) where the replay has no read, that is a hidden read. With them
 * inserted the replay at L is git's read for read; at every place where the candidate missed at L
 * the count of hidden reads is then known (all of them were logged), so nothing more can hide there.
 */

/** The reads of one git process: hidden reads found so far, as read index → count. */
export type HiddenReadCounts = Map<number, number>;

/**
 * Aligns one process's limit-0 reads (plus the hidden reads already found) with git's trace of the
 * same process at `limit`, adding the hidden reads that trace shows to `hidden`. Throws when the two
 * runs disagree beyond hidden reads (the command read differently the second time).
 */
export function recoverHiddenReads(
  objects: SimObjects,
  recorded: Int32Array,
  atLimit: Int32Array,
  limit: number,
  hidden: HiddenReadCounts,
  where: string,
): void {
  const { candidate } = hiddenReadPlaces(objects, recorded, new GitLruCache(objects.count, objects.size, 0));
  const cache = new GitLruCache(objects.count, objects.size, limit);
  const stack = chainStack(objects);
  const cost = new Float64Array(4);
  let p = 0;
  const expect = (id: number, what: string): void => {
    readThroughCache(objects, id, cache, stack, cost);
    if (cost[COST_LOGGED] === 0) return;
    if (atLimit[p] !== id)
      throw fail(
        'usage',
        where,
        undefined,
        `the run at core.deltaBaseCacheLimit=${limit} read differently from the run at 0 (trace read ${p + 1}: expected ${what}); is the command deterministic?`,
      );
    p++;
  };
  for (let r = 0; r < recorded.length; r++) {
    expect(recorded[r]!, `recorded read ${r + 1}`);
    const c = candidate[r]!;
    const known = hidden.get(r) ?? 0;
    for (let k = 0; k < known; k++) expect(c, `hidden read after read ${r + 1}`);
    if (c < 0) continue;
    let found = 0;
    while (p < atLimit.length && atLimit[p] === c && !cache.serveTopLevel(c)) {
      readThroughCache(objects, c, cache, stack, cost);
      p++;
      found++;
    }
    if (found > 0 && known > 0)
      throw fail(
        'usage',
        where,
        undefined,
        `the runs disagree on the reads hidden after read ${r + 1} (${known} and ${known + found})`,
      );
    if (found > 0) hidden.set(r, found);
  }
  if (p !== atLimit.length)
    throw fail(
      'usage',
      where,
      undefined,
      `the run at core.deltaBaseCacheLimit=${limit} logged ${atLimit.length - p} reads the run at 0 does not explain; is the command deterministic?`,
    );
}

/**
 * One process's reads with its hidden reads inserted (each after the read it follows), and per
 * read of the result whether no more reads can hide after it: the inserted ones and every place
 * whose candidate missed at one of `limits` (there every hidden read was logged).
 */
export function withHiddenReads(
  objects: SimObjects,
  recorded: Int32Array,
  hidden: HiddenReadCounts,
  limits: readonly number[],
): { reads: Int32Array; known: Uint8Array; inserted: Uint8Array } {
  const { candidate } = hiddenReadPlaces(objects, recorded, new GitLruCache(objects.count, objects.size, 0));
  let extra = 0;
  for (const count of hidden.values()) extra += count;
  const reads = new Int32Array(recorded.length + extra);
  const inserted = new Uint8Array(reads.length);
  const original = new Int32Array(recorded.length);
  let at = 0;
  for (let r = 0; r < recorded.length; r++) {
    original[r] = at;
    reads[at++] = recorded[r]!;
    for (let k = hidden.get(r) ?? 0; k > 0; k--) {
      inserted[at] = 1;
      reads[at++] = candidate[r]!;
    }
  }
  // Positions of a place: after the original read and after each inserted one, all one gap.
  const known = new Uint8Array(reads.length);
  for (let r = 0; r < recorded.length; r++) {
    const count = hidden.get(r) ?? 0;
    if (count > 0) for (let k = 0; k <= count; k++) known[original[r]! + k] = 1;
  }
  const stack = chainStack(objects);
  const cost = new Float64Array(4);
  for (const limit of limits) {
    const cache = new GitLruCache(objects.count, objects.size, limit);
    let r = 0;
    for (let i = 0; i < reads.length; i++) {
      readThroughCache(objects, reads[i]!, cache, stack, cost);
      if (inserted[i] === 1) continue;
      const c = candidate[r]!;
      if (c >= 0 && !cache.serveTopLevel(c)) known[i] = 1;
      r++;
    }
  }
  return { reads, known, inserted };
}
