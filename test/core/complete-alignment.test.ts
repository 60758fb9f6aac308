import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { alignHiddenReads, withHiddenReads } from '../../src/core/trace/complete-recording.ts';
import { replayGitReads } from '../../src/core/sim/git-read-path.ts';
import { boundProcess, hiddenReadPlaces } from '../../src/core/sim/hidden-reads.ts';
import { GitLruCache } from '../../src/core/sim/policies/git-lru.ts';
import type { SimObjects } from '../../src/core/sim/sim-objects.ts';
import type { SimCounts } from '../../src/core/documents/simulation-documents.ts';

/**
 * Completing a recording on histories whose hidden reads are known by construction: a "true" run of
 * reads is replayed through git's read path (git-internals §1.6, checked against real git in
 * git-read-path.test.ts) at limit 0, which gives the recording (the reads logged) and where each read
 * it hides stands; its replays at other limits give the traces those runs would log. The alignment
 * must explain every such set of traces, find the true count wherever a trace shows a place, name the
 * places it cannot decide, and the replay of what it found must be git's at those limits, or bounded
 * around it.
 */

const SEED = Number(process.env.PACKSCOPE_FUZZ_SEED ?? 20261206);
const RUNS = Number(process.env.PACKSCOPE_FUZZ_RUNS ?? 400);

interface Case {
  objects: SimObjects;
  truth: Int32Array;
  limits: number[];
  others: number[];
}

const caseArbitrary: fc.Arbitrary<Case> = fc
  .record({
    shapes: fc.array(fc.record({ base: fc.integer({ min: -8, max: 15 }), size: fc.integer({ min: 500, max: 3000 }) }), {
      minLength: 2,
      maxLength: 24,
      size: 'max',
    }),
    steps: fc.array(fc.record({ pick: fc.integer({ min: 0, max: 1 << 20 }), newest: fc.integer({ min: 0, max: 9 }) }), {
      minLength: 20,
      maxLength: 200,
      size: 'max',
    }),
    limits: fc.array(fc.integer({ min: 1, max: 6000 }), { minLength: 1, maxLength: 3 }),
    others: fc.array(fc.integer({ min: 0, max: 12000 }), { minLength: 1, maxLength: 3 }),
  })
  .map(({ shapes, steps, limits, others }) => {
    const count = shapes.length;
    const base = new Int32Array(count);
    const depth = new Uint32Array(count);
    shapes.forEach((shape, i) => {
      // About half the objects are deltas on an earlier one (chains, and bases with several children).
      const b = i === 0 || shape.base < 0 ? -1 : Math.max(0, i - 1 - (shape.base % i));
      base[i] = b;
      depth[i] = b < 0 ? 0 : depth[b]! + 1;
    });
    const objects: SimObjects = {
      count,
      packBase: [0],
      pack: new Uint32Array(count),
      offset: Float64Array.from(shapes.map((_, i) => 12 + i * 100)),
      base,
      size: Float64Array.from(shapes.map((s) => s.size)),
      payloadSize: Float64Array.from(shapes.map((s, i) => (base[i]! < 0 ? s.size : 1 + (s.size % 97)))),
      isBlob: new Uint8Array(count).fill(1),
      depth,
      oidPrefix: Uint32Array.from(shapes.map((_, i) => i)),
    };
    // The true run: often a read of the entry a limit-0 cache keeps (a read the recording hides),
    // sometimes twice in a row, often one of the last few reads again (a hit at a larger limit is
    // what lets a hidden read miss there, git-internals §8.1), otherwise any object.
    const cache = new GitLruCache(count, objects.size, 0);
    const truth: number[] = [];
    for (const step of steps) {
      const newest = cache.newest();
      const recent =
        truth.length > 0 && step.newest >= 7 ? truth[Math.max(0, truth.length - 1 - (step.newest - 7) * 2)] : undefined;
      const id = newest >= 0 && step.newest < 4 ? newest : (recent ?? step.pick % count);
      const times = newest === id && step.newest === 0 ? 2 : 1;
      for (let k = 0; k < times; k++) {
        truth.push(id);
        replayGitReads(objects, Int32Array.of(id), cache);
      }
    }
    return { objects, truth: Int32Array.from(truth), limits: [...new Set(limits)], others };
  });

/** The reads git logs running `reads` at `limit`, and its counts. */
function run(objects: SimObjects, reads: Int32Array, limit: number): { logged: Int32Array; counts: SimCounts } {
  const logged: number[] = [];
  const counts = replayGitReads(objects, reads, new GitLruCache(objects.count, objects.size, limit), {
    onLogged: (r) => logged.push(reads[r]!),
  });
  return { logged: Int32Array.from(logged), counts };
}

test('completion on generated histories: every set of traces is explained, the true counts found, the rest bounded', (t) => {
  let traps = 0;
  let ambiguousCases = 0;
  let placesFound = 0;
  fc.assert(
    fc.property(caseArbitrary, ({ objects, truth, limits, others }) => {
      const recorded = run(objects, truth, 0).logged;
      // Where the true run's hidden reads stand: after the recorded read before them.
      const trueHidden = new Int32Array(recorded.length);
      {
        const cache = new GitLruCache(objects.count, objects.size, 0);
        let r = -1;
        for (const id of truth) {
          const step = replayGitReads(objects, Int32Array.of(id), cache);
          if (step.logged === 1) r++;
          else trueHidden[r]!++;
        }
      }
      const traces = limits.map((limit) => ({ limit, reads: run(objects, truth, limit).logged }));
      const alignment = alignHiddenReads(objects, recorded, traces, 'generated');
      const ambiguous = new Set(alignment.ambiguous);
      if (ambiguous.size > 0) ambiguousCases++;
      const { reads, known, inserted } = withHiddenReads(objects, recorded, alignment.hidden, limits, ambiguous);

      // A trap for a scan that takes the first match: a place with no hidden read whose candidate
      // misses at a limit whose trace logs that very candidate next.
      const { candidate } = hiddenReadPlaces(objects, recorded, new GitLruCache(objects.count, objects.size, 0));
      for (const limit of limits) {
        const cache = new GitLruCache(objects.count, objects.size, limit);
        const logged = run(objects, truth, limit).logged;
        let p = 0;
        let r = -1;
        const zero = new GitLruCache(objects.count, objects.size, 0);
        for (const id of truth) {
          const atZero = replayGitReads(objects, Int32Array.of(id), zero).logged === 1;
          const atLimit = replayGitReads(objects, Int32Array.of(id), cache).logged === 1;
          if (atLimit) p++;
          if (!atZero) continue;
          r++;
          const c = candidate[r]!;
          if (trueHidden[r] === 0 && c >= 0 && !cache.serveTopLevel(c) && logged[p] === c) traps++;
        }
      }

      // Every place it knows has its true count.
      let at = 0;
      for (let r = 0; r < recorded.length; r++) {
        const isKnown = known[at] === 1;
        at++;
        let count = 0;
        while (at < reads.length && inserted[at] === 1) {
          count++;
          at++;
        }
        if (isKnown) assert.equal(count, trueHidden[r], `hidden reads after read ${r + 1}`);
        if (!ambiguous.has(r)) assert.ok(count === 0 || count === trueHidden[r]);
        placesFound += count;
      }
      // At the traces' limits the completed replay is git's, read for read, unless places stayed
      // ambiguous; then, and at every other limit, the bounds contain the true run.
      for (const limit of [...limits, ...others]) {
        const real = run(objects, truth, limit);
        const replay = run(objects, reads, limit);
        if (limits.includes(limit) && ambiguous.size === 0) {
          assert.deepEqual([...replay.logged], [...real.logged], `trace at ${limit}`);
          assert.equal(replay.counts.inflations, real.counts.inflations);
          assert.equal(replay.counts.deltaApplications, real.counts.deltaApplications);
        }
        // The bounds assume at most one hidden read per open place (hidden-reads.ts (c)).
        const repeated = trueHidden.some((k, r) => k > 1 && known[positionOf(inserted, r)] !== 1);
        if (repeated) continue;
        const places = hiddenReadPlaces(objects, reads, new GitLruCache(objects.count, objects.size, 0), inserted);
        assert.ok(places.consistent);
        const bounds = boundProcess(
          objects,
          reads,
          places,
          () => new GitLruCache(objects.count, objects.size, limit),
          known,
        );
        const within = (k: number, value: number): boolean => bounds.low[k]! <= value && value <= bounds.high[k]!;
        assert.ok(
          within(0, real.counts.logged),
          `lines at ${limit}: ${real.counts.logged} in ${bounds.low[0]}–${bounds.high[0]}`,
        );
        assert.ok(within(1, real.counts.inflations), `inflations at ${limit}`);
        assert.ok(within(2, real.counts.deltaApplications), `delta applications at ${limit}`);
      }
    }),
    { seed: SEED, numRuns: RUNS },
  );
  t.diagnostic(
    `${traps} traps for a first-match scan; ${ambiguousCases} cases with ambiguous places; ${placesFound} hidden reads found`,
  );
  assert.ok(traps > 0, 'the generated histories hold places where a first-match scan goes wrong');
});

/** The position in the completed reads of original read `r` (inserted reads skipped). */
function positionOf(inserted: Uint8Array, r: number): number {
  let seen = -1;
  for (let i = 0; i < inserted.length; i++) if (inserted[i] === 0 && ++seen === r) return i;
  return inserted.length;
}
