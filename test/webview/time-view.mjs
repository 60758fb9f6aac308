// The Cache Lab's time view, in real Chromium: a sweep whose result carries a time
// estimate shows predicted seconds per limit and policy with the speed-up against the user's limit,
// each policy's knee in words and the recommendation, labelled an estimate with its calibration;
// after Measure for real, predicted and measured side by side with the error. The estimate sent is
// computed here by the cost model itself (src/core/cost/cost-model.ts timeView) on the fixture's
// counts, and what the page shows is compared with it number by number. Loaded by run.mjs.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tsImport } from 'tsx/esm/api';
import { SWEEP_LIMITS, SWEEP_POLICIES, sweepResult } from './fixtures.mjs';
import { initMessage, measureMessage, openLab, outDir, send } from './harness.mjs';

const { timeView } = await tsImport('../../src/core/cost/cost-model.ts', import.meta.url);
const { CALIBRATION_SCHEMA } = await tsImport('../../src/core/documents/calibration-document.ts', import.meta.url);
const { formatLimit } = await tsImport('../../src/common/format.ts', import.meta.url);
const { faultSentence, heapSentence, measuredAgainstPredicted } = await tsImport(
  '../../src/presentation/time-view-text.ts',
  import.meta.url,
);

const M = 1024 * 1024;
const parameters = { aInflate: 4e-7, bInflate: 3e-9, aDelta: 2e-7, bDelta: 2e-10, bCache: 1e-9, cHit: 0, cTrace: 3e-6 };
const calibration = {
  schema: CALIBRATION_SCHEMA,
  date: '2026-12-02T15:04:05.000Z',
  key: { packChecksum: '01'.repeat(20), node: 'v20.20.2', cpu: 'Test CPU 3000', git: '2.39.5' },
  pack: { path: '/src/git.git/.git/objects/pack/pack-0123.pack', objects: 849014 },
  seed: 16,
  repeats: 3,
  method: 'test',
  parameters,
  perRead: 2e-6,
  pageCacheMiss: { secondsPerByte: null, note: 'not measured' },
  loadAverage: [1, 1, 1],
  batches: new Array(14).fill({ reads: 1000 }),
  seconds: 20,
};

function timedSweep() {
  const result = sweepResult();
  for (const cell of result.results) cell.appliedBytes = cell.deltaApplications * 2000;
  const time = timeView(
    result.results,
    calibration,
    { seconds: 3.2, limit: 0 },
    { limit: 96 * M, source: 'git’s default (unset)' },
    formatLimit,
  );
  return { result: { ...result, time }, time };
}

describe('Cache Lab time view', () => {
  it('shows predicted seconds and speed-ups per limit and policy, the knees and the recommendation, as an estimate with its calibration', async () => {
    const { page, errors } = await openLab({ theme: 'light' });
    const { result, time } = timedSweep();
    await send(page, initMessage());
    await send(page, {
      type: 'sweep',
      runId: 't1',
      request: { limits: SWEEP_LIMITS, policies: SWEEP_POLICIES },
      result,
    });
    await page.locator('#time-table tbody tr').first().waitFor();
    const table = await page.evaluate(() =>
      [...document.querySelectorAll('#time-table tbody tr')].map((tr) => ({
        limit: Number(tr.dataset.limit),
        cells: [...tr.querySelectorAll('td')].map((td) => ({
          policy: td.dataset.policy,
          seconds: Number(td.dataset.seconds),
          speedUp: Number(td.dataset.speedUp),
          text: td.textContent,
        })),
      })),
    );
    assert.deepEqual(
      table.map((r) => r.limit),
      SWEEP_LIMITS,
    );
    for (const row of table) {
      for (const cell of row.cells) {
        const expected = time.cells.find((c) => c.policy === cell.policy && c.limit === row.limit);
        assert.ok(expected, `${cell.policy} at ${row.limit} is priced`);
        assert.equal(cell.seconds, expected.predictedSeconds);
        assert.equal(cell.speedUp, expected.speedUp);
        assert.match(cell.text, new RegExp(`×${expected.speedUp.toFixed(2)}$`));
      }
    }
    // The user's limit (96m, git's default) is marked and its git cell is ×1.00.
    assert.match(await page.locator(`#time-table tr[data-limit="${96 * M}"] th`).textContent(), /yours/);
    assert.equal(table.find((r) => r.limit === 96 * M).cells.find((c) => c.policy === 'git').speedUp, 1);
    const label = await page.locator('#time-label').textContent();
    assert.match(label, /^Estimate, not a measurement/);
    assert.match(label, /2026-12-02 15:04 UTC; git 2\.39\.5; Test CPU 3000; 14 timed lists/);
    assert.match(
      label,
      new RegExp(`plus ${time.nonRead.seconds.toFixed(2)} s of the command that is not object reading`),
    );
    const knees = await page.locator('#time-knees li').allTextContents();
    assert.equal(knees.length, time.knees.length);
    const gitKnee = time.knees.find((k) => k.policy === 'git');
    assert.ok(
      knees.some((k) => k.startsWith("git (today's Git): ") && k.includes(formatLimit(gitKnee.limit))),
      knees.join('\n'),
    );
    const recommendation = await page.locator('#time-recommendation').textContent();
    assert.equal(recommendation, `Recommendation (estimate): ${time.recommendation}`);
    await page.screenshot({ path: path.join(outDir, 'time-view-light.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('says why there is no estimate when the sweep has none', async () => {
    const { page, errors } = await openLab();
    await send(page, initMessage());
    await send(page, {
      type: 'sweep',
      runId: 't2',
      request: { limits: SWEEP_LIMITS, policies: SWEEP_POLICIES },
      result: { ...sweepResult(), timeError: 'a time estimate needs a recording (packscope record)' },
    });
    await page.locator('#sweep-table tbody tr').first().waitFor();
    assert.equal(
      await page.locator('#time-label').textContent(),
      'No time estimate: a time estimate needs a recording (packscope record)',
    );
    assert.equal(await page.locator('#time-table').isHidden(), true);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('while the time view is still coming, says so under the sweep table, then shows it in place', async () => {
    const { page, errors } = await openLab();
    const { result } = timedSweep();
    await send(page, initMessage());
    const { time: _time, ...counts } = result;
    await send(page, {
      type: 'sweep',
      runId: 't4',
      request: { limits: SWEEP_LIMITS, policies: SWEEP_POLICIES },
      result: counts,
      timePending: true,
    });
    await page.locator('#sweep-table tbody tr').first().waitFor();
    assert.match(await page.locator('#time-label').textContent(), /^Estimating time after the other results/);
    assert.equal(await page.locator('#time-table').isHidden(), true);
    await send(page, {
      type: 'sweep',
      runId: 't4',
      request: { limits: SWEEP_LIMITS, policies: SWEEP_POLICIES },
      result,
    });
    await page.locator('#time-table tbody tr').first().waitFor();
    assert.doesNotMatch(await page.locator('#time-label').textContent(), /Estimating time/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('Measure for real: predicted and measured side by side, with the error and how much of the command is object reading', async () => {
    const { page, errors } = await openLab();
    const { result, time } = timedSweep();
    await send(page, initMessage());
    await send(page, {
      type: 'sweep',
      runId: 't3',
      request: { limits: SWEEP_LIMITS, policies: SWEEP_POLICIES },
      result,
    });
    const measure = measureMessage();
    await send(page, measure);
    await page.locator('#measure-table tbody tr').first().waitFor();
    const expected = measuredAgainstPredicted(time, measure.result);
    const rows = await page.evaluate(() =>
      [...document.querySelectorAll('#measure-table tbody tr')].map((tr) => ({
        predicted: Number(tr.querySelector('td.predicted').dataset.value),
        error: Number(tr.querySelector('td.error').dataset.value),
        errorText: tr.querySelector('td.error').textContent,
        faults: Number(tr.querySelector('td.faults').dataset.value),
      })),
    );
    assert.equal(rows.length, expected.rows.length);
    rows.forEach((row, i) => {
      assert.equal(row.predicted, expected.rows[i].predicted);
      assert.equal(
        row.predicted,
        time.cells.find((c) => c.policy === 'git' && c.limit === SWEEP_LIMITS[i]).predictedSeconds,
      );
      assert.equal(row.error, expected.rows[i].predicted / measure.result.results[i].bestSeconds - 1);
      assert.match(row.errorText, /^[+-]\d+\.\d%$/);
      // The faults of the run with the best wall time (the second of three).
      assert.equal(row.faults, measure.result.results[i].minorFaults[1]);
    });
    const notes = await page.locator('#measure-notes li').allTextContents();
    assert.match(notes[0], /^Predicted against measured: the largest error is/);
    assert.match(notes[1], /of the command is object reading\.$/);
    assert.equal(notes[2], faultSentence(expected.rows));
    assert.match(notes[2], /^Page faults of the best runs: 94,000 at 0, .* more at 0 than at .* are memory/);
    assert.equal(notes.length, 3, 'no kept split in this message: no word of it');
    // With the server's word on the split it kept, the note says so.
    const kept = {
      split: { nonReadSeconds: 1.5, readScale: 0.8 },
      file: '/cache/calibrations/x.json',
      note: 'kept with the calibration of /p.pack: time estimates of this command now start from these runs',
    };
    await send(page, { ...measure, result: { ...measure.result, kept } });
    await page.waitForFunction(() => document.querySelectorAll('#measure-notes li').length === 4);
    const withKept = await page.locator('#measure-notes li').allTextContents();
    assert.equal(withKept[3], `The split of this command's time: ${kept.note}.`);
    // Runs on a kept heap too: a column of their own and the sentence of what the heap costs.
    const heapResult = {
      ...measure.result,
      heapTunables: 'glibc.malloc.trim_threshold=268435456',
      results: measure.result.results.map((r, i) => ({
        ...r,
        keptHeap: {
          seconds: [2 - i * 0.2],
          bestSeconds: 2 - i * 0.2,
          cpuSeconds: [2 - i * 0.2],
          minorFaults: [4000 + i * 1000],
        },
      })),
    };
    await send(page, { ...measure, result: heapResult });
    await page.waitForFunction(() => document.querySelectorAll('#measure-table td.kept-heap').length > 0);
    const keptCells = await page.locator('#measure-table td.kept-heap').allTextContents();
    assert.deepEqual(
      keptCells,
      heapResult.results.map(
        (r) => `${r.keptHeap.bestSeconds.toFixed(3)}, ${r.keptHeap.minorFaults[0].toLocaleString('en-US')}`,
      ),
    );
    const heapNotes = await page.locator('#measure-notes li').allTextContents();
    assert.equal(heapNotes[3], heapSentence(heapResult.results));
    assert.match(heapNotes[3], /^With a heap that keeps what it frees/);
    await page.locator('#measure-table').screenshot({ path: path.join(outDir, 'measure-kept-heap-table.png') });
    await page.locator('#measure-notes').screenshot({ path: path.join(outDir, 'measure-kept-heap-notes.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
