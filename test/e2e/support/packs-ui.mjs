// Shared by the PackScope browser scenarios (test/e2e/scenarios/packs-view.mjs, object-hover.mjs):
// a repository built with the git CLI and read back with git itself, and small Playwright helpers
// for the Packs view and the editor. Not a scenario (run.mjs only runs test/e2e/scenarios/*.mjs).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'PackScope E2E',
  GIT_AUTHOR_EMAIL: 'e2e@packscope.invalid',
  GIT_COMMITTER_NAME: 'PackScope E2E',
  GIT_COMMITTER_EMAIL: 'e2e@packscope.invalid',
};

export const COUNT = new Intl.NumberFormat('en-US');

/**
 * A repository in `<temp>/<name>`: `story.txt` edited in every one of `commits` commits, a few
 * other files edited now and then, then `git repack -adf --depth=50 --window=50` (one pack, long
 * delta chains, families with children). Returns the work tree, a git runner and what git says
 * about the pack (verify-pack -v, count-objects -v).
 */
export function makePacksRepository(helpers, { name = 'packs-view-demo', commits = 30 } = {}) {
  const dir = path.join(helpers.tempDir('packs'), name);
  fs.mkdirSync(dir);
  const git = (...args) =>
    execFileSync('git', args, {
      cwd: dir,
      env: gitEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    });
  git('init', '-q', '-b', 'main');
  fs.mkdirSync(path.join(dir, 'src'));
  const story = [];
  for (let i = 0; i < 60; i++)
    story.push(`${i}: once upon a time the pack kept every version of this story, line ${i * 7}`);
  for (let c = 1; c <= commits; c++) {
    story.splice((c * 13) % story.length, 0, `${c}: chapter ${c} adds a line in the middle`);
    story.push(`${c}: and one at the end, commit ${c}`);
    fs.writeFileSync(path.join(dir, 'story.txt'), `${story.join('\n')}\n`);
    if (c === 1 || c % 5 === 0) {
      fs.writeFileSync(
        path.join(dir, 'README.md'),
        `# ${name}\n\nRevision ${c} of a repository made for PackScope's browser scenarios.\n`,
      );
    }
    if (c % 3 === 0) {
      const body = Array.from(
        { length: 30 + c },
        (_, i) => `export const value${i} = ${i * c}; // ${'x'.repeat(i % 11)}`,
      );
      fs.writeFileSync(path.join(dir, 'src', 'values.js'), `${body.join('\n')}\n`);
    }
    if (c % 7 === 0) fs.writeFileSync(path.join(dir, 'src', `part-${c}.txt`), `part ${c}\n`.repeat(20));
    git('add', '-A');
    const date = `2024-02-${String(c).padStart(2, '0')}T12:00:00Z`;
    execFileSync('git', ['commit', '-q', '-m', `commit ${c}: story grows`], {
      cwd: dir,
      env: { ...gitEnv, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    });
  }
  git('repack', '-adfq', '--depth=50', '--window=50');
  const packDir = path.join(dir, '.git', 'objects', 'pack');
  const packs = fs.readdirSync(packDir).filter((f) => f.endsWith('.pack'));
  if (packs.length !== 1)
    throw new Error(`expected one pack after git repack -adf, found ${packs.join(', ') || 'none'}`);
  const packName = packs[0];
  const verify = verifyPack(git, path.join(packDir, packName.replace(/\.pack$/, '.idx')));
  const counts = Object.fromEntries(
    git('count-objects', '-v')
      .trim()
      .split('\n')
      .map((l) => l.split(': ')),
  );
  const inPack = Number(counts['in-pack']);
  if (inPack !== verify.objects.length)
    throw new Error(`count-objects says in-pack ${inPack}, verify-pack -v lists ${verify.objects.length}`);
  return { dir, name, git, packName, packPath: path.join(packDir, packName), inPack, ...verify };
}

/**
 * `git verify-pack -v`: each object with its base (for deltas), depth, direct children and the root
 * of its chain; families (objects by chain root), largest first.
 */
function verifyPack(git, idx) {
  const objects = [];
  for (const line of git('verify-pack', '-v', idx).split('\n')) {
    const m = /^([0-9a-f]{40,64}) (commit|tree|blob|tag)\s+(\d+) (\d+) (\d+)(?: (\d+) ([0-9a-f]{40,64}))?$/.exec(line);
    if (m)
      objects.push({
        oid: m[1],
        type: m[2],
        size: Number(m[3]),
        sizeInPack: Number(m[4]),
        offset: Number(m[5]),
        depth: m[6] ? Number(m[6]) : 0,
        base: m[7],
        children: [],
      });
  }
  const byOid = new Map(objects.map((o) => [o.oid, o]));
  for (const o of objects) if (o.base) byOid.get(o.base).children.push(o.oid);
  const rootOf = (o) => {
    while (o.base) o = byOid.get(o.base);
    return o.oid;
  };
  const families = new Map();
  for (const o of objects) {
    const root = rootOf(o);
    o.root = root;
    families.set(root, [...(families.get(root) ?? []), o.oid]);
  }
  const familiesBySize = [...families.entries()]
    .map(([root, members]) => ({ root, members }))
    .sort((a, b) => b.members.length - a.members.length);
  return { objects, byOid, familiesBySize };
}

/**
 * The Packs view's pane in the side bar. Its header is hidden while it is the container's only view,
 * so the pane is found by the header's aria-label, not by what is visible.
 */
export const PACKS_ROWS = '.part.sidebar .pane:has(> .pane-header[aria-label="Packs Section"]) .monaco-list-row';

/** The Packs view's rows as the workbench shows them (only rendered rows: the list is virtual). */
export function sidebarRows(page) {
  return page.locator(PACKS_ROWS).evaluateAll((rows) =>
    rows
      .map((r) => ({
        label: r.querySelector('.label-name')?.textContent ?? '',
        description: r.querySelector('.label-description')?.textContent ?? '',
        ariaLabel: r.getAttribute('aria-label') ?? '',
        level: Number(r.getAttribute('aria-level')),
        expanded: r.getAttribute('aria-expanded'),
        selected: r.classList.contains('selected') || r.getAttribute('aria-selected') === 'true',
        top: parseFloat(r.style.top || '0'),
        // The list's own index of the row: while the list splices rows in, a recycled row element can
        // still carry its old style.top for a frame, so the index orders rows as the user sees them.
        index: Number(r.getAttribute('data-index') ?? NaN),
      }))
      .sort((a, b) => (Number.isNaN(a.index) || Number.isNaN(b.index) ? a.top - b.top : a.index - b.index)),
  );
}

/** The row of the Packs view whose label matches `label` (a string: exact; or a RegExp). */
export function treeRow(page, label) {
  const re = label instanceof RegExp ? label : new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  return page.locator(PACKS_ROWS).filter({ has: page.locator('.label-name', { hasText: re }) });
}

/** Expands a row (clicks its twistie) unless it is expanded; waits until the workbench says it is. */
export async function expandRow(row, timeout = 30_000) {
  await row.waitFor({ timeout });
  if ((await row.getAttribute('aria-expanded')) === 'true') return;
  await row.locator('.monaco-tl-twistie').click();
  await row.and(row.page().locator('[aria-expanded="true"]')).waitFor({ timeout });
}

/** The visible lines of the active editor, top to bottom, with the editor's non-breaking spaces as spaces. */
export async function activeEditorLines(page) {
  const editor = page
    .locator('.part.editor .editor-group-container.active .editor-instance .monaco-editor .view-lines')
    .first();
  await editor.waitFor({ timeout: 20_000 });
  return editor.evaluate((el) =>
    [...el.querySelectorAll('.view-line')]
      .map((l) => ({ top: parseFloat(l.style.top || '0'), text: (l.textContent ?? '').replace(/\u00a0/g, ' ') }))
      .sort((a, b) => a.top - b.top)
      .map((l) => l.text),
  );
}

/** Polls `probe` (returns a value or undefined) until it returns something; throws `what` after `timeout`. */
export async function waitUntil(probe, what, { timeout = 20_000, interval = 100 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await probe();
    } catch (e) {
      last = undefined;
      if (Date.now() > deadline) throw e;
    }
    if (last !== undefined && last !== false) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** Waits for the page's running finite animations (a hover's fade-in) to end, so that a screenshot shows the end state. */
export async function settleAnimations(page) {
  await page.evaluate(() =>
    Promise.race([
      Promise.all(
        document
          .getAnimations()
          .filter((a) => a.effect?.getTiming().iterations !== Infinity)
          .map((a) => a.finished.catch(() => {})),
      ),
      new Promise((r) => setTimeout(r, 2_000)),
    ]),
  );
}

/**
 * Clicks a context-menu item and waits for the menu to close; clicks again (at most three times)
 * when it stays open. code-server's menu at times ignores a click that comes right after it opened
 * (the FAILED screenshots of packs-view and pack-map-recording show the item highlighted and the
 * menu still open 20–120 s later); what the item does is still checked by the caller.
 */
export async function clickMenuItem(page, menuItem) {
  for (let attempt = 0; attempt < 3; attempt++) {
    await menuItem.click();
    try {
      await menuItem.waitFor({ state: 'hidden', timeout: 3_000 });
      return;
    } catch {
      // still open: click again
    }
  }
  throw new Error('the context menu stayed open after three clicks on its item');
}
