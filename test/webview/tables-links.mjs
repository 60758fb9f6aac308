#!/usr/bin/env node
// Webview tables in a real Chromium: seek distances in binary units with the exact bytes on hover
// (the Cache Lab's locality tables, the Repack Preview's recording rows), and object ids that open
// the object (the Repack Preview's largest changes post `openObject`, which the host turns into
// packscope.openObject). The Repack Preview shows a real run: `packscope repack-preview --json` of a
// repository git made here, with a recording of `git log --raw` over it.
//
//   node test/webview/tables-links.mjs
//
// Screenshots: test-artifacts/webview/tables-links-*.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { servePage } from './serve-page.mjs';
import { after, describe, it } from 'node:test';
import { tsImport } from 'tsx/esm/api';
import { localityResult } from './fixtures.mjs';
import { browserContext, openLab, outDir, root, send, setTheme } from './harness.mjs';

const { webviewHtml } = await tsImport('../../src/extension/webview-html.ts', import.meta.url);
const { WEBVIEW_PANELS } = await tsImport('../../src/extension/webview-panels.ts', import.meta.url);
const REPACK_PREVIEW_PAGE = WEBVIEW_PANELS.repackPreview;
const repackProtocol = await tsImport('../../src/protocol/repack-preview-protocol.ts', import.meta.url);
const { formatBytes, formatCount } = await tsImport('../../src/common/format.ts', import.meta.url);
const { recordingRows, repackPreviewMarkdown } = await tsImport(
  '../../src/presentation/repack-preview-tables.ts',
  import.meta.url,
);

const ORIGIN = 'https://repack-preview.webview.test';
const NONCE = 'TestNonce0123456789abcdefABCDEF';

// ---- A real repository, a real recording and a real repack preview ---------------------------------
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-webview-tables-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));
const repo = path.join(work, 'repo');
const env = {
  ...process.env,
  HOME: work,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
  PACKSCOPE_NO_PROGRESS: '1',
  PACKSCOPE_CACHE_DIR: path.join(work, 'models'),
  TMPDIR: work,
};
const git = (...args) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' });
fs.mkdirSync(repo);
git('init', '-q', '-b', 'main');
for (let c = 0; c < 30; c++) {
  for (let f = 0; f < 4; f++)
    fs.writeFileSync(
      path.join(repo, `file${f}.txt`),
      Array.from(
        { length: 50 + c * 4 },
        (_, i) => `line ${i} of file ${f} ${i % 5 === c % 5 ? `changed in ${c}` : ''}`,
      ).join('\n'),
    );
  git('add', '-A');
  git('commit', '-q', '-m', `commit ${c}`);
}
// Shallow deltas today, so that a deeper preview changes objects' sizes on disk.
git('repack', '-adfq', '--depth=2', '--window=2');
const cli = (...args) =>
  execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'cli', 'main.ts'), ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
const recording = path.join(work, 'log.psrec');
cli('record', '-o', recording, '-C', repo, '--', 'log', '--raw', '-n', '25');
const result = JSON.parse(
  cli('repack-preview', '--json', '--depth', '50', '--window', '50', '--threads', '1', '--recording', recording, repo),
);
assert.equal(result.schema, 'packscope.repack-preview/1');
assert.ok(result.largestChanges.length > 0, 'the preview changes some objects on disk');
const gitDir = fs.realpathSync(path.join(repo, '.git'));
// A repository-derived name with markup in it: it must reach the page as text.
const HOSTILE_NAME = '<img src=x onerror="window.__pwned=1">repo';
const run = {
  request: {
    label: 'Custom',
    depth: 50,
    window: 50,
    threads: 1,
    reuseDeltas: false,
    extraOptions: [],
    estimateOnly: false,
  },
  repositoryName: HOSTILE_NAME,
  repositoryId: gitDir,
  finishedAt: new Date().toISOString(),
  requestSeconds: 1.5,
  result,
};

async function openRepackPreview() {
  const page = await browserContext().newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const html = webviewHtml(REPACK_PREVIEW_PAGE, {
    cspSource: ORIGIN,
    nonce: NONCE,
    scriptUri: `${ORIGIN}/dist/webview/repack-preview.js`,
    styleUris: REPACK_PREVIEW_PAGE.styles.map((parts) => `${ORIGIN}/${parts.join('/')}`),
  }).replace(
    '<head>',
    `<head>\n<script nonce="${NONCE}">
window.__posted = []; window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
let state = null;
window.acquireVsCodeApi = () => ({
  postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
  getState: () => state,
  setState: (s) => { state = JSON.parse(JSON.stringify(s)); },
});
</script>`,
  );
  await servePage(page, { origin: ORIGIN, root, html });
  await page.goto(`${ORIGIN}/index.html`);
  await setTheme(page, 'dark');
  await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
  await send(page, { type: 'show', version: repackProtocol.REPACK_PREVIEW_PROTOCOL_VERSION, run });
  await page.locator('#largest-changes tbody tr').first().waitFor();
  return { page, errors };
}

const openObjectPosts = (page) => page.evaluate(() => window.__posted.filter((m) => m.type === 'openObject'));

describe('Cache Lab locality tables', () => {
  it('show seek distances in KiB/MiB with the exact bytes on hover, and the byte span likewise', async () => {
    const { page, errors } = await openLab();
    const locality = localityResult();
    await send(page, { type: 'locality', runId: 'r1', slot: 'primary', result: locality });
    await page.locator('#tab-locality').click();
    await page.locator('#locality-percentiles tbody tr').first().waitFor();
    const cells = await page.locator('#locality-percentiles tbody tr').evaluateAll((rows) =>
      rows.map((r) => {
        const td = r.querySelector('td');
        return {
          p: r.querySelector('th').textContent,
          text: td.textContent,
          title: td.getAttribute('title'),
          value: Number(td.dataset.value),
        };
      }),
    );
    const pack = locality.packs[0];
    assert.equal(cells.length, pack.percentiles.length);
    for (const [i, { p, bytes }] of pack.percentiles.entries()) {
      assert.equal(cells[i].p, `${p}%`);
      assert.equal(cells[i].text, formatBytes(bytes, 'compact'));
      assert.equal(cells[i].title, `${formatCount(bytes)} ${bytes === 1 ? 'byte' : 'bytes'}`);
      assert.equal(cells[i].value, bytes);
    }
    // Binary units, not bare byte counts: the largest percentile of the fixture is in MiB.
    assert.match(cells[cells.length - 1].text, /^[\d.]+ (KiB|MiB|GiB)$/);
    const span = page.locator('#locality-stats tbody tr', { hasText: 'byte span' }).locator('td');
    assert.equal(await span.textContent(), formatBytes(pack.byteSpan, 'compact'));
    assert.equal(await span.getAttribute('title'), `${formatCount(pack.byteSpan)} bytes`);
    await page.screenshot({ path: path.join(outDir, 'tables-links-locality.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('Repack Preview tables', () => {
  it('object ids open the object: a click and the keyboard post openObject with the full id of an object git has', async () => {
    const { page, errors } = await openRepackPreview();
    const rows = page.locator('#largest-changes tbody tr');
    assert.equal(await rows.count(), result.largestChanges.length);
    const first = result.largestChanges[0];
    const link = rows.first().locator('button.object-link');
    assert.equal(await link.textContent(), first.oid.slice(0, 12));
    assert.equal(await link.getAttribute('data-oid'), first.oid);
    assert.match(await link.getAttribute('title'), new RegExp(`^${first.oid}`));
    await link.click();
    assert.deepEqual(await openObjectPosts(page), [{ type: 'openObject', oid: first.oid }]);
    // The id names an object of this repository, of the type the table says (git cat-file).
    assert.equal(git('cat-file', '-t', first.oid).trim(), first.type);
    // Keyboard: Tab reaches the next id, Enter opens it.
    const second = result.largestChanges[1] ?? first;
    await rows
      .nth(result.largestChanges.length > 1 ? 1 : 0)
      .locator('button.object-link')
      .focus();
    await page.keyboard.press('Enter');
    const posts = await openObjectPosts(page);
    assert.deepEqual(posts[posts.length - 1], { type: 'openObject', oid: second.oid });
    // Every message the page posted is one the host accepts.
    for (const m of await page.evaluate(() => window.__posted))
      assert.ok(repackProtocol.isWebviewToHost(m), JSON.stringify(m));
    await page.screenshot({ path: path.join(outDir, 'tables-links-repack-preview.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("draws the depth histogram linear by default, each bar's share of git's objects printed above it, log on request", async () => {
    const { page, errors } = await openRepackPreview();
    const chart = page.locator('#depth-chart');
    await chart.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('#depth-chart')?.dataset.shares !== undefined);
    assert.equal(await chart.getAttribute('data-scale'), 'linear');
    assert.equal(await page.locator('#log-scale').isChecked(), false);
    // The shares printed are each layout's counts over its objects: git's pack today and the preview's repack.
    const layouts = {
      current: result.current.depthHistogram,
      preview: result.preview.depthHistogram,
      ...(result.estimate ? { "estimate (today's deltas)": result.estimate.estimate.depthHistogram } : {}),
    };
    const expected = (label, depth) => {
      const histogram = layouts[label];
      const share = (100 * histogram[depth]) / histogram.reduce((a, b) => a + b, 0);
      return share >= 0.1 ? `${share.toFixed(1)}%` : '<0.1%';
    };
    const shares = JSON.parse(await chart.getAttribute('data-shares'));
    assert.ok(shares.length >= 4, JSON.stringify(shares));
    for (const [label, depth, text] of shares) assert.equal(text, expected(label, depth), `${label} depth ${depth}`);
    // Every bar of today's pack (depth 0 … 2, repacked with --depth=2 by the test) has its share.
    assert.deepEqual(
      shares.filter(([label]) => label === 'current').map(([, depth]) => depth),
      layouts.current.flatMap((n, d) => (n > 0 ? [d] : [])),
    );
    // Linear: the bars' tops lie on one line through the counts (the label sits 2 px above each top): for
    // any three bars of a layout, the pixels between tops are in proportion to the counts between them.
    for (const label of ['current', 'preview']) {
      const bars = shares.filter(([l]) => l === label).map(([, depth, , , y]) => [layouts[label][depth], y]);
      assert.ok(bars.length >= 2, `${label}: ${JSON.stringify(bars)}`);
      const [c0, y0] = bars[0];
      const [c1, y1] = bars.find(([c]) => c !== c0) ?? bars[1];
      const perObject = (y1 - y0) / (c1 - c0);
      for (const [c, y] of bars)
        assert.ok(
          Math.abs(y0 + (c - c0) * perObject - y) <= 1.5,
          `${label}: ${c} objects at ${y} (${JSON.stringify(bars)})`,
        );
    }
    await page.locator('#depth-title').scrollIntoViewIfNeeded();
    await page.locator('#depth-chart').screenshot({ path: path.join(outDir, 'repack-preview-histogram-linear.png') });
    await page.locator('#log-scale').check();
    await page.waitForFunction(() => document.querySelector('#depth-chart')?.dataset.scale === 'logarithmic');
    const logShares = JSON.parse(await chart.getAttribute('data-shares'));
    assert.deepEqual(
      logShares.map(([label, depth, text]) => [label, depth, text]),
      shares.map(([label, depth, text]) => [label, depth, text]),
      'the same shares on either scale',
    );
    await page.locator('#depth-chart').screenshot({ path: path.join(outDir, 'repack-preview-histogram-log.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('names each changed object by its path beside its id (git rev-list --objects --all), "resolving names…" until the host has it, in the Markdown too', async () => {
    const { page, errors } = await openRepackPreview();
    const rows = page.locator('#largest-changes tbody tr');
    // The host has not sent names yet: every row says so rather than showing nothing.
    for (const text of await rows.locator('td.path').allTextContents()) assert.equal(text, 'resolving names…');
    assert.match(repackPreviewMarkdown(run), /\| resolving names… \|/);
    // git's names, as the server's walk gives them (bytes, here ASCII); a commit has no path.
    const revList = new Map(
      git('rev-list', '--objects', '--all')
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.slice(0, 40), line.length > 40 ? line.slice(41) : undefined]),
    );
    const names = Object.fromEntries(
      result.largestChanges.map((c) => [c.oid, revList.get(c.oid) === undefined ? {} : { path: revList.get(c.oid) }]),
    );
    const named = { ...run, names };
    // The host's `names` message: the path cells change in place, the rest of the page stays (the chart too).
    const chartBefore = await page.locator('#depth-chart').elementHandle();
    await send(page, { type: 'names', names });
    await page.waitForFunction(
      () => !document.querySelector('#largest-changes td.path')?.textContent?.includes('resolving'),
    );
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => [tr.dataset.oid, tr.querySelector('td.path').textContent]),
    );
    assert.equal(shown.length, result.largestChanges.length);
    let withPath = 0;
    for (const [oid, text] of shown) {
      const path = revList.get(oid);
      assert.equal(text, path === undefined ? '' : path === '' ? '(root tree)' : path, oid);
      if (path) withPath++;
    }
    assert.ok(withPath > 0, 'some changed object is a blob or tree with a path');
    assert.ok(await chartBefore.evaluate((el) => el.isConnected), 'the chart was not drawn again');
    const markdown = repackPreviewMarkdown(named);
    assert.match(markdown, /^\| Object \| Path \| Type \|/m);
    for (const change of result.largestChanges) {
      const path = revList.get(change.oid);
      if (path) assert.ok(markdown.includes(`| \`${change.oid}\` | \`${path}\` |`), `${change.oid} ${path}`);
    }
    await rows.first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(outDir, 'tables-links-repack-preview-paths.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('shows the repository name as text, never markup, under the CSP', async () => {
    const { page, errors } = await openRepackPreview();
    assert.equal(await page.locator('h1').textContent(), `Repack preview: ${HOSTILE_NAME}`);
    assert.equal(await page.locator('main img').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('seek distances of the recording rows show the exact bytes on hover', async () => {
    const { page } = await openRepackPreview();
    const replay = result.recordings[0];
    assert.ok(replay, 'the preview replayed the recording');
    const expected = recordingRows(replay);
    for (const key of ['p50', 'p90', 'p99']) {
      const row = expected.find((r) => r.key === key);
      const cells = await page
        .locator(`.recording tr[data-key="${key}"] td`)
        .evaluateAll((tds) => tds.map((td) => ({ text: td.textContent, title: td.getAttribute('title') })));
      assert.deepEqual(
        cells.map((c) => c.text),
        row.values,
      );
      assert.deepEqual(
        cells.map((c) => c.title ?? undefined),
        row.titles,
      );
      // Each hover is the exact distance behind the rounded one shown.
      for (const [i, c] of cells.entries()) {
        assert.match(c.title, /^[\d,]+ bytes?$/);
        assert.equal(formatBytes(Number(c.title.replace(/[^\d]/g, ''))), c.text, `${key} column ${i}`);
      }
    }
    await page.close();
  });

  it('the host accepts openObject only with a full lowercase hex id', () => {
    assert.equal(repackProtocol.isWebviewToHost({ type: 'openObject', oid: 'a'.repeat(40) }), true);
    assert.equal(repackProtocol.isWebviewToHost({ type: 'openObject', oid: 'b'.repeat(64) }), true);
    for (const oid of [
      'a'.repeat(39),
      'A'.repeat(40),
      `${'a'.repeat(40)}\n`,
      '<script>',
      42,
      undefined,
      'a'.repeat(50),
    ]) {
      assert.equal(repackProtocol.isWebviewToHost({ type: 'openObject', oid }), false, String(oid));
    }
  });
});
