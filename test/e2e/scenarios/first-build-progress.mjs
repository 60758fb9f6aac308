// The first look at a big pack, as a new user has it: the warm-up on (the default), a new model
// cache. From the moment the Packs view is open it shows the repository and its pack, the pack row
// saying "indexing n of N objects" with a Cancel beside it, and never "No Git repository … was
// found" while the build is under way; when the build ends, the pack row and the Summary have git's
// counts. The repository is made here by git fast-import of a generated stream (about 800,000 small
// blobs, a commit and its trees: a few seconds of fast-import; commits made one by one took
// minutes), so the build takes seconds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { COUNT, PACKS_ROWS, expandRow, sidebarRows, treeRow, waitUntil } from '../support/packs-ui.mjs';

export const description =
  'First build of a big pack with the warm-up on: the Packs view lists the pack at once with the build\'s numbers and Cancel, never "nothing found", then git\'s counts';

// Big enough that the build takes seconds even after the header scan got fast (250,000 took 1.4 s).
const BLOBS = 800_000;
/** Files of the one commit (a sample of the blobs): its trees stay small, which fast-import builds fast. */
const FILES = 400;

const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  // glibc returning memory after each object made fast-import spend minutes in brk on a busy machine.
  GLIBC_TUNABLES: 'glibc.malloc.top_pad=268435456:glibc.malloc.trim_threshold=536870912',
};

function generatedStream() {
  const parts = [];
  for (let i = 1; i <= BLOBS; i++) {
    const data = `object ${i} of a pack made for PackScope's first-build scenario ${'.'.repeat(i % 23)}\n`;
    parts.push(`blob\nmark :${i}\ndata ${Buffer.byteLength(data)}\n${data}`);
  }
  const message = 'a commit naming some of the blobs\n';
  let commit = `commit refs/heads/main\ncommitter PackScope E2E <e2e@packscope.invalid> 1700000000 +0000\ndata ${Buffer.byteLength(message)}\n${message}`;
  for (let f = 0; f < FILES; f++)
    commit += `M 100644 :${1 + Math.floor((f * BLOBS) / FILES)} dir-${f % 20}/file-${f}.txt\n`;
  parts.push(commit, 'done\n');
  return parts.join('');
}

/** What an empty Packs view says when a listing found no repository (package.json's viewsWelcome). */
const NOTHING_FOUND = /No Git repository with packs was found/;

// Stays long: a linear script: the repository, the workbench, what the view showed during the build, then after it.
export async function run({ helpers, log }) {
  const dir = path.join(helpers.tempDir('first-build'), 'big-first-build');
  fs.mkdirSync(dir);
  const git = (args, input) =>
    execFileSync('git', args, {
      cwd: dir,
      env: gitEnv,
      input,
      encoding: 'utf8',
      maxBuffer: 256 << 20,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  const made = Date.now();
  git(['init', '-q', '-b', 'main']);
  git(['fast-import', '--quiet', '--done'], generatedStream());
  const packDir = path.join(dir, '.git', 'objects', 'pack');
  const packs = fs.readdirSync(packDir).filter((f) => f.endsWith('.pack'));
  if (packs.length !== 1) throw new Error(`expected one pack from fast-import, found ${packs.join(', ') || 'none'}`);
  const packName = packs[0];
  // git's own counts: objects in the pack, and by type.
  const inPack = Number(
    Object.fromEntries(
      git(['count-objects', '-v'])
        .trim()
        .split('\n')
        .map((l) => l.split(': ')),
    )['in-pack'],
  );
  const byType = { commit: 0, tree: 0, blob: 0, tag: 0 };
  for (const type of git(['cat-file', '--batch-all-objects', '--batch-check=%(objecttype)']).trim().split('\n'))
    byType[type]++;
  log(`${packName}: ${inPack} objects (${JSON.stringify(byType)}), made in ${Date.now() - made} ms`);

  // The warm-up as shipped: no packscope.hover.indexLimit here (the default takes this pack).
  const { page, readyMs } = await helpers.openWorkbench({
    workspaceFolder: dir,
    userSettings: {
      'packscope.modelCacheDirectory': helpers.tempDir('first-build-models'),
      'workbench.tree.enableStickyScroll': false,
    },
  });
  log(`workbench ready after ${readyMs} ms`);

  // Every text the side bar and notifications show from now on, as the page draws it (a poll could
  // fall between two short-lived states), with whether a Cancel was on screen while a row said it
  // was indexing. Installed before the view opens: its very first state counts.
  await page.evaluate((rowsSelector) => {
    const state = (window.__packscope = { seen: [], indexingStates: 0, cancelShown: 0, missing: [] });
    const record = () => {
      for (const el of document.querySelectorAll(
        '.part.sidebar .monaco-list-row .label-description, .part.sidebar .tree-explorer-viewlet-tree-view .message, .part.sidebar .welcome-view-content, .notifications-toasts .notification-list-item-message',
      )) {
        const text = (el.textContent ?? '').trim();
        if (text !== '' && !state.seen.includes(text)) state.seen.push(text);
      }
      // Pack rows (level 2; the repository's row says it too, the pack's Cancel is on the pack's).
      const indexing = [...document.querySelectorAll(rowsSelector)].filter(
        (row) =>
          row.getAttribute('aria-level') === '2' &&
          /^(indexing|waiting to index)/.test(row.querySelector('.label-description')?.textContent ?? ''),
      );
      if (indexing.length === 0) return;
      state.indexingStates++;
      if (indexing.every((row) => row.querySelector('.action-label[aria-label^="Cancel Loading"]')))
        state.cancelShown++;
      else state.missing.push(indexing.map((row) => row.getAttribute('aria-label')).join(' | '));
    };
    new MutationObserver(record).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  }, PACKS_ROWS);
  const opened = Date.now();
  await helpers.openViewContainer(page, 'PackScope');
  await page.locator('.pane-header[aria-label="Packs Section"]').waitFor({ state: 'attached', timeout: 30_000 });
  const packLabel = `pack-${packName.slice('pack-'.length, 'pack-'.length + 7)}…`;
  const packRow = treeRow(page, packLabel);
  await packRow.waitFor({ timeout: 30_000 });
  log(`the pack row was there ${Date.now() - opened} ms after the view opened`);

  // A screenshot of the first build, with the pointer on the row so that its inline Cancel shows.
  const during = await waitUntil(
    async () => {
      const d = await packRow.locator('.label-description').textContent();
      return d && /^(indexing|waiting to index)/.test(d) ? d : undefined;
    },
    'the pack row to say it is building',
    { timeout: 10_000, interval: 50 },
  ).catch(() => undefined);
  // The picture shows the build under way: a count past 0 when the build reports one in time (its
  // steps are 262,144 objects), else what the row said first.
  const counted = await waitUntil(
    async () => {
      const d = await packRow.locator('.label-description').textContent();
      return d && /^indexing [1-9][\d,]* of /.test(d) ? d : undefined;
    },
    'the pack row to count objects past 0',
    { timeout: 10_000, interval: 50 },
  ).catch(() => undefined);
  if (during !== undefined) {
    await packRow.hover().catch(() => undefined);
    await helpers.screenshot(page, 'first-build');
  }
  log(
    `during the build: pack row "${during ?? '(the poll missed it)'}"${counted ? `, then "${counted}" (screenshot)` : ''}`,
  );

  // The warm-up's model gives the row its numbers once the build ends.
  await waitUntil(
    async () => {
      const d = await packRow.locator('.label-description').textContent();
      return d?.includes('inflated') ? d : undefined;
    },
    'the pack row to show the built model',
    { timeout: 120_000, interval: 100 },
  ).catch(async (error) => {
    // What the view said on the way (once under a loaded machine the row stayed at "N objects"): the
    // failure's own words, beside the server's log that run.mjs keeps.
    const { seen } = await page.evaluate(() => window.__packscope).catch(() => ({ seen: [] }));
    error.message += `; texts seen: ${seen.join(' | ')}`;
    throw error;
  });
  const buildMs = Date.now() - opened;
  const { seen, indexingStates, cancelShown, missing } = await page.evaluate(() => window.__packscope);
  log(`build seen for ${buildMs} ms after the view opened; texts: ${seen.join(' | ')}`);
  const nothingFound = seen.filter((t) => NOTHING_FOUND.test(t));
  if (nothingFound.length > 0)
    throw new Error(`the Packs view said "${nothingFound[0]}" while the repository's pack was being indexed`);
  const numbered = seen.filter((t) => /^indexing [\d,]+ of [\d,]+ objects/.test(t));
  if (numbered.length === 0)
    throw new Error(`the pack row never said how far the build was with numbers; texts seen: ${seen.join(' | ')}`);
  for (const t of numbered) {
    const total = /of ([\d,]+) objects/.exec(t)?.[1];
    if (total !== COUNT.format(inPack)) throw new Error(`"${t}" counts ${total} objects, git ${inPack}`);
  }
  // Cancel was on every pack row the page showed indexing (the view's title has one too).
  if (indexingStates === 0 || cancelShown !== indexingStates)
    throw new Error(
      `the pack row had its Cancel Loading in ${cancelShown} of ${indexingStates} states it said it was indexing; without: ${missing.join(' / ')}`,
    );
  // The view's own message line said which pack and how far, and is gone once the build ends.
  if (!seen.some((t) => /^Building: pack-[0-9a-f]{7}…: indexing [\d,]+ of [\d,]+ objects/.test(t)))
    throw new Error(`the Packs view's message line never said how far the build was; texts seen: ${seen.join(' | ')}`);
  const messageNow = await page.evaluate(
    () => document.querySelector('.part.sidebar .tree-explorer-viewlet-tree-view .message')?.textContent ?? '',
  );
  if (/Building:/.test(messageNow)) throw new Error(`the Packs view still says "${messageNow}" after the build`);

  // The final rows: git's counts.
  await expandRow(packRow);
  await treeRow(page, 'Summary').locator('.monaco-tl-twistie').click();
  await treeRow(page, `objects: ${COUNT.format(inPack)}`).waitFor({ timeout: 60_000 });
  const rows = await sidebarRows(page);
  for (const [type, count] of Object.entries(byType)) {
    if (!rows.some((r) => r.label === `${type}: ${COUNT.format(count)}`))
      throw new Error(
        `no Summary row "${type}: ${COUNT.format(count)}"; rows: ${rows.map((r) => r.label).join(' | ')}`,
      );
  }
  const finalDescription = await packRow.locator('.label-description').textContent();
  if (!finalDescription?.includes(`${COUNT.format(inPack)} objects`))
    throw new Error(`the pack row says "${finalDescription}", expected ${inPack} objects`);
  if (/indexing/.test(finalDescription)) throw new Error(`the pack row still says it is indexing: ${finalDescription}`);
  await helpers.screenshot(page, 'built');
}
