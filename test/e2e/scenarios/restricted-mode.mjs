// Restricted Mode in a real workbench: workspace trust on, the folder (a repository whose
// core.fsmonitor leaves a marker file) opened untrusted. "PackScope: Preview Repack…" from the
// command palette answers at once with one notification saying why, before any preset is offered,
// and no git ran on the repository: the marker never appears. Screenshot of the notification.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const description = 'Restricted Mode: Preview Repack is refused where it is clicked, and no git runs';

export async function run({ helpers, log }) {
  const repo = helpers.makeGitRepository({ commits: 6, files: 2 });
  const marker = path.join(helpers.tempDir('restricted-marker'), 'fsmonitor-ran');
  // Configured after the history is made: the git that made it must not leave the marker.
  execFileSync('git', ['config', 'core.fsmonitor', `touch '${marker}'`], { cwd: repo });

  const { page } = await helpers.openWorkbench({ workspaceFolder: repo, workspaceTrust: true });
  await page.locator('.statusbar, .part.statusbar').first().waitFor({ timeout: 30_000 });

  await helpers.runCommand(page, 'PackScope: Preview Repack…');
  const message = await helpers.notification(page, 'This workspace is not trusted');
  log(`notification: ${message}`);
  if (!/a repack preview runs git on the repository/.test(message))
    throw new Error(`the notification does not say why: ${message}`);
  const presets = await page
    .locator('.quick-input-widget .monaco-list-row', { hasText: 'Write-order estimate' })
    .count();
  if (presets !== 0) throw new Error('the presets were offered although nothing may run');
  await helpers.screenshot(page, 'refused');

  // Whatever the extension and its server did meanwhile (the Packs view reads the packs), no git ran here.
  await page.waitForTimeout(2000);
  if (fs.existsSync(marker)) throw new Error(`git ran in the untrusted repository: ${marker} exists`);
}
