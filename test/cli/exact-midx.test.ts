/**
 * Repositories with several packs, against `git cat-file --batch-all-objects --batch-check`:
 * disjoint packs; packs behind a multi-pack-index (git multi-pack-index write) with duplicated
 * objects, where git reads each object from the copy the MIDX chose; a pack the MIDX does not cover;
 * and duplicated objects without any MIDX.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { assertMatchesGit } from '../support/assert-output.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import {
  catFileBatchCheck,
  historyOnRef,
  historyRepository,
  packscope,
  setPackMtime,
  verifyPackEntries,
} from '../support/git-oracle.ts';

const T0 = 1_600_000_000;

let root: string;
let sandbox: GitSandbox;
let cacheDir: string;
/**
 * Three disjoint packs: P1 from repack -adf (main, 300 commits), P2 written by fast-import (side),
 * P3 from an incremental `git repack -d` of loose objects (side2).
 */
let base: string;
let p1: string;
let p2: string;
let p3: string;

after(() => fs.rmSync(root, { recursive: true, force: true }));

function newPack(repo: string, before: string[]): string {
  const added = packStems(path.join(repo, '.git', 'objects')).filter((s) => !before.includes(s));
  assert.equal(added.length, 1, `one new pack in ${repo}`);
  return added[0]!;
}

before(() => {
  root = tempDir(undefined, 'packscope-exact-midx-');
  sandbox = new GitSandbox(root);
  cacheDir = path.join(root, 'cache');
  base = historyRepository(sandbox, 'base', { commits: 300, seed: 9, repack: ['-adf', '--depth=50', '--window=10'] });
  const objects = path.join(base, '.git', 'objects');
  [p1] = packStems(objects);
  sandbox.fastImport(base, historyOnRef({ commits: 150, seed: 11 }, 'side', 'side-'));
  p2 = newPack(base, [p1!]);
  // Below fastimport.unpackLimit fast-import writes loose objects; repack -d then packs only those.
  sandbox.git(base, ['-c', 'fastimport.unpackLimit=1000000', 'fast-import', '--quiet', '--done'], {
    input: historyOnRef({ commits: 100, seed: 13 }, 'side2', 'side2-'),
  });
  sandbox.git(base, ['repack', '-q', '-d']);
  p3 = newPack(base, [p1!, p2]);
  setPackMtime(p1!, T0);
  setPackMtime(p2, T0 + 10);
  setPackMtime(p3, T0 + 20);
});

/** A copy of the base repository (pack mtimes kept), so each test starts from the same packs. */
function copyOfBase(name: string): { repo: string; stem: (s: string) => string } {
  const repo = path.join(root, name);
  fs.cpSync(base, repo, { recursive: true, preserveTimestamps: true });
  const stem = (s: string): string => path.join(repo, path.relative(base, s));
  return { repo, stem };
}

/** Adds P4 = `git repack -a` without -d (every object again, shallower chains), then a MIDX over P1..P4 preferring P1. */
function addDuplicatesAndMidx(repo: string, stem: (s: string) => string): string {
  const existing = [p1, p2, p3].map(stem);
  sandbox.git(repo, ['repack', '-q', '-a', '-f', '--depth=4', '--window=5']);
  const p4 = newPack(repo, existing);
  // MIDX tie-breaks (git-internals §1.12): preferred pack, then newer mtime. P4 is newer than P2 but older than P3.
  setPackMtime(p4, T0 + 15);
  sandbox.git(repo, ['multi-pack-index', 'write', `--preferred-pack=${path.basename(stem(p1))}.pack`]);
  assert.ok(fs.existsSync(path.join(repo, '.git', 'objects', 'pack', 'multi-pack-index')));
  return p4;
}

test('several disjoint packs (repack, fast-import, incremental repack -d), no MIDX', () => {
  const { repo } = copyOfBase('disjoint');
  assert.equal(packStems(path.join(repo, '.git', 'objects')).length, 3);
  assertMatchesGit(
    packscope(['objects'], repo, cacheDir),
    catFileBatchCheck(sandbox, repo),
    'objects over three packs',
  );
});

test('behind a multi-pack-index: duplicates are read from the copy the MIDX chose', () => {
  const { repo, stem } = copyOfBase('midx');
  const p4 = addDuplicatesAndMidx(repo, stem);
  const expected = catFileBatchCheck(sandbox, repo);

  // The test means something only if the MIDX's choices are visible in the listing: some duplicated
  // objects are listed as stored in P4, others as stored in the older packs.
  const inP4 = new Map(verifyPackEntries(sandbox, repo, `${p4}.idx`).map((e) => [e.oid, e.diskSize]));
  const elsewhere = new Map<string, number>();
  for (const s of [p1, p2, p3])
    for (const e of verifyPackEntries(sandbox, repo, `${stem(s)}.idx`)) elsewhere.set(e.oid, e.diskSize);
  let fromP4 = 0;
  let fromOthers = 0;
  for (const line of expected.split('\n').filter(Boolean)) {
    const [oid, , , disk] = line.split(' ');
    if (inP4.get(oid!) === elsewhere.get(oid!)) continue;
    if (Number(disk) === inP4.get(oid!)) fromP4++;
    else if (Number(disk) === elsewhere.get(oid!)) fromOthers++;
  }
  assert.ok(
    fromP4 > 100 && fromOthers > 100,
    `duplicates read from P4: ${fromP4}, from the older packs: ${fromOthers}`,
  );
  assert.notEqual(
    catFileBatchCheck(sandbox, repo, ['core.multiPackIndex=false']),
    expected,
    'without the MIDX git lists other copies',
  );

  assertMatchesGit(packscope(['objects'], repo, cacheDir), expected, 'objects behind a MIDX');
});

test('a MIDX plus a newer pack it does not cover', () => {
  const { repo, stem } = copyOfBase('midx-plus');
  const p4 = addDuplicatesAndMidx(repo, stem);
  sandbox.fastImport(repo, historyOnRef({ commits: 50, seed: 17 }, 'side3', 'side3-'));
  const p5 = newPack(repo, [p1, p2, p3].map(stem).concat(p4));
  setPackMtime(p5, T0 + 30);
  assertMatchesGit(
    packscope(['objects'], repo, cacheDir),
    catFileBatchCheck(sandbox, repo),
    'objects: MIDX and an uncovered pack',
  );
});

test('duplicated objects in two packs and no MIDX', () => {
  // P_all: every object (main and side), shallow chains, older. P_main: only main's objects, deep
  // chains, newer. git searches packs newest first but moves the pack of each hit to the front
  // (packed_git_mru, git-internals §1.12), so which copy cat-file lists depends on the objects read before.
  const repo = historyRepository(sandbox, 'dups', { commits: 300, seed: 9 });
  sandbox.fastImport(repo, historyOnRef({ commits: 150, seed: 11 }, 'side', 'side-'));
  sandbox.git(repo, ['repack', '-q', '-adf', '--depth=3', '--window=5']);
  const [all] = packStems(path.join(repo, '.git', 'objects'));
  sandbox.git(
    repo,
    ['pack-objects', '-q', '--revs', '--depth=50', '--window=10', path.join(repo, '.git', 'objects', 'pack', 'pack')],
    { input: 'main\n' },
  );
  const main = newPack(repo, [all!]);
  setPackMtime(all!, T0);
  setPackMtime(main, T0 + 100);
  assertMatchesGit(
    packscope(['objects'], repo, cacheDir),
    catFileBatchCheck(sandbox, repo),
    'objects with duplicates and no MIDX',
  );
});

test('an alternate behind a MIDX, duplicated by a local pack: git consults every MIDX first', () => {
  const { repo: shared, stem } = copyOfBase('alternate-midx');
  addDuplicatesAndMidx(shared, stem);
  const clone = path.join(root, 'borrower');
  sandbox.git(root, ['clone', '-q', '--shared', shared, clone]);
  // A local pack holding copies of the alternate's objects, newer than any of them.
  sandbox.git(clone, ['repack', '-q', '-a', '-f', '--depth=7', '--window=3']);
  for (const s of packStems(path.join(clone, '.git', 'objects'))) setPackMtime(s, T0 + 50);
  const expected = catFileBatchCheck(sandbox, clone);
  assert.notEqual(
    catFileBatchCheck(sandbox, clone, ['core.multiPackIndex=false']),
    expected,
    'the local copies differ from those the MIDX chose',
  );
  assertMatchesGit(packscope(['objects'], clone, cacheDir), expected, 'objects: alternate MIDX and local duplicates');
});

test('a SHA-256 repository behind a MIDX', () => {
  const repo = historyRepository(sandbox, 'sha256-midx', {
    commits: 150,
    seed: 9,
    objectFormat: 'sha256',
    repack: ['-adf', '--depth=50', '--window=10'],
  });
  const [first] = packStems(path.join(repo, '.git', 'objects'));
  sandbox.fastImport(repo, historyOnRef({ commits: 80, seed: 11 }, 'side', 'side-'));
  sandbox.git(repo, ['repack', '-q', '-a', '-f', '--depth=4', '--window=5']);
  assert.equal(packStems(path.join(repo, '.git', 'objects')).length, 3);
  setPackMtime(first!, T0 + 100);
  sandbox.git(repo, ['multi-pack-index', 'write']);
  const expected = catFileBatchCheck(sandbox, repo);
  assert.match(expected, /^[0-9a-f]{64} /);
  assertMatchesGit(packscope(['objects'], repo, cacheDir), expected, 'objects (sha256, MIDX)');
});
