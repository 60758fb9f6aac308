// The first look at a big pack: while its model is built for the first
// time, the Packs view shows how far the build is with numbers (the pack row's "indexing 34%…", or
// the notification's "Reading objects: n of N"), not an empty view with a thin bar; when it ends,
// the pack row and the Summary have git's counts. The repository is made here by git fast-import
// of a generated stream (about 800,000 small blobs, a commit and its trees: a few seconds of
// fast-import; commits made one by one took minutes), so the build takes seconds. The warm-up is off
// (hover.indexLimit 0) and the model cache is new, so the build is the one the Summary asks for.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { COUNT, expandRow, sidebarRows, treeRow, waitUntil } from '../support/packs-ui.mjs';

export const description =
  "First build of a big pack: the Packs view shows the progress with numbers, then git's counts";

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

  const { page, readyMs } = await helpers.openWorkbench({
    workspaceFolder: dir,
    userSettings: {
      'packscope.hover.indexLimit': 0,
      'packscope.modelCacheDirectory': helpers.tempDir('first-build-models'),
      'workbench.tree.enableStickyScroll': false,
    },
  });
  log(`workbench ready after ${readyMs} ms`);
  await helpers.openViewContainer(page, 'PackScope');
  await page.locator('.pane-header[aria-label="Packs Section"]').waitFor({ state: 'attached', timeout: 30_000 });
  await expandRow(treeRow(page, 'big-first-build'));
  const packLabel = `pack-${packName.slice('pack-'.length, 'pack-'.length + 7)}…`;
  const packRow = treeRow(page, packLabel);
  await packRow.waitFor({ timeout: 30_000 });
  await expandRow(packRow);

  // Every text the rows and notifications show from now on, as the page draws it (a poll could
  // fall between two short-lived states).
  await page.evaluate(() => {
    const seen = (window.__packscopeSeen = []);
    const record = () => {
      for (const el of document.querySelectorAll(
        '.part.sidebar .monaco-list-row .label-description, .part.sidebar .tree-explorer-viewlet-tree-view .message, .notifications-toasts .notification-list-item-message',
      )) {
        const text = (el.textContent ?? '').trim();
        if (text !== '' && seen[seen.length - 1] !== text && !seen.includes(text)) seen.push(text);
      }
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const started = Date.now();
  const summaryRow = treeRow(page, 'Summary');
  await summaryRow.locator('.monaco-tl-twistie').click();
  // A screenshot while it builds: the row's percentage (or the stage) is on screen.
  // A screenshot while it builds, if the poll catches it (the checks below read what the page drew).
  const during = await waitUntil(
    async () => {
      const d = await packRow.locator('.label-description').textContent();
      return d && /indexing|reading|resolving/.test(d) ? d : undefined;
    },
    'the pack row to say it is building',
    { timeout: 10_000, interval: 50 },
  ).catch(() => undefined);
  if (during !== undefined) await helpers.screenshot(page, 'building');
  log(`during the build: pack row "${during ?? '(the poll missed it)'}"`);

  const countsRow = `objects: ${COUNT.format(inPack)}`;
  await treeRow(page, countsRow).waitFor({ timeout: 120_000 });
  const buildMs = Date.now() - started;
  const seen = await page.evaluate(() => window.__packscopeSeen);
  if (!seen.some((t) => /^indexing|^reading|^resolving/.test(t)))
    throw new Error(`the pack row never said it was building; texts seen: ${seen.join(' | ')}`);
  const numbered = seen.filter((t) => /indexing \d+%…/.test(t) || /Reading objects: [\d,]+ of [\d,]+/.test(t));
  log(`build took ${buildMs} ms; progress texts: ${numbered.join(' | ') || '(none)'}`);
  if (numbered.length === 0)
    throw new Error(
      `no progress with numbers was shown during the ${buildMs} ms build; texts seen: ${seen.join(' | ')}`,
    );
  const totals = numbered.map((t) => /of ([\d,]+)/.exec(t)?.[1]).filter(Boolean);
  for (const total of totals)
    if (total !== COUNT.format(inPack)) throw new Error(`a progress line counts ${total} objects, git ${inPack}`);
  // The view's own message line says which pack and how far, and is gone once the build ends.
  const messageLines = seen.filter((t) => /^Building: pack-/.test(t));
  if (!messageLines.some((t) => /Reading objects: [\d,]+ of [\d,]+/.test(t)))
    throw new Error(`the Packs view's message line never said how far the build was; texts seen: ${seen.join(' | ')}`);
  const messageNow = await page.evaluate(
    () => document.querySelector('.part.sidebar .tree-explorer-viewlet-tree-view .message')?.textContent ?? '',
  );
  if (/Building:/.test(messageNow)) throw new Error(`the Packs view still says "${messageNow}" after the build`);

  // The final rows: git's counts.
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
