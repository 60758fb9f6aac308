// The Pack Map from the Packs view with a recording over it, in a real workbench: a git
// command recorded with "PackScope: Record a Git Command…" (git log --raw, recorded once), the map
// opened from the pack row's context menu ("Open Pack Map"), the recording chosen in the map. The
// page's distinct objects must be the distinct offsets of git's own GIT_TRACE_PACK_ACCESS lines for
// that command in that pack, and its lit cells the cells of the drawn order over which one of those
// objects lies, computed here from `git verify-pack -v` (each object's offset and size in the pack)
// with the map's geometry (cells of equal bytes from the header's end to the trailing checksum).
// Screenshots of the map before and with the recording.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expectedLitCells } from '../support/pack-map-oracle.mjs';
import { clickMenuItem, expandRow, treeRow, waitUntil } from '../support/packs-ui.mjs';

export const description =
  'Pack Map: opened from a pack row of the Packs view; a recording lights the cells of the objects git read';

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

export async function run({ helpers, log }) {
  const repo = helpers.makeGitRepository({ commits: 16, files: 3 });
  const git = (args, env = gitEnv) =>
    execFileSync('git', args, {
      cwd: repo,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    });
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  const packName = fs.readdirSync(packDir).find((f) => f.endsWith('.pack'));
  const packFile = path.join(packDir, packName);
  const entries = git(['verify-pack', '-v', packFile.replace(/\.pack$/, '.idx')])
    .split('\n')
    .filter((l) => /^[0-9a-f]{40} /.test(l))
    .map((l) => {
      const f = l.split(/\s+/);
      return { oid: f[0], diskSize: Number(f[3]), offset: Number(f[4]) };
    });
  const byOffset = new Map(entries.map((e) => [e.offset, e]));
  // git's own reads of the command, at the limit an exact recording runs it with (core.deltaBaseCacheLimit=0).
  const trace = path.join(helpers.tempDir('oracle'), 'log-raw.trace');
  git(['-c', 'core.deltaBaseCacheLimit=0', 'log', '--raw'], { ...gitEnv, GIT_TRACE_PACK_ACCESS: trace });
  const offsets = new Set(
    fs
      .readFileSync(trace, 'utf8')
      .split('\n')
      .map((line) => / (\S+\.pack) (\d+)$/.exec(line))
      .filter((m) => m && fs.realpathSync(path.resolve(repo, m[1])) === fs.realpathSync(packFile))
      .map((m) => Number(m[2])),
  );
  if (offsets.size === 0) throw new Error(`git log --raw read nothing of ${packName}`);
  for (const offset of offsets)
    if (!byOffset.has(offset))
      throw new Error(`the trace reads offset ${offset}, where git verify-pack lists no object`);
  const readRanges = [...offsets].map((o) => [o, o + byOffset.get(o).diskSize]);
  log(`git log --raw: ${offsets.size} distinct objects of ${entries.length} read in ${packName}`);

  const { page } = await helpers.openWorkbench({
    workspaceFolder: repo,
    userSettings: { 'workbench.colorTheme': 'Default Light Modern', 'packscope.recording.mode': 'exact' },
  });

  // The recording, made the way a user makes one.
  await helpers.runCommand(page, 'PackScope: Record a Git Command…');
  const pick = async (label) => {
    const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: label }).first();
    await row.waitFor({ timeout: 30_000 });
    await row.click();
  };
  await pick('git log --raw');
  await pick('Record once');
  // (Its status-bar message lasts 5 s: the map's list of recordings below is what the test waits for.)

  // The map from the pack's row.
  await helpers.openViewContainer(page, 'PackScope');
  await page.locator('.pane-header[aria-label="Packs Section"]').waitFor({ state: 'attached', timeout: 30_000 });
  await expandRow(treeRow(page, path.basename(repo)));
  const packRow = treeRow(page, `pack-${packName.slice('pack-'.length, 'pack-'.length + 7)}…`);
  await packRow.waitFor({ timeout: 30_000 });
  await packRow.click({ button: 'right' });
  const menuItem = page.locator('.context-view .monaco-menu .action-item', { hasText: 'Open Pack Map' });
  await menuItem.waitFor({ timeout: 10_000 });
  await clickMenuItem(page, menuItem);
  const panel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await panel.locator('#scale[data-complete="true"][data-moving="false"]').waitFor({ timeout: 120_000 });
  const summary = (await panel.locator('#summary').innerText()).replace(/\s+/g, ' ');
  if (!summary.includes(packName) || !summary.includes(`${entries.length.toLocaleString('en-US')} objects`))
    throw new Error(`the map says "${summary}"; git verify-pack lists ${entries.length} objects in ${packName}`);
  log(`map opened from the Packs view: ${summary}`);
  await helpers.screenshot(page, 'map');

  // The recording over it: the select lists the one recording the store has.
  const select = panel.locator('#recording');
  await waitUntil(
    async () => ((await select.locator('option').count()) >= 2 ? true : undefined),
    "the recording in the map's list",
    { timeout: 90_000 },
  );
  await select.selectOption({ index: 1 });
  const stats = panel.locator('#recording-stats[data-complete="true"]');
  await stats.waitFor({ timeout: 60_000 });
  await panel.locator('#scale[data-complete="true"][data-moving="false"]').waitFor({ timeout: 60_000 });
  const order = Number(await panel.locator('#scale').getAttribute('data-order'));
  const objects = Number(await stats.getAttribute('data-objects'));
  const lit = Number(await stats.getAttribute('data-lit'));
  const zoom = await panel.locator('#scale').innerText();
  if (objects !== offsets.size)
    throw new Error(
      `the map says the recording read ${objects} distinct objects of the pack; git's trace reads ${offsets.size}`,
    );
  const expected = expectedLitCells(order, readRanges, fs.statSync(packFile).size, 20);
  if (lit !== expected)
    throw new Error(
      `the map lights ${lit} cells at order ${order}; git's reads lie over ${expected} cells of that order (verify-pack offsets and sizes)`,
    );
  log(
    `recording drawn: ${(await stats.innerText()).trim()} — order ${order} (${zoom}); git: ${offsets.size} objects over ${expected} cells`,
  );
  await helpers.screenshot(page, 'recording');
}
