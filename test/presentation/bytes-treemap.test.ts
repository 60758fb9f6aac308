/**
 * The treemap's pure parts (src/presentation/bytes-treemap.ts, treemap-navigation.ts,
 * bytes-treemap-state.ts) on the sizes document of a repository the test makes with git: a
 * directory's cells are its subdirectories and the paths directly in it, largest on disk first,
 * their shares summing to the whole; what the cells leave out (over the cap, or paths the tree was
 * not given) is one `rest` cell holding exactly the difference; the Markdown table lists every
 * child once with the document's numbers; arrow keys go to the neighbour on that side; a saved
 * state is kept only where it is one.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { formatBytes } from '../../src/common/format.ts';
import { squarify, type TreemapRect } from '../../src/common/squarify.ts';
import type { SizesDocument } from '../../src/core/documents/sizes-document.ts';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { ObjectStore } from '../../src/core/model/object-store.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { historySizes, sizesDocument } from '../../src/core/report/sizes.ts';
import { normalizeBytesTreemapState } from '../../src/presentation/bytes-treemap-state.ts';
import { cellDetails, formatCellShare, SizesTree, treemapMarkdown } from '../../src/presentation/bytes-treemap.ts';
import { moveFocus } from '../../src/presentation/treemap-navigation.ts';
import { GitSandbox, tempDir } from '../support/git.ts';

let root: string;
let document: SizesDocument;

before(async () => {
  root = tempDir(undefined, 'packscope-bytes-treemap-');
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('repo');
  const write = (name: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
    fs.writeFileSync(path.join(repo, name), text);
  };
  for (let i = 0; i < 12; i++) write(`src/f${i}.c`, `int f${i};\n`.repeat(20 + i * 30));
  write('src/lib/big.c', Array.from({ length: 2000 }, (_, i) => `line ${i * 7919}\n`).join(''));
  write('docs/a|b.md', 'pipe in the name\n'.repeat(40));
  write('gone/old.txt', 'old\n'.repeat(300));
  write('README', 'readme\n');
  sandbox.git(repo, ['add', '-A']);
  sandbox.git(repo, ['commit', '-q', '-m', 'first']);
  sandbox.git(repo, ['rm', '-rq', 'gone']);
  sandbox.git(repo, ['commit', '-q', '-m', 'second']);
  sandbox.git(repo, ['gc', '-q']);
  const store = new ObjectStore(discoverRepository(repo), new ModelStore(undefined));
  document = sizesDocument(store, await historySizes(store), 10);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

const parentOf = (name: string): string => (name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '');

test("a directory's cells: its subdirectories and paths, largest first, shares summing to the whole", () => {
  const tree = new SizesTree(document.directories, document.paths);
  for (const directory of document.directories) {
    const cells = tree.cells(directory.path);
    const expected = [
      ...document.directories.filter((d) => d.path !== '' && parentOf(d.path) === directory.path),
      ...document.paths.filter((p) => parentOf(p.path) === directory.path),
    ];
    assert.deepEqual(cells.map((c) => c.path).sort(), expected.map((r) => r.path).sort(), directory.path);
    assert.ok(
      cells.every((c) => c.kind !== 'rest'),
      `${directory.path}: every path was given, nothing is left over`,
    );
    for (let i = 1; i < cells.length; i++) assert.ok(cells[i - 1]!.disk >= cells[i]!.disk, 'largest first');
    const shares = cells.reduce((sum, c) => sum + c.share, 0);
    assert.ok(Math.abs(shares - 1) < 1e-9, `${directory.path}: shares sum to ${shares}`);
    for (const cell of cells) {
      const row = expected.find((r) => r.path === cell.path)!;
      assert.deepEqual([cell.disk, cell.inflated, cell.deleted], [row.disk, row.inflated, row.deleted]);
      assert.equal(cell.kind, document.directories.some((d) => d.path === cell.path) ? 'directory' : 'file');
    }
  }
  const top = tree.cells('');
  assert.equal(
    top.find((c) => c.path === 'gone')!.deleted,
    document.directories.find((d) => d.path === 'gone')!.deleted,
  );
  assert.equal(top.find((c) => c.path === 'src')!.name, 'src/');
  assert.deepEqual(tree.breadcrumb('src/lib', 'repo'), [
    { path: '', name: 'repo' },
    { path: 'src', name: 'src' },
    { path: 'src/lib', name: 'lib' },
  ]);
});

test('what the cells leave out is one rest cell holding exactly the difference', () => {
  const full = new SizesTree(document.directories, document.paths);
  const src = document.directories.find((d) => d.path === 'src')!;
  const capped = full.cells('src', 5);
  assert.equal(capped.length, 6);
  const rest = capped[5]!;
  assert.equal(rest.kind, 'rest');
  assert.equal(rest.count, full.cells('src').length - 5);
  assert.equal(rest.name, `${rest.count} smaller entries`);
  assert.equal(
    capped.reduce((sum, c) => sum + c.disk, 0),
    src.disk,
  );
  assert.equal(
    capped.reduce((sum, c) => sum + c.inflated, 0),
    src.inflated,
  );
  // A tree given only the largest paths (as the host sends at most MAX_TREEMAP_PATHS) keeps the directory's total.
  const largest = new SizesTree(document.directories, document.paths.slice(0, 3));
  const top = largest.cells('');
  assert.equal(
    top.reduce((sum, c) => sum + c.disk, 0),
    document.total.disk,
  );
  assert.equal(top[top.length - 1]!.kind, 'rest');
});

test("the Markdown table: every child once, the document's sizes, shares, deletions, names escaped", () => {
  const tree = new SizesTree(document.directories, document.paths);
  const markdown = treemapMarkdown(tree, '', 'repo');
  const lines = markdown.trimEnd().split('\n');
  assert.equal(lines[0], '### Where the bytes go: repo (top level)');
  const header = lines.indexOf('| path | packed | unpacked | share | deleted |');
  assert.ok(header > 0);
  const rows = lines.slice(header + 2);
  const cells = tree.cells('');
  assert.equal(rows.length, cells.length);
  cells.forEach((cell, i) => {
    assert.equal(
      rows[i],
      `| ${cell.path}${cell.kind === 'directory' ? '/' : ''} | ${formatBytes(cell.disk)} | ${formatBytes(cell.inflated)} | ${formatCellShare(cell.share)} | ${cell.deleted ?? ''} |`,
    );
  });
  // A pipe in a path would end the cell: it is escaped.
  assert.match(treemapMarkdown(tree, 'docs', 'repo'), /\| docs\/a\\\|b\.md \|/);
  assert.deepEqual(cellDetails(cells.find((c) => c.path === 'gone')!).slice(-1), [
    `deleted ${document.directories.find((d) => d.path === 'gone')!.deleted}`,
  ]);
  assert.deepEqual([formatCellShare(0), formatCellShare(0.0004), formatCellShare(0.4567)], ['0%', '<0.1%', '45.7%']);
});

test('arrow keys go to the neighbouring cell on that side, and nowhere at the edge', () => {
  // A 2 × 2 grid, then a squarified layout: every move lands on a cell on that side.
  const grid: TreemapRect[] = [
    { x: 0, y: 0, width: 10, height: 10 },
    { x: 10, y: 0, width: 10, height: 10 },
    { x: 0, y: 10, width: 10, height: 10 },
    { x: 10, y: 10, width: 10, height: 10 },
  ];
  assert.equal(moveFocus(grid, 0, 'right'), 1);
  assert.equal(moveFocus(grid, 0, 'down'), 2);
  assert.equal(moveFocus(grid, 3, 'left'), 2);
  assert.equal(moveFocus(grid, 3, 'up'), 1);
  assert.equal(moveFocus(grid, 0, 'left'), undefined);
  assert.equal(moveFocus(grid, 0, 'up'), undefined);
  const rects = squarify([50, 30, 20, 12, 8, 5, 3, 2, 1], { x: 0, y: 0, width: 400, height: 300 }) as TreemapRect[];
  for (let from = 0; from < rects.length; from++)
    for (const direction of ['left', 'right', 'up', 'down'] as const) {
      const to = moveFocus(rects, from, direction);
      const a = rects[from]!;
      const edge = {
        left: a.x === 0,
        right: a.x + a.width >= 400 - 1e-9,
        up: a.y === 0,
        down: a.y + a.height >= 300 - 1e-9,
      };
      if (to === undefined) {
        assert.ok(edge[direction], `${from} ${direction}: no move, yet not at the edge`);
        continue;
      }
      const b = rects[to]!;
      const side = {
        left: b.x + b.width <= a.x + 1e-6,
        right: b.x >= a.x + a.width - 1e-6,
        up: b.y + b.height <= a.y + 1e-6,
        down: b.y >= a.y + a.height - 1e-6,
      };
      assert.ok(side[direction], `${from} ${direction} → ${to}`);
    }
});

test('a saved state is kept only where it is one', () => {
  assert.deepEqual(
    normalizeBytesTreemapState({ version: 1, repository: '/r/.git', directory: 'src', blobsOf: 'src/a.c' }),
    {
      version: 1,
      repository: '/r/.git',
      directory: 'src',
      blobsOf: 'src/a.c',
    },
  );
  assert.deepEqual(normalizeBytesTreemapState(undefined), {
    version: 1,
    repository: null,
    directory: '',
    blobsOf: null,
  });
  assert.deepEqual(normalizeBytesTreemapState({ repository: 7, directory: ['x'], blobsOf: '' }), {
    version: 1,
    repository: null,
    directory: '',
    blobsOf: null,
  });
});
