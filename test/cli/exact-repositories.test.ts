/**
 * `packscope objects` (and verify-pack, stats where it applies) against git in every kind of
 * repository layout: plain, SHA-256, a clone borrowing objects through alternates, a linked
 * worktree, a bare repository and one whose `.git` is a `gitdir:` file.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { assertMatchesGit } from '../support/assert-output.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import {
  catFileBatchCheck,
  edgeCaseStream,
  historyOnRef,
  historyRepository,
  packscope,
  runGit,
  verifyPackEntries,
} from '../support/git-oracle.ts';

let root: string;
let sandbox: GitSandbox;
let cacheDir: string;
/** 300 commits, one pack made by repack -adf. */
let repo: string;

after(() => fs.rmSync(root, { recursive: true, force: true }));

before(() => {
  root = tempDir(undefined, 'packscope-exact-repos-');
  sandbox = new GitSandbox(root);
  cacheDir = path.join(root, 'cache');
  repo = historyRepository(sandbox, 'repo', { commits: 300, seed: 3, repack: ['-adf', '--depth=50', '--window=10'] });
});

interface StatsDocument {
  repository: { gitDir: string; objectFormat: string };
  packs: Array<{ pack: string }>;
  total: { objects: number; byType: Record<string, number> };
}

/** The object count and types cat-file lists, as stats --json should total them. */
function countsFromCatFile(listing: string): { objects: number; byType: Record<string, number> } {
  const byType: Record<string, number> = { commit: 0, tree: 0, blob: 0, tag: 0 };
  const lines = listing.split('\n').filter(Boolean);
  for (const line of lines) byType[line.split(' ')[1]!]!++;
  return { objects: lines.length, byType };
}

test('a plain repository: objects, with a cold cache, a warm cache and --no-cache', () => {
  const expected = catFileBatchCheck(sandbox, repo);
  const fresh = path.join(root, 'fresh-cache');
  assertMatchesGit(packscope(['objects'], repo, fresh), expected, 'objects (cold cache)');
  assert.ok(fs.existsSync(fresh), 'the model cache was written where PACKSCOPE_CACHE_DIR says');
  assertMatchesGit(packscope(['objects'], repo, fresh), expected, 'objects (warm cache)');
  assertMatchesGit(packscope(['objects', '--no-cache'], repo, fresh), expected, 'objects --no-cache');
  assertMatchesGit(packscope(['objects', repo], root, fresh), expected, 'objects <repo path>');
});

test('a SHA-256 repository', async (t) => {
  const sha = historyRepository(sandbox, 'sha256', {
    commits: 300,
    seed: 3,
    objectFormat: 'sha256',
    repack: ['-adf', '--depth=50', '--window=10'],
  });
  const [stem] = packStems(path.join(sha, '.git', 'objects'));
  await t.test('verify-pack -v, run in the repository', () => {
    for (const arg of [`${stem}.idx`, path.relative(sha, `${stem}.pack`)]) {
      const git = runGit(sandbox, sha, ['verify-pack', '-v', arg]);
      assert.equal(git.status, 0, git.stderr);
      assert.match(git.stdout, /^[0-9a-f]{64} /, 'git printed SHA-256 ids');
      assertMatchesGit(packscope(['verify-pack', '-v', arg], sha, cacheDir), git.stdout, `verify-pack -v ${arg}`);
    }
  });
  await t.test('verify-pack -v --object-format=sha256 on a copy outside any repository', () => {
    const outside = path.join(root, 'sha256-copy');
    fs.mkdirSync(outside);
    for (const ext of ['.pack', '.idx']) fs.copyFileSync(stem + ext, path.join(outside, `x${ext}`));
    const git = runGit(sandbox, outside, ['verify-pack', '-v', '--object-format=sha256', 'x.idx']);
    assert.equal(git.status, 0, git.stderr);
    assertMatchesGit(
      packscope(['verify-pack', '-v', '--object-format=sha256', 'x.idx'], outside, cacheDir),
      git.stdout,
      'verify-pack -v --object-format=sha256',
    );
  });
  await t.test('objects', () =>
    assertMatchesGit(packscope(['objects'], sha, cacheDir), catFileBatchCheck(sandbox, sha), 'objects (sha256)'),
  );
  await t.test('stats --json names the object format', () => {
    const result = packscope(['stats', '--json'], sha, cacheDir);
    assert.equal(result.status, 0, result.stderr);
    const stats = JSON.parse(result.stdout) as StatsDocument;
    assert.equal(stats.repository.objectFormat, 'sha256');
    assert.deepEqual(
      { objects: stats.total.objects, byType: stats.total.byType },
      countsFromCatFile(catFileBatchCheck(sandbox, sha)),
    );
  });
});

test('alternates: a --shared clone with its own commits, repacked locally (repack -adl)', async (t) => {
  const clone = path.join(root, 'shared-clone');
  sandbox.git(root, ['clone', '-q', '--shared', repo, clone]);
  assert.ok(fs.existsSync(path.join(clone, '.git', 'objects', 'info', 'alternates')));
  sandbox.fastImport(clone, historyOnRef({ commits: 120, seed: 31 }, 'side', 'side-'));
  sandbox.git(clone, ['repack', '-q', '-adl', '--depth=20', '--window=10']);
  const local = packStems(path.join(clone, '.git', 'objects'));
  assert.equal(local.length, 1, 'one local pack');
  const expected = catFileBatchCheck(sandbox, clone);
  const localCount = sandbox
    .gitText(clone, ['verify-pack', '-v', `${local[0]}.idx`])
    .split('\n')
    .filter((l) => /^[0-9a-f]{40} /.test(l)).length;
  assert.ok(expected.split('\n').length - 1 > localCount, 'cat-file lists objects from the alternate too');
  await t.test('objects', () =>
    assertMatchesGit(packscope(['objects'], clone, cacheDir), expected, 'objects in a --shared clone'),
  );
  await t.test('objects after repack -a without -l (every alternate object duplicated locally)', () => {
    const dup = path.join(root, 'shared-clone-dup');
    sandbox.git(root, ['clone', '-q', '--shared', repo, dup]);
    sandbox.fastImport(dup, historyOnRef({ commits: 60, seed: 33 }, 'side', 'side-'));
    // Shallower chains than the alternate's pack, so the local copies differ on disk.
    sandbox.git(dup, ['repack', '-q', '-adf', '--depth=3', '--window=5']);
    const listing = catFileBatchCheck(sandbox, dup);
    // Every alternate object now has a local copy, and some copies differ on disk from the alternate's.
    const [localStem] = packStems(path.join(dup, '.git', 'objects'));
    const localDisk = new Map(verifyPackEntries(sandbox, dup, `${localStem}.idx`).map((e) => [e.oid, e.diskSize]));
    const alternate = verifyPackEntries(sandbox, repo, `${packStems(path.join(repo, '.git', 'objects'))[0]}.idx`);
    assert.ok(
      alternate.every((e) => localDisk.has(e.oid)),
      'every alternate object is duplicated locally',
    );
    assert.ok(
      alternate.filter((e) => localDisk.get(e.oid) !== e.diskSize).length > 100,
      'many local copies differ on disk',
    );
    assertMatchesGit(
      packscope(['objects'], dup, cacheDir),
      listing,
      'objects with local duplicates of alternate objects',
    );
  });
});

test('a linked worktree, run from a subdirectory of it', async (t) => {
  const worktree = path.join(root, 'linked');
  sandbox.git(repo, ['worktree', 'add', '-q', worktree, 'main~5']);
  const sub = path.join(worktree, 'src');
  assert.ok(fs.statSync(sub).isDirectory(), 'the worktree has a src/ directory');
  await t.test('objects', () =>
    assertMatchesGit(
      packscope(['objects'], sub, cacheDir),
      catFileBatchCheck(sandbox, sub),
      'objects in a linked worktree',
    ),
  );
  await t.test('stats --json', () => {
    const result = packscope(['stats', '--json'], sub, cacheDir);
    assert.equal(result.status, 0, result.stderr);
    const stats = JSON.parse(result.stdout) as StatsDocument;
    assert.equal(stats.repository.gitDir, sandbox.gitText(sub, ['rev-parse', '--absolute-git-dir']).trim());
    assert.deepEqual(
      stats.packs.map((p) => p.pack),
      packStems(path.join(repo, '.git', 'objects')).map((s) => `${s}.pack`),
    );
    assert.deepEqual(
      { objects: stats.total.objects, byType: stats.total.byType },
      countsFromCatFile(catFileBatchCheck(sandbox, sub)),
    );
  });
  await t.test('stats (text) succeeds', () => {
    const result = packscope(['stats'], sub, cacheDir);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, '');
  });
});

test('a bare repository, run from its refs/ directory', () => {
  const bare = path.join(root, 'bare.git');
  sandbox.git(root, ['clone', '-q', '--bare', '--no-local', repo, bare]);
  sandbox.git(bare, ['repack', '-q', '-adf', '--depth=10', '--window=10']);
  assertMatchesGit(
    packscope(['objects'], path.join(bare, 'refs'), cacheDir),
    catFileBatchCheck(sandbox, bare),
    'objects in a bare repository',
  );
  const result = packscope(['stats', '--json'], bare, cacheDir);
  assert.equal(result.status, 0, result.stderr);
  assert.equal((JSON.parse(result.stdout) as StatsDocument).repository.gitDir, bare);
});

test('a repository whose .git is a gitdir: file (git init --separate-git-dir)', () => {
  const work = path.join(root, 'separate');
  const gitDir = path.join(root, 'separate-git-dir');
  sandbox.git(root, ['init', '-q', '-b', 'main', `--separate-git-dir=${gitDir}`, work]);
  assert.match(fs.readFileSync(path.join(work, '.git'), 'utf8'), /^gitdir: /);
  sandbox.fastImport(work, historyOnRef({ commits: 150, seed: 5 }, 'main', ''));
  sandbox.git(work, ['repack', '-q', '-adf', '--depth=20', '--window=10']);
  const sub = path.join(work, 'sub');
  fs.mkdirSync(sub);
  assertMatchesGit(
    packscope(['objects'], sub, cacheDir),
    catFileBatchCheck(sandbox, work),
    'objects with a gitdir: file',
  );
  const result = packscope(['stats', '--json'], sub, cacheDir);
  assert.equal(result.status, 0, result.stderr);
  assert.equal((JSON.parse(result.stdout) as StatsDocument).repository.gitDir, gitDir);
});

test('the empty tree in a pack: git lists it as a cached object, objectsize:disk 0', () => {
  // git answers object info for the empty tree from its built-in cached object before any pack
  // (find_cached_object in object-file.c), so cat-file shows disk size 0 even though it is packed.
  const edge = sandbox.init('empty-tree');
  sandbox.fastImport(edge, edgeCaseStream('main', { emptyTree: true }));
  sandbox.git(edge, ['repack', '-q', '-adf']);
  const expected = catFileBatchCheck(sandbox, edge);
  assert.match(expected, /^4b825dc642cb6eb9a060e54bf8d69288fbee4904 tree 0 0 0{40}$/m);
  assert.match(
    sandbox.gitText(edge, ['verify-pack', '-v', `${packStems(path.join(edge, '.git', 'objects'))[0]}.idx`]),
    /^4b825dc642cb6eb9a060e54bf8d69288fbee4904 tree {3}0 \d+ \d+$/m,
    'the empty tree is in the pack',
  );
  assertMatchesGit(packscope(['objects'], edge, cacheDir), expected, 'objects with the empty tree packed');
});
