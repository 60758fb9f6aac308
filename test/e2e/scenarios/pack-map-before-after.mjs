// Before and after a repack on the Pack Map, in a real workbench: a recording of git log
// --raw (Record a Git Command…), a Repack Preview (the --depth=10 --window=10 preset) that replays
// it, and the panel's "Before and after on the Pack Map": one Pack Map panel with today's pack and
// the preview's pack side by side, the recording drawn over both. Each pane is checked against
// git's own view of its pack (`git verify-pack -v`: object count, and the offset of the object
// hovered in it, whose type `git cat-file -t` gives; the preview's pack read where it is kept, in its
// temporary directory outside the repository), each pane's lit cells against the cells where the
// objects git's GIT_TRACE_PACK_ACCESS lines read lie in that pack, and its locality figures against
// the trace's reads. A zoom in one pane moves both. A reload of the window removes the kept pack
// with the server that kept it; the panel comes back with today's pack alone and says why.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expectedLitCells, tracedReads, verifyPack } from '../support/pack-map-oracle.mjs';
import { waitUntil } from '../support/packs-ui.mjs';

export const description =
  'Pack Map: before and after a repack preview side by side in one panel, the same recording over both, checked against git verify-pack of both packs';

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const RECORDINGS_ROWS = '.part.sidebar .pane:has(> .pane-header[aria-label="Recordings Section"]) .monaco-list-row';
/** An element of pane `pane` (the first pane's ids are a single map's; the second's end in -1). */
const paneId = (base, pane) => (pane === 0 ? `#${base}` : `#${base}-${pane}`);

export async function run({ helpers, log }) {
  const repo = helpers.makeGitRepository({ commits: 16, files: 3 });
  // Today's pack differs from the preview's: shallow chains, a small window.
  execFileSync('git', ['repack', '-adfq', '--depth=3', '--window=3'], { cwd: repo, env: gitEnv });
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  const todayPack = path.join(
    packDir,
    fs.readdirSync(packDir).find((f) => f.endsWith('.pack')),
  );
  const today = verifyPack(todayPack);
  const trace = path.join(helpers.tempDir('oracle'), 'log-raw.trace');
  execFileSync('git', ['-c', 'core.deltaBaseCacheLimit=0', 'log', '--raw'], {
    cwd: repo,
    env: { ...gitEnv, GIT_TRACE_PACK_ACCESS: trace },
    stdio: 'ignore',
  });
  const todayAt = new Map(today.map((e) => [e.offset, e]));
  const reads = tracedReads(trace, repo, todayPack);
  const readOids = new Set(reads.map((o) => todayAt.get(o).oid));
  log(
    `git log --raw reads ${readOids.size} distinct objects (${reads.length} reads) of ${today.length} in ${path.basename(todayPack)}`,
  );

  const { page } = await helpers.openWorkbench({
    workspaceFolder: repo,
    userSettings: {
      'packscope.repackPreview.threads': 1,
      'packscope.recording.mode': 'exact',
      'workbench.colorTheme': 'Default Dark Modern',
    },
  });
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
  await page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'gc --aggressive' })
    .first()
    .waitFor({ timeout: 60_000 });
  await page.locator('.quick-input-widget .quick-input-box input').fill('--depth=10 --window=10');
  await page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: '--depth=10 --window=10' })
    .first()
    .waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  const repackPanel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const openMaps = repackPanel.locator('#open-pack-maps');
  await openMaps.waitFor({ timeout: 150_000 });
  log(`repack preview: "${(await openMaps.innerText()).trim()}"`);
  await openMaps.click();

  // One Pack Map panel with two panes: the webview whose page has a second pane (#summary-1).
  const map = await waitUntil(
    async () => {
      const frames = page.locator('iframe.webview.ready');
      for (let i = 0; i < (await frames.count()); i++) {
        const frame = page.frameLocator('iframe.webview.ready').nth(i).frameLocator('iframe#active-frame');
        const after = await frame
          .locator('#summary-1')
          .getAttribute('title', { timeout: 1000 })
          .catch(() => null);
        if (after) return { frame, before: await frame.locator('#summary').getAttribute('title'), after };
      }
      return undefined;
    },
    'the before/after map',
    { timeout: 90_000 },
  );
  const frames = page.locator('iframe.webview.ready');
  let maps = 0;
  for (let i = 0; i < (await frames.count()); i++)
    if (
      (await page
        .frameLocator('iframe.webview.ready')
        .nth(i)
        .frameLocator('iframe#active-frame')
        .locator('#summary')
        .count()) > 0
    )
      maps++;
  if (maps !== 1) throw new Error(`${maps} Pack Map pages: one panel with both packs expected`);
  if (map.before !== todayPack) throw new Error(`the first pane draws ${map.before}; today's pack is ${todayPack}`);
  const keptPack = map.after;
  const keptDirectory = path.dirname(path.dirname(keptPack));
  if (keptPack.startsWith(repo + path.sep)) throw new Error(`the preview's pack ${keptPack} is inside the repository`);
  if (!fs.existsSync(keptPack)) throw new Error(`the preview's pack ${keptPack} is not kept while its map is open`);
  const after = verifyPack(keptPack);
  log(`preview pack kept at ${keptPack}: git verify-pack lists ${after.length} objects`);
  const { frame } = map;
  const settled = async () => {
    for (const pane of [0, 1])
      await frame
        .locator(`${paneId('scale', pane)}[data-complete="true"][data-moving="false"]`)
        .waitFor({ timeout: 60_000 });
  };

  const panes = [
    { name: 'today', packFile: todayPack, entries: today },
    { name: 'after repack preview', packFile: keptPack, entries: after },
  ];
  const check = async (pane) => {
    const { name, packFile, entries } = panes[pane];
    const summary = (await frame.locator(paneId('summary', pane)).innerText()).replace(/\s+/g, ' ');
    if (!summary.startsWith(`${name}: ${path.basename(packFile)} ${entries.length.toLocaleString('en-US')} objects`))
      throw new Error(
        `${name}: the pane says "${summary}"; git verify-pack lists ${entries.length} objects in ${path.basename(packFile)}`,
      );
    const stats = frame.locator(`${paneId('recording-stats', pane)}[data-complete="true"]`);
    await stats.waitFor({ timeout: 60_000 });
    await settled();
    const byOid = new Map(entries.map((e) => [e.oid, e]));
    const ranges = [...readOids].map((oid) => [byOid.get(oid).offset, byOid.get(oid).offset + byOid.get(oid).diskSize]);
    const order = Number(await frame.locator(paneId('scale', pane)).getAttribute('data-order'));
    const objects = Number(await stats.getAttribute('data-objects'));
    const lit = Number(await stats.getAttribute('data-lit'));
    const expected = expectedLitCells(order, ranges, fs.statSync(packFile).size);
    if (objects !== readOids.size)
      throw new Error(
        `${name}: the map says the recording read ${objects} distinct objects; git's trace reads ${readOids.size}`,
      );
    if (lit !== expected)
      throw new Error(
        `${name}: ${lit} lit cells at order ${order}; the objects git read lie over ${expected} cells of ${path.basename(packFile)} (verify-pack)`,
      );
    // The recording's locality in this layout: the same reads, wherever this pack put their objects.
    const locality = frame.locator(`${paneId('seek-stats', pane)}[data-reads]`);
    await locality.waitFor({ timeout: 60_000 });
    const localityReads = Number(await locality.getAttribute('data-reads'));
    if (localityReads !== reads.length)
      throw new Error(`${name}: the locality figures count ${localityReads} reads; git's trace has ${reads.length}`);
    log(
      `${summary}; ${(await stats.innerText()).trim()} (git: ${expected} cells at order ${order}); ${(await locality.innerText()).trim()}`,
    );
    return lit;
  };
  const litBefore = await check(0);
  const litAfter = await check(1);
  log(`lit cells: ${litBefore} today, ${litAfter} after the repack`);
  await helpers.screenshot(page, 'side-by-side');

  // One camera: zooming in the second pane zooms the first as well (each pane's scale says the zoom it drew).
  const zooms = async () =>
    Promise.all([0, 1].map(async (pane) => await frame.locator(paneId('scale', pane)).getAttribute('data-zoom')));
  const zoomedFrom = await zooms();
  if (zoomedFrom.some((z) => z !== '0.000'))
    throw new Error(`the panes open at zoom ${zoomedFrom.join(' and ')}, not the whole packs`);
  await frame.locator(paneId('map-canvas', 1)).focus();
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await waitUntil(
    async () => ((await zooms()).every((z) => z === '2.000') ? true : undefined),
    'both panes drawn at zoom 2',
    { timeout: 30_000 },
  );
  await settled();
  log(`zoom 2 in the second pane: both panes drawn at zoom ${(await zooms()).join(' and ')}`);

  // Hovering each pane names an object of that pane's pack: at the offset git verify-pack gives it there.
  for (const pane of [0, 1]) {
    const { name, entries } = panes[pane];
    const canvas = frame.locator(paneId('map-canvas', pane));
    const box = await canvas.boundingBox();
    await canvas.hover({ position: { x: box.width * 0.5 + 11, y: box.height * 0.5 - 7 } });
    const tooltip = frame.locator(`${paneId('map-tooltip', pane)}:not([hidden])`);
    await tooltip.waitFor({ timeout: 30_000 });
    const oid = await tooltip.getAttribute('data-oid');
    const offset = Number(await tooltip.getAttribute('data-offset'));
    const text = (await tooltip.innerText()).replace(/\s+/g, ' ');
    const entry = entries.find((e) => e.oid === oid);
    if (!entry)
      throw new Error(
        `${name}: the tooltip names ${oid}, which git verify-pack does not list in ${path.basename(panes[pane].packFile)}`,
      );
    if (entry.offset !== offset || !text.includes(`offset ${offset.toLocaleString('en-US')}`))
      throw new Error(`${name}: the tooltip says "${text}"; git verify-pack puts ${oid} at offset ${entry.offset}`);
    const type = execFileSync('git', ['cat-file', '-t', oid], { cwd: repo, env: gitEnv, encoding: 'utf8' }).trim();
    if (!text.startsWith(`${type} `))
      throw new Error(`${name}: the tooltip says "${text}"; git cat-file -t ${oid} says ${type}`);
    log(`${name}: hovered ${text} (git: ${type} at offset ${entry.offset})`);
    await helpers.screenshot(page, `hover-${pane === 0 ? 'today' : 'after'}`);
  }

  // A reload of the window ends the server, and the preview with it (its temporary directory goes):
  // the panel comes back with today's pack alone, and says why.
  await helpers.runCommand(page, 'Developer: Reload Window');
  await waitUntil(async () => (!fs.existsSync(keptDirectory) ? true : undefined), `the removal of ${keptDirectory}`, {
    timeout: 60_000,
  });
  log(`reloaded: ${keptDirectory} removed with the server that kept it`);
  const restored = await waitUntil(
    async () => {
      const frames = page.locator('iframe.webview.ready');
      for (let i = 0; i < (await frames.count()); i++) {
        const frame = page.frameLocator('iframe.webview.ready').nth(i).frameLocator('iframe#active-frame');
        if (
          (await frame
            .locator('#summary')
            .getAttribute('title', { timeout: 1000 })
            .catch(() => null)) === todayPack
        )
          return frame;
      }
      return undefined;
    },
    'the Pack Map restored after the reload',
    { timeout: 120_000 },
  );
  await restored.locator('#scale[data-complete="true"]').waitFor({ timeout: 60_000 });
  const note = (await restored.locator('#map-note').innerText()).trim();
  if (!note.includes("repack preview's pack is gone"))
    throw new Error(`restored: the page says "${note}", not why the preview is missing`);
  if ((await restored.locator('#summary-1').count()) !== 0) throw new Error('restored: a second pane without its pack');
  log(`restored: today's pack alone; "${note}"`);
  await helpers.screenshot(page, 'restored');
  await helpers.runCommand(page, 'View: Close All Editors');
}
