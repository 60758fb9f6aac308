// A bare repository (a mirror, a server's repository) opened alone activates PackScope: with the
// Packs view never opened, an object id in a text file of that folder gets PackScope's hover
// (so that PackScope starts wherever a repository is). Before, activation waited for `.git` in the folder or the view.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { makePacksRepository, settleAnimations, waitUntil } from '../support/packs-ui.mjs';

export const description = 'A bare repository opened alone: hovers on object ids without opening the Packs view';

const PARK = { x: 1200, y: 16 };

export async function run({ helpers, log }) {
  const source = makePacksRepository(helpers, { name: 'bare-source' });
  const bare = path.join(path.dirname(source.dir), 'mirror.git');
  execFileSync('git', ['clone', '-q', '--bare', source.dir, bare], { stdio: 'ignore' });
  for (const entry of ['HEAD', 'objects', 'refs'])
    if (!fs.existsSync(path.join(bare, entry))) throw new Error(`${bare} lacks ${entry}`);
  const oid = source.git('rev-parse', 'HEAD~3:story.txt').trim();
  // The note is the test's own file in the folder it opens; PackScope writes nothing there.
  fs.writeFileSync(path.join(bare, 'notes.txt'), `An object of this mirror:\n${oid}\n`);
  const size = Number(source.git('cat-file', '-s', oid).trim());

  const { page, readyMs } = await helpers.openWorkbench({
    workspaceFolder: bare,
    userSettings: { 'editor.hover.delay': 200, 'editor.minimap.enabled': false },
  });
  log(`workbench on ${bare} ready after ${readyMs} ms`);

  await page.locator('.monaco-workbench').click({ position: PARK });
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 20_000 });
  await input.fill('notes.txt');
  await page
    .locator('.quick-input-list .monaco-list-row', { hasText: 'notes.txt' })
    .first()
    .waitFor({ timeout: 20_000 });
  await page.keyboard.press('Enter');
  const editor = page.locator('.part.editor .editor-instance .monaco-editor');
  const word = editor.locator('.view-line', { hasText: oid }).locator('span > span').first();
  await word.waitFor({ timeout: 20_000 });

  const hover = page.locator('.monaco-hover-content').filter({ hasText: oid });
  const text = await waitUntil(
    async () => {
      await page.keyboard.press('Escape');
      await page.mouse.move(PARK.x, PARK.y);
      await word.hover();
      try {
        await hover.waitFor({ state: 'visible', timeout: 3_000 });
      } catch {
        return undefined;
      }
      return (await hover.innerText()).replace(/\u00a0/g, ' ').replace(/\s+/g, ' ');
    },
    `a PackScope hover on ${oid} in the bare repository`,
    { timeout: 60_000, interval: 0 },
  );
  for (const wanted of [`blob ${oid}`, `(${size.toLocaleString('en-US')} bytes)`, `${source.packName} in mirror.git`]) {
    if (!text.includes(wanted)) throw new Error(`the hover lacks "${wanted}": ${text}`);
  }
  // The Packs view was never opened: its pane is not in the page.
  const packsPane = await page.locator('.pane-header', { hasText: /^Packs/ }).count();
  if (packsPane !== 0) throw new Error('the Packs view was open; the scenario must not need it');
  log(`hover: ${text}`);
  await settleAnimations(page);
  await helpers.screenshot(page, 'bare-repository-hover');
}
