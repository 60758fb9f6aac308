/**
 * The Packs view's "Where the bytes go" rows (src/presentation/sizes-text.ts) from a real sizes
 * document of a repository the test makes with git: the directory tree holds every directory once,
 * under its parent, each level in the document's order (most on-disk bytes first); a level over
 * MAX_DIRECTORY_CHILDREN says how many it leaves out; rows read their sizes and deletion dates,
 * names with control characters escaped; a path's blob rows read their sizes, storage and commit.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { ObjectStore } from '../../src/core/model/object-store.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { historySizes, sizesDocument } from '../../src/core/report/sizes.ts';
import type { SizesDocument } from '../../src/core/documents/sizes-document.ts';
import {
  directoryTree,
  MAX_DIRECTORY_CHILDREN,
  moreBlobsText,
  pathBlobText,
  sizesCommitText,
  sizesRowText,
  type DirectoryEntry,
} from '../../src/presentation/sizes-text.ts';
import { GitSandbox, tempDir } from '../support/git.ts';

let root: string;
let document: SizesDocument;

before(async () => {
  root = tempDir(undefined, 'packscope-sizes-text-');
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('repo');
  const write = (name: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
    fs.writeFileSync(path.join(repo, name), text);
  };
  for (let i = 0; i < MAX_DIRECTORY_CHILDREN + 3; i++) write(`wide/d${i}/f.txt`, 'x'.repeat(10 + i));
  write('a/b/c/deep.c', 'deep\n'.repeat(50));
  write('a/b/side.h', 'side\n');
  write('gone/old.txt', 'old\n'.repeat(30));
  write('ctl\tdir/file', 'tab\n');
  sandbox.git(repo, ['add', '-A']);
  sandbox.git(repo, ['commit', '-q', '-m', 'first']);
  sandbox.git(repo, ['rm', '-rq', 'gone']);
  sandbox.git(repo, ['commit', '-q', '-m', 'second']);
  sandbox.git(repo, ['gc', '-q']);
  const store = new ObjectStore(discoverRepository(repo), new ModelStore(undefined));
  document = sizesDocument(store, await historySizes(store), 10);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

test('every directory once, under its parent, in the order of the document', () => {
  const tree = directoryTree(document);
  const seen: string[] = [];
  const walk = (entries: DirectoryEntry[], parent: string): void => {
    const order = document.directories
      .filter((r) => r.path !== '' && r.path.slice(0, Math.max(0, r.path.lastIndexOf('/'))) === parent)
      .map((r) => r.path);
    assert.deepEqual(
      entries.map((e) => e.key),
      order.slice(0, MAX_DIRECTORY_CHILDREN),
      parent,
    );
    for (const entry of entries) {
      seen.push(entry.key);
      const row = document.directories.find((r) => r.path === entry.key)!;
      assert.equal(entry.description, sizesRowText(row).description);
      walk(entry.children, entry.key);
    }
  };
  walk(tree, '');
  const wide = tree.find((e) => e.key === 'wide')!;
  assert.equal(wide.label, 'wide/');
  assert.equal(wide.more, 3);
  assert.equal(wide.children.length, MAX_DIRECTORY_CHILDREN);
  assert.equal(tree.find((e) => e.key === 'a')!.children[0]!.label, 'b/');
  assert.equal(
    seen.length,
    document.directories.length - 1 - 3,
    'every directory but the top level and the three left out',
  );
  assert.equal(tree.find((e) => e.key === 'ctl\tdir')!.label, 'ctl\\tdir/');
});

test('rows say on-disk and inflated bytes and the deletion date; commits their subject', () => {
  const gone = document.paths.find((r) => r.path === 'gone/old.txt')!;
  assert.notEqual(gone.deleted, null);
  assert.match(sizesRowText(gone).description, new RegExp(`on disk · .* inflated · deleted ${gone.deleted}$`));
  const present = document.paths.find((r) => r.path === 'a/b/side.h')!;
  assert.doesNotMatch(sizesRowText(present).description, /deleted/);
  assert.equal(
    sizesRowText(
      document.extensions.find((r) => r.path === '')!,
      '(no extension)',
    ).label,
    '(no extension)',
  );
  assert.deepEqual(
    document.commits.map((c) => sizesCommitText(c).label),
    ['first'],
  );
});

test("a path's blob rows: sizes, how each is stored, its first commit; the line for the blobs not listed", () => {
  const blob = {
    oid: 'ab'.repeat(20),
    commit: 'cd'.repeat(20),
    date: '2024-05-06',
    inflated: 2_000_000,
    disk: 12_345,
  };
  const delta = pathBlobText({ ...blob, stored: 'packed', depth: 3 });
  assert.equal(delta.label, `${'ab'.repeat(5)} · 2024-05-06`);
  assert.equal(delta.description, '12.1 KiB on disk · 1.9 MiB inflated · depth 3');
  assert.match(delta.tooltip, new RegExp(`first in commit ${blob.commit} \\(2024-05-06\\)`));
  assert.match(pathBlobText({ ...blob, stored: 'packed', depth: 0 }).description, / · whole \(depth 0\)$/);
  assert.match(pathBlobText({ ...blob, stored: 'loose', depth: null }).description, / · loose$/);
  assert.match(pathBlobText({ ...blob, stored: 'missing', depth: null, inflated: 0, disk: 0 }).description, /missing/);
  assert.equal(moreBlobsText(50, 1284), '… 1,234 more blobs (50 of 1,284 listed, newest first)');
  assert.equal(moreBlobsText(50, 51), '… 1 more blob (50 of 51 listed, newest first)');
});
