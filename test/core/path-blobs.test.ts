/**
 * The sizes walk's blobs by path (src/core/report/path-blobs.ts) on a repository the test makes
 * with git, with names that are not ASCII (UTF-8 bytes the walk keeps as latin1) and that hold
 * spaces: each path is found by the name the sizes document gives it, its blobs are the ones `git
 * log --raw` shows arriving there, newest first, a page at a time; a path the history never had has none.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { ObjectStore } from '../../src/core/model/object-store.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { PathBlobLookup, pathBlobIndex } from '../../src/core/report/path-blobs.ts';
import { historySizes, sizesDocument } from '../../src/core/report/sizes.ts';
import { GitSandbox, tempDir } from '../support/git.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let lookup: PathBlobLookup;
let paths: string[];

before(async () => {
  root = tempDir(undefined, 'packscope-path-blobs-core-');
  sandbox = new GitSandbox(root);
  repo = sandbox.init('repo');
  const names = ['docs/café ünïcode.txt', 'a b/c d.txt', 'plain.txt'];
  for (let c = 0; c < 4; c++) {
    for (const name of names) {
      fs.mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
      fs.writeFileSync(path.join(repo, name), `${name} version ${c % 3}\n`);
    }
    sandbox.git(repo, ['add', '-A']);
    sandbox.git(repo, ['-c', 'core.quotePath=false', 'commit', '-q', '-m', `c${c}`]);
  }
  const store = new ObjectStore(discoverRepository(repo), new ModelStore(undefined));
  const sizes = await historySizes(store);
  paths = sizesDocument(store, sizes, 0).paths.map((r) => r.path);
  lookup = new PathBlobLookup(pathBlobIndex(sizes.pairs, store.repository.hash.size));
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

test('every path of the document is found by its name, with the blobs git shows there, newest first', () => {
  assert.ok(paths.includes('docs/café ünïcode.txt'), paths.join(', '));
  for (const name of paths) {
    const raw = sandbox.gitText(repo, ['log', '--all', '--raw', '--no-abbrev', '--format=', '--', name]);
    // git log lists newest first; a content that comes back (version 0 in commit 3) keeps its first place.
    const fromGit: string[] = [];
    for (const line of raw.split('\n').reverse()) {
      const m = /^:\S+ \S+ \S+ ([0-9a-f]{40}) /.exec(line);
      if (m && !fromGit.includes(m[1]!)) fromGit.push(m[1]!);
    }
    fromGit.reverse();
    assert.equal(lookup.count(name), fromGit.length, name);
    assert.deepEqual(
      lookup.blobsAt(name, 0, 100)!.map((b) => b.oid),
      fromGit,
      name,
    );
    assert.deepEqual(
      lookup.blobsAt(name, 1, 1)!.map((b) => b.oid),
      fromGit.slice(1, 2),
      `${name}: a page`,
    );
  }
  assert.equal(lookup.count('no/such/path'), undefined);
  assert.equal(lookup.blobsAt('no/such/path', 0, 10), undefined);
});
