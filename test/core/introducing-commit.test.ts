/**
 * The commit that introduced a blob or tree under its path (INTRODUCING_RULE), on real
 * repositories: a rename, a copy (the same blob at two paths), a blob deleted and added again, a
 * merge bringing a side branch's blob, an evil merge adding one itself, nested trees, and a
 * generated history with renames. Every answer is compared with two of git's: the oldest commit of
 * `git rev-list --all` whose `git ls-tree -r -t` has the object at the path (the rule itself),
 * and the last commit `git log --all --find-object=<oid>` lists adding it there (with git's default
 * rename detection, and `--diff-merges=separate` so that a merge's own additions are listed).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findIntroducingCommit } from '../../src/core/git/introducing-commit.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { pathsRepository, revListNames } from '../support/paths-repository.ts';

let root: string;
let sandbox: GitSandbox;
let handMade: string;
let generated: string;

function commitAt(repo: string, message: string, seconds: number): void {
  const date = `${1_700_000_000 + seconds} +0000`;
  sandbox.git(repo, ['add', '-A']);
  sandbox.git(repo, ['commit', '-q', '--allow-empty', '-m', message], {
    env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  });
}

function write(repo: string, file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  fs.writeFileSync(path.join(repo, file), text);
}

before(() => {
  root = tempDir(undefined, 'packscope-introducing-');
  sandbox = new GitSandbox(root);
  handMade = sandbox.init('hand-made');
  const r = handMade;
  const git = (args: string[]): void => void sandbox.git(r, args);
  write(r, 'a.txt', 'one\n');
  write(r, 'dir/sub/keep.txt', 'keep\n');
  commitAt(r, 'A: add a.txt and dir/sub', 100);
  git(['mv', 'a.txt', 'b.txt']);
  commitAt(r, 'B: rename a.txt to b.txt', 200);
  write(r, 'copy/c.txt', 'one\n');
  commitAt(r, 'C: the same blob at a second path', 300);
  git(['rm', '-q', 'b.txt']);
  commitAt(r, 'D: delete b.txt', 400);
  write(r, 'b.txt', 'one\n');
  commitAt(r, 'E: b.txt again', 500);
  git(['checkout', '-q', '-b', 'side', 'HEAD~2']);
  write(r, 'side/x.txt', 'from the side\n');
  commitAt(r, 'F: side adds side/x.txt', 600);
  git(['checkout', '-q', 'main']);
  write(r, 'main.txt', 'main\n');
  commitAt(r, 'G: main', 700);
  git(['merge', '-q', '--no-commit', 'side']);
  // An evil merge: the merge itself adds a file neither parent has.
  write(r, 'evil.txt', 'only in the merge\n');
  commitAt(r, 'M: merge side, adding evil.txt', 800);
  git(['mv', 'dir', 'moved']);
  commitAt(r, 'N: move dir to moved', 900);
  generated = pathsRepository(sandbox, 'generated', 60);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

/** Each commit's `oid<TAB>path` entries (`git ls-tree -r -t`, its root tree as the empty path) and its parents. */
const listings = new Map<string, { entries: Set<string>; parents: string[] }>();

function listingOf(repo: string, commit: string): { entries: Set<string>; parents: string[] } {
  const key = `${repo}\0${commit}`;
  let listing = listings.get(key);
  if (listing === undefined) {
    const entries = new Set(
      sandbox
        .git(repo, ['ls-tree', '-r', '-t', '-z', commit])
        .toString('utf8')
        .split('\0')
        .filter(Boolean)
        .map((line) => line.slice(line.indexOf(' ', line.indexOf(' ') + 1) + 1)),
    );
    entries.add(`${sandbox.gitText(repo, ['rev-parse', `${commit}^{tree}`]).trim()}\t`);
    const parents = sandbox.gitText(repo, ['rev-list', '--parents', '-1', commit]).trim().split(' ').slice(1);
    listing = { entries, parents };
    listings.set(key, listing);
  }
  return listing;
}

/**
 * The rule from trees alone: the last commit of `git rev-list --all` whose `git ls-tree -r -t`
 * has `oid` at `file` while a parent's does not (or it has none).
 */
function oldestAddingFromTrees(repo: string, oid: string, file: string): string | null {
  const entry = `${oid}\t${file}`;
  let oldest: string | null = null;
  for (const commit of sandbox.gitText(repo, ['rev-list', '--all']).split('\n').filter(Boolean)) {
    const { entries, parents } = listingOf(repo, commit);
    if (!entries.has(entry)) continue;
    if (parents.length === 0 || parents.some((parent) => !listingOf(repo, parent).entries.has(entry))) oldest = commit;
  }
  return oldest;
}

/** The last commit `git log --all --find-object` lists that adds `oid` at `file` (renamed or copied there too). */
function lastFindObjectAdding(repo: string, oid: string, file: string): string | null {
  const output = sandbox.gitText(repo, [
    // Paths as they are (a non-ASCII name is not quoted).
    '-c',
    'core.quotePath=false',
    'log',
    '--all',
    `--find-object=${oid}`,
    '--diff-merges=separate',
    '--format=commit %H',
    '--raw',
    '--no-abbrev',
  ]);
  let commit: string | null = null;
  let last: string | null = null;
  for (const line of output.split('\n')) {
    if (line.startsWith('commit ')) commit = line.slice(7);
    if (!line.startsWith(':')) continue;
    const [header, ...paths] = line.split('\t');
    const [, , before, after] = header!.split(' ');
    if (after === oid && paths[paths.length - 1] === file && (before !== oid || paths.length === 2)) last = commit;
  }
  return last;
}

async function introducing(repo: string, oid: string, file: string): Promise<string | null> {
  return findIntroducingCommit(oid, file, { git: 'git', gitDir: path.join(repo, '.git'), cwd: repo });
}

describe('the commit that introduced an object under its path', () => {
  test('renames, copies, deletions, merges: the oldest commit with the object there, as git lists it', async () => {
    const subject = (commit: string | null): string | null =>
      commit === null ? null : sandbox.gitText(handMade, ['log', '-1', '--format=%s', commit]).trim();
    const rev = (name: string): string => sandbox.gitText(handMade, ['rev-parse', name]).trim();
    const cases: [string, string, string][] = [
      // The renamed blob at its new name: B renamed it there (and E brought it back after D deleted it).
      [rev('main:b.txt'), 'b.txt', 'B: rename a.txt to b.txt'],
      [rev('main:b.txt'), 'a.txt', 'A: add a.txt and dir/sub'],
      [rev('main:b.txt'), 'copy/c.txt', 'C: the same blob at a second path'],
      [rev('main:side/x.txt'), 'side/x.txt', 'F: side adds side/x.txt'],
      [rev('main:evil.txt'), 'evil.txt', 'M: merge side, adding evil.txt'],
      [rev('main:moved/sub'), 'moved/sub', 'N: move dir to moved'],
      [rev('main:moved/sub'), 'dir/sub', 'A: add a.txt and dir/sub'],
      [rev('main~1^{tree}'), '', 'M: merge side, adding evil.txt'],
    ];
    for (const [oid, file, expected] of cases) {
      const found = await introducing(handMade, oid, file);
      assert.equal(subject(found), expected, `${oid} at ${file}`);
      assert.equal(found, oldestAddingFromTrees(handMade, oid, file), `${oid} at ${file}: the rule`);
      if (file !== '') assert.equal(found, lastFindObjectAdding(handMade, oid, file), `${oid} at ${file}: git log`);
    }
    // At a path where it never was, no commit.
    assert.equal(await introducing(handMade, rev('main:b.txt'), 'main.txt'), null);
  });

  test('every blob and tree of a generated history, at the path rev-list names it by', async () => {
    const names = revListNames(sandbox, generated);
    const types = new Map(
      sandbox
        .gitText(generated, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)'])
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ') as [string, string]),
    );
    let checked = 0;
    for (const [oid, latin1Name] of names) {
      const type = types.get(oid);
      if (latin1Name === undefined || (type !== 'blob' && type !== 'tree')) continue;
      // rev-list's names are bytes; the paths PackScope passes are UTF-8 text.
      const file = Buffer.from(latin1Name, 'latin1').toString('utf8');
      const found = await introducing(generated, oid, file);
      assert.equal(found, oldestAddingFromTrees(generated, oid, file), `${type} ${oid} at ${file}: the rule`);
      if (file !== '')
        assert.equal(found, lastFindObjectAdding(generated, oid, file), `${type} ${oid} at ${file}: git log`);
      // Every path rev-list names came from some commit's tree; '' may be a tree a ref names alone.
      if (file !== '') assert.notEqual(found, null, `${oid} at ${file}`);
      checked++;
    }
    assert.ok(checked > 100, `only ${checked} objects checked`);
  });

  test('a path whose bytes are not UTF-8 (Latin-1 names, glob characters around them)', async () => {
    const repo = sandbox.init('latin-1');
    // Node writes the bytes of a Buffer path as they are; git stores them as they are.
    const writeBytes = (name: number[], text: string): void => {
      fs.mkdirSync(path.join(repo, 'odd [1]'), { recursive: true });
      fs.writeFileSync(Buffer.concat([Buffer.from(`${repo}/odd [1]/`), Buffer.from(name)]), text);
    };
    const naive = [...Buffer.from('na'), 0xef, ...Buffer.from('ve*.txt')]; // "naïve*.txt" in Latin-1
    const other = [...Buffer.from('na'), 0xee, ...Buffer.from('ve*.txt')]; // decodes as the same text
    writeBytes(naive, 'first\n');
    commitAt(repo, 'L1: a Latin-1 name', 100);
    writeBytes(other, 'second\n');
    commitAt(repo, 'L2: another name that decodes the same', 200);
    writeBytes(other, 'first\n');
    commitAt(repo, 'L3: the first blob at the other name too', 300);
    const decoded = 'odd [1]/na\uFFFDve*.txt';
    const subject = (commit: string | null): string | null =>
      commit === null ? null : sandbox.gitText(repo, ['log', '-1', '--format=%s', commit]).trim();
    const first = sandbox.gitText(repo, ['hash-object', '--stdin'], { input: 'first\n' }).trim();
    const second = sandbox.gitText(repo, ['hash-object', '--stdin'], { input: 'second\n' }).trim();
    for (const [oid, expected] of [
      [first, 'L1: a Latin-1 name'],
      [second, 'L2: another name that decodes the same'],
    ] as const) {
      const found = await introducing(repo, oid, decoded);
      assert.equal(subject(found), expected, oid);
      // The rule over ls-tree's names decoded the same way.
      assert.equal(found, oldestAddingFromTrees(repo, oid, decoded), `${oid}: the rule`);
    }
    // Not where it never was: the same decoded text one directory off.
    assert.equal(await introducing(repo, first, 'na\uFFFDve*.txt'), null);
  });

  test("a repository's configuration does not change the answer (renames, follow, merges' diffs, quoting)", async () => {
    for (const [key, value] of [
      ['diff.renames', 'copies'],
      ['log.follow', 'true'],
      ['log.diffMerges', 'first-parent'],
      ['log.showRoot', 'false'],
      ['core.quotePath', 'true'],
    ] as const)
      sandbox.git(handMade, ['config', key, value]);
    const oid = sandbox.gitText(handMade, ['rev-parse', 'main:b.txt']).trim();
    assert.equal(
      sandbox.gitText(handMade, ['log', '-1', '--format=%s', (await introducing(handMade, oid, 'b.txt'))!]).trim(),
      'B: rename a.txt to b.txt',
    );
    const first = sandbox.gitText(handMade, ['rev-parse', 'main:moved/sub/keep.txt']).trim();
    assert.equal(
      sandbox
        .gitText(handMade, ['log', '-1', '--format=%s', (await introducing(handMade, first, 'dir/sub/keep.txt'))!])
        .trim(),
      'A: add a.txt and dir/sub',
    );
  });
});
