import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  cacheHits,
  cellReadSeconds,
  knee,
  readSeconds,
  timeView,
  type CellCounts,
} from '../../src/core/cost/cost-model.ts';
import {
  CALIBRATION_SCHEMA,
  type Calibration,
  type CalibrationBatch,
  type CostParameters,
  type MeasuredCommand,
} from '../../src/core/documents/calibration-document.ts';
import { fitMeasuredSplit } from '../../src/common/measured-split-fit.ts';
import { measuredCommandFor, MEASURED_KEPT, withMeasuredCommand } from '../../src/core/cost/measured-split.ts';
import { nonNegativeLeastSquares } from '../../src/core/cost/fit.ts';
import { batchPrediction, fit } from '../../src/core/cost/calibrate.ts';
import { parsePolicy } from '../../src/core/sim/policy-registry.ts';
import { simulate, type RecordingBasis } from '../../src/core/sim/simulate.ts';
import type { SimObjects } from '../../src/core/sim/sim-objects.ts';

/**
 * The cost model's arithmetic on a hand-made recording: a chain root ← d1 ← d2 whose counts are
 * worked out by hand below (git-internals §1.6), then priced by the formula written out here.
 */
const objects: SimObjects = {
  count: 3,
  packBase: [0],
  pack: new Uint32Array(3),
  offset: Float64Array.from([12, 500, 600]),
  base: Int32Array.from([-1, 0, 1]),
  size: Float64Array.from([1000, 1200, 1300]),
  payloadSize: Float64Array.from([1000, 50, 40]),
  isBlob: Uint8Array.from([1, 1, 1]),
  depth: Uint32Array.from([0, 1, 2]),
  oidPrefix: Uint32Array.from([1, 2, 3]),
};
const reads = Int32Array.from([2, 0, 2, 1]);
const basis: RecordingBasis = { recordedLimit: 0 };
const p: CostParameters = {
  aInflate: 1e-5,
  bInflate: 1e-9,
  aDelta: 2e-6,
  bDelta: 3e-10,
  bCache: 4e-12,
  cHit: 5e-7,
  cTrace: 1e-6,
};

function calibration(parameters: CostParameters): Calibration {
  return {
    schema: CALIBRATION_SCHEMA,
    date: '2026-12-02T00:00:00.000Z',
    key: { packChecksum: '00'.repeat(20), node: 'v20', cpu: 'test', git: '2.0' },
    pack: { path: '/x.pack', objects: 3 },
    seed: 1,
    repeats: 1,
    method: 'hand-made',
    parameters,
    perRead: 0,
    pageCacheMiss: { secondsPerByte: null, note: 'not measured' },
    loadAverage: [0, 0, 0],
    batches: [],
    seconds: 0,
  };
}

describe('cost model on a hand-made recording', () => {
  const git = parsePolicy('git');
  const at0 = simulate(git, objects, reads, 0, basis);
  const atLarge = simulate(git, objects, reads, 1 << 30, basis);

  test('the replay counts applied bytes and hits as worked out by hand', () => {
    // Limit 0 (git keeps the base it added last, §1.3): read 2 inflates 1000+50+40 and applies 1200+1300,
    // leaving d1; read 0 inflates the root (1000); read 2 takes d1 (40 inflated, 1300 applied) and puts it
    // back; read 1 is served whole from the cache. Hits: one base, one whole.
    assert.deepEqual(
      [at0.logged, at0.inflations, at0.deltaApplications, at0.inflatedBytes, at0.appliedBytes],
      [3, 5, 3, 2130, 3800],
    );
    assert.equal(cacheHits(at0), 2);
    // Large: read 2 as above leaving root and d1; read 0 is served whole; read 2 takes d1; read 1 is served whole.
    assert.deepEqual(
      [atLarge.logged, atLarge.inflations, atLarge.deltaApplications, atLarge.inflatedBytes, atLarge.appliedBytes],
      [2, 4, 3, 1130, 3800],
    );
    assert.equal(cacheHits(atLarge), 3);
    // The cache's peak: at 0 only the base added last stays (root 1000, then d1 1200 in its place); large, both.
    assert.deepEqual([at0.peakCacheBytes, atLarge.peakCacheBytes], [1200, 2200]);
  });

  test('the prediction is the formula: non-read time plus priced counts', () => {
    const read0 = 1e-5 * 5 + 1e-9 * 2130 + 2e-6 * 3 + 3e-10 * 3800 + 4e-12 * 1200 + 5e-7 * 2;
    const readLarge = 1e-5 * 4 + 1e-9 * 1130 + 2e-6 * 3 + 3e-10 * 3800 + 4e-12 * 2200 + 5e-7 * 3;
    assert.equal(readSeconds(at0 as never, p), read0);
    assert.equal(readSeconds(atLarge as never, p), readLarge);
    const recorded = 1.0;
    const view = timeView(
      [at0, atLarge] as unknown as CellCounts[],
      calibration(p),
      { seconds: recorded, limit: 0 },
      { limit: 1 << 30, source: 'test' },
      String,
    );
    const nonRead = recorded - 1e-6 * 3 - read0;
    assert.equal(view.estimate, true);
    assert.equal(view.nonRead.seconds, nonRead);
    assert.equal(view.nonRead.traceLines, 3);
    const cell0 = view.cells.find((c) => c.limit === 0)!;
    const cellLarge = view.cells.find((c) => c.limit === 1 << 30)!;
    assert.equal(cell0.predictedSeconds, nonRead + read0);
    assert.equal(cellLarge.predictedSeconds, nonRead + readLarge);
    assert.equal(cellLarge.speedUp, 1);
    assert.equal(cell0.speedUp, (nonRead + readLarge) / (nonRead + read0));
    // Both cells are exact (git at the recorded limit; bounds that meet at the large one), so their bounds are points.
    assert.deepEqual(cell0.predictedSecondsBounds, [cell0.predictedSeconds, cell0.predictedSeconds]);
    // 10 µs saved out of a second: within 2%, so limit 0 is the knee and the words say so.
    assert.equal(view.knees[0]!.limit, 0);
    assert.match(view.recommendation, /core\.deltaBaseCacheLimit=0 is enough/);
    // With no non-read time the saving is the whole difference: the large limit is the knee.
    const readOnly = timeView(
      [at0, atLarge] as unknown as CellCounts[],
      calibration(p),
      { seconds: 1e-6 * 3 + read0, limit: 0 },
      { limit: 0, source: 'test' },
      String,
    );
    assert.equal(readOnly.nonRead.seconds, 0);
    assert.equal(readOnly.knees[0]!.limit, 1 << 30);
    assert.match(readOnly.recommendation, /raise core\.deltaBaseCacheLimit/);
  });

  test('with a measured split of this command: n + s·reads, labelled as from the runs', () => {
    const measured: MeasuredCommand = {
      args: ['log', '-p'],
      cwd: '/r',
      date: '2026-12-03T22:00:00.000Z',
      gitVersion: '2.39.5',
      runs: 3,
      points: [],
      split: { nonReadSeconds: 0.5, readScale: 1.25 },
    };
    const view = timeView(
      [at0, atLarge] as unknown as CellCounts[],
      calibration(p),
      { seconds: 1.0, limit: 0, measured },
      { limit: 1 << 30, source: 'test' },
      String,
    );
    assert.equal(view.basis.source, 'measured');
    for (const [cell, counts] of [
      [view.cells.find((c) => c.limit === 0)!, at0],
      [view.cells.find((c) => c.limit === 1 << 30)!, atLarge],
    ] as const) {
      assert.equal(cell.readSeconds, 1.25 * readSeconds(counts as never, p));
      assert.equal(cell.predictedSeconds, 0.5 + 1.25 * readSeconds(counts as never, p));
    }
    assert.match(view.recommendation, /from your measured runs of 2026-12-03/);
    // The recording's own split is still worked out and shown beside it.
    assert.equal(view.nonRead.seconds, 1.0 - 1e-6 * 3 - readSeconds(at0 as never, p));
    // No split (runs that cannot tell reading apart): the recording's.
    const unsplit = timeView(
      [at0, atLarge] as unknown as CellCounts[],
      calibration(p),
      { seconds: 1.0, limit: 0, measured: { ...measured, split: null } },
      { limit: 1 << 30, source: 'test' },
      String,
    );
    assert.equal(unsplit.basis.source, 'recording');
  });

  test('the measured split: exact points give n and s back; a calibration keeps one entry per command, newest first', () => {
    const points = [0.2, 0.5, 0.9].map((reads, i) => ({ limit: i, reads, measured: 0.7 + 1.3 * reads }));
    const fitted = fitMeasuredSplit(points)!;
    assert.ok(Math.abs(fitted.nonReadSeconds - 0.7) < 1e-12 && Math.abs(fitted.readScale - 1.3) < 1e-12);
    assert.equal(
      fitMeasuredSplit([
        { limit: 0, reads: 1, measured: 2 },
        { limit: 1, reads: 1, measured: 1.9 },
      ]),
      null,
      'equal reads cannot tell the parts apart',
    );
    const entry = (args: string[], date: string): MeasuredCommand => ({
      args,
      cwd: '/r',
      date,
      gitVersion: '2',
      runs: 1,
      points: [],
      split: null,
    });
    let c = calibration(p);
    c = withMeasuredCommand(c, entry(['log'], 'a'));
    c = withMeasuredCommand(c, entry(['blame', 'x'], 'b'));
    c = withMeasuredCommand(c, entry(['log'], 'c'));
    assert.deepEqual(
      c.measured!.map((m) => [m.args.join(' '), m.date]),
      [
        ['log', 'c'],
        ['blame x', 'b'],
      ],
    );
    assert.equal(measuredCommandFor(c, { args: ['blame', 'x'], cwd: '/r' })!.date, 'b');
    assert.equal(measuredCommandFor(c, { args: ['blame', 'x'], cwd: '/elsewhere' }), undefined);
    for (let i = 0; i < MEASURED_KEPT + 5; i++) c = withMeasuredCommand(c, entry([`c${i}`], String(i)));
    assert.equal(c.measured!.length, MEASURED_KEPT);
  });

  test('bounds on the counts give bounds on the time, around the point', () => {
    const cell: CellCounts = {
      policy: 'git',
      limit: 1,
      reads: 10,
      logged: 8,
      inflations: 20,
      deltaApplications: 10,
      inflatedBytes: 5000,
      appliedBytes: 9000,
      peakCacheBytes: 3000,
      exact: false,
      bounds: { logged: [8, 9], inflations: [20, 24], deltaApplications: [10, 12], inflatedBytes: [5000, 5600] },
    };
    const { seconds, bounds } = cellReadSeconds(cell, p);
    assert.ok(bounds);
    assert.ok(bounds[0] <= seconds && seconds <= bounds[1]);
    assert.equal(
      bounds[1],
      readSeconds(
        {
          ...cell,
          inflations: 24,
          deltaApplications: 12,
          inflatedBytes: 5600,
          appliedBytes: 900 * 12,
          logged: 9,
        } as never,
        { ...p, cHit: 0 },
      ) +
        p.cHit * cacheHits(cell),
    );
    assert.equal(cellReadSeconds({ ...cell, bounds: null }, p).bounds, null);
  });

  test('the knee is the smallest limit within 2% of the best', () => {
    const cells = [
      { policy: 'git', limit: 0, predictedSeconds: 10 },
      { policy: 'git', limit: 1, predictedSeconds: 5.11 },
      { policy: 'git', limit: 2, predictedSeconds: 5.05 },
      { policy: 'git', limit: 3, predictedSeconds: 5.0 },
    ];
    assert.equal(knee(cells).limit, 2);
  });
});

describe('the calibration fit', () => {
  test('non-negative least squares recovers exact coefficients and clamps a negative one', () => {
    const rows = [
      [1, 100],
      [2, 50],
      [3, 400],
      [4, 10],
    ];
    const y = rows.map(([a, b]) => 2 * a! + 0.5 * b!);
    const [x0, x1] = nonNegativeLeastSquares(rows, y);
    assert.ok(Math.abs(x0! - 2) < 1e-9 && Math.abs(x1! - 0.5) < 1e-9);
    const negative = nonNegativeLeastSquares(
      rows,
      rows.map(([a, b]) => 3 * a! - 0.01 * b!),
    );
    assert.ok(negative.every((v) => v >= 0));
  });

  test("one fit takes inflation and cat-file's per-object work from the plain lists, delta work from the walk lists, its memory from the growth list", () => {
    const truth: CostParameters = {
      aInflate: 4e-7,
      bInflate: 2e-9,
      aDelta: 1e-6,
      bDelta: 5e-10,
      bCache: 8e-10,
      cHit: 0,
      cTrace: 0,
    };
    const perRead = 3e-6;
    const batch = (
      stage: CalibrationBatch['stage'],
      reads: number,
      inflations: number,
      inflatedBytes: number,
      deltaApplications: number,
      appliedBytes: number,
      cacheBytes: number,
    ): CalibrationBatch => {
      const b: CalibrationBatch = {
        stage,
        sizeClass: [0, 1],
        objects: 1,
        reads,
        limit: 0,
        against: stage === 'growth' ? 1 << 25 : null,
        inflations,
        inflatedBytes,
        compressedBytes: 0,
        deltaApplications,
        appliedBytes,
        hits: 0,
        cacheBytes,
        seconds: 0,
        predicted: 0,
      };
      b.seconds = batchPrediction(b, truth, perRead);
      return b;
    };
    // Walk rows: a list of chains at 0 and at 1g, each minus --batch-check (its reads are cat-file's per-object work).
    const { parameters: fitted, perRead: fittedPerRead } = fit(
      [
        batch('inflate', 1000, 1000, 1e5, 0, 0, 0),
        batch('inflate', 1000, 1000, 1e7, 0, 0, 0),
        batch('inflate', 3000, 3000, 3e6, 0, 0, 0),
        batch('walk', 900, 3000, 2e5, 2000, 4e6, 2e4),
        batch('walk', 900, 1700, 1.2e5, 1700, 3e6, 2e5),
        batch('walk', 300, 4000, 1e5, 3000, 9e7, 1e5),
        batch('walk', 50, 1000, 6e6, 990, 3e7, 3e6),
        batch('growth', 2000, -10, -2e4, 0, 0, 1.2e8),
      ],
      0,
    );
    for (const key of ['aInflate', 'bInflate', 'aDelta', 'bDelta', 'bCache'] as const)
      assert.ok(Math.abs(fitted[key] / truth[key] - 1) < 1e-6, `${key} ${fitted[key]} vs ${truth[key]}`);
    assert.ok(Math.abs(fittedPerRead / perRead - 1) < 1e-6);
    assert.equal(fitted.cHit, 0, 'a hit is not told apart from inflations and applications when the reads are fixed');
  });
});
