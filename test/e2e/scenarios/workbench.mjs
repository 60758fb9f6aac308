// The extension, installed in a real VS Code workbench opened on a git repository, contributes its
// activity-bar container "PackScope", and clicking it shows the "Packs" view.
export const description = 'PackScope activity-bar container and Packs view in an installed workbench';

export async function run({ helpers, log }) {
  const repo = helpers.makeGitRepository({ commits: 5 });
  const { page, readyMs } = await helpers.openWorkbench({ workspaceFolder: repo, installExtension: true });
  log(`workbench ready after ${readyMs} ms`);

  await helpers.openViewContainer(page, 'PackScope');
  // A container with a single view hides that view's pane header (the side bar title reads
  // "PACKSCOPE: PACKS" instead), so the header is only attached, not visible.
  await page.locator('.pane-header[aria-label="Packs Section"]').waitFor({ state: 'attached', timeout: 30_000 });
  const title = (await page.locator('.part.sidebar .composite.title').innerText()).trim();
  if (!/packscope/i.test(title) || !/packs/i.test(title))
    throw new Error(`side bar title is "${title}", expected PackScope: Packs`);
  await page.locator('.part.sidebar .pane-body').first().waitFor({ state: 'visible', timeout: 10_000 });
  await helpers.screenshot(page, 'packs-view');
}
