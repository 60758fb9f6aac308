// "PackScope: Go to Object…" in a real workbench: a revision name typed in the input box
// (HEAD~2:story.txt) opens the object document of the blob git rev-parse names, with its path and
// the commit git log --find-object says introduced it there; a name git cannot resolve keeps the box
// open with git's own reason. Screenshots of the box with the reason and of the document.
import { activeEditorLines, makePacksRepository, waitUntil } from '../support/packs-ui.mjs';

export const description = 'Go to Object…: a rev-parse name opens its object document; an unknown name says why';

export async function run({ helpers, log }) {
  const repo = makePacksRepository(helpers, { name: 'go-to-object-demo' });
  const oid = repo.git('rev-parse', 'HEAD~2:story.txt').trim();
  let introducing = '';
  let listed = '';
  for (const line of repo
    .git(
      'log',
      '--all',
      `--find-object=${oid}`,
      '--no-renames',
      '--diff-merges=separate',
      '--format=commit %H %s',
      '--raw',
      '--no-abbrev',
    )
    .split('\n')) {
    if (line.startsWith('commit ')) listed = line.slice(7);
    if (line.startsWith(':') && line.split(' ')[3] === oid && line.endsWith('\tstory.txt')) introducing = listed;
  }
  if (introducing === '') throw new Error(`git log --find-object lists no commit adding ${oid} at story.txt`);

  const { page } = await helpers.openWorkbench({ workspaceFolder: repo.dir });
  const input = page.locator('.quick-input-widget .quick-input-box input');
  const box = page.locator('.quick-input-widget', { hasText: 'PackScope: Go to Object' });

  // An unknown name: the box stays open and shows git's reason.
  await helpers.runCommand(page, 'PackScope: Go to Object…');
  await box.waitFor({ timeout: 10_000 });
  await input.fill('HEAD:no/such/file.txt');
  await page.keyboard.press('Enter');
  const message = page.locator('.quick-input-widget .quick-input-message');
  const reason = await waitUntil(async () => {
    const text = (await message.textContent()) ?? '';
    return text.includes('does not exist') ? text : undefined;
  }, "git's reason in the input box");
  log(`unknown name: ${reason}`);
  await helpers.screenshot(page, 'unknown-name');

  // A revision name: the object document of git's answer.
  await input.fill('HEAD~2:story.txt');
  await page.keyboard.press('Enter');
  await box.waitFor({ state: 'hidden', timeout: 20_000 });
  const wanted = [`id             ${oid}`, 'path           story.txt', `introduced by  ${introducing}`];
  const lines = await waitUntil(
    async () => {
      const shown = await activeEditorLines(page);
      return wanted.every((w) => shown.includes(w)) ? shown : undefined;
    },
    `the object document of ${oid} with its path and introducing commit`,
    { timeout: 60_000 },
  ).catch(async (error) => {
    throw new Error(`${error.message}; the editor shows:\n${(await activeEditorLines(page)).slice(0, 6).join('\n')}`);
  });
  log(`document: ${lines.slice(0, 4).join(' | ')}`);
  await page.mouse.move(1200, 16);
  await helpers.screenshot(page, 'document');
}
