// What a user sees in the Packs view of a real workbench with PackScope installed, checked against
// git on a repository built here: the repository and its pack (name and object count as on disk
// and in `git verify-pack -v` / `git count-objects -v`), the largest delta family expanded to its
// children (the objects whose base git reports is that root) and theirs, and "Open Object" from an
// object's context menu, from its inline action and from the palette (an abbreviated id typed in),
// whose document shows the object's facts, its DELTA line and its content as `git cat-file -p`
// prints it. The numbered comments are the steps a user takes (steps 3 and 5: object-hover.mjs).
import {
  COUNT,
  PACKS_ROWS,
  activeEditorLines,
  clickMenuItem,
  expandRow,
  makePacksRepository,
  sidebarRows,
  treeRow,
  waitUntil,
} from '../support/packs-ui.mjs';

export const description =
  'Packs view: repository, pack, delta family children, Open Object (context menu, inline, palette) against git';

const short = (oid) => oid.slice(0, 10); // the view's abbreviation (src/extension/format-units.ts shortOid)

export async function run({ helpers, log }) {
  const repo = makePacksRepository(helpers);
  log(
    `${repo.name}: ${repo.inPack} objects in ${repo.packName}; largest family ${short(repo.familiesBySize[0].root)} of ${repo.familiesBySize[0].members.length}`,
  );
  const { page, readyMs } = await helpers.openWorkbench({
    workspaceFolder: repo.dir,
    userSettings: { 'workbench.tree.enableStickyScroll': false },
  });
  log(`workbench ready after ${readyMs} ms`);

  // 1. The container, the repository (its folder name), its pack and the object count.
  await helpers.openViewContainer(page, 'PackScope');
  await page.locator('.pane-header[aria-label="Packs Section"]').waitFor({ state: 'attached', timeout: 30_000 });
  const repoRow = treeRow(page, repo.name);
  await expandRow(repoRow);
  const repoDescription = await repoRow.locator('.label-description').textContent();
  if (repoDescription !== repo.dir)
    throw new Error(`the repository row's description is "${repoDescription}", expected its work tree ${repo.dir}`);
  const packLabel = `pack-${repo.packName.slice('pack-'.length, 'pack-'.length + 7)}…`;
  const packRow = treeRow(page, packLabel);
  await packRow.waitFor({ timeout: 30_000 });
  const countText = `${COUNT.format(repo.inPack)} objects`;
  const packDescription = await waitUntil(async () => {
    const d = await packRow.locator('.label-description').textContent();
    return d?.includes(countText) ? d : undefined;
  }, `the pack row's description to say "${countText}"`);
  log(`pack row: ${packLabel} — ${packDescription}`);

  // 2. The pack → "Delta families" → the largest family's root → its children, as git has them.
  await expandRow(packRow);
  for (const label of ['Summary', 'Delta families', 'Deepest chains', 'Largest objects'])
    await treeRow(page, label).waitFor({ timeout: 10_000 });
  const familiesRow = treeRow(page, 'Delta families');
  await expandRow(familiesRow);
  const largest = repo.familiesBySize[0].members.length;
  const largestRoots = repo.familiesBySize.filter((f) => f.members.length === largest).map((f) => f.root);
  // The first row under "Delta families" (largest first): level of the list + 1, right after it.
  // Read once the list has settled: the same first row twice, 200 ms apart (the rows arrive in pages).
  const firstFamilyRow = async () => {
    const rows = await sidebarRows(page);
    const at = rows.findIndex((r) => r.label === 'Delta families');
    const next = rows[at + 1];
    return next && next.level === rows[at].level + 1 && /^[0-9a-f]{10} /.test(next.label) ? next : undefined;
  };
  const first = await waitUntil(async () => {
    const seen = await firstFamilyRow();
    if (!seen) return undefined;
    await new Promise((r) => setTimeout(r, 200));
    const again = await firstFamilyRow();
    return again && again.label === seen.label ? again : undefined;
  }, 'the first delta family row');
  const root = largestRoots.find((oid) => first.label === `${short(oid)} ${repo.byOid.get(oid).type}`);
  if (!root)
    throw new Error(
      `first family row is "${first.label}", expected one of git's largest families (${largest} objects): ${largestRoots.map(short).join(', ')}`,
    );
  if (!first.description.startsWith(`family of ${COUNT.format(largest)} `))
    throw new Error(`root row description "${first.description}", expected "family of ${largest} …"`);
  // Once its first page is in, the list row shows how many families there are (as git's bases give them).
  await waitUntil(async () => {
    const rows = await sidebarRows(page);
    return (
      rows.find((r) => r.label === 'Delta families')?.description ===
        `${COUNT.format(repo.familiesBySize.length)} families, largest first (objects in the family)` || undefined
    );
  }, `the "Delta families" row to show ${repo.familiesBySize.length} families`);
  const rootChildren = await checkChildren(page, repo, root);
  // The root of a chain often has one child; go one level further to a member with several.
  const forked =
    rootChildren.map((oid) => repo.byOid.get(oid)).find((o) => o.children.length > 1) ??
    repo.byOid.get(rootChildren[0]);
  if (forked.children.length > 0) await checkChildren(page, repo, forked.oid);
  log(`largest family ${first.label} (${first.description}): its children and theirs as in git verify-pack -v`);
  await helpers.screenshot(page, 'families');

  // 4a. Right-click a delta in the family → "Open Object…": its document (facts, chain, DELTA line).
  const delta = repo.byOid.get(rootChildren[0]);
  const deltaRow = treeRow(page, `${short(delta.oid)} ${delta.type}`);
  await deltaRow.click({ button: 'right' });
  const menuItem = page.locator('.context-view .monaco-menu .action-item', { hasText: 'Open Object…' });
  await menuItem.waitFor({ timeout: 10_000 });
  for (const other of ['Copy Object Id', 'Show Chain']) {
    if ((await page.locator('.context-view .monaco-menu .action-item', { hasText: other }).count()) !== 1)
      throw new Error(`the object's context menu has no "${other}"`);
  }
  await clickMenuItem(page, menuItem);
  await checkObjectDocument(page, repo, delta, log);
  await page.mouse.move(1200, 16); // off the tree, whose row tooltips would cover the editor in the screenshot
  await helpers.screenshot(page, 'open-object-context-menu');

  // 4b. The row's inline "Open Object…" action, on a member one level further down the family.
  const deeper = repo.byOid.get(forked.children[0] ?? rootChildren[0]);
  const deeperRow = treeRow(page, `${short(deeper.oid)} ${deeper.type}`);
  await deeperRow.hover();
  await deeperRow.locator('.actions .action-label[aria-label^="Open Object"]').click();
  await checkObjectDocument(page, repo, deeper, log);
  await page.mouse.move(1200, 16);

  // 4c. The palette's "PackScope: Open Object…" with an abbreviated id typed in: a whole blob, its content as git cat-file -p.
  const blob = ['HEAD:story.txt', 'HEAD:src/values.js', 'HEAD:README.md']
    .map((spec) => repo.byOid.get(repo.git('rev-parse', spec).trim()))
    .find((o) => o.depth === 0 && o.type === 'blob');
  if (!blob) throw new Error('none of the candidate blobs is stored whole');
  await helpers.runCommand(page, 'PackScope: Open Object…');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await page.locator('.quick-input-widget', { hasText: 'PackScope: Open Object' }).waitFor({ timeout: 10_000 });
  await input.fill(blob.oid.slice(0, 8));
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  await checkObjectDocument(page, repo, blob, log);
  await page.mouse.move(1200, 16);
  await helpers.screenshot(page, 'open-object-palette');

  await checkDepthHistogram(page, repo, helpers, log, packRow);
}

/**
 * Issue 30, item 5: the Summary's depth histogram. Each depth's row leads with its bar (so that every
 * bar starts at the same x) and prints its share of the pack's objects beside it; the counts are
 * git verify-pack -v's; linear by default (a bar's length in proportion to its count), log by the
 * row's own switch. Screenshots of both.
 */
async function checkDepthHistogram(page, repo, helpers, log, packRow) {
  // The lists opened above are folded so that the Summary's rows are in view.
  for (const label of ['Delta families', /^Revealed: /])
    if (
      (await treeRow(page, label).count()) > 0 &&
      (await treeRow(page, label).getAttribute('aria-expanded')) === 'true'
    )
      await treeRow(page, label).locator('.monaco-tl-twistie').click();
  // The Recordings section folded, so that the Packs section has room for every depth's row.
  const recordings = page.locator('.part.sidebar .pane-header[aria-label="Recordings Section"]');
  if ((await recordings.getAttribute('aria-expanded')) === 'true') await recordings.click();
  await packRow.scrollIntoViewIfNeeded();
  await expandRow(treeRow(page, 'Summary'));
  const depthsRow = treeRow(page, /^depths: ≤ \d+$/);
  await expandRow(depthsRow);
  const counts = [];
  for (const o of repo.objects) counts[o.depth] = (counts[o.depth] ?? 0) + 1;
  const bars = await waitUntil(async () => {
    const rows = await page.locator(PACKS_ROWS).evaluateAll((els) =>
      els
        .map((r) => ({
          label: r.querySelector('.label-name')?.textContent ?? '',
          description: r.querySelector('.label-description')?.textContent ?? '',
          left: r.querySelector('.label-name')?.getBoundingClientRect().left ?? NaN,
          width: r.querySelector('.label-name')?.getBoundingClientRect().width ?? NaN,
          index: Number(r.getAttribute('data-index')),
        }))
        .filter((r) => /^depth \d+: /.test(r.description))
        .sort((a, b) => a.index - b.index),
    );
    return rows.length === counts.length ? rows : undefined;
  }, `${counts.length} depth rows under the Summary`);
  const lefts = new Set(bars.map((b) => Math.round(b.left)));
  if (lefts.size !== 1) throw new Error(`the bars start at different x: ${[...lefts].join(', ')}`);
  const widest = Math.max(...counts.map((n) => n ?? 0));
  for (const [depth, row] of bars.entries()) {
    const n = counts[depth] ?? 0;
    const share = (100 * n) / repo.objects.length;
    const percent = n === 0 ? '0%' : share >= 0.1 ? `${share.toFixed(1)}%` : '<0.1%';
    if (row.description !== `depth ${depth}: ${COUNT.format(n)} object${n === 1 ? '' : 's'}`)
      throw new Error(`depth ${depth}'s row says "${row.description}"; git verify-pack -v counts ${n}`);
    if (!row.label.endsWith(` ${percent}`) && row.label !== percent)
      throw new Error(`depth ${depth}'s bar "${row.label}" does not print its share ${percent}`);
    // Linear: a bar's eighths of a cell are in proportion to its count (the widest is 10 cells).
    const eighths = [...row.label.replace(/ \S+$/, '')].reduce(
      (sum, c) => sum + (c === '█' ? 8 : ' ▏▎▍▌▋▊▉'.indexOf(c)),
      0,
    );
    const wanted = n === 0 ? 0 : Math.max(1, Math.round((10 * 8 * n) / widest));
    if (eighths !== wanted) throw new Error(`depth ${depth}'s bar is ${eighths} eighths; linear wants ${wanted}`);
  }
  log(`depth histogram (linear): ${bars.map((b) => `${b.description} ${b.label}`).join(' | ')}`);
  await page.mouse.move(1200, 16);
  await helpers.screenshot(page, 'depth-histogram-linear');
  // The widest bar pushes its row's depth and count past a narrow sidebar's edge: its hover says them.
  const n0 = counts[0] ?? 0;
  const widestRow = page
    .locator(PACKS_ROWS)
    .filter({ has: page.locator('.label-description', { hasText: /^depth 0: / }) });
  await widestRow.hover();
  const hoverText = await page
    .locator('.monaco-hover, .workbench-hover', { hasText: "of the pack's" })
    .first()
    .innerText({ timeout: 10_000 });
  const share0 = `${((100 * n0) / repo.objects.length).toFixed(1)}%`;
  if (
    !hoverText.includes(
      `depth 0: ${COUNT.format(n0)} object${n0 === 1 ? '' : 's'}: ${share0} of the pack's ${COUNT.format(repo.objects.length)} objects`,
    )
  )
    throw new Error(`depth 0's hover says "${hoverText}"`);
  await helpers.screenshot(page, 'depth-histogram-hover');
  await page.mouse.move(1200, 16);
  // The row's own switch: log scale, said in the row's description.
  await depthsRow.hover();
  await depthsRow.locator('.actions .action-label[aria-label^="Depth Histogram: Switch"]').click();
  let said = '';
  await waitUntil(
    async () => {
      said = (await sidebarRows(page)).find((r) => /^depths: /.test(r.label))?.description ?? '';
      return said.includes('log scale') || undefined;
    },
    'the histogram row to say "log scale"',
    { timeout: 30_000 },
  ).catch((error) => {
    throw new Error(`${error.message}; it says "${said}"`);
  });
  // The rows are new ones after the refresh: expanded again if the view folded them.
  const again = treeRow(page, /^depths: ≤ \d+$/);
  await expandRow(again);
  await page.mouse.move(1200, 16);
  await helpers.screenshot(page, 'depth-histogram-log');
  log(`depth histogram switched to log: ${said}`);
}

/** Expands the row of `oid` (a member of an expanded family) and checks its child rows against git's. */
const pathCache = new WeakMap();
/** oid → the path `git rev-list --objects --all` names it by (its first line for that oid). */
function pathsByOid(repo) {
  let paths = pathCache.get(repo);
  if (paths === undefined) {
    paths = new Map();
    for (const line of repo.git('rev-list', '--objects', '--all').split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0 && !paths.has(line.slice(0, space))) paths.set(line.slice(0, space), line.slice(space + 1));
    }
    pathCache.set(repo, paths);
  }
  return paths;
}

async function checkChildren(page, repo, oid) {
  const object = repo.byOid.get(oid);
  const label = `${short(oid)} ${object.type}`;
  await expandRow(treeRow(page, label));
  const expected = object.children.map((c) => `${short(c)} ${repo.byOid.get(c).type}`).sort();
  if (expected.length === 0) throw new Error(`git reports no delta children of ${oid}`);
  const shown = await waitUntil(async () => {
    const rows = await sidebarRows(page);
    const at = rows.findIndex((r) => r.label === label);
    const children = [];
    for (const r of rows.slice(at + 1)) {
      if (r.level <= rows[at].level) break;
      if (r.level === rows[at].level + 1) children.push(r);
    }
    return children.length >= expected.length ? children : undefined;
  }, `${expected.length} child rows under ${label}`);
  const labels = shown.map((r) => r.label).sort();
  if (JSON.stringify(labels) !== JSON.stringify(expected)) {
    throw new Error(
      `children of ${label}: the view shows ${labels.join(', ')}; git verify-pack -v has ${expected.join(', ')}`,
    );
  }
  for (const r of shown) {
    const child = repo.byOid.get(object.children.find((c) => r.label.startsWith(short(c))));
    const wanted = `depth ${child.depth} · `;
    const n = child.children.length;
    const kids = `${COUNT.format(n)} ${n === 1 ? 'delta child' : 'delta children'}`;
    // The path is the name `git rev-list --objects --all` gives the object (none for commits).
    const name = pathsByOid(repo).get(child.oid);
    const tail = name ? `${kids} · ${name}` : kids;
    if (!r.description.includes(wanted) || !r.description.endsWith(tail)) {
      throw new Error(
        `row ${r.label}: description "${r.description}", git says depth ${child.depth}, ${n} children${name ? `, path ${name}` : ''}`,
      );
    }
  }
  return object.children;
}

/** The active editor shows the object document of `object`: its facts as git has them, and its delta line or its content. */
async function checkObjectDocument(page, repo, object, log) {
  const size = Number(repo.git('cat-file', '-s', object.oid).trim());
  const lines = await waitUntil(async () => {
    const l = await activeEditorLines(page);
    return l.some((line) => /^id\s+/.test(line) && line.trimEnd().endsWith(object.oid)) ? l : undefined;
  }, `an editor showing the object document of ${object.oid}`);
  const fact = (name) =>
    lines
      .find((l) => l.startsWith(`${name}  `))
      ?.slice(name.length)
      .trim();
  const expectFact = (name, value) => {
    if (fact(name) !== value)
      throw new Error(
        `object document of ${object.oid}: "${name}" is "${fact(name)}", expected "${value}"\n${lines.join('\n')}`,
      );
  };
  expectFact('type', object.type);
  expectFact('stored as', object.depth === 0 ? object.type : 'ofs-delta'); // git repack writes OFS deltas
  expectFact('pack', repo.packName);
  expectFact('depth', String(object.depth));
  expectFact('chain root', object.root);
  expectFact('children', COUNT.format(object.children.length));
  if (!fact('size')?.startsWith(`${COUNT.format(size)} bytes`))
    throw new Error(`object document: size "${fact('size')}", git cat-file -s says ${size}`);
  const tab = page.locator('.part.editor .tabs-container .tab.active');
  const tabLabel = (await tab.getAttribute('aria-label')) ?? '';
  if (!tabLabel.includes(object.oid)) throw new Error(`the active tab is "${tabLabel}", expected the object's id`);
  let deltaLine;
  if (object.depth > 0) {
    const base = repo.byOid.get(object.base);
    const baseSize = Number(repo.git('cat-file', '-s', base.oid).trim());
    deltaLine = `DELTA( BASE=${baseSize} RESULT=${size} )`;
    if (!lines.includes(deltaLine))
      throw new Error(`object document of delta ${object.oid}: no line "${deltaLine}"\n${lines.join('\n')}`);
    if (!lines.some((l) => l.startsWith(`delta against ${base.oid} `)))
      throw new Error(`object document of ${object.oid}: no "delta against ${base.oid}"`);
  }
  // The content, rebuilt from the chain for a delta: the lines in view after "content: N bytes" as git cat-file -p prints them.
  const heading = lines.findIndex((l) => l.startsWith('content: '));
  if (heading < 0) throw new Error(`object document of ${object.oid}: no "content:" line in view\n${lines.join('\n')}`);
  if (lines[heading] !== `content: ${COUNT.format(size)} bytes`)
    throw new Error(`content heading "${lines[heading]}", expected "content: ${size} bytes"`);
  const shown = lines.slice(heading + 1, -1); // the last line in view may be cut off at the bottom edge
  const expected = repo.git('cat-file', '-p', object.oid).split('\n').slice(0, shown.length);
  const n = Math.min(shown.length, expected.length);
  if (n < 3 || JSON.stringify(shown.slice(0, n)) !== JSON.stringify(expected.slice(0, n))) {
    throw new Error(
      `object document of ${object.oid}: content shows\n${shown.slice(0, n).join('\n')}\ngit cat-file -p:\n${expected.slice(0, n).join('\n')}`,
    );
  }
  log(
    `object document of ${short(object.oid)} (${object.depth ? `delta, ${deltaLine}` : `whole ${object.type}`}): facts as git has them, ${n} content lines equal to git cat-file -p`,
  );
}
