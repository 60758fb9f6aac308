/**
 * A repository of 3,000 one-object packs (fast-import with a checkpoint after every blob and no
 * unpack limit): `packscope objects` prints what git prints, and a lookup is a bounded number of
 * idx searches however many packs there are (the search that tried every pack in turn made 4.5
 * million of them to locate every object once).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { ObjectStore } from '../../src/core/model/object-store.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { assertMatchesGit } from '../support/assert-output.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { catFileBatchCheck, packscope } from '../support/git-oracle.ts';

const PACKS = 3000;

let root: string;
let sandbox: GitSandbox;
let repo: string;

before(() => {
  root = tempDir(undefined, 'packscope-many-packs-');
  sandbox = new GitSandbox(root);
  repo = sandbox.init('many');
  let stream = '';
  for (let i = 0; i < PACKS; i++) stream += `blob\ndata <<EOF\nobject ${i}\nEOF\n\ncheckpoint\n\n`;
  sandbox.git(repo, ['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet'], { input: stream });
  const packs = fs.readdirSync(path.join(repo, '.git', 'objects', 'pack')).filter((name) => name.endsWith('.pack'));
  assert.equal(packs.length, PACKS, 'one pack per blob');
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

test('objects over 3,000 one-object packs prints what git cat-file prints', () => {
  assertMatchesGit(
    packscope(['objects', '.'], repo, path.join(root, 'cache')),
    catFileBatchCheck(sandbox, repo),
    'objects',
  );
});

test('locating every object of 3,000 packs takes a bounded number of idx searches per object', () => {
  const store = new ObjectStore(discoverRepository(repo), new ModelStore(undefined));
  const ids = catFileBatchCheck(sandbox, repo)
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ')[0]!);
  assert.equal(ids.length, PACKS);
  for (const id of ids) {
    const found = store.locate(id);
    assert.ok(found, id);
    assert.equal(found.model.oidHex(found.object), id);
  }
  assert.ok(store.idxSearches <= 2 * PACKS, `${store.idxSearches} idx searches to locate ${PACKS} objects`);
  const before = store.idxSearches;
  const byPrefix = store.resolve(ids[1234]!.slice(0, 10));
  assert.equal(byPrefix.model.oidHex(byPrefix.object), ids[1234]);
  assert.ok(store.idxSearches - before <= 3, `${store.idxSearches - before} idx searches to resolve one prefix`);
  assert.equal(store.locate('0'.repeat(40)), undefined);
});

test('objects in several of many packs: objects follows git, a lookup answers from the first pack in search order', () => {
  const copy = path.join(root, 'duplicated');
  fs.cpSync(repo, copy, { recursive: true });
  // 100 of the objects packed again into one more pack: each of them is now in two packs.
  const some = catFileBatchCheck(sandbox, copy)
    .split('\n')
    .slice(0, 100)
    .map((line) => line.split(' ')[0])
    .join('\n');
  sandbox.git(copy, ['pack-objects', '-q', path.join(copy, '.git', 'objects', 'pack', 'pack')], { input: `${some}\n` });
  assertMatchesGit(
    packscope(['objects', '.'], copy, path.join(root, 'cache')),
    catFileBatchCheck(sandbox, copy),
    'objects',
  );
  const store = new ObjectStore(discoverRepository(copy), new ModelStore(undefined));
  const id = some.split('\n')[7]!;
  const holders = store.packs.filter((pack) => store.model(pack).findHex(id) >= 0);
  assert.equal(holders.length, 2);
  assert.equal(store.locate(id)?.pack.files.pack, holders[0]!.files.pack);
});
