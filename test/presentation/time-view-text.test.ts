import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { timeView, type CellCounts } from '../../src/core/cost/cost-model.ts';
import { CALIBRATION_SCHEMA, type Calibration } from '../../src/core/documents/calibration-document.ts';
import { formatLimit } from '../../src/common/format.ts';
import {
  faultSentence,
  heapSentence,
  kneeSentences,
  measuredAgainstPredicted,
  measuredSentences,
  timeLabel,
  timeTableRows,
} from '../../src/presentation/time-view-text.ts';
import { recordingRows } from '../../src/presentation/repack-preview-tables.ts';

/** What the Cache Lab and the repack preview say of a time estimate, on hand-made counts and parameters. */
const M = 1 << 20;
const parameters = { aInflate: 1e-6, bInflate: 2e-9, aDelta: 5e-7, bDelta: 1e-10, bCache: 0, cHit: 0, cTrace: 2e-6 };
const calibration: Calibration = {
  schema: CALIBRATION_SCHEMA,
  date: '2026-12-02T15:00:00.000Z',
  key: { packChecksum: 'ab'.repeat(20), node: 'v20', cpu: 'cpu', git: '2.39.5' },
  pack: { path: '/p.pack', objects: 10 },
  seed: 16,
  repeats: 3,
  method: 'hand-made',
  parameters,
  perRead: 0,
  pageCacheMiss: { secondsPerByte: null, note: 'not measured' },
  loadAverage: [0, 0, 0],
  batches: [],
  seconds: 0,
};
const cell = (limit: number, inflations: number): CellCounts => ({
  policy: 'git',
  limit,
  reads: 100000,
  logged: 100000,
  inflations,
  deltaApplications: inflations / 2,
  inflatedBytes: inflations * 1000,
  appliedBytes: inflations * 4000,
  peakCacheBytes: limit,
  exact: true,
  bounds: null,
});
const cells = [cell(0, 900000), cell(M, 300000), cell(16 * M, 200000), cell(96 * M, 199000)];
const view = timeView(cells, calibration, { seconds: 6, limit: 0 }, { limit: 96 * M, source: 'test' }, formatLimit);

describe('time view words', () => {
  test('the table, the label, the knee', () => {
    const rows = timeTableRows(view, [0, M, 16 * M, 96 * M], ['git', 'belady']);
    assert.deepEqual(rows[0], ['limit', 'git'], 'a policy the view did not price has no column');
    assert.equal(rows[4]![1], '3.70 s ×1.00'.replace('3.70', view.cells[3]!.predictedSeconds.toFixed(2)));
    assert.match(timeLabel(view), /^Estimate, not a measurement: .*2026-12-02 15:00 UTC; git 2\.39\.5/);
    assert.match(
      timeLabel(view),
      /Not in it: glibc handing freed memory back to the kernel and faulting it in again, which depends on the command's own heap \(measured runs show it as page faults\)\.$/,
    );
    assert.deepEqual(
      kneeSentences(view, (p) => p),
      [
        `git: beyond 16m nothing is gained for this workload (${view.knees[0]!.seconds.toFixed(2)} s, within 2% of the best ${view.knees[0]!.bestSeconds.toFixed(2)} s).`,
      ],
    );
  });

  test('the label says when the split comes from measured runs of this command', () => {
    const measured = {
      args: ['log'],
      cwd: '/r',
      date: '2026-12-03T22:00:00.000Z',
      gitVersion: '2.39.5',
      runs: 3,
      points: [
        { limit: 0, bestSeconds: 6, predictedReadSeconds: 3 },
        { limit: M, bestSeconds: 4, predictedReadSeconds: 1 },
      ],
      split: { nonReadSeconds: 3, readScale: 1 },
    };
    const fromRuns = timeView(
      cells,
      calibration,
      { seconds: 6, limit: 0, measured },
      { limit: 96 * M, source: 'test' },
      formatLimit,
    );
    assert.match(
      timeLabel(fromRuns),
      /scaled ×1\.00, plus 3\.00 s of the command that is not object reading, both from your Measure for real runs of this command \(2026-12-03 22:00 UTC, best of 3 at 0, 1m; the recording alone said /,
    );
    assert.doesNotMatch(timeLabel(view), /Measure for real/);
  });

  test("a replay of the recording's reads scales the reads; measured runs of the command come first", () => {
    const replay = {
      command: { args: ['log'], cwd: '/r', startedAt: '2026-12-04T00:00:00.000Z' },
      date: '2026-12-04T00:10:00.000Z',
      reads: 900,
      readsTimed: 900,
      repeats: 3,
      limits: [0, 16 * M],
      seconds: [2, 1],
      modelReadSeconds: [2.5, 1],
      readScale: 0.8,
      note: 'n',
    };
    const replayed = timeView(
      cells,
      calibration,
      { seconds: 6, limit: 0, replay },
      { limit: 96 * M, source: 'test' },
      formatLimit,
    );
    assert.equal(replayed.basis.source, 'replay');
    assert.match(
      timeLabel(replayed),
      /scaled ×0\.80 from a replay of this recording's reads on git's read path \(2026-12-04 00:10 UTC, 900 of 900 reads at 0 and 16m\), plus /,
    );
    for (const cell of replayed.cells) {
      const plain = view.cells.find((c) => c.policy === cell.policy && c.limit === cell.limit)!;
      assert.ok(Math.abs(cell.readSeconds - 0.8 * plain.readSeconds) < 1e-12);
    }
    // A replay with no scale (too little saved to tell) leaves the recording's own split.
    assert.equal(
      timeView(
        cells,
        calibration,
        { seconds: 6, limit: 0, replay: { ...replay, readScale: null } },
        { limit: 96 * M, source: 'test' },
        formatLimit,
      ).basis.source,
      'recording',
    );
    const measured = {
      args: ['log'],
      cwd: '/r',
      date: '2026-12-03T22:00:00.000Z',
      gitVersion: '2.39.5',
      runs: 3,
      points: [
        { limit: 0, bestSeconds: 6, predictedReadSeconds: 3 },
        { limit: M, bestSeconds: 4, predictedReadSeconds: 1 },
      ],
      split: { nonReadSeconds: 3, readScale: 1 },
    };
    const both = timeView(
      cells,
      calibration,
      { seconds: 6, limit: 0, measured, replay },
      { limit: 96 * M, source: 'test' },
      formatLimit,
    );
    assert.equal(both.basis.source, 'measured');
    assert.equal(both.basis.replay?.readScale, 0.8);
  });

  test('predicted against measured: the error per limit, and the split the runs imply recovered exactly', () => {
    // Measured = 1.5 s of other work + 0.8 × predicted reads: the fit must find both.
    const results = view.cells.map((c) => ({
      limit: c.limit,
      seconds: [1.5 + 0.8 * c.readSeconds],
      bestSeconds: 1.5 + 0.8 * c.readSeconds,
      cpuSeconds: [1.4 + 0.8 * c.readSeconds],
      minorFaults: [5000],
    }));
    const comparison = measuredAgainstPredicted(view, { gitVersion: '2.39.5', results });
    comparison.rows.forEach((row, i) => {
      assert.equal(row.predicted, view.cells[i]!.predictedSeconds);
      assert.equal(row.error, view.cells[i]!.predictedSeconds / results[i]!.bestSeconds - 1);
      assert.equal(row.measuredSpeedUp, results[0]!.bestSeconds / results[i]!.bestSeconds);
    });
    assert.ok(comparison.fit);
    assert.ok(Math.abs(comparison.fit.nonReadSeconds - 1.5) < 1e-9 && Math.abs(comparison.fit.readScale - 0.8) < 1e-9);
    const [errorLine, splitLine, faultLine] = measuredSentences(comparison);
    assert.match(errorLine!, /^Predicted against measured: the largest error is /);
    assert.match(splitLine!, /^Your runs fit 1\.50 s of other work plus 0\.80× the predicted reads: at 0 about /);
    assert.match(faultLine!, /^Page faults of the best runs: 5,000 at 0, /);
    assert.doesNotMatch(faultLine!, /memory/, 'equal faults at every limit: no warning');
    // One limit measured: no split.
    assert.equal(measuredAgainstPredicted(view, { gitVersion: 'x', results: results.slice(0, 1) }).fit, null);
  });

  test('page faults that differ much between limits are named as memory the estimate prices only in part', () => {
    // git.git's blame on this project's VM (bench/README): the best run of each limit.
    const row = (limit: number, seconds: number, faults: number | null) => ({
      limit,
      measured: seconds,
      predicted: null,
      error: null,
      predictedSpeedUp: null,
      measuredSpeedUp: 1,
      minorFaults: faults,
    });
    const blame = [row(0, 2.87, 19122), row(M, 1.5, 17007), row(16 * M, 1.34, 22504), row(96 * M, 1.96, 77684)];
    assert.equal(
      faultSentence(blame),
      "Page faults of the best runs: 19,122 at 0, 17,007 at 1m, 22,504 at 16m, 77,684 at 96m. The 60,677 more at 96m than at 1m are memory (glibc's heap handing pages back and touching them again, or the cache's growth), which the estimate prices only as the cache's peak: part of the error above may be this.",
    );
    // Under 10,000 apart: listed, no warning; fewer than two counted (not Linux): nothing.
    assert.equal(
      faultSentence([row(0, 1, 400), row(M, 1, 3900)]),
      'Page faults of the best runs: 400 at 0, 3,900 at 1m.',
    );
    assert.equal(faultSentence([row(0, 1, null), row(M, 1, 3900)]), undefined);
  });

  test("a kept heap's runs beside the default's: what glibc's handing memory back costs, limit by limit", () => {
    // git.git's log -p -n 2000 on this project's VM (bench/README, 2026-12-04): best CPU seconds and faults.
    const runs = (best: number, faults: number) => ({
      seconds: [best + 0.1, best],
      bestSeconds: best,
      cpuSeconds: [best, best],
      minorFaults: [faults + 7, faults],
    });
    const logP = [
      { limit: 0, ...runs(3.3, 94600), keptHeap: runs(2.01, 4000) },
      { limit: M, ...runs(2.3, 67800), keptHeap: runs(1.52, 4200) },
      { limit: 16 * M, ...runs(1.89, 47200), keptHeap: runs(1.35, 9800) },
    ];
    assert.equal(
      heapSentence(logP),
      "With a heap that keeps what it frees (glibc's malloc thresholds pinned, as the calibration runs git) the best runs took 2.01 s instead of 3.30 s at 0, 1.52 s instead of 2.30 s at 1m, 1.35 s instead of 1.89 s at 16m. Up to 1.29 s (39%) at 0 is glibc handing freed memory back to the kernel and faulting it in again, 90,600 more page faults: the estimate, made with the thresholds pinned, does not model it.",
    );
    // Within a twentieth everywhere: said so, not blamed on the heap.
    assert.match(
      heapSentence([{ limit: 0, ...runs(2.0, 5000), keptHeap: runs(1.95, 4000) }])!,
      /: the heap's handing memory back is not where this command's time goes\.$/,
    );
    assert.equal(heapSentence([{ limit: 0, ...runs(2.0, 5000) }]), undefined, 'no kept-heap runs, no sentence');
  });

  test('the repack preview adds a read-time row per limit only when priced', () => {
    const side = (readSeconds: number | null) => ({
      inflations: [
        {
          limit: M,
          reads: 10,
          logged: 10,
          inflations: 5,
          deltaApplications: 2,
          inflatedBytes: 100,
          appliedBytes: 300,
          readSeconds,
        },
      ],
      locality: [],
    });
    const replay = (a: number | null, b: number | null) =>
      ({
        recording: { file: '/r.psrec' },
        reads: 10,
        readsNotInPreview: 0,
        current: side(a),
        preview: side(b),
        estimate: null,
      }) as never;
    const priced = recordingRows(replay(1.234, 0.5));
    assert.deepEqual(priced.find((r) => r.key === `read-seconds-${M}`)?.values, ['1.23 s', '0.50 s']);
    assert.equal(
      recordingRows(replay(null, null)).some((r) => r.key.startsWith('read-seconds')),
      false,
    );
  });
});
