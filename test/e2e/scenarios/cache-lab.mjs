// The Cache Lab in a real workbench: "PackScope: Open Cache Lab…" on a recording of the test
// repository (made with the CLI, outside the repository; its path typed into the command's quick
// pick), the chart and the table inside the webview (nested iframes), the table's numbers equal to
// `packscope sweep --json`, the Locality tab, in the light and the dark theme (screenshots).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { waitUntil } from '../support/packs-ui.mjs';

export const description =
  'Cache Lab webview: sweep chart and table equal to the CLI, Locality tab, light and dark theme';

const DEFAULT_LIMITS = '0,1m,4m,16m,32m,64m,96m,256m,1g';
const DEFAULT_POLICIES = 'git,git-legacy,separate-blob-lru,admit-max:1m,keep-on-hit,gdsf,libgit2:as-shipped,belady';

export async function run({ helpers, log }) {
  const repo = helpers.makeGitRepository({ commits: 12, files: 4 });
  const recording = path.join(helpers.tempDir('recording'), 'log-p.psrec');
  const cli = (...args) =>
    execFileSync(process.execPath, [path.join(helpers.root, 'dist', 'cli.js'), ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    });
  cli('record', '--exact', '-o', recording, '-C', repo, '--', 'log', '-p');
  const expected = JSON.parse(
    cli('sweep', '--json', '--limits', DEFAULT_LIMITS, '--policies', DEFAULT_POLICIES, recording),
  );
  log(`recorded ${expected.recording.reads} reads of git log -p`);

  const colours = {};
  for (const theme of ['light', 'dark']) {
    colours[theme] = await openAndCheck({ helpers, log, theme, recording, expected });
  }
  if (colours.light === colours.dark)
    throw new Error(`the chart has the same colours in both themes: ${colours.light}`);
  log('screenshots: cache-lab-sweep-light, -locality-light, -sweep-dark, -locality-dark');
}

/**
 * One workbench in the theme's Default Modern colour theme (a user setting, so each screenshot
 * shows a workbench that started in it): opens the Cache Lab from the palette, checks the table
 * against the CLI, takes the Sweep and Locality screenshots; returns the sweep chart's colours.
 */
async function openAndCheck({ helpers, log, theme, recording, expected }) {
  const colorTheme = theme === 'light' ? 'Default Light Modern' : 'Default Dark Modern';
  const { page } = await helpers.openWorkbench({
    name: theme,
    workspaceFolder: path.dirname(expected.recording.repository),
    userSettings: { 'workbench.colorTheme': colorTheme },
  });

  await helpers.runCommand(page, 'PackScope: Open Cache Lab…');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Choose a file' })
    .waitFor({ timeout: 30_000 });
  await input.fill(recording);
  await page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: recording })
    .first()
    .waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');

  // VS Code webviews are two nested iframes: the host frame, then the content frame.
  const lab = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await lab.locator(`body.vscode-${theme}`).waitFor({ state: 'attached', timeout: 90_000 });
  await lab.locator('#sweep-table tbody tr').first().waitFor({ timeout: 90_000 });
  await lab.locator('#sweep-chart[data-series]').waitFor({ timeout: 30_000 });
  await lab.locator('#index-pack table').first().waitFor({ timeout: 60_000 });

  const table = await lab.locator('#sweep-table').evaluate((t) => ({
    policies: [...t.querySelectorAll('thead th[data-policy]')].map((th) => th.dataset.policy),
    rows: [...t.querySelectorAll('tbody tr')].map((tr) => ({
      limit: Number(tr.dataset.limit),
      cells: [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)),
    })),
  }));
  const policies = DEFAULT_POLICIES.split(',');
  if (JSON.stringify(table.policies) !== JSON.stringify(policies))
    throw new Error(`table columns ${table.policies.join(',')}, expected ${policies.join(',')}`);
  const limits = [...new Set(expected.results.map((r) => r.limit))];
  if (JSON.stringify(table.rows.map((r) => r.limit)) !== JSON.stringify(limits))
    throw new Error(`table rows ${table.rows.map((r) => r.limit)}, expected ${limits}`);
  for (const [row, limit] of limits.entries()) {
    for (const [column, policy] of policies.entries()) {
      const want = expected.results.find((r) => r.limit === limit && r.policy === policy).inflations;
      const got = table.rows[row].cells[column];
      if (got !== want)
        throw new Error(
          `inflations at ${limit} for ${policy}: the Cache Lab shows ${got}, packscope sweep --json says ${want}`,
        );
    }
  }
  log(`${theme}: the table's ${limits.length}×${policies.length} cells equal packscope sweep --json`);
  const series = JSON.parse(await lab.locator('#sweep-chart').getAttribute('data-series'));
  if (series.length !== policies.length + 1)
    throw new Error(`the chart has ${series.length} datasets: ${series.join(', ')}`);
  const scales = JSON.parse(await lab.locator('#sweep-chart').getAttribute('data-scales'));
  if (scales.x !== 'logarithmic') throw new Error(`the limit axis is ${scales.x}`);
  const chartColours = await lab.locator('#sweep-chart').getAttribute('data-colours');

  // The chart, below the controls, is what the screenshot is for.
  await lab.locator('#sweep-figure').scrollIntoViewIfNeeded();
  await helpers.screenshot(page, `sweep-${theme}`);

  // Relative to belady: each policy's line is its inflations divided by belady's at the same limit,
  // as packscope sweep --json gives them (so that differences of a few percent become visible).
  await lab.locator('#sweep-view').selectOption('relative-belady');
  const beladyColumn = policies.indexOf('belady');
  const relative = await waitUntil(
    async () => {
      const values = JSON.parse((await lab.locator('#sweep-chart').getAttribute('data-values')) ?? '[]');
      // Redrawn in the relative view: belady's own line is 1 at every limit.
      const belady = (values[beladyColumn] ?? []).filter((v) => v !== null);
      return belady.length > 0 && belady.every((v) => v === 1) ? { values } : undefined;
    },
    'the sweep chart relative to belady',
    { timeout: 30_000 },
  );
  for (const [column, policy] of policies.entries()) {
    const plotted = relative.values[column];
    const wanted = limits
      .filter((limit) => limit > 0)
      .map(
        (limit) =>
          expected.results.find((r) => r.limit === limit && r.policy === policy).inflations /
          expected.results.find((r) => r.limit === limit && r.policy === 'belady').inflations,
      );
    const got = plotted.filter((v) => v !== null).slice(-wanted.length);
    if (got.length !== wanted.length || got.some((v, i) => Math.abs(v - wanted[i]) > 1e-9))
      throw new Error(
        `relative to belady, ${policy}: the chart plots ${JSON.stringify(got)}, packscope sweep --json gives ${JSON.stringify(wanted)}`,
      );
  }
  log(`${theme}: the relative-to-belady chart's ${policies.length} lines equal packscope sweep --json's ratios`);
  await helpers.screenshot(page, `sweep-relative-${theme}`);
  await lab.locator('#sweep-view').selectOption('log');
  await lab.locator('#tab-locality').click();
  await lab.locator('#locality-stats tbody tr').first().waitFor({ timeout: 60_000 });
  await lab.locator('#distance-chart[data-series]').waitFor({ timeout: 30_000 });
  await lab.locator('#distance-figure').scrollIntoViewIfNeeded();
  await helpers.screenshot(page, `locality-${theme}`);
  return chartColours;
}
