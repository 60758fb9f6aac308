// "Where the bytes go" in a real workbench, checked against git on a repository built here: the
// repository's Sizes row expanded, a path of "Largest paths" expanded to its blobs (each blob git
// lists at that path, with cat-file's on-disk size and verify-pack's delta depth on its row), a
// blob opened as its object document; then the treemap from the row's inline action: the top
// level's cells, a hover's totals (the sizes document's), a zoom into a directory by click, a
// path's blobs listed and one opened, Backspace back up, Copy as Markdown, and the panel as it was
// after a window reload. Screenshots of each.
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { activeEditorLines, expandRow, sidebarRows, treeRow, waitUntil } from '../support/packs-ui.mjs';

export const description =
  'Where the bytes go: a path expanded to its blobs (git log, cat-file, verify-pack), the treemap zoomed, hovered, a blob opened';

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'PackScope E2E',
  GIT_AUTHOR_EMAIL: 'e2e@packscope.invalid',
  GIT_COMMITTER_NAME: 'PackScope E2E',
  GIT_COMMITTER_EMAIL: 'e2e@packscope.invalid',
};

/** Bytes that do not compress, so that a file's share of the map is about its size. */
function noise(seed, bytes) {
  const out = Buffer.alloc(bytes);
  let block = crypto.createHash('sha256').update(seed).digest();
  for (let i = 0; i < bytes; i += 32) {
    block.copy(out, i);
    block = crypto.createHash('sha256').update(block).digest();
  }
  return out;
}

/** A history with directories of different weights, a text file that deltas over 12 versions, and a deleted directory. */
function makeSizesRepository(helpers) {
  const dir = path.join(helpers.tempDir('sizes'), 'bytes-demo');
  fs.mkdirSync(dir);
  const git = (...args) =>
    execFileSync('git', args, {
      cwd: dir,
      env: gitEnv,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const write = (name, content) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  };
  git('init', '-q', '-b', 'main');
  const changelog = Array.from({ length: 1200 }, (_, i) => `entry ${i}: ${noise(`line ${i}`, 24).toString('hex')}\n`);
  for (let c = 1; c <= 12; c++) {
    // One more change in each version: a version is nearest its neighbours, so git chains them.
    changelog[(c * 97) % changelog.length] = `entry changed in version ${c}\n`;
    write('docs/changelog.txt', changelog.join(''));
    if (c % 3 === 1) write('assets/logo.png', noise(`logo ${c}`, 40_000));
    if (c % 4 === 1) write('assets/icons/app.png', noise(`icon ${c}`, 6_000));
    if (c % 2 === 1) write('src/engine/core.c', noise(`core ${c}`, 18_000));
    if (c % 3 === 2) write('src/engine/io.c', noise(`io ${c}`, 9_000));
    if (c % 4 === 2) write('src/main.c', noise(`main ${c}`, 7_000));
    if (c % 5 === 3) write('src/ui/window.c', noise(`window ${c}`, 11_000));
    if (c <= 4) write('vendor/old-lib.tar', noise(`vendor ${c}`, 25_000));
    else fs.rmSync(path.join(dir, 'vendor'), { recursive: true, force: true });
    git('add', '-A');
    const date = `2024-02-${String(c).padStart(2, '0')}T12:00:00Z`;
    execFileSync('git', ['commit', '-q', '-m', `commit ${c}`], {
      cwd: dir,
      env: { ...gitEnv, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    });
  }
  git('repack', '-adfq', '--depth=20', '--window=20');
  return { dir, git };
}

/** The blobs git lists at `file` in any commit, with cat-file's on-disk size and verify-pack's depth. */
function gitBlobsAt(repo, file) {
  const oids = [];
  for (const line of repo
    .git('log', '--all', '--full-history', '--raw', '--no-abbrev', '--format=', '--', file)
    .split('\n')) {
    const m = /^:\S+ \S+ \S+ ([0-9a-f]{40}) /.exec(line);
    if (m && !/^0+$/.test(m[1]) && !oids.includes(m[1])) oids.push(m[1]);
  }
  const packDir = path.join(repo.dir, '.git', 'objects', 'pack');
  const idx = path.join(
    packDir,
    fs.readdirSync(packDir).find((f) => f.endsWith('.idx')),
  );
  const depth = new Map();
  for (const line of repo.git('verify-pack', '-v', idx).split('\n')) {
    const m = /^([0-9a-f]{40}) \w+ +\d+ \d+ \d+(?: (\d+) [0-9a-f]{40})?$/.exec(line);
    if (m) depth.set(m[1], m[2] === undefined ? 0 : Number(m[2]));
  }
  return oids.map((oid) => ({
    oid,
    disk: diskSize(repo, oid),
    depth: depth.get(oid),
  }));
}

function diskSize(repo, oid) {
  return Number(
    execFileSync('git', ['cat-file', '--batch-check=%(objectsize:disk)'], {
      cwd: repo.dir,
      env: gitEnv,
      input: `${oid}\n`,
      encoding: 'utf8',
    }).trim(),
  );
}

export async function run({ helpers, log }) {
  const repo = makeSizesRepository(helpers);
  const sizes = JSON.parse(
    execFileSync(process.execPath, [path.join(helpers.root, 'dist', 'cli.js'), 'sizes', '--json', repo.dir], {
      env: { ...gitEnv, PACKSCOPE_NO_PROGRESS: '1', PACKSCOPE_CACHE_DIR: helpers.tempDir('cli-models') },
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }),
  );
  const { page } = await helpers.openWorkbench({
    workspaceFolder: repo.dir,
    userSettings: { 'workbench.colorTheme': 'Default Dark Modern', 'workbench.tree.enableStickyScroll': false },
  });

  // 1. The repository's "Where the bytes go" row, then "Largest paths"; the Recordings view folded
  // and the side bar widened, so that a path's blob rows are drawn (the list draws only rows in view).
  await helpers.openViewContainer(page, 'PackScope');
  await page.locator('.pane-header[aria-label="Packs Section"]').waitFor({ state: 'attached', timeout: 30_000 });
  const recordings = page.locator('.pane-header[aria-label="Recordings Section"]');
  await recordings.waitFor({ timeout: 30_000 });
  if ((await recordings.getAttribute('aria-expanded')) === 'true') await recordings.click();
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  await page.mouse.move(sidebar.x + sidebar.width + 1, sidebar.y + sidebar.height / 2);
  await page.mouse.down();
  await page.mouse.move(sidebar.x + sidebar.width + 300, sidebar.y + sidebar.height / 2, { steps: 8 });
  await page.mouse.up();
  await expandRow(treeRow(page, 'bytes-demo'));
  const sizesRow = treeRow(page, 'Where the bytes go');
  await expandRow(sizesRow, 120_000);
  const largestRow = treeRow(page, 'Largest paths');
  await largestRow.waitFor({ timeout: 120_000 });
  // The directory tree is not what this scenario looks at: folded, it leaves room for the paths.
  const directoriesRow = treeRow(page, 'Directories');
  if ((await directoriesRow.getAttribute('aria-expanded')) === 'true')
    await directoriesRow.locator('.monaco-tl-twistie').click();
  await expandRow(largestRow);

  // 2. docs/changelog.txt, the path with most versions, expanded to its blobs: each one git lists there.
  const file = 'docs/changelog.txt';
  const pathRow = treeRow(page, file);
  await expandRow(pathRow);
  const blobs = gitBlobsAt(repo, file);
  const blobRows = await waitUntil(async () => {
    const rows = (await sidebarRows(page)).filter((r) => /^[0-9a-f]{10} · \d{4}-\d\d-\d\d$/.test(r.label));
    return rows.length === blobs.length ? rows : undefined;
  }, `${blobs.length} blob rows under ${file}`);
  for (const blob of blobs) {
    const shown = blobRows.find((r) => r.label.startsWith(blob.oid.slice(0, 10)));
    if (!shown) throw new Error(`git lists blob ${blob.oid} at ${file}; the view does not`);
    const depthText = blob.depth === 0 ? 'whole (depth 0)' : `depth ${blob.depth}`;
    if (!shown.description.endsWith(depthText))
      throw new Error(`${blob.oid}: the row says "${shown.description}", verify-pack says ${depthText}`);
  }
  if (!blobs.some((b) => b.depth > 1)) throw new Error('the case has no chain deeper than one');
  log(
    `${file}: ${blobs.length} blobs as git log lists them, depths as verify-pack: ${blobs.map((b) => b.depth).join(' ')}`,
  );
  await page.mouse.move(1200, 16);
  await helpers.screenshot(page, 'sizes-path-blobs');

  // 3. A delta blob's row opens its object document.
  const deep = blobs.find((b) => b.depth > 1);
  await treeRow(page, new RegExp(`^${deep.oid.slice(0, 10)} · `)).click();
  await waitUntil(async () => {
    const lines = await activeEditorLines(page);
    return lines.some((line) => /^id\s+/.test(line) && line.trimEnd().endsWith(deep.oid)) || undefined;
  }, `the object document of ${deep.oid}`);
  const lines = await activeEditorLines(page);
  const depthLine = lines.find((l) => l.startsWith('depth  '));
  if (depthLine?.slice('depth'.length).trim() !== String(deep.depth))
    throw new Error(`the object document says "${depthLine}", verify-pack says depth ${deep.depth}`);
  log(`opened ${deep.oid}: ${depthLine.replace(/\s+/g, ' ')}`);
  await helpers.screenshot(page, 'blob-object-document');

  // 4. The treemap, from the "Where the bytes go" row's inline action.
  await sizesRow.hover();
  await sizesRow.locator('.actions .action-label[aria-label^="Show Where the Bytes Go"]').click();
  const panel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await panel.locator('.treemap .cell').first().waitFor({ timeout: 120_000 });
  const cells = await panel
    .locator('.treemap .cell')
    .evaluateAll((els) => els.map((e) => ({ path: e.dataset.path, disk: Number(e.dataset.disk) })));
  const topLevel = sizes.directories.filter((d) => d.path !== '' && !d.path.includes('/')).map((d) => d.path);
  const topFiles = sizes.paths.filter((p) => !p.path.includes('/')).map((p) => p.path);
  const expected = [...topLevel, ...topFiles].sort();
  if (JSON.stringify(cells.map((c) => c.path).sort()) !== JSON.stringify(expected))
    throw new Error(`the top level's cells are ${cells.map((c) => c.path)}, packscope sizes lists ${expected}`);
  for (const cell of cells) {
    const row = sizes.directories.find((d) => d.path === cell.path) ?? sizes.paths.find((p) => p.path === cell.path);
    if (row.disk !== cell.disk)
      throw new Error(`${cell.path}: the cell has ${cell.disk} bytes, packscope sizes ${row.disk}`);
  }
  log(`treemap top level: ${cells.map((c) => `${c.path} ${c.disk}`).join(', ')}`);
  await page.mouse.move(1200, 16);
  await helpers.screenshot(page, 'treemap');

  // 5. Hover the deleted directory: its totals and its date.
  const vendor = sizes.directories.find((d) => d.path === 'vendor');
  await panel.locator('.treemap .cell[data-path="vendor"]').hover();
  const details = (await panel.locator('.details').innerText()).replace(/\s+/g, ' ');
  if (
    !details.includes(`(${vendor.disk.toLocaleString('en-US')} bytes)`) ||
    !details.includes(`deleted ${vendor.deleted}`)
  )
    throw new Error(
      `hovering vendor/ says "${details}"; the sizes document: ${vendor.disk} bytes, deleted ${vendor.deleted}`,
    );
  log(`hover vendor/: ${details}`);
  await helpers.screenshot(page, 'treemap-hover');

  // 6. Zoom into src/ by a click, then into src/engine/, hover a file, list its blobs, open one.
  await panel.locator('.treemap .cell[data-path="src"]').click();
  await panel.locator('.treemap[data-directory="src"]').waitFor();
  await panel.locator('.treemap .cell[data-path="src/engine"]').click();
  await panel.locator('.treemap[data-directory="src/engine"]').waitFor();
  await panel.locator('.treemap .cell[data-path="src/engine/core.c"]').click();
  const coreBlobs = gitBlobsAt(repo, 'src/engine/core.c');
  await waitUntil(
    async () => ((await panel.locator('.blobs tbody tr').count()) === coreBlobs.length ? true : undefined),
    `the ${coreBlobs.length} blobs of src/engine/core.c listed`,
  );
  const listed = await panel
    .locator('.blobs tbody tr button.object-link')
    .evaluateAll((els) => els.map((e) => e.dataset.oid));
  if (JSON.stringify([...listed].sort()) !== JSON.stringify(coreBlobs.map((b) => b.oid).sort()))
    throw new Error(`the panel lists ${listed}, git ${coreBlobs.map((b) => b.oid)}`);
  await panel.locator('.treemap .cell[data-path="src/engine/io.c"]').hover();
  log(`zoomed into src/engine/; src/engine/core.c lists its ${listed.length} blobs`);
  await helpers.screenshot(page, 'treemap-zoomed');
  await panel.locator(`.blobs button.object-link[data-oid="${listed[0]}"]`).click();
  await waitUntil(async () => {
    const l = await activeEditorLines(page);
    return l.some((line) => /^id\s+/.test(line) && line.trimEnd().endsWith(listed[0])) || undefined;
  }, `the object document of ${listed[0]}`);
  log(`the treemap's blob link opened ${listed[0]}`);

  // 7. Back to the treemap's tab: Backspace goes up (the page kept its directory), Copy as Markdown copies.
  await page.locator('.part.editor .tabs-container .tab', { hasText: 'Where the Bytes Go' }).click();
  await panel.locator('.treemap .cell').first().waitFor();
  const directory = await panel.locator('.treemap').getAttribute('data-directory');
  if (directory !== 'src/engine') throw new Error(`back on the treemap's tab it shows "${directory}", not src/engine`);
  await panel.locator('.treemap .cell').first().focus();
  await page.keyboard.press('Backspace');
  await panel.locator('.treemap[data-directory="src"]').waitFor();
  await panel.getByRole('button', { name: 'Copy as Markdown' }).click();
  await page.locator('.statusbar', { hasText: 'Copied the directory as Markdown.' }).waitFor({ timeout: 10_000 });
  log('Backspace went up to src/; Copy as Markdown copied');
  await helpers.screenshot(page, 'treemap-up');

  // 8. A window reload: the serializer brings the panel back, at src/ with core.c's blobs listed.
  await helpers.runCommand(page, 'Developer: Reload Window');
  const restored = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await restored.locator('.treemap[data-directory="src"] .cell').first().waitFor({ timeout: 120_000 });
  await waitUntil(
    async () => ((await restored.locator('.blobs tbody tr').count()) === coreBlobs.length ? true : undefined),
    "the restored panel's list of src/engine/core.c's blobs",
  );
  log('after a window reload the panel shows src/ and the blobs of src/engine/core.c again');
  await page.mouse.move(1200, 16);
  await helpers.screenshot(page, 'treemap-restored');
}
