/**
 * git-sizer's figures (`stats --concerns`) against git's own commands, on a repository these tests
 * make with the git CLI: a deep linear history, a tree of 1,200 entries, a path 13 directories
 * deep, a name of 150 bytes, symlinks, gitlinks, an empty subtree, an 11-parent merge, a chain of
 * three annotated tags, a tag of a tree, a ref to a blob, a big blob, refs of every kind git-sizer
 * groups, and a big blob that only the detached HEAD reaches (git-sizer's roots are the refs
 * `git for-each-ref` lists, not HEAD). Each figure is computed from git's output here: the objects
 * from `rev-list --objects` of the refs and `cat-file --batch-check`, the parents and the longest
 * chain from `rev-list --parents`, tree entries from `ls-tree`, checkouts from `ls-tree -r -t -l`,
 * tag chains from `cat-file tag`. The same figures are checked as made (fast-import's pack and loose objects), after `repack -d`, and all in one pack of deltas.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import type { ConcernKey, ConcernsDocument } from '../../src/core/documents/concerns-document.ts';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { ObjectStore } from '../../src/core/model/object-store.ts';
import { storeWalkInputs } from '../../src/core/model/object-paths.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { refGroupsOf } from '../../src/core/model/sizer-metrics.ts';
import { concernsDocument, concernStars } from '../../src/core/report/concerns.ts';
import { GitSandbox, tempDir } from '../support/git.ts';

let root: string;
let sandbox: GitSandbox;

const WIDE = 1200;
const LINEAR = 320;
const BIG_BLOB = 10_500_000;

function concerns(repo: string): ConcernsDocument {
  const store = new ObjectStore(discoverRepository(repo), new ModelStore(undefined));
  return concernsDocument(storeWalkInputs(store), store.repository.hash.size);
}

function value(document: ConcernsDocument, key: ConcernKey): number {
  return document.metrics.find((m) => m.key === key)!.value;
}

/** Bytes that do not compress, the same on every run. */
function noise(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

/** A fast-import stream: the first commit's shapes, a deep linear history, ten side branches and their octopus merge. */
function history(): Buffer {
  const parts: Buffer[] = [];
  const text = (s: string): void => void parts.push(Buffer.from(s));
  const data = (bytes: Buffer): void => {
    text(`data ${bytes.length}\n`);
    parts.push(bytes, Buffer.from('\n'));
  };
  let time = 1_600_000_000;
  const commit = (ref: string, mark: number, from: number | undefined, merges: number[], body: () => void): void => {
    text(`commit ${ref}\nmark :${mark}\ncommitter A U Thor <a@example.com> ${time++} +0000\n`);
    data(Buffer.from(`commit ${mark}`));
    if (from !== undefined) text(`from :${from}\n`);
    for (const m of merges) text(`merge :${m}\n`);
    body();
    text('\n');
  };
  text('blob\nmark :1\n');
  data(Buffer.from('same content in every wide entry\n'));
  text('blob\nmark :2\n');
  data(noise(BIG_BLOB, 7));
  commit('refs/heads/main', 10, undefined, [], () => {
    for (let i = 0; i < WIDE; i++) text(`M 100644 :1 wide/f${String(i).padStart(4, '0')}\n`);
    text('M 100755 :2 big.bin\n');
    text(`M 100644 :1 ${'abcdefghijkl'.split('').join('/')}/leaf.txt\n`);
    text(`M 100644 :1 long/${'n'.repeat(150)}\n`);
    for (const link of ['l1', 'deep/l2', 'deep/er/l3']) {
      text(`M 120000 inline ${link}\n`);
      data(Buffer.from(`target-of-${link}`));
    }
    text(`M 160000 ${'1'.repeat(40)} sub/one\nM 160000 ${'2'.repeat(40)} sub/two\n`);
  });
  for (let i = 1; i <= LINEAR; i++)
    commit('refs/heads/main', 10 + i, 10 + i - 1, [], () => {
      text('M 100644 inline counter\n');
      data(Buffer.from(`step ${i}\n`.repeat(i)));
    });
  const sides: number[] = [];
  for (let b = 0; b < 10; b++) {
    const mark = 1000 + b;
    sides.push(mark);
    commit(`refs/heads/side${b}`, mark, 15, [], () => {
      text(`M 100644 inline side${b}.txt\n`);
      data(Buffer.from(`side ${b}\n`));
    });
  }
  commit('refs/heads/main', 2000, 10 + LINEAR, sides, () => text('M 100644 inline merged\ndata 3\nyes\n'));
  text('done\n');
  return Buffer.concat(parts);
}

function makeRepository(name: string): string {
  const repo = sandbox.init(name);
  const git = (args: string[], input?: string | Buffer): string =>
    sandbox.gitText(repo, args, input === undefined ? {} : { input }).trim();
  sandbox.fastImport(repo, history());
  git(['checkout', '-q', 'main']);
  // Tags: a chain of three, one of a tree; a lightweight ref to a blob.
  git(['tag', '-a', '-m', 'one', 't1', 'main']);
  git(['tag', '-a', '-m', 'two', 't2', 't1']);
  git(['tag', '-a', '-m', 'three', 't3', 't2']);
  git(['tag', '-a', '-m', 'a tree', 'tree-tag', 'main^{tree}']);
  git(['update-ref', 'refs/tags/blob-ref', git(['hash-object', '-w', '--stdin'], 'a blob a ref names\n')]);
  // An empty subtree (git never checks one out, but a tree may name it).
  const empty = git(['hash-object', '-w', '-t', 'tree', '--stdin'], '');
  const file = git(['hash-object', '-w', '--stdin'], 'beside an empty directory\n');
  const tree = git(['mktree'], `040000 tree ${empty}\tempty-directory-name\n100644 blob ${file}\tf\n`);
  git(['update-ref', 'refs/heads/empty-dir', git(['commit-tree', '-p', 'main', '-m', 'empty dir', tree])]);
  // Refs of every group git-sizer counts, and one of none.
  const main = git(['rev-parse', 'main']);
  for (const ref of [
    'refs/remotes/origin/main',
    'refs/pull/1/head',
    'refs/changes/01/1/1',
    'refs/stash',
    'refs/changes/1/1/1',
    'refs/other/x',
  ])
    git(['update-ref', ref, main]);
  git(['notes', 'add', '-m', 'a note', 'main']);
  // A bigger blob that only the detached HEAD reaches: not in git-sizer's count.
  const hidden = sandbox
    .git(repo, ['hash-object', '-w', '--stdin'], { input: noise(BIG_BLOB * 2, 9) })
    .toString()
    .trim();
  const hiddenTree = git(['mktree'], `100644 blob ${hidden}\thidden.bin\n`);
  git(['update-ref', '--no-deref', 'HEAD', git(['commit-tree', '-p', 'main', '-m', 'only HEAD', hiddenTree])]);
  return repo;
}

/** Every figure as git's own commands give it, by git-sizer's definitions. */
// Stays long: a linear script of git commands, one figure after another, read top to bottom.
function expectedFromGit(repo: string): Record<ConcernKey, number> {
  const git = (args: string[], input?: string): string =>
    sandbox.gitText(repo, args, input === undefined ? {} : { input });
  const refs = git(['for-each-ref', '--format=%(objectname) %(refname)']).trim().split('\n');
  const roots = refs.map((line) => line.split(' ')[0]!).join('\n') + '\n';
  const listed = git(['rev-list', '--objects', '--stdin'], roots)
    .trim()
    .split('\n')
    .map((line) => line.slice(0, 40))
    .join('\n');
  const objects = git(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], listed + '\n')
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .map(([oid, type, size]) => ({ oid: oid!, type: type!, size: Number(size) }));
  const ofType = (type: string): { oid: string; size: number }[] => objects.filter((o) => o.type === type);
  const sum = (list: { size: number }[]): number => list.reduce((s, o) => s + o.size, 0);
  const max = (list: number[]): number => list.reduce((m, v) => Math.max(m, v), 0);

  // Parents and the longest chain, from rev-list's parent lists of every commit the refs reach.
  const parentsOf = new Map<string, string[]>();
  const commitRoots = git(['for-each-ref', '--format=%(objectname)^{}']).trim().split('\n');
  const commitTips = commitRoots.filter((rev) => git(['cat-file', '-t', rev]).trim() === 'commit').join('\n');
  for (const line of git(['rev-list', '--parents', '--stdin'], commitTips + '\n')
    .trim()
    .split('\n')) {
    const [commit, ...parents] = line.split(' ');
    parentsOf.set(commit!, parents);
  }
  const depth = new Map<string, number>();
  const order = git(['rev-list', '--topo-order', '--reverse', '--stdin'], commitTips + '\n')
    .trim()
    .split('\n');
  for (const commit of order) depth.set(commit, 1 + max(parentsOf.get(commit)!.map((p) => depth.get(p)!)));

  // Tag chains: 1, plus the target's chain when `cat-file tag` says its type is tag.
  const tagDepth = (oid: string): number => {
    const header = git(['cat-file', 'tag', oid]);
    const target = /^object (\S+)$/m.exec(header)![1]!;
    return 1 + (/^type tag$/m.test(header) ? tagDepth(target) : 0);
  };

  // Every tree's entries (ls-tree) and its checkout (ls-tree -r -t -l: every path below it).
  const checkout = {
    entries: 0,
    trees: 0,
    depth: 0,
    length: 0,
    blobs: 0,
    blobBytes: 0,
    links: 0,
    submodules: 0,
  };
  for (const { oid } of ofType('tree')) {
    const entries = git(['ls-tree', '-z', oid])
      .split('\0')
      .filter((e) => e !== '');
    checkout.entries = Math.max(checkout.entries, entries.length);
    const all = sandbox
      .git(repo, ['ls-tree', '-r', '-t', '-l', '-z', oid])
      .toString('latin1')
      .split('\0')
      .filter((e) => e !== '')
      .map((e) => {
        const tab = e.indexOf('\t');
        const [mode, , , size] = e.slice(0, tab).split(/ +/);
        return { mode: mode!, size: size === '-' ? 0 : Number(size), path: Buffer.from(e.slice(tab + 1), 'latin1') };
      });
    const isFile = (mode: string): boolean => !['040000', '120000', '160000'].includes(mode);
    checkout.trees = Math.max(checkout.trees, 1 + all.filter((e) => e.mode === '040000').length);
    checkout.depth = Math.max(checkout.depth, max(all.map((e) => e.path.toString('latin1').split('/').length)));
    checkout.length = Math.max(checkout.length, max(all.map((e) => e.path.length)));
    checkout.blobs = Math.max(checkout.blobs, all.filter((e) => isFile(e.mode)).length);
    checkout.blobBytes = Math.max(checkout.blobBytes, sum(all.filter((e) => isFile(e.mode))));
    checkout.links = Math.max(checkout.links, all.filter((e) => e.mode === '120000').length);
    checkout.submodules = Math.max(checkout.submodules, all.filter((e) => e.mode === '160000').length);
  }
  const treeEntries = ofType('tree').map(
    ({ oid }) =>
      git(['ls-tree', '-z', oid])
        .split('\0')
        .filter((e) => e !== '').length,
  );
  const commits = ofType('commit');
  return {
    uniqueCommitCount: commits.length,
    uniqueCommitSize: sum(commits),
    uniqueTreeCount: ofType('tree').length,
    uniqueTreeSize: sum(ofType('tree')),
    uniqueTreeEntries: treeEntries.reduce((s, n) => s + n, 0),
    uniqueBlobCount: ofType('blob').length,
    uniqueBlobSize: sum(ofType('blob')),
    uniqueTagCount: ofType('tag').length,
    referenceCount: refs.length,
    maxCommitSize: max(commits.map((c) => c.size)),
    maxCommitParentCount: max([...parentsOf.values()].map((p) => p.length)),
    maxTreeEntries: checkout.entries,
    maxBlobSize: max(ofType('blob').map((b) => b.size)),
    maxHistoryDepth: max([...depth.values()]),
    maxTagDepth: max(ofType('tag').map((t) => tagDepth(t.oid))),
    maxCheckoutTreeCount: checkout.trees,
    maxCheckoutPathDepth: checkout.depth,
    maxCheckoutPathLength: checkout.length,
    maxCheckoutBlobCount: checkout.blobs,
    maxCheckoutBlobSize: checkout.blobBytes,
    maxCheckoutLinkCount: checkout.links,
    maxCheckoutSubmoduleCount: checkout.submodules,
  };
}

describe("git-sizer's figures against git's commands", () => {
  let repo: string;
  let expected: Record<ConcernKey, number>;

  before(() => {
    root = tempDir(undefined, 'packscope-sizer-');
    sandbox = new GitSandbox(root);
    repo = makeRepository('shapes');
    expected = expectedFromGit(repo);
  });

  const check = (document: ConcernsDocument): void => {
    assert.deepEqual(document.problems, []);
    assert.equal(document.complete, true);
    const got = Object.fromEntries(document.metrics.map((m) => [m.key, m.value]));
    assert.deepEqual(got, expected);
  };

  test('as made (fast-import’s pack, the rest loose): every figure equals git’s', () => {
    check(concerns(repo));
  });

  test('half packed, half loose: every figure equals git’s', () => {
    sandbox.git(repo, ['repack', '-dq']);
    sandbox.git(repo, ['tag', '-a', '-m', 'four', 't4', 't3']);
    expected = expectedFromGit(repo);
    check(concerns(repo));
  });

  test('all packed (repack -adf, deltas): every figure equals git’s', () => {
    sandbox.git(repo, ['repack', '-adfq', '--depth=50', '--window=50']);
    check(concerns(repo));
  });

  test('the shapes reach the levels they were made for', () => {
    const document = concerns(repo);
    // The figures above equal git's; these say the repository exercises what it was made to.
    assert.equal(value(document, 'maxCommitParentCount'), 11);
    assert.equal(value(document, 'maxTagDepth'), 4);
    assert.equal(value(document, 'maxBlobSize'), BIG_BLOB);
    assert.equal(value(document, 'maxCheckoutSubmoduleCount'), 2);
    assert.equal(value(document, 'maxCheckoutLinkCount'), 3);
    assert.equal(value(document, 'maxTreeEntries'), WIDE);
    const stars = Object.fromEntries(document.metrics.map((m) => [m.key, m.stars]));
    assert.equal(stars.maxCommitParentCount, '*');
    assert.equal(stars.maxTagDepth, '***');
    assert.equal(stars.maxBlobSize, '*');
    assert.equal(stars.maxTreeEntries, '*');
    assert.equal(stars.maxCheckoutPathDepth, '*');
    assert.equal(stars.maxCheckoutPathLength, '*');
    assert.equal(stars.uniqueCommitCount, '');
  });

  test('references by kind: git for-each-ref’s list in git-sizer’s groups', () => {
    const names = sandbox.gitText(repo, ['for-each-ref', '--format=%(refname)']).trim().split('\n');
    const groups = Object.fromEntries(concerns(repo).refGroups.map((g) => [g.symbol, g.count]));
    assert.deepEqual(groups, Object.fromEntries(refGroupsOf(names).map((g) => [g.symbol, g.count])));
    assert.deepEqual(groups, {
      branches: names.filter((n) => n.startsWith('refs/heads/')).length,
      tags: names.filter((n) => n.startsWith('refs/tags/')).length,
      remotes: 1,
      pulls: 1,
      changes: 1,
      notes: 1,
      stash: 1,
      // refs/other/x and refs/changes/1/1/1 (git-sizer's changes need two digits).
      other: 2,
    });
  });

  test('git-sizer’s stars: one per whole level, 30 `!` past 30 or when saturated', () => {
    assert.equal(concernStars(0.99, false), '');
    assert.equal(concernStars(2.5, false), '**');
    assert.equal(concernStars(30, false), '*'.repeat(30));
    assert.equal(concernStars(30.5, false), '!'.repeat(30));
    assert.equal(concernStars(0, true), '!'.repeat(30));
  });
});

describe('untrusted trees and commits', () => {
  test('a malformed tree and a commit without a tree line are named in the problems, the rest still counted', () => {
    const repo = sandbox.init('hostile');
    const git = (args: string[], input?: string | Buffer): string =>
      sandbox.gitText(repo, args, input === undefined ? {} : { input }).trim();
    const blob = git(['hash-object', '-w', '--stdin'], 'fine\n');
    // An entry whose name runs to the end of the tree: no NUL, no id.
    const broken = git(['hash-object', '-w', '-t', 'tree', '--literally', '--stdin'], '100644 no-terminator');
    const tree = git(['mktree', '--missing'], `100644 blob ${blob}\tfine\n040000 tree ${broken}\tbroken\n`);
    const commit = git(['commit-tree', '-m', 'root', tree]);
    const headless = git(['hash-object', '-w', '-t', 'commit', '--literally', '--stdin'], 'author nobody\n\nno tree\n');
    git(['update-ref', 'refs/heads/main', commit]);
    // git's update-ref refuses to point a ref at it: the ref file is written as another tool could.
    fs.writeFileSync(path.join(repo, '.git', 'refs', 'heads', 'headless'), `${headless}\n`);
    const document = concerns(repo);
    assert.equal(document.complete, false);
    assert.equal(document.problems.length, 2, document.problems.join('\n'));
    assert.match(document.problems.join('\n'), new RegExp(`${broken}.*malformed entry at byte 0`));
    assert.match(document.problems.join('\n'), new RegExp(`${headless}.*not a well-formed commit`));
    // git's rev-list stops at the malformed tree; this count goes on with what it can read: the
    // blob, both trees (the broken one has no entry to count), the one well-formed commit.
    assert.equal(value(document, 'uniqueBlobCount'), 1);
    assert.equal(value(document, 'uniqueTreeCount'), 2);
    assert.equal(value(document, 'uniqueCommitCount'), 1);
    assert.equal(value(document, 'maxCheckoutBlobCount'), 1);
  });
});
