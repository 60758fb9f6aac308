import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { isGitDirectory, probeGitDirectory, probeWorkspace } from '../../src/extension/git-directory-probe.ts';
import { GitSandbox, tempDir } from '../support/git.ts';

test('the activation probe finds a bare repository, a worktree (.git file), a subfolder and nested repositories within scanDepth', (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const bare = sandbox.init('mirror.git', { bare: true });
  assert.equal(isGitDirectory(bare), true, 'git init --bare has HEAD, objects/, refs/');
  assert.equal(probeGitDirectory(bare, 0).found, bare);

  const work = sandbox.init('work');
  fs.writeFileSync(path.join(work, 'a.txt'), 'a\n');
  sandbox.git(work, ['add', 'a.txt']);
  sandbox.git(work, ['commit', '-q', '-m', 'a']);
  assert.equal(probeGitDirectory(work, 0).found, path.join(work, '.git'));
  fs.mkdirSync(path.join(work, 'sub', 'deeper'), { recursive: true });
  assert.equal(
    probeGitDirectory(path.join(work, 'sub', 'deeper'), 0).found,
    path.join(work, '.git'),
    'a subfolder of a checkout',
  );

  const worktree = path.join(sandbox.root, 'linked');
  sandbox.git(work, ['worktree', 'add', '-q', worktree]);
  assert.equal(fs.lstatSync(path.join(worktree, '.git')).isFile(), true);
  assert.equal(probeGitDirectory(worktree, 0).found, path.join(worktree, '.git'), 'a worktree has a .git file');

  // Nested: a folder of repositories, found at the level scanDepth allows and not below it.
  const holder = path.join(sandbox.root, 'holder');
  fs.mkdirSync(path.join(holder, 'group'), { recursive: true });
  execFileSync('git', ['init', '-q', path.join(holder, 'group', 'inner')]);
  assert.equal(probeGitDirectory(holder, 1).found, undefined, 'inner is two levels down');
  assert.equal(probeGitDirectory(holder, 2).found, path.join(holder, 'group', 'inner', '.git'));
  execFileSync('git', ['init', '-q', '--bare', path.join(holder, 'nested-bare.git')]);
  assert.equal(probeGitDirectory(holder, 1).found, path.join(holder, 'nested-bare.git'));
  assert.equal(
    probeWorkspace([path.join(sandbox.root, 'empty-missing'), holder], 1),
    path.join(holder, 'nested-bare.git'),
  );
});

test('the activation probe says no for look-alikes and never blocks on a FIFO or loops through symbolic links', (t) => {
  const root = tempDir(t);
  // HEAD, objects/, refs/ but HEAD is not git's: not a git directory.
  const fake = path.join(root, 'fake');
  fs.mkdirSync(path.join(fake, 'objects'), { recursive: true });
  fs.mkdirSync(path.join(fake, 'refs'));
  fs.writeFileSync(path.join(fake, 'HEAD'), 'hello\n');
  assert.equal(isGitDirectory(fake), false);
  // HEAD a FIFO: opening it for reading would block until a writer comes; the probe never opens it.
  const fifo = path.join(root, 'fifo-head');
  fs.mkdirSync(path.join(fifo, 'objects'), { recursive: true });
  fs.mkdirSync(path.join(fifo, 'refs'));
  execFileSync('mkfifo', [path.join(fifo, 'HEAD')]);
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  assert.equal(isGitDirectory(fifo), false);
  // A .git FIFO too.
  fs.mkdirSync(path.join(root, 'fifo-dotgit'));
  execFileSync('mkfifo', [path.join(root, 'fifo-dotgit', '.git')]);
  // A symbolic link loop at every level.
  fs.symlinkSync(root, path.join(root, 'loop'));
  fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
  fs.symlinkSync(path.join(root, 'a'), path.join(root, 'a', 'b', 'up'));
  const result = probeGitDirectory(root, 4);
  assert.equal(result.found, undefined);
  assert.equal(result.capped, false);
  assert.ok(result.entries < 20, `${result.entries} entries looked at`);
});

test('the activation probe stops at its entry cap in a huge folder', (t) => {
  const root = tempDir(t);
  for (let i = 0; i < 300; i++) fs.mkdirSync(path.join(root, `d${i}`));
  execFileSync('git', ['init', '-q', path.join(root, 'zz-last', 'repo')]);
  const capped = probeGitDirectory(root, 2, 100);
  assert.equal(capped.capped, true);
  assert.equal(capped.found, undefined);
  assert.equal(capped.entries, 101);
  assert.equal(probeGitDirectory(root, 2).found, path.join(root, 'zz-last', 'repo', '.git'));
});
