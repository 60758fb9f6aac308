#!/usr/bin/env node
// The "Where the bytes go" treemap webview in a real Chromium, the page as the host builds it (the
// table's row, its CSP and nonce), fed what the host would send: `packscope sizes --json` of a
// repository git made here, and a path's blobs as git lists them. Checked: each cell's area is its
// share of the directory's on-disk bytes, cells never overlap and stay inside the map; hover and
// focus show a cell's totals; click, Enter, the breadcrumb, Backspace and Escape zoom in and out;
// arrow keys move to the neighbouring cell; a path lists its blobs and a blob opens its object;
// Copy as Markdown asks for the current directory; colours follow the theme; a reload comes back
// to the directory and the blobs it showed.
//
//   node test/webview/bytes-treemap.mjs
//
// Screenshots: test-artifacts/webview/bytes-treemap-*.png.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { tsImport } from 'tsx/esm/api';
import { servePage } from './serve-page.mjs';
import { browserContext, outDir, root, send, setTheme } from './harness.mjs';

const { webviewHtml } = await tsImport('../../src/extension/webview-html.ts', import.meta.url);
const { WEBVIEW_PANELS } = await tsImport('../../src/extension/webview-panels.ts', import.meta.url);
const protocol = await tsImport('../../src/protocol/bytes-treemap-protocol.ts', import.meta.url);
const { formatBytes } = await tsImport('../../src/common/format.ts', import.meta.url);
const PAGE = WEBVIEW_PANELS.bytesTreemap;
const ORIGIN = 'https://bytes-treemap.webview.test';
const NONCE = 'TestNonce0123456789abcdefABCDEF';

// ---- A real repository and its sizes ------------------------------------------------------------
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-webview-treemap-'));
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
const git = (...args) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8', maxBuffer: 1 << 26 });
const write = (name, content) => {
  fs.mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
  fs.writeFileSync(path.join(repo, name), content);
};
/** Bytes that do not compress: their on-disk size is about their size. */
const noise = (seed, bytes) => {
  const out = Buffer.alloc(bytes);
  let block = crypto.createHash('sha256').update(seed).digest();
  for (let i = 0; i < bytes; i += 32) {
    block.copy(out, i);
    block = crypto.createHash('sha256').update(block).digest();
  }
  return out;
};
fs.mkdirSync(repo);
git('init', '-q', '-b', 'main');
for (let c = 0; c < 6; c++) {
  write('assets/logo.png', noise(`logo ${c}`, 30_000));
  write('assets/icons/small.png', noise(`icon ${c}`, 4_000));
  write('src/lib/big.bin', noise(`big ${c}`, 60_000 + c * 1000));
  write('src/lib/util.c', noise(`util ${c}`, 14_000));
  write('src/lib/strings.c', `int strings${c};\n`.repeat(400));
  write('src/main.c', noise(`main ${c}`, 9_000));
  write('src/parser.c', noise(`parser ${c}`, 22_000 + c * 500));
  write('src/net/http.c', noise(`http ${c}`, 12_000));
  write('src/net/tls.c', noise(`tls ${c}`, 7_000));
  write('docs/guide.md', noise(`guide ${c}`, 8_000));
  write('README', `readme ${c}\n`.repeat(50));
  if (c < 3) write('old/archive.tar', noise(`archive ${c}`, 20_000));
  else fs.rmSync(path.join(repo, 'old'), { recursive: true, force: true });
  git('add', '-A');
  git('commit', '-q', '-m', `commit ${c}`);
}
git('repack', '-adfq');
const gitDir = fs.realpathSync(path.join(repo, '.git'));
const sizes = JSON.parse(
  execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'src', 'cli', 'main.ts'), 'sizes', '--json', repo],
    {
      cwd: root,
      env,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    },
  ),
);
assert.equal(sizes.schema, 'packscope.sizes/1');
const data = {
  repositoryId: gitDir,
  repositoryName: 'repo',
  directories: sizes.directories,
  paths: sizes.paths,
  omittedPaths: 0,
  commits: sizes.history.commits,
};
const row = (list, name) => list.find((r) => r.path === name);

/** The blobs at a path as git lists them, newest first, with cat-file's sizes: what packscope/pathBlobs answers. */
function gitBlobs(file) {
  const lines = git(
    'log',
    '--all',
    '--full-history',
    '--format=C %H %cd',
    '--date=short',
    '--raw',
    '--no-abbrev',
    '--',
    file,
  ).split('\n');
  const blobs = [];
  let commit;
  for (const line of lines) {
    if (line.startsWith('C ')) commit = line.split(' ').slice(1);
    const m = /^:\S+ \S+ \S+ ([0-9a-f]{40}) /.exec(line);
    if (m && !/^0+$/.test(m[1]) && !blobs.some((b) => b.oid === m[1]))
      blobs.push({ oid: m[1], commit: commit[0], date: commit[1] });
  }
  const checks = execFileSync('git', ['cat-file', '--batch-check=%(objectsize) %(objectsize:disk)'], {
    cwd: repo,
    env,
    input: blobs.map((b) => b.oid).join('\n') + '\n',
    encoding: 'utf8',
  })
    .trim()
    .split('\n');
  return blobs.map((b, i) => {
    const [inflated, disk] = checks[i].split(' ').map(Number);
    return { ...b, stored: 'packed', inflated, disk, depth: 0 };
  });
}

async function openTreemap({ theme = 'dark', initialState = null, viewport = { width: 1000, height: 700 } } = {}) {
  const page = await browserContext().newPage();
  await page.setViewportSize(viewport);
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const html = webviewHtml(PAGE, {
    cspSource: ORIGIN,
    nonce: NONCE,
    scriptUri: `${ORIGIN}/dist/webview/${PAGE.script}`,
    styleUris: PAGE.styles.map((parts) => `${ORIGIN}/${parts.join('/')}`),
  }).replace(
    '<head>',
    `<head>\n<script nonce="${NONCE}">
window.__posted = []; window.__states = []; window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
let state = ${JSON.stringify(initialState)};
window.acquireVsCodeApi = () => ({
  postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
  getState: () => state,
  setState: (s) => { state = JSON.parse(JSON.stringify(s)); window.__states.push(state); },
});
</script>`,
  );
  await servePage(page, { origin: ORIGIN, root, html });
  await page.goto(`${ORIGIN}/index.html`);
  await setTheme(page, theme);
  const ready = await waitForPost(page, 'ready');
  assert.deepEqual(ready.version, protocol.BYTES_TREEMAP_PROTOCOL_VERSION);
  await send(page, {
    type: 'show',
    version: protocol.BYTES_TREEMAP_PROTOCOL_VERSION,
    data,
    inReplyTo: ready.messageId,
  });
  await page.locator('.treemap .cell').first().waitFor();
  return { page, errors };
}

async function waitForPost(page, type, after = 0) {
  await page.waitForFunction(({ type, after }) => window.__posted.slice(after).some((m) => m.type === type), {
    type,
    after,
  });
  return page.evaluate(({ type, after }) => window.__posted.slice(after).find((m) => m.type === type), { type, after });
}

/** Answers the page's last pathBlobs request with git's blobs. */
async function answerBlobs(page) {
  const asked = await page.evaluate(() => window.__posted.filter((m) => m.type === 'pathBlobs').pop());
  const blobs = gitBlobs(asked.path);
  await send(page, { type: 'blobs', path: asked.path, total: blobs.length, blobs, inReplyTo: asked.messageId });
  return { asked, blobs };
}

const cellsOf = (page) =>
  page.locator('.treemap .cell').evaluateAll((cells) =>
    cells.map((c) => {
      const r = c.getBoundingClientRect();
      return {
        path: c.dataset.path,
        kind: c.dataset.kind,
        disk: Number(c.dataset.disk),
        x: r.x,
        y: r.y,
        width: r.width,
        height: r.height,
        name: c.querySelector('.name')?.textContent ?? null,
        background: getComputedStyle(c).backgroundColor,
      };
    }),
  );
const mapBox = (page) =>
  page.locator('.treemap').evaluate((m) => {
    const r = m.getBoundingClientRect();
    return { x: r.x + m.clientLeft, y: r.y + m.clientTop, width: m.clientWidth, height: m.clientHeight };
  });
const focusedPath = (page) => page.evaluate(() => document.activeElement?.dataset?.path ?? null);

/** The directory's children with bytes, as the document has them: subdirectories and the paths directly in it. */
function expectedChildren(directory) {
  const parent = (name) => (name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '');
  return [
    ...sizes.directories.filter((d) => d.path !== '' && parent(d.path) === directory),
    ...sizes.paths.filter((p) => parent(p.path) === directory),
  ].filter((r) => r.disk > 0);
}

function checkLayout(cells, box, directory) {
  const expected = expectedChildren(directory);
  assert.deepEqual(
    cells.map((c) => c.path).sort(),
    expected.map((r) => r.path).sort(),
    `the cells of ${directory || 'the top level'}`,
  );
  const total = row(sizes.directories, directory).disk;
  for (const cell of cells) {
    assert.equal(cell.disk, expected.find((r) => r.path === cell.path).disk);
    // Whole pixels: each edge moves by at most half a pixel from the exact layout.
    const slack = (cell.width + cell.height) * 1.01 + 2;
    assert.ok(
      Math.abs(cell.width * cell.height - (cell.disk / total) * box.width * box.height) <= slack,
      `${cell.path}: ${cell.width}×${cell.height} for ${cell.disk} of ${total}`,
    );
    assert.ok(cell.x >= box.x - 0.01 && cell.y >= box.y - 0.01, `${cell.path} starts inside the map`);
    assert.ok(
      cell.x + cell.width <= box.x + box.width + 0.01 && cell.y + cell.height <= box.y + box.height + 0.01,
      `${cell.path} ends inside`,
    );
  }
  for (let a = 0; a < cells.length; a++)
    for (let b = a + 1; b < cells.length; b++) {
      const p = cells[a];
      const q = cells[b];
      const overlap =
        Math.min(p.x + p.width, q.x + q.width) - Math.max(p.x, q.x) > 0.01 &&
        Math.min(p.y + p.height, q.y + q.height) - Math.max(p.y, q.y) > 0.01;
      assert.ok(!overlap, `${p.path} and ${q.path} overlap`);
    }
  // Largest first, as laid: the first cell is at the map's corner.
  assert.equal(cells[0].path, expected.sort((x, y) => y.disk - x.disk)[0].path);
  assert.deepEqual([cells[0].x, cells[0].y], [box.x, box.y]);
}

describe('Where the bytes go treemap', () => {
  it('lays the top level out by on-disk bytes under the CSP, and zooms with click, breadcrumb and Backspace', async () => {
    const { page, errors } = await openTreemap();
    const box = await mapBox(page);
    checkLayout(await cellsOf(page), box, '');
    assert.equal(await page.locator('.treemap').getAttribute('data-directory'), '');
    // Hover: the cell's totals, packed and unpacked, and whether it was deleted.
    const old = page.locator('.treemap .cell[data-path="old"]');
    await old.hover();
    const details = await page.locator('.details').textContent();
    const oldRow = row(sizes.directories, 'old');
    assert.ok(oldRow.deleted !== null, 'old/ was deleted');
    assert.match(details, new RegExp(`packed \\(on disk\\): ${formatBytes(oldRow.disk).replace('.', '\\.')}`));
    assert.match(details, new RegExp(`unpacked \\(inflated\\): ${formatBytes(oldRow.inflated).replace('.', '\\.')}`));
    assert.match(details, new RegExp(`deleted ${oldRow.deleted}`));
    await page.screenshot({ path: path.join(outDir, 'bytes-treemap-top-dark.png') });
    await page.locator('.treemap .cell[data-path="src"]').click();
    await page.waitForFunction(() => document.querySelector('.treemap').dataset.directory === 'src');
    checkLayout(await cellsOf(page), await mapBox(page), 'src');
    assert.deepEqual(await page.locator('.breadcrumb .crumb').allTextContents(), ['repo', 'src']);
    let states = await page.evaluate(() => window.__states);
    assert.deepEqual(states[states.length - 1], { version: 1, repository: gitDir, directory: 'src', blobsOf: null });
    await page.locator('.treemap .cell[data-path="src/lib"]').click();
    await page.waitForFunction(() => document.querySelector('.treemap').dataset.directory === 'src/lib');
    await page.locator('.treemap .cell[data-path="src/lib/util.c"]').hover();
    await page.screenshot({ path: path.join(outDir, 'bytes-treemap-zoomed-dark.png') });
    // The breadcrumb's top level, then Backspace from src/ back to the top level.
    await page.locator('.breadcrumb .crumb[data-path="src"]').click();
    await page.waitForFunction(() => document.querySelector('.treemap').dataset.directory === 'src');
    await page.keyboard.press('Backspace');
    await page.waitForFunction(() => document.querySelector('.treemap').dataset.directory === '');
    assert.equal(await focusedPath(page), 'src', 'going up focuses the directory left');
    states = await page.evaluate(() => window.__states);
    assert.equal(states[states.length - 1].directory, '');
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('is used from the keyboard alone: arrows move to the neighbouring cell, Enter opens, Escape goes up', async () => {
    const { page, errors } = await openTreemap();
    await page.keyboard.press('Tab');
    // The first cell holds the page's one tab stop in the map.
    const cells = await cellsOf(page);
    let at = await focusedPath(page);
    for (let i = 0; i < 5 && at !== cells[0].path; i++) {
      await page.keyboard.press('Tab');
      at = await focusedPath(page);
    }
    assert.equal(at, cells[0].path);
    const details = await page.locator('.details').textContent();
    assert.match(details, new RegExp(`^${cells[0].path}`), 'focus shows the totals as hover does');
    for (const key of ['ArrowRight', 'ArrowDown', 'ArrowLeft', 'ArrowUp']) {
      const from = await focusedPath(page);
      const before = cells.find((c) => c.path === from);
      await page.keyboard.press(key);
      const to = await focusedPath(page);
      const now = cells.find((c) => c.path === to);
      if (now.path === before.path) continue;
      // The new cell lies on that side of the old one.
      if (key === 'ArrowRight')
        assert.ok(now.x >= before.x + before.width - 0.5, `${key}: ${before.path} → ${now.path}`);
      if (key === 'ArrowLeft') assert.ok(now.x + now.width <= before.x + 0.5, `${key}: ${before.path} → ${now.path}`);
      if (key === 'ArrowDown')
        assert.ok(now.y >= before.y + before.height - 0.5, `${key}: ${before.path} → ${now.path}`);
      if (key === 'ArrowUp') assert.ok(now.y + now.height <= before.y + 0.5, `${key}: ${before.path} → ${now.path}`);
    }
    // Some arrow moves somewhere from the first cell (the map has more than one cell).
    await page.locator('.treemap .cell').first().focus();
    const moves = [];
    for (const key of ['ArrowRight', 'ArrowDown']) {
      await page.locator('.treemap .cell').first().focus();
      await page.keyboard.press(key);
      moves.push(await focusedPath(page));
    }
    assert.ok(
      moves.some((p) => p !== cells[0].path),
      'an arrow moves off the first cell',
    );
    await page.locator('.treemap .cell[data-path="src"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.treemap').dataset.directory === 'src');
    assert.ok((await focusedPath(page)).startsWith('src/'), 'the focus goes into the directory');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.querySelector('.treemap').dataset.directory === '');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("lists a path's blobs from the host; a blob opens its object; Copy as Markdown asks for the directory", async () => {
    const { page, errors } = await openTreemap({ theme: 'light' });
    await page.locator('.treemap .cell[data-path="src"]').click();
    await page.locator('.treemap .cell[data-path="src/lib"]').click();
    await page.waitForFunction(() => document.querySelector('.treemap').dataset.directory === 'src/lib');
    const before = await page.evaluate(() => window.__posted.length);
    await page.locator('.treemap .cell[data-path="src/lib/big.bin"]').click();
    const asked = await waitForPost(page, 'pathBlobs', before);
    assert.deepEqual({ type: asked.type, path: asked.path }, { type: 'pathBlobs', path: 'src/lib/big.bin' });
    const { blobs } = await answerBlobs(page);
    assert.equal(blobs.length, 6, 'git lists six versions');
    const rows = page.locator('.blobs tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), blobs.length);
    assert.equal(await rows.first().locator('button.object-link').getAttribute('data-oid'), blobs[0].oid);
    assert.equal(await rows.first().locator('td').nth(2).textContent(), formatBytes(blobs[0].disk));
    // The per-path total is the sum over the blobs (filter-repo's count).
    assert.equal(
      blobs.reduce((s, b) => s + b.disk, 0),
      row(sizes.paths, 'src/lib/big.bin').disk,
    );
    await page.screenshot({ path: path.join(outDir, 'bytes-treemap-blobs-light.png') });
    await rows.nth(1).locator('button.object-link').click();
    const opened = await waitForPost(page, 'openObject', before);
    assert.deepEqual(opened, { type: 'openObject', oid: blobs[1].oid });
    const states = await page.evaluate(() => window.__states);
    assert.equal(states[states.length - 1].blobsOf, 'src/lib/big.bin');
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('.blobs').isHidden(), true, 'Escape closes the list first');
    assert.equal(await page.locator('.treemap').getAttribute('data-directory'), 'src/lib');
    await page.getByRole('button', { name: 'Copy as Markdown' }).click();
    assert.deepEqual(await waitForPost(page, 'copyMarkdown', before), { type: 'copyMarkdown', directory: 'src/lib' });
    for (const m of await page.evaluate(() => window.__posted))
      assert.ok(protocol.isWebviewToHost(m), JSON.stringify(m));
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('takes its colours from the theme, and comes back to its directory and blobs after a reload', async () => {
    const { page, errors } = await openTreemap({
      initialState: { version: 1, repository: gitDir, directory: 'src/lib', blobsOf: 'src/lib/big.bin' },
    });
    assert.equal(await page.locator('.treemap').getAttribute('data-directory'), 'src/lib');
    const asked = await waitForPost(page, 'pathBlobs');
    assert.equal(asked.path, 'src/lib/big.bin');
    await answerBlobs(page);
    await page.locator('.blobs tbody tr').first().waitFor();
    const dark = await cellsOf(page);
    await setTheme(page, 'light');
    const light = await cellsOf(page);
    const file = (cells) => cells.find((c) => c.kind === 'file').background;
    assert.notEqual(file(dark), file(light), 'a theme change recolours the cells');
    // Directories, present paths and deleted ones are told apart by colour.
    await page.locator('.breadcrumb .crumb[data-path=""]').click();
    const top = await cellsOf(page);
    const colour = (predicate) => top.find(predicate).background;
    const colours = [
      colour((c) => c.kind === 'directory' && row(sizes.directories, c.path).deleted === null),
      colour((c) => c.kind === 'file'),
      colour((c) => c.path === 'old'),
    ];
    assert.equal(new Set(colours).size, 3, colours.join(' '));
    // A state of another repository is not applied.
    const other = await openTreemap({
      initialState: { version: 1, repository: '/elsewhere', directory: 'src', blobsOf: null },
    });
    assert.equal(await other.page.locator('.treemap').getAttribute('data-directory'), '');
    await other.page.close();
    assert.deepEqual(errors, []);
    await page.close();
  });
});
