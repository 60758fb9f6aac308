// Before and after a repack on the Pack Map, in a real workbench (issue 15): a recording of git log
// --raw (Record a Git Command…), a Repack Preview (the --depth=10 --window=10 preset) that replays
// it, and the panel's "Before and after on the Pack Map": today's pack and the preview's pack side
// by side, the recording drawn over both. Each map is checked against git's own view of its pack
// (`git verify-pack -v`: object count; the preview's pack read where it is kept, in its temporary
// directory outside the repository), and each map's lit cells against the cells where the objects
// git's GIT_TRACE_PACK_ACCESS lines read lie in that pack. Closing the panels removes the kept pack.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expectedLitCells, tracedOffsets, verifyPack } from '../support/pack-map-oracle.mjs';
import { waitUntil } from '../support/packs-ui.mjs';

export const description = 'Pack Map: before and after a repack preview side by side, the same recording over both, checked against git verify-pack of both packs';

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const RECORDINGS_ROWS = '.part.sidebar .pane:has(> .pane-header[aria-label="Recordings Section"]) .monaco-list-row';

export async function run({ helpers, log }) {
  const repo = helpers.makeGitRepository({ commits: 16, files: 3 });
  // Today's pack differs from the preview's: shallow chains, a small window.
  execFileSync('git', ['repack', '-adfq', '--depth=3', '--window=3'], { cwd: repo, env: gitEnv });
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  const todayPack = path.join(packDir, fs.readdirSync(packDir).find((f) => f.endsWith('.pack')));
  const today = verifyPack(todayPack);
  const trace = path.join(helpers.tempDir('oracle'), 'log-raw.trace');
  execFileSync('git', ['-c', 'core.deltaBaseCacheLimit=0', 'log', '--raw'], { cwd: repo, env: { ...gitEnv, GIT_TRACE_PACK_ACCESS: trace }, stdio: 'ignore' });
  const todayAt = new Map(today.map((e) => [e.offset, e]));
  const readOids = new Set([...tracedOffsets(trace, repo, todayPack)].map((o) => todayAt.get(o).oid));
  log(`git log --raw reads ${readOids.size} distinct objects of ${today.length} in ${path.basename(todayPack)}`);

  const { page } = await helpers.openWorkbench({ workspaceFolder: repo, userSettings: { 'packscope.repackPreview.threads': 1, 'packscope.recording.mode': 'exact', 'workbench.colorTheme': 'Default Dark Modern' } });
  const pick = async (label) => {
    const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: label }).first();
    await row.waitFor({ timeout: 60_000 });
    await row.click();
  };
  await helpers.runCommand(page, 'PackScope: Record a Git Command…');
  await pick('git log --raw');
  await pick('Record once');
  await helpers.openViewContainer(page, 'PackScope');
  await page.locator(RECORDINGS_ROWS, { hasText: 'git log --raw' }).first().waitFor({ timeout: 60_000 });

  await helpers.runCommand(page, 'PackScope: Preview Repack…');
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'gc --aggressive' }).first().waitFor({ timeout: 60_000 });
  await page.locator('.quick-input-widget .quick-input-box input').fill('--depth=10 --window=10');
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: '--depth=10 --window=10' }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  const repackPanel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const openMaps = repackPanel.locator('#open-pack-maps');
  await openMaps.waitFor({ timeout: 150_000 });
  log(`repack preview: "${(await openMaps.innerText()).trim()}"`);
  await openMaps.click();

  // Two maps, side by side: find each by the pack it names (#summary's title is the pack's path).
  const maps = await waitUntil(async () => {
    const frames = page.locator('iframe.webview.ready');
    const found = {};
    for (let i = 0; i < (await frames.count()); i++) {
      const frame = page.frameLocator('iframe.webview.ready').nth(i).frameLocator('iframe#active-frame');
      const pack = await frame.locator('#summary').getAttribute('title', { timeout: 1000 }).catch(() => null);
      if (pack === todayPack) found.before = frame;
      else if (pack && pack.endsWith('.pack')) found.after = { frame, pack };
    }
    return found.before && found.after ? found : undefined;
  }, 'both maps', { timeout: 90_000 });
  const keptPack = maps.after.pack;
  const keptDirectory = path.dirname(path.dirname(keptPack));
  if (keptPack.startsWith(repo + path.sep)) throw new Error(`the preview's pack ${keptPack} is inside the repository`);
  if (!fs.existsSync(keptPack)) throw new Error(`the preview's pack ${keptPack} is not kept while its map is open`);
  const after = verifyPack(keptPack);
  log(`preview pack kept at ${keptPack}: git verify-pack lists ${after.length} objects`);

  const check = async (name, frame, packFile, entries) => {
    await frame.locator('#scale[data-complete="true"][data-moving="false"]').waitFor({ timeout: 60_000 });
    const summary = (await frame.locator('#summary').innerText()).replace(/\s+/g, ' ');
    if (!summary.includes(`${entries.length.toLocaleString('en-US')} objects`)) throw new Error(`${name}: the map says "${summary}"; git verify-pack lists ${entries.length} objects`);
    const stats = frame.locator('#recording-stats[data-complete="true"]');
    await stats.waitFor({ timeout: 60_000 });
    await frame.locator('#scale[data-complete="true"][data-moving="false"]').waitFor({ timeout: 60_000 });
    const byOid = new Map(entries.map((e) => [e.oid, e]));
    const ranges = [...readOids].map((oid) => [byOid.get(oid).offset, byOid.get(oid).offset + byOid.get(oid).diskSize]);
    const order = Number(await frame.locator('#scale').getAttribute('data-order'));
    const objects = Number(await stats.getAttribute('data-objects'));
    const lit = Number(await stats.getAttribute('data-lit'));
    const expected = expectedLitCells(order, ranges, fs.statSync(packFile).size);
    if (objects !== readOids.size) throw new Error(`${name}: the map says the recording read ${objects} distinct objects; git's trace reads ${readOids.size}`);
    if (lit !== expected) throw new Error(`${name}: ${lit} lit cells at order ${order}; the objects git read lie over ${expected} cells of ${path.basename(packFile)} (verify-pack)`);
    log(`${name}: ${summary}; ${(await stats.innerText()).trim()} (git: ${expected} cells at order ${order})`);
    return lit;
  };
  const litBefore = await check('before', maps.before, todayPack, today);
  const litAfter = await check('after', maps.after.frame, keptPack, after);
  log(`lit cells: ${litBefore} today, ${litAfter} after the repack`);
  await helpers.screenshot(page, 'side-by-side');

  // Nothing shows the preview any more: its temporary directory goes.
  await helpers.runCommand(page, 'View: Close All Editors');
  await waitUntil(async () => (!fs.existsSync(keptDirectory) ? true : undefined), `the removal of ${keptDirectory}`, { timeout: 30_000 });
  log(`closed: ${keptDirectory} removed`);
}
