/**
 * Many packs in the write-order estimate (git-internals §5): each object rev-list
 * selects is found in today's packs through one merged table of their ids over many packs
 * (locateInPacks), where trying every pack in turn made a search per pack per object. Checked on a
 * repository of 300 packs made by git (fast-import checkpoints, some objects in two packs) against git:
 * every id's pack is the first holding it in git's search order, its type and size on disk are
 * `git cat-file --batch-check`'s, and the estimate counts the objects `git rev-list --objects --all` lists.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { ObjectStore } from '../../src/core/model/object-store.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { estimateWriteOrder, locateInPacks } from '../../src/core/repack/write-order-estimate.ts';
import { GitSandbox, tempDir } from '../support/git.ts';

const COMMITS = 300;
const TYPE_NAMES: Record<number, string> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };

let root: string;
let sandbox: GitSandbox;
let repo: string;

before(() => {
  root = tempDir(undefined, 'packscope-write-order-many-');
  sandbox = new GitSandbox(root);
  repo = sandbox.init('many');
  // One commit (blob, tree, commit) per pack.
  let stream = '';
  for (let i = 0; i < COMMITS; i++) {
    stream += `blob\nmark :${i + 1}\ndata <<EOF\nfile ${i}\nEOF\n\n`;
    stream += `commit refs/heads/main\ncommitter C O Mitter <c@example.com> ${1_700_000_000 + i} +0000\ndata <<EOF\nc${i}\nEOF\nM 100644 :${i + 1} f${i}.txt\n`;
    stream += `\ncheckpoint\n\n`;
  }
  sandbox.git(repo, ['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet'], { input: stream });
  const packs = fs.readdirSync(path.join(repo, '.git', 'objects', 'pack')).filter((name) => name.endsWith('.pack'));
  assert.equal(packs.length, COMMITS, 'one pack per commit');
  // And one more pack holding again every tenth commit's objects: those ids are in two packs.
  const again = sandbox
    .gitText(repo, ['rev-list', '--objects', '--no-object-names', 'main', '--max-count=30'])
    .trim()
    .split('\n')
    .filter((_, i) => i % 10 === 0);
  sandbox.git(repo, ['pack-objects', '-q', path.join(repo, '.git', 'objects', 'pack', 'pack')], {
    input: `${again.join('\n')}\n`,
  });
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The size in `pack` that git verify-pack -v gives `oid` (its fourth column). */
function verifyPackDiskSize(pack: string, oid: string): number {
  const line = sandbox
    .gitText(repo, ['verify-pack', '-v', pack])
    .split('\n')
    .find((l) => l.startsWith(`${oid} `));
  assert.ok(line, `${oid} in git verify-pack -v of ${pack}`);
  return Number(line.trim().split(/\s+/)[3]);
}

test("locateInPacks: one search per id over 300 packs, each id in the first pack holding it, with git's type and size on disk", () => {
  const repository = discoverRepository(repo);
  const store = new ObjectStore(repository, new ModelStore(undefined));
  const models = store.packs.map((pack) => store.model(pack));
  const listing = sandbox.gitText(repo, [
    'cat-file',
    '--batch-all-objects',
    '--batch-check=%(objectname) %(objecttype) %(objectsize:disk)',
  ]);
  const rows = listing
    .trim()
    .split('\n')
    .map((line) => line.split(' ') as [string, string, string]);
  const hashSize = repository.hash.size;
  const oids = Buffer.concat([...rows.map(([oid]) => Buffer.from(oid, 'hex')), Buffer.alloc(hashSize, 0xee)]);
  const { where, objectIn, searches } = locateInPacks(models, oids, hashSize);
  assert.equal(searches, rows.length + 1, 'one search per id, however many packs');
  let inTwo = 0;
  rows.forEach(([oid, type, disk], i) => {
    const p = where[i]!;
    assert.ok(p >= 0, `${oid} found`);
    const holders = models.flatMap((model, k) => (model.index.find(oids, i * hashSize) >= 0 ? [k] : []));
    if (holders.length > 1) inTwo++;
    assert.equal(p, holders[0], `${oid}: the first pack in git's search order`);
    const model = models[p]!;
    assert.equal(model.oidHex(objectIn[i]!), oid);
    assert.equal(TYPE_NAMES[model.columns.type[objectIn[i]!]!], type, `${oid}: type`);
    // An id in two packs: git's cat-file answers from whichever pack its most-recently-used list
    // holds first at that moment (and ties of pack mtimes within a second fall to directory order),
    // so cat-file is no oracle for which copy; that copy's own size comes from git verify-pack.
    const expectedDisk = holders.length > 1 ? verifyPackDiskSize(store.packs[p]!.files.pack, oid) : Number(disk);
    assert.equal(model.columns.diskSize.get(objectIn[i]!), expectedDisk, `${oid}: size on disk`);
  });
  assert.ok(inTwo > 0, 'some objects are in two packs');
  assert.equal(where[rows.length], -1, 'an id in no pack');
  // Few packs: the loop over packs, as before (its searches grow with the packs tried).
  const few = locateInPacks(models.slice(0, 3), oids, hashSize);
  assert.ok(few.searches > rows.length, `${few.searches} searches over 3 packs`);
});

test('estimateWriteOrder over 300 packs selects the objects git rev-list --objects --all lists, none unpacked', async () => {
  const repository = discoverRepository(repo);
  const store = new ObjectStore(repository, new ModelStore(undefined));
  const { estimate, layout } = await estimateWriteOrder({
    repository,
    current: store.packs.map((pack) => store.model(pack)),
  });
  const walked = sandbox.gitText(repo, ['rev-list', '--objects', '--all']).trim().split('\n').length;
  assert.equal(estimate.objects, walked);
  assert.equal(estimate.unpackedObjects, 0);
  assert.equal(layout.order.length, walked);
});
