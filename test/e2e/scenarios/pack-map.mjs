// The Pack Map in a real workbench: "PackScope: Open Pack Map" from the command palette
// (one pack in the workspace: it opens at once), the map drawn in the webview (nested iframes),
// a hover on a cell whose tooltip names an object that git has, with git's type and the offset
// git's verify-pack lists for it, and a blob's tooltip with its path (git rev-list --objects --all's
// name) beside its id. Screenshots of the map with its offset ruler and of the hovers.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

export const description = 'Pack Map: opened from the palette; a hovered cell names the object git has at that offset';

export async function run({ helpers, log }) {
  const repo = helpers.makeGitRepository({ commits: 24, files: 4 });
  const git = (...args) =>
    execFileSync('git', args, {
      cwd: repo,
      env: gitEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    });
  git('repack', '-adfq');
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  const idx = path.join(
    packDir,
    fs.readdirSync(packDir).find((f) => f.endsWith('.idx')),
  );
  const offsets = new Map(
    git('verify-pack', '-v', idx)
      .split('\n')
      .filter((l) => /^[0-9a-f]{40} /.test(l))
      .map((l) => {
        const f = l.split(/\s+/);
        return [f[0], Number(f[4])];
      }),
  );

  // startWorkbench (scripts/vscode/code-server.mjs) writes config.yaml into its outDir without
  // creating it when a stateDir is given: made here until the harness does.
  fs.mkdirSync(
    path.join(
      path.dirname(new URL(import.meta.url).pathname),
      '..',
      '..',
      '..',
      'test-artifacts',
      'e2e',
      'pack-map',
      'pack-map',
    ),
    { recursive: true },
  );
  const { page } = await helpers.openWorkbench({
    workspaceFolder: repo,
    userSettings: { 'workbench.colorTheme': 'Default Dark Modern' },
  });
  await helpers.runCommand(page, 'PackScope: Open Pack Map');
  const panel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await panel.locator('#scale[data-complete="true"]').waitFor({ timeout: 120_000 });
  log(`map drawn: ${await panel.locator('#scale').innerText()}`);
  // The offset ruler: the first object after the 12-byte header, the last byte before the 20-byte trailer.
  const packBytes = fs.statSync(idx.replace(/\.idx$/, '.pack')).size;
  const rulerText = (await panel.locator('#ruler').innerText()).replace(/\s+/g, ' ');
  if (!rulerText.includes('start 12 ') || !rulerText.includes(`end ${(packBytes - 20).toLocaleString('en-US')} `))
    throw new Error(`the ruler says "${rulerText}"; the pack's objects run from 12 to ${packBytes - 20}`);
  log(`ruler: ${rulerText} (the pack file is ${packBytes} bytes)`);
  await helpers.screenshot(page, 'map');

  const canvas = panel.locator('#map-canvas');
  const box = await canvas.boundingBox();
  await canvas.hover({
    position: { x: Math.min(box.width, box.height) * 0.4, y: Math.min(box.width, box.height) * 0.3 },
  });
  const tooltip = panel.locator('#map-tooltip:not([hidden])');
  await tooltip.waitFor({ timeout: 30_000 });
  const oid = await tooltip.getAttribute('data-oid');
  const text = (await tooltip.innerText()).replace(/\s+/g, ' ');
  const type = git('cat-file', '-t', oid).trim();
  if (!text.startsWith(`${type} `)) throw new Error(`the tooltip says "${text}"; git cat-file -t ${oid} says ${type}`);
  const offset = offsets.get(oid);
  if (offset === undefined || !text.includes(`offset ${offset.toLocaleString('en-US')}`))
    throw new Error(`the tooltip says "${text}"; git verify-pack puts ${oid} at offset ${offset}`);
  const size = Number(git('cat-file', '-s', oid).trim());
  if (!text.includes(`(${size.toLocaleString('en-US')} bytes)`))
    throw new Error(`the tooltip says "${text}"; git cat-file -s ${oid} says ${size}`);
  log(`hovered: ${text} (git: ${type}, ${size} bytes, offset ${offset})`);
  await helpers.screenshot(page, 'hover');

  // A blob's tooltip names its path beside its id (git rev-list --objects --all's name), once the
  // repository's walk has it ("resolving names…" before). Cells along a diagonal, until one holds a blob.
  const names = new Map(
    git('rev-list', '--objects', '--all')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, 40), line.slice(41)]),
  );
  const side = Math.min(box.width, box.height);
  let named;
  for (let attempt = 0; attempt < 120 && named === undefined; attempt++) {
    const at = 0.05 + ((attempt * 0.37) % 0.9);
    await page.mouse.move(box.x + side * at, box.y + side * (1 - at));
    await page.waitForTimeout(250);
    if (!(await tooltip.isVisible())) continue;
    const hoveredOid = await tooltip.getAttribute('data-oid');
    if (git('cat-file', '-t', hoveredOid).trim() !== 'blob') continue;
    const tip = (await tooltip.innerText()).replace(/\s+/g, ' ');
    if (tip.includes('resolving names')) continue;
    named = { oid: hoveredOid, tip };
  }
  if (named === undefined) throw new Error('no hovered cell held a blob with its path within 120 tries');
  const expected = names.get(named.oid);
  if (!named.tip.includes(`${named.oid} path ${expected}`))
    throw new Error(`the tooltip says "${named.tip}"; git rev-list --objects --all names ${named.oid} "${expected}"`);
  log(`hovered a blob: ${named.tip}`);
  await helpers.screenshot(page, 'hover-path');
}
