// The Cache Lab's offer to complete a recording, in real Chromium: under a sweep with cells bounded
// wider than 1% of their inflations, one action "Complete at 4m, 16m…" for a recording that has its
// command, cwd and exact mode (posting `complete` with those limits, with progress and Cancel); for
// a terminal recording, what completion needs; nothing when the cells are exact or narrow. Loaded
// by run.mjs.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { recordingInfo, SWEEP_LIMITS, SWEEP_POLICIES, sweepResult } from './fixtures.mjs';
import { initMessage, openLab, outDir, posted, send } from './harness.mjs';

const M = 1024 * 1024;

/** The fixture's sweep with git's cells at 4m and 16m bounded by `share` of their inflations. */
function boundedSweep(share, info = recordingInfo()) {
  const result = sweepResult(info);
  for (const cell of result.results) {
    if (cell.policy !== 'git' || (cell.limit !== 4 * M && cell.limit !== 16 * M)) continue;
    const width = Math.round(cell.inflations * share);
    cell.exact = false;
    cell.bounds = {
      logged: [cell.logged, cell.logged + width],
      inflations: [cell.inflations, cell.inflations + width],
      deltaApplications: [cell.deltaApplications, cell.deltaApplications + width],
      inflatedBytes: [cell.inflatedBytes, cell.inflatedBytes + width * 731],
    };
  }
  return result;
}

async function showSweep(page, result) {
  await send(page, {
    type: 'sweep',
    runId: `r-${Math.random()}`,
    request: { limits: SWEEP_LIMITS, policies: SWEEP_POLICIES },
    result,
  });
  await page.locator('#sweep-table tbody tr').first().waitFor();
}

describe('Cache Lab completion offer', () => {
  it('offers one action where bounds are wider than 1%, posts complete with progress and Cancel; nothing when exact or narrow', async () => {
    const { page, errors } = await openLab({ theme: 'light' });
    await send(page, initMessage());
    const box = page.locator('#completion');
    const button = page.locator('#complete');
    const cancel = page.locator('#complete-cancel');

    await showSweep(page, sweepResult());
    assert.equal(await box.isVisible(), false, 'exact cells: no offer');
    await showSweep(page, boundedSweep(0.005));
    assert.equal(await box.isVisible(), false, 'bounds within 1%: no offer');

    await showSweep(page, boundedSweep(0.3));
    assert.equal(await box.isVisible(), true);
    assert.equal(await button.textContent(), 'Complete at 4m, 16m…');
    assert.match(
      await page.locator('#completion-text').textContent(),
      /^Bounds wider than 1% of the inflations at 4m, 16m\. Completing runs git log --raw -n 60000 again 3 times .* in \/src\/git\.git /,
    );
    assert.equal(await cancel.isDisabled(), true);
    await page.locator('#completion').screenshot({ path: path.join(outDir, 'cache-lab-completion.png') });

    await button.click();
    const complete = (await posted(page)).find((m) => m.type === 'complete');
    assert.deepEqual(
      { type: complete.type, file: complete.file, limits: complete.limits },
      { type: 'complete', file: recordingInfo().file, limits: [4 * M, 16 * M] },
    );
    assert.equal(await button.isDisabled(), true, 'one completion at a time');
    assert.equal(await cancel.isDisabled(), false);
    await send(page, { type: 'runStarted', runId: complete.runId, jobs: ['complete'] });
    await send(page, {
      type: 'progress',
      runId: complete.runId,
      job: 'complete',
      message: 'run 2 of 3: git log --raw -n 60000 at core.deltaBaseCacheLimit=4m… 1,234 pack reads, 0.5 s',
    });
    assert.equal(
      await page.locator('#completion-status').textContent(),
      'Completing the recording: run 2 of 3: git log --raw -n 60000 at core.deltaBaseCacheLimit=4m… 1,234 pack reads, 0.5 s',
    );
    assert.notEqual(
      await page.locator('#status-text').textContent(),
      await page.locator('#completion-status').textContent(),
    );
    await cancel.click();
    assert.deepEqual(
      (await posted(page)).filter((m) => m.type === 'cancel'),
      [{ type: 'cancel', runId: complete.runId }],
    );
    await send(page, { type: 'runEnded', runId: complete.runId, outcome: 'cancelled' });
    assert.equal(await page.locator('#completion-status').textContent(), 'Cancelled.');
    assert.equal(await button.isDisabled(), false);
    assert.equal(await cancel.isDisabled(), true);

    // Completed: the host points the panel at the new recording and its sweep is exact there.
    await showSweep(
      page,
      sweepResult(recordingInfo({ file: '/home/user/.cache/packscope/recordings/lograw.complete-4m-16m.psrec' })),
    );
    assert.equal(await box.isVisible(), false);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('for a terminal recording, says that completion needs packscope record, with no action', async () => {
    const { page, errors } = await openLab();
    await send(page, initMessage());
    await showSweep(page, boundedSweep(0.3, recordingInfo({ command: null })));
    assert.equal(await page.locator('#completion').isVisible(), true);
    assert.equal(await page.locator('#complete').isVisible(), false);
    assert.equal(await page.locator('#complete-cancel').isVisible(), false);
    assert.match(
      await page.locator('#completion-text').textContent(),
      /A terminal recording has no single command to run again: completion needs packscope record --exact --complete=4m,16m -- <command>/,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
