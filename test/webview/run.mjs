#!/usr/bin/env node
// Webview unit tests for the Cache Lab, in a real Chromium (Debian's, through playwright-core, as
// scripts/vscode/code-server.mjs launchBrowser): the bundled dist/webview/cache-lab.js runs in the
// page the host builds (webviewHtml with the table's Cache Lab row, same CSP and nonce rule), with a stub acquireVsCodeApi.
//
//   node test/webview/run.mjs
//
// Type-checks the webviews (media/tsconfig.json: DOM types) first and builds the bundle when it is missing
// (harness.mjs). Run some: node --test-name-pattern='sweep chart' test/webview/run.mjs.
// Screenshots: test-artifacts/webview/.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  HOSTILE_FILE,
  README_MARKDOWN,
  README_TABLE,
  SWEEP_INFLATIONS,
  SWEEP_LIMITS,
  SWEEP_POLICIES,
  indexPackResults,
  localityResult,
  recordingInfo,
  sweepResult,
} from './fixtures.mjs';
import {
  ORIGIN,
  THEMES,
  contentSecurityPolicy,
  gitCommandLine,
  initMessage,
  measureMessage,
  openLab,
  outDir,
  posted,
  protocol,
  readSweepTable,
  send,
  sendKnownSweep,
  setTheme,
} from './harness.mjs';
// The sweep chart's views (zoomed, relative, log, limit 0 apart): their own file, in this run.
import './sweep-chart-views.mjs';
// The time view: its own file, in this run.
import './time-view.mjs';
// The offer to complete a recording whose bounds are wide: its own file, in this run.
import './completion.mjs';

describe('Cache Lab webview', () => {
  it('posts ready with the protocol version, under the CSP, without errors', async () => {
    const { page, errors } = await openLab();
    const messages = await posted(page);
    assert.deepEqual(messages[0], { type: 'ready', version: protocol.CACHE_LAB_PROTOCOL_VERSION });
    const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    assert.equal(csp, contentSecurityPolicy({ cspSource: ORIGIN, nonce: 'TestNonce0123456789abcdefABCDEF' }));
    assert.match(csp, /default-src 'none'/);
    await sendKnownSweep(page);
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('draws a known sweep: the table holds the numbers sent, the chart one line per policy on a log limit axis', async () => {
    const { page } = await openLab();
    await sendKnownSweep(page);
    const table = await readSweepTable(page);
    assert.deepEqual(table.policies, SWEEP_POLICIES);
    assert.deepEqual(
      table.rows.map((r) => r.limit),
      SWEEP_LIMITS,
    );
    assert.deepEqual(
      table.rows.map((r) => r.cells),
      SWEEP_INFLATIONS,
    );
    assert.equal(table.rows[1].shown[0], '535,983');
    assert.match(table.caption, /^Inflations over 215237 reads/);
    // Real table semantics for screen readers.
    assert.equal(await page.locator('#sweep-table thead th[scope=col]').count(), SWEEP_POLICIES.length + 1);
    assert.equal(await page.locator('#sweep-table tbody th[scope=row]').count(), SWEEP_LIMITS.length);
    // A policy checked against a real build of git says so: a ✓ in its header, the build in the tooltip and the footnote.
    const gdsfHead = page.locator('#sweep-table thead th[data-policy="gdsf"]');
    assert.equal(await gdsfHead.locator('[data-checked]').getAttribute('data-checked'), 'git 2.55.0 + gdsf.patch');
    assert.match((await gdsfHead.getAttribute('title')) ?? '', /checked against git 2\.55\.0 \+ gdsf\.patch/);
    assert.equal(await page.locator('#sweep-table thead th[data-policy="belady"] [data-checked]').count(), 0);
    assert.match(
      (await page.locator('#sweep-table tfoot').textContent()) ?? '',
      /checked against real builds of git \(docs\/policies\.md\): gdsf: git 2\.55\.0 \+ gdsf\.patch/,
    );

    const canvas = page.locator('#sweep-chart');
    const series = JSON.parse(await canvas.getAttribute('data-series'));
    assert.deepEqual(series.slice(0, SWEEP_POLICIES.length), [
      "git (today's Git)",
      'git-legacy',
      'gdsf',
      'libgit2:as-shipped',
      'belady (reference bound)',
    ]);
    assert.equal(series.length, SWEEP_POLICIES.length + 1, 'one line per policy, plus the 96m marker');
    assert.match(series[series.length - 1], /^96m/);
    assert.deepEqual(JSON.parse(await canvas.getAttribute('data-scales')), { x: 'logarithmic', y: 'linear' });
    assert.match(await canvas.getAttribute('aria-label'), /log scale/);
    assert.equal(await canvas.getAttribute('role'), 'img');

    const sentences = await page.locator('#reference-sentences li').allTextContents();
    assert.equal(sentences.length, SWEEP_LIMITS.length);
    assert.equal(
      sentences[4],
      "At 96m, Git's LRU does 0.7% more inflations than the reference bound (231273 against 229693).",
    );
    assert.equal(
      sentences[1],
      "At 1m, Git's LRU does 27% more inflations than the reference bound (535983 against 421968).",
    );
    await page.close();
  });

  it('shows a cell that is not exact as its bounds, with why in the tooltip; without bounds as ≈ (git-internals §8.1)', async () => {
    const { page } = await openLab();
    await send(page, initMessage());
    const result = sweepResult();
    const bounded = result.results.find((cell) => cell.policy === 'git' && cell.limit === SWEEP_LIMITS[1]);
    Object.assign(bounded, {
      exact: false,
      bounds: {
        logged: [215237, 215237],
        inflations: [535983, 535990],
        deltaApplications: [0, 0],
        inflatedBytes: [0, 0],
      },
      exactness: 'bounded: the recording may hide reads that miss at this limit',
    });
    const unbounded = result.results.find((cell) => cell.policy === 'belady' && cell.limit === SWEEP_LIMITS[1]);
    Object.assign(unbounded, { exact: false, bounds: null, exactness: 'no bounds for this policy' });
    await send(page, {
      type: 'sweep',
      runId: 'r1',
      request: { limits: SWEEP_LIMITS, policies: SWEEP_POLICIES },
      result,
    });
    await page.locator('#sweep-table tbody tr').first().waitFor();
    const table = await readSweepTable(page);
    assert.equal(table.rows[1].shown[0], '535,983–535,990');
    assert.equal(table.rows[1].shown[4], '≈421,968');
    assert.equal(table.rows[0].shown[0], '1,187,090', 'exact cells stay plain numbers');
    const tooltip = await page
      .locator(`#sweep-table tbody tr[data-limit="${SWEEP_LIMITS[1]}"] td[data-policy="git"]`)
      .getAttribute('title');
    assert.match(tooltip, /^Not exact: bounded: the recording may hide reads/);
    assert.equal(await page.locator('#sweep-table td[data-exact="false"]').count(), 2);
    assert.match(
      await page.locator('#sweep-table tfoot').textContent(),
      /min–max: not exact.*≈: not exact and no bounds/s,
    );
    await page.locator('#copy-text').click();
    const copy = (await posted(page)).find((m) => m.type === 'copy');
    assert.match(copy.text, /\n1m +535983–535990 +513870 +371799 +678099 +≈421968\n/);
    await page.close();
  });

  it('copies the table as text (as packscope sweep prints it) and as Markdown', async () => {
    const { page } = await openLab();
    await sendKnownSweep(page);
    await page.locator('#copy-text').click();
    await page.locator('#copy-markdown').click();
    const copies = (await posted(page)).filter((m) => m.type === 'copy');
    assert.deepEqual(copies, [
      { type: 'copy', format: 'text', text: README_TABLE },
      { type: 'copy', format: 'markdown', text: README_MARKDOWN },
    ]);
    await page.close();
  });

  it('Run posts the request from the controls; Cancel posts cancel for that run', async () => {
    const { page } = await openLab();
    await send(page, initMessage());
    assert.equal(await page.locator('#cancel').isDisabled(), true);
    await page.locator('#run').click();
    const run = (await posted(page)).find((m) => m.type === 'run');
    assert.deepEqual(run.request, {
      file: recordingInfo().file,
      segment: null,
      limits: SWEEP_LIMITS,
      policies: SWEEP_POLICIES,
      compareRecording: null,
    });
    assert.equal(await page.locator('#cancel').isDisabled(), false);
    await send(page, { type: 'progress', runId: run.runId, job: 'sweep', message: '12 of 30 cells', percentage: 40 });
    assert.equal(await page.locator('#status-text').textContent(), 'Sweeping: 12 of 30 cells');
    await page.locator('#cancel').click();
    assert.deepEqual(
      (await posted(page)).filter((m) => m.type === 'cancel'),
      [{ type: 'cancel', runId: run.runId }],
    );
    await send(page, { type: 'runEnded', runId: run.runId, outcome: 'cancelled' });
    assert.equal(await page.locator('#cancel').isDisabled(), true);
    assert.equal(await page.locator('#status-text').textContent(), 'Cancelled.');
    // A run the host started (opening on a recording) is cancellable too.
    await send(page, { type: 'runStarted', runId: 'host-1', jobs: ['sweep', 'indexPack', 'locality'] });
    await page.locator('#cancel').click();
    assert.deepEqual((await posted(page)).filter((m) => m.type === 'cancel').at(-1), {
      type: 'cancel',
      runId: 'host-1',
    });
    await page.close();
  });

  it('saves its state with setState and restores it after a reload', async () => {
    const { page } = await openLab();
    await send(page, initMessage());
    await page.locator('#metric').selectOption('inflatedBytes');
    await page.locator('#policies-placeholder, .policies label', { hasText: 'gdsf' }).locator('input').uncheck();
    await page.locator('#limits').fill('0,16m,96m');
    await page.locator('#limits').press('Tab');
    await page.locator('#tab-locality').click();
    const saved = await page.evaluate(() => window.__states.at(-1));
    assert.equal(saved.metric, 'inflatedBytes');
    assert.deepEqual(
      saved.policies,
      SWEEP_POLICIES.filter((p) => p !== 'gdsf'),
    );
    assert.deepEqual(saved.limits, [0, 16 * 1024 * 1024, 96 * 1024 * 1024]);
    assert.equal(saved.tab, 'locality');
    assert.equal(saved.recording, recordingInfo().file);
    const changes = (await posted(page)).filter((m) => m.type === 'stateChanged');
    assert.deepEqual(changes.at(-1).state, saved, 'the host hears every change');
    await page.close();

    // VS Code reloads the webview with the last setState: the controls come back before the host answers.
    const { page: again } = await openLab({ initialState: saved });
    assert.equal(await again.locator('#metric').inputValue(), 'inflatedBytes');
    assert.equal(await again.locator('#limits').inputValue(), '0,16m,96m');
    assert.equal(await again.locator('.policies label', { hasText: 'gdsf' }).locator('input').isChecked(), false);
    assert.equal(await again.locator('#tab-locality').getAttribute('aria-selected'), 'true');
    assert.equal(await again.locator('#panel-sweep').isHidden(), true);
    assert.equal(await again.locator('#recording').inputValue(), recordingInfo().file);
    await again.close();
  });

  it('tabs follow the WAI-ARIA pattern (arrow keys, roving tabindex)', async () => {
    const { page } = await openLab();
    await send(page, initMessage());
    await page.locator('#tab-sweep').focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.locator('#tab-locality').getAttribute('aria-selected'), 'true');
    assert.equal(await page.locator('#tab-locality').getAttribute('tabindex'), '0');
    assert.equal(await page.locator('#tab-sweep').getAttribute('tabindex'), '-1');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'tab-locality');
    assert.equal(await page.locator('#panel-locality').isVisible(), true);
    await page.keyboard.press('Home');
    assert.equal(await page.locator('#tab-sweep').getAttribute('aria-selected'), 'true');
    await page.close();
  });

  it('shows repository-derived strings as text, never as markup', async () => {
    const { page, errors } = await openLab();
    const info = recordingInfo({ file: HOSTILE_FILE, command: 'git log <script>alert(1)</script>' });
    await send(page, initMessage({ recording: HOSTILE_FILE }));
    await send(page, {
      type: 'sweep',
      runId: 'r',
      request: { limits: SWEEP_LIMITS, policies: SWEEP_POLICIES },
      result: sweepResult(info),
    });
    await send(page, { type: 'locality', runId: 'r', slot: 'primary', result: localityResult(info) });
    await page.locator('#sweep-table tbody tr').first().waitFor();
    assert.equal(await page.locator('#injected').count(), 0);
    assert.equal(await page.locator('main script').count(), 0);
    assert.match(await page.locator('#recording-summary').textContent(), /git log <script>alert\(1\)<\/script>/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('shows the command Measure ran and where, and says when it was reconstructed from a raw trace', async () => {
    const { page, errors } = await openLab();
    await sendKnownSweep(page);
    const args = ['log', '--format=%H %s <b id="injected">x</b>'];
    await send(
      page,
      measureMessage({ command: gitCommandLine(args), args, cwd: '/src/git.git', reconstructed: false }),
    );
    await page.locator('#measure-table tbody tr').first().waitFor();
    assert.equal(await page.locator('#measure-command').isVisible(), true);
    assert.equal(
      await page.locator('#measure-command code').textContent(),
      `git log '--format=%H %s <b id="injected">x</b>'`,
    );
    assert.match(await page.locator('#measure-command').textContent(), / in \/src\/git\.git\.$/);
    assert.equal(await page.locator('#measure-reconstructed').count(), 0, 'no note for a recording with metadata');
    assert.equal(await page.locator('#injected').count(), 0);
    assert.match(await page.locator('#measure-table caption').textContent(), /^git log '--format=%H %s/);

    await send(page, measureMessage({ runId: 'm2', reconstructed: true }));
    await page.locator('#measure-reconstructed').waitFor();
    assert.match(
      await page.locator('#measure-reconstructed').textContent(),
      /reconstructed from the trace .* may be inexact/,
    );
    assert.equal(await page.locator('#measure-command code').textContent(), 'git log --raw -n 60000');
    await page
      .locator('#measure-command')
      .screenshot({ path: path.join(outDir, 'cache-lab-measure-reconstructed.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('never says "No sweep yet. Press Run" while a sweep runs, whether the host or the page started it', async () => {
    const { page, errors } = await openLab();
    const summary = page.locator('#recording-summary');
    const chartAlt = page.locator('#sweep-chart-alt');
    await send(page, initMessage());
    await page.waitForFunction(() => document.querySelector('#recording-summary').textContent !== '');
    assert.equal(await summary.textContent(), 'No sweep yet. Press Run to replay this recording.');
    // A sweep the host started (the Recordings view's "Open in Cache Lab"), announced with runStarted.
    await send(page, { type: 'runStarted', runId: 'h1', jobs: ['recordingInfo', 'sweep', 'locality'] });
    await page.waitForFunction(() => document.querySelector('#recording-summary').textContent.startsWith('Sweeping'));
    assert.equal(await summary.textContent(), 'Sweeping… The table and the chart appear when the sweep ends.');
    assert.equal(await chartAlt.textContent(), 'Sweeping…');
    assert.equal(await page.locator('#sweep-chart').getAttribute('aria-label'), 'Sweeping…');
    await send(page, {
      type: 'progress',
      runId: 'h1',
      job: 'sweep',
      message: 'replaying 400,000 reads',
      percentage: 40,
    });
    await page.waitForFunction(
      () => document.querySelector('#sweep-chart-alt').textContent === 'Sweeping: replaying 400,000 reads',
    );
    await send(page, { type: 'jobEnded', runId: 'h1', job: 'sweep', outcome: 'cancelled' });
    await send(page, { type: 'runEnded', runId: 'h1', outcome: 'cancelled' });
    await page.waitForFunction(() =>
      document.querySelector('#recording-summary').textContent.startsWith('No sweep yet'),
    );
    assert.equal(await chartAlt.textContent(), 'No sweep yet.');
    // A sweep the page started with Run: said at once, before the host answers anything.
    await page.locator('#run').click();
    await page.waitForFunction(() => window.__posted.some((m) => m.type === 'run'));
    assert.equal(await summary.textContent(), 'Sweeping… The table and the chart appear when the sweep ends.');
    const run = (await posted(page)).find((m) => m.type === 'run');
    await send(page, { type: 'runStarted', runId: run.runId, jobs: ['recordingInfo', 'sweep'] });
    await send(page, {
      type: 'sweep',
      runId: run.runId,
      request: { limits: SWEEP_LIMITS, policies: SWEEP_POLICIES },
      result: sweepResult(),
    });
    await page.locator('#sweep-table tbody tr').first().waitFor();
    assert.doesNotMatch(await summary.textContent(), /No sweep yet|Press Run|Sweeping/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  for (const theme of ['light', 'dark']) {
    it(`renders the known sweep, index-pack and two recordings' locality in the ${theme} theme (screenshots)`, async () => {
      const { page, errors } = await openLab({ theme });
      await sendKnownSweep(page);
      await send(page, { type: 'indexPack', runId: 'r1', results: indexPackResults() });
      await send(page, measureMessage());
      await page.locator('#measure-table tbody tr').first().waitFor();
      assert.deepEqual(JSON.parse(await page.locator('#measure-chart').getAttribute('data-scales')), {
        x: 'logarithmic',
        y: 'linear',
        y1: 'linear',
      });
      const colours = JSON.parse(await page.locator('#sweep-chart').getAttribute('data-colours'));
      assert.equal(colours[0], THEMES[theme].vars['--vscode-charts-blue'], "today's Git is drawn in the theme's blue");
      await page.screenshot({ path: path.join(outDir, `cache-lab-sweep-${theme}.png`), fullPage: true });

      await send(page, { type: 'locality', runId: 'r1', slot: 'primary', result: localityResult() });
      await page.locator('#compare').evaluate(() => {}); // present
      await send(page, {
        type: 'state',
        state: { ...initMessage().state, compareRecording: '/tmp/blame.psrec', tab: 'locality' },
      });
      await send(page, {
        type: 'locality',
        runId: 'r1',
        slot: 'compare',
        result: localityResult(
          recordingInfo({ file: '/tmp/blame.psrec', command: 'git blame Makefile', reads: 9000 }),
          9000,
        ),
      });
      await page.locator('#tab-locality').click();
      const headings = await page.locator('#locality-stats thead th').allTextContents();
      assert.equal(headings.length, 3);
      assert.match(headings[1], /^A: git log --raw -n 60000/);
      assert.match(headings[2], /^B: git blame Makefile/);
      assert.deepEqual(JSON.parse(await page.locator('#distance-chart').getAttribute('data-scales')), {
        x: 'logarithmic',
        y: 'linear',
      });
      assert.equal(
        await page.locator('#locality-percentiles caption').textContent(),
        'Seek distance percentiles (nearest rank; hover a cell for the exact bytes)',
      );
      await page.screenshot({ path: path.join(outDir, `cache-lab-locality-${theme}.png`), fullPage: true });

      // A theme change (VS Code swaps the body class and the variables) redraws with the new colours.
      const other = theme === 'light' ? 'dark' : 'light';
      await page.locator('#tab-sweep').click();
      await setTheme(page, other);
      await page.waitForFunction(
        (blue) => JSON.parse(document.querySelector('#sweep-chart').dataset.colours)[0] === blue,
        THEMES[other].vars['--vscode-charts-blue'],
      );
      assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
});
