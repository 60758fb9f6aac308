// Preview Repack… in a real workbench: "PackScope: Preview Repack…" from the command palette, the
// "--depth=10 --window=10" preset, the result panel (nested webview iframes) whose object count and
// pack size equal a real `git repack -adf --depth=10 --window=10 --threads=1` on a copy of the
// repository (packscope.repackPreview.threads is 1 in the user settings, so the delta search is
// reproducible), the depth chart, Export as Markdown; Custom… with an option git does not know gives
// one error notification in git's words. Screenshots of the picker, the panel and the error.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const description = 'Preview Repack: a preset from the palette; the panel equals git repack -adf on a copy';

const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'PackScope E2E',
  GIT_AUTHOR_EMAIL: 'e2e@packscope.invalid',
  GIT_COMMITTER_NAME: 'PackScope E2E',
  GIT_COMMITTER_EMAIL: 'e2e@packscope.invalid',
};

/** What `git repack -adf <options>` writes in a copy (`cp -a`) of the repository: objects and .pack bytes. */
function realRepack(helpers, repo, options) {
  const copy = path.join(helpers.tempDir('repack-copy'), 'copy');
  execFileSync('cp', ['-a', repo, copy]);
  const git = (...args) =>
    execFileSync('git', args, {
      cwd: copy,
      env: gitEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    });
  git('repack', '-adfq', ...options);
  const packDir = path.join(copy, '.git', 'objects', 'pack');
  const packs = fs.readdirSync(packDir).filter((f) => f.endsWith('.pack'));
  if (packs.length !== 1) throw new Error(`git repack -adf left ${packs.length} packs`);
  const objects = git('verify-pack', '-v', path.join(packDir, packs[0].replace(/\.pack$/, '.idx')))
    .split('\n')
    .filter((l) => /^[0-9a-f]{40} /.test(l)).length;
  return { objects, packBytes: fs.statSync(path.join(packDir, packs[0])).size };
}

function packSnapshot(repo) {
  const dir = path.join(repo, '.git', 'objects', 'pack');
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => `${f} ${fs.statSync(path.join(dir, f)).size}`)
    .join('\n');
}

export async function run({ helpers, log }) {
  const repo = helpers.makeGitRepository({ commits: 24, files: 4 });
  // Make today's pack differ from the preview: shallow chains, a small window.
  execFileSync('git', ['repack', '-adfq', '--depth=3', '--window=3'], { cwd: repo, env: gitEnv });
  const before = packSnapshot(repo);
  const real = realRepack(helpers, repo, ['--depth=10', '--window=10', '--threads=1']);
  log(`git repack -adf --depth=10 --window=10 --threads=1 on a copy: ${real.objects} objects, ${real.packBytes} bytes`);

  const { page } = await helpers.openWorkbench({
    workspaceFolder: repo,
    userSettings: { 'packscope.repackPreview.threads': 1, 'workbench.colorTheme': 'Default Dark Modern' },
  });

  await helpers.runCommand(page, 'PackScope: Preview Repack…');
  // One repository in the workspace: the presets come at once.
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  await rows.filter({ hasText: 'gc --aggressive' }).first().waitFor({ timeout: 60_000 });
  await rows.filter({ hasText: 'Write-order estimate' }).first().waitFor({ timeout: 5_000 });
  const labels = await rows.allInnerTexts();
  log(`presets: ${labels.map((l) => l.split('\n')[0]).join(' | ')}`);
  await helpers.screenshot(page, 'presets');
  await page.locator('.quick-input-widget .quick-input-box input').fill('--depth=10 --window=10');
  await rows.filter({ hasText: '--depth=10 --window=10' }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');

  // VS Code webviews are two nested iframes: the host frame, then the content frame.
  const panel = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const objectsCell = panel.locator('#summary tr[data-key="objects"] td[data-side="preview"]');
  await objectsCell.waitFor({ timeout: 150_000 });
  await panel.locator('#depth-chart[data-series]').waitFor({ timeout: 30_000 });

  const value = async (key, side) =>
    Number(await panel.locator(`#summary tr[data-key="${key}"] td[data-side="${side}"]`).getAttribute('data-value'));
  const shown = async (key, side) =>
    (await panel.locator(`#summary tr[data-key="${key}"] td[data-side="${side}"]`).innerText()).trim();
  const objects = await value('objects', 'preview');
  const packBytes = await value('packBytes', 'preview');
  if (objects !== real.objects)
    throw new Error(`the panel says ${objects} objects, git repack -adf wrote ${real.objects}`);
  if (packBytes !== real.packBytes)
    throw new Error(`the panel says a ${packBytes}-byte pack, git repack -adf wrote ${real.packBytes} bytes`);
  const objectsText = await shown('objects', 'preview');
  if (objectsText !== real.objects.toLocaleString('en-US')) throw new Error(`the objects cell reads "${objectsText}"`);
  log(
    `the panel: ${objectsText} objects, ${await shown('packBytes', 'preview')} (${packBytes} bytes) — as git repack -adf on the copy`,
  );
  const currentObjects = await value('objects', 'current');
  if (currentObjects !== real.objects)
    throw new Error(
      `current objects ${currentObjects}, expected ${real.objects} (no loose objects, nothing unreachable)`,
    );
  const series = JSON.parse(await panel.locator('#depth-chart').getAttribute('data-series'));
  if (!series.includes('current') || !series.includes('preview'))
    throw new Error(`the depth chart's series: ${series.join(', ')}`);
  const argv = await panel.locator('#git-argv').innerText();
  if (!argv.includes('pack-objects') || !argv.includes('--depth=10') || !argv.includes('--threads=1'))
    throw new Error(`the git command shown: ${argv}`);
  const title = await page.locator('.tabs-container .tab.active').innerText();
  if (!title.includes('Repack Preview')) throw new Error(`the active editor is "${title}"`);
  if (packSnapshot(repo) !== before) throw new Error("the repository's packs changed");
  await page.waitForTimeout(500);
  await helpers.screenshot(page, 'panel');

  // The largest changes name each object's path beside its id once the repository's walk has named
  // them ("resolving names…" before), as git rev-list --objects --all does.
  const revList = new Map(
    execFileSync('git', ['rev-list', '--objects', '--all'], { cwd: repo, env: gitEnv, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, 40), line.length > 40 ? line.slice(41) : undefined]),
  );
  const pathCells = await waitUntilPaths(panel);
  let named = 0;
  for (const [oid, text] of pathCells) {
    const name = revList.get(oid);
    const expected = name === undefined ? '' : name === '' ? '(root tree)' : name;
    if (text !== expected)
      throw new Error(`the largest changes give ${oid} the path "${text}"; git rev-list says "${expected}"`);
    if (name) named++;
  }
  if (named === 0) throw new Error('no changed object has a path to show');
  log(`largest changes: ${named} of ${pathCells.length} rows name a path, as git rev-list --objects --all does`);
  await panel.locator('#largest-changes').scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  await helpers.screenshot(page, 'largest-changes-paths');

  await panel.locator('#largest-changes, #recordings-title, #command-title').last().scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  await helpers.screenshot(page, 'panel-lower');

  // Export as Markdown: an untitled Markdown document beside the panel.
  await panel.locator('#export-markdown').click();
  await page.locator('.tabs-container .tab', { hasText: 'Untitled' }).first().waitFor({ timeout: 20_000 });
  await page.locator('.monaco-editor .view-lines', { hasText: 'Repack preview' }).first().waitFor({ timeout: 20_000 });
  await page.waitForTimeout(300);
  await helpers.screenshot(page, 'markdown');
  log('Export as Markdown opened an untitled document');

  // Custom… with an option git does not know: one error notification in git's own words, no panel.
  await helpers.runCommand(page, 'PackScope: Preview Repack…');
  await rows.filter({ hasText: 'Custom' }).first().waitFor({ timeout: 60_000 });
  await page.locator('.quick-input-widget .quick-input-box input').fill('Custom');
  await rows.filter({ hasText: 'Custom' }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
  const box = page.locator('.quick-input-widget .quick-input-box input');
  for (const step of ['Depth (1/4)', 'Window (2/4)', 'Threads (3/4)']) {
    await page.locator('.quick-input-widget .quick-input-title', { hasText: step }).waitFor({ timeout: 20_000 });
    await page.keyboard.press('Enter');
  }
  await page
    .locator('.quick-input-widget .quick-input-title', { hasText: 'More options (4/4)' })
    .waitFor({ timeout: 20_000 });
  await box.fill('not-an-option');
  await page
    .locator('.quick-input-widget .quick-input-message', { hasText: 'is not an option' })
    .waitFor({ timeout: 10_000 });
  await box.fill('--no-such-option');
  await page.waitForTimeout(200);
  await page.keyboard.press('Enter');
  const message = await helpers.notification(page, 'repack preview failed', 120_000);
  if (!message.includes("unknown option `no-such-option'")) throw new Error(`the error notification reads: ${message}`);
  log(`git failing: "${message}"`);
  await page.waitForTimeout(1000); // the progress toast fades out
  await helpers.screenshot(page, 'git-error');
  if (packSnapshot(repo) !== before) throw new Error("the repository's packs changed");
}

/** The largest changes' [id, path cell] pairs once no cell says "resolving names…" (at most 60 s). */
async function waitUntilPaths(panel) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const cells = await panel
      .locator('#largest-changes tbody tr')
      .evaluateAll((rows) => rows.map((row) => [row.dataset.oid, row.querySelector('td.path')?.textContent ?? '']));
    if (cells.length > 0 && cells.every(([, text]) => text !== 'resolving names…')) return cells;
    if (Date.now() > deadline) throw new Error(`the largest changes still resolve names: ${JSON.stringify(cells)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
