// Hovers on object ids in a text file of the workspace, in a real workbench with PackScope
// installed: a word that names an object gets a hover with its type, size and pack (as git has
// them); a hex word that names nothing gets no PackScope hover; the hover's "Reveal in Packs view"
// link shows the object in the Packs view, selected, under "Revealed: …". The hover names the blob's
// path and the commit that introduced it there, as git log --find-object does.
import fs from 'node:fs';
import path from 'node:path';
import { COUNT, makePacksRepository, settleAnimations, sidebarRows, treeRow, waitUntil } from '../support/packs-ui.mjs';

export const description =
  'Hovers on object ids (and on a hex word naming nothing) in the editor; Reveal in Packs view';

const short = (oid) => oid.slice(0, 10);
/** Where the mouse rests between hovers: the empty middle of the title bar, which has no hover of its own. */
const PARK = { x: 1200, y: 16 };

export async function run({ helpers, log }) {
  const repo = makePacksRepository(helpers, { name: 'hover-demo' });
  // A delta (an older version of story.txt), so that the hover has a chain to tell about.
  const target = repo.byOid.get(repo.git('rev-parse', 'HEAD~3:story.txt').trim());
  let nothing = 'c0ffee15bad5eed5';
  while (repo.objects.some((o) => o.oid.startsWith(nothing)))
    nothing = nothing.replace(/^./, (c) => ((parseInt(c, 16) + 1) % 16).toString(16));
  fs.writeFileSync(
    path.join(repo.dir, 'notes.txt'),
    [
      'PackScope hover check. The next line is story.txt three commits ago:',
      target.oid,
      '',
      'and the next one is a hex word that names no object:',
      nothing,
      '',
    ].join('\n'),
  );
  const size = Number(repo.git('cat-file', '-s', target.oid).trim());
  log(`notes.txt names ${target.oid} (blob, ${size} bytes, depth ${target.depth}) and ${nothing} (nothing)`);

  const { page, readyMs } = await helpers.openWorkbench({
    workspaceFolder: repo.dir,
    userSettings: {
      'editor.hover.delay': 200,
      'editor.minimap.enabled': false,
      'workbench.tree.enableStickyScroll': false,
    },
  });
  log(`workbench ready after ${readyMs} ms`);

  // Quick Open → notes.txt.
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
  const word = (text) => editor.locator('.view-line', { hasText: text }).locator('span > span').first();
  await word(target.oid).waitFor({ timeout: 20_000 });

  // 3a. Hover the id: the PackScope hover. The server answers hovers only once the pack's model is
  // loaded (it loads it in the background at start), so an early hover may get nothing: hover again.
  const hover = page.locator('.monaco-hover-content').filter({ hasText: target.oid });
  // git's answer: the last commit git log --find-object lists adding the blob at story.txt.
  let introducing = '';
  let listed = '';
  for (const line of repo
    .git(
      'log',
      '--all',
      `--find-object=${target.oid}`,
      '--no-renames',
      '--diff-merges=separate',
      '--format=commit %H %s',
      '--raw',
      '--no-abbrev',
    )
    .split('\n')) {
    if (line.startsWith('commit ')) listed = line.slice(7);
    if (line.startsWith(':') && line.split(' ')[3] === target.oid && line.endsWith('\tstory.txt')) introducing = listed;
  }
  if (introducing === '') throw new Error(`git log --find-object lists no commit adding ${target.oid} at story.txt`);
  let seenResolving = false;
  const hoverText = await waitUntil(
    async () => {
      await page.keyboard.press('Escape');
      await page.mouse.move(PARK.x, PARK.y);
      await word(target.oid).hover();
      try {
        await hover.waitFor({ state: 'visible', timeout: 3_000 });
      } catch {
        return undefined;
      }
      const text = (await hover.innerText()).replace(/\u00a0/g, ' ');
      // The path and the introducing commit come once the walk and git have answered ("resolving names…" before).
      if (text.includes('resolving names')) seenResolving = true;
      return text.includes('introduced by ') && !text.includes('resolving names') ? text : undefined;
    },
    `a PackScope hover on ${target.oid} with its path and introducing commit`,
    { timeout: 60_000, interval: 0 },
  );
  const wanted = [
    `blob ${target.oid}`,
    `(${COUNT.format(size)} bytes)`,
    `${target.sizeInPack < 1024 ? `${target.sizeInPack} B` : ''} in the pack, ${target.depth === 0 ? 'stored whole' : 'stored ofs-delta'}`,
    `${repo.packName} in ${repo.name} at offset ${COUNT.format(target.offset)}`,
    target.depth === 0
      ? 'Not a delta'
      : `Delta depth ${target.depth}: chain of ${target.depth + 1} down to root ${target.root.slice(0, 12)} (blob)`,
    `${COUNT.format(target.children.length)} direct delta ${target.children.length === 1 ? 'child' : 'children'}`,
    'path story.txt',
    `introduced by ${introducing.slice(0, 12)} ${introducing.slice(41)}`,
    'Reveal in Packs view',
    'Open object',
  ];
  const flat = hoverText.replace(/\s+/g, ' ');
  for (const w of wanted)
    if (!flat.includes(w)) throw new Error(`the hover on ${target.oid} lacks "${w}":\n${hoverText}`);
  log(`hover on the id: ${flat}${seenResolving ? ' (an earlier hover said "resolving names…")' : ''}`);
  await settleAnimations(page);
  await helpers.screenshot(page, 'hover-on-object');

  // 3b. Hover the hex word that names nothing: no PackScope hover. There is no event for "no hover",
  // so wait a bounded time (the hover delay is 200 ms; the id's hover came well within that).
  await page.keyboard.press('Escape');
  await page.mouse.move(PARK.x, PARK.y);
  await page
    .locator('.monaco-hover-content')
    .filter({ hasText: target.oid })
    .waitFor({ state: 'hidden', timeout: 5_000 });
  await word(nothing).hover();
  await page.waitForTimeout(1_500);
  const texts = await page
    .locator('.monaco-hover-content')
    .evaluateAll((nodes) =>
      nodes
        .filter((n) => n.offsetParent !== null && n.getBoundingClientRect().height > 0)
        .map((n) => n.textContent ?? ''),
    );
  const packscopeHover = texts.find((t) => /Reveal in Packs view|Open object|in the pack|\.pack\b/.test(t));
  if (packscopeHover !== undefined)
    throw new Error(`hovering ${nothing} (which names nothing) shows a PackScope hover: ${packscopeHover}`);
  log(`hover on ${nothing}: ${texts.filter((t) => t.trim()).length ? `only ${JSON.stringify(texts)}` : 'none'}`);
  await helpers.screenshot(page, 'hover-on-nothing');

  // 5. The hover's "Reveal in Packs view": the Packs view opens with the object selected under "Revealed: …".
  await page.mouse.move(PARK.x, PARK.y);
  await word(target.oid).hover();
  const link = hover.locator('a', { hasText: 'Reveal in Packs view' });
  await link.waitFor({ state: 'visible', timeout: 10_000 });
  await link.click();
  const revealedLabel = `Revealed: ${short(target.oid)} blob`;
  await treeRow(page, revealedLabel).waitFor({ timeout: 20_000 });
  const selected = await waitUntil(
    async () => {
      const rows = await sidebarRows(page);
      const at = rows.findIndex((r) => r.label === revealedLabel);
      const sel = rows.filter((r) => r.selected);
      return sel.length === 1 && sel[0].label === `${short(target.oid)} blob` && rows.indexOf(sel[0]) > at
        ? { rows, at, sel: sel[0] }
        : undefined;
    },
    `the row of ${short(target.oid)} selected under "${revealedLabel}"`,
    { timeout: 10_000 },
  );
  // Under "Revealed: …": the chain root first, the object last (git's chain of this object, root to it).
  const chain = [];
  for (let o = target; o; o = o.base ? repo.byOid.get(o.base) : undefined) chain.unshift(`${short(o.oid)} blob`);
  const under = selected.rows.slice(selected.at + 1, selected.at + 1 + chain.length).map((r) => r.label);
  if (JSON.stringify(under) !== JSON.stringify(chain))
    throw new Error(
      `under "${revealedLabel}" the view shows ${under.join(', ')}; git's chain (root first) is ${chain.join(', ')}`,
    );
  log(
    `revealed: ${revealedLabel} → ${under.join(' → ')}, ${selected.sel.label} selected (${selected.sel.description})`,
  );
  await page.mouse.move(PARK.x, PARK.y);
  await helpers.screenshot(page, 'revealed');
}
