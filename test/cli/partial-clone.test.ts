/**
 * repack-preview in partial clones (git clone --filter=blob:none of a local origin, no checkout):
 * a promisor remote named only in a file that `include.path` pulls in still makes the preview add
 * --exclude-promisor-objects, nothing is fetched (the clone's upload-pack is a wrapper that leaves a
 * mark when a fetch runs it), the preview says what it covers, and a clone whose every object is
 * in its promisor pack is refused with a message that says so.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { GitSandbox, tempDir } from '../support/git.ts';
import { packscope, runGit } from '../support/git-oracle.ts';

let root: string;
let sandbox: GitSandbox;
let origin: string;

before(() => {
  root = tempDir(undefined, 'packscope-partial-clone-');
  sandbox = new GitSandbox(root);
  origin = sandbox.init('origin');
  for (let i = 1; i <= 3; i++) {
    fs.writeFileSync(path.join(origin, `f${i}`), `content ${i}\n`.repeat(20 * i));
    sandbox.git(origin, ['add', '.']);
    sandbox.git(origin, ['commit', '-q', '-m', `c${i}`]);
  }
  sandbox.git(origin, ['config', 'uploadpack.allowFilter', 'true']);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

/** A blob:none clone whose fetches leave `fetched` behind (its upload-pack is a wrapper). */
function partialClone(name: string): { clone: string; fetched: string } {
  const clone = path.join(root, name);
  sandbox.git(root, ['clone', '-q', '--no-checkout', '--filter=blob:none', `file://${origin}`, clone]);
  const fetched = path.join(root, `${name}.fetched`);
  const wrapper = path.join(root, `${name}-upload-pack`);
  fs.writeFileSync(wrapper, `#!/bin/sh\necho "$@" >> '${fetched}'\nexec git-upload-pack "$@"\n`, { mode: 0o755 });
  sandbox.git(clone, ['config', 'remote.origin.uploadpack', wrapper]);
  return { clone, fetched };
}

/** `git config --unset`, where the clone has the key at all (which a clone sets depends on git's version). */
function unsetConfig(repo: string, key: string): void {
  const run = runGit(sandbox, repo, ['config', '--unset', key]);
  assert.ok(run.status === 0 || run.status === 5, `git config --unset ${key}: ${run.stderr}`);
}

function packFiles(repo: string): string[] {
  return fs.readdirSync(path.join(repo, '.git', 'objects', 'pack')).sort();
}

test('a promisor remote set through include.path: the preview excludes promisor objects and fetches nothing', () => {
  const { clone, fetched } = partialClone('included');
  sandbox.git(clone, ['config', '--unset', 'remote.origin.promisor']);
  fs.writeFileSync(path.join(clone, '.git', 'promisor.config'), '[remote "origin"]\n\tpromisor = true\n');
  sandbox.git(clone, ['config', 'include.path', 'promisor.config']);
  assert.equal(sandbox.gitText(clone, ['config', 'remote.origin.promisor']).trim(), 'true');
  // A local commit: objects outside the promisor pack, for the preview to pack.
  fs.writeFileSync(path.join(clone, 'local'), 'made here\n');
  sandbox.git(clone, ['add', 'local']);
  sandbox.git(clone, ['commit', '-q', '-m', 'local']);
  sandbox.git(clone, ['repack', '-q', '-d']);
  const before = packFiles(clone);

  const result = packscope(['repack-preview', '--json', '.'], clone, path.join(root, 'cache'));
  assert.equal(result.status, 0, result.stderr);
  const document = JSON.parse(result.stdout) as { git: string[] };
  assert.ok(document.git.includes('--exclude-promisor-objects'), document.git.join(' '));
  assert.match(
    result.stderr,
    /warning: .* is a partial clone \(promisor remote origin\): the preview covers only the objects outside its promisor packs/,
  );
  assert.equal(
    fs.existsSync(fetched),
    false,
    `the preview fetched: ${fs.existsSync(fetched) ? fs.readFileSync(fetched, 'utf8') : ''}`,
  );
  assert.deepEqual(packFiles(clone), before);

  // The wrapper does see a fetch that git makes on its own: the observation works.
  const blob = sandbox.gitText(clone, ['rev-parse', 'HEAD~1:f1']).trim();
  sandbox.git(clone, ['cat-file', '-p', blob]);
  assert.equal(fs.existsSync(fetched), true);
});

test('a plain blob:none clone: the preview says that every object is in a promisor pack, and fetches nothing', () => {
  const { clone, fetched } = partialClone('plain');
  const before = packFiles(clone);
  const result = packscope(['repack-preview', '.'], clone, path.join(root, 'cache'));
  assert.notEqual(result.status, 0);
  assert.match(result.stderr, /nothing to preview: every object is in a promisor pack/);
  assert.doesNotMatch(result.stderr, /wrote no pack/);
  assert.equal(fs.existsSync(fetched), false);
  assert.deepEqual(packFiles(clone), before);
});

test('a clone whose only promisor setting is remote.origin.partialCloneFilter: promisor objects are left out and nothing is fetched, by the preview or its estimate', () => {
  const { clone, fetched } = partialClone('filter-only');
  // git makes a promisor remote of a remote with a filter alone (promisor-remote.c).
  for (const key of ['remote.origin.promisor', 'extensions.partialClone']) unsetConfig(clone, key);
  assert.equal(sandbox.gitText(clone, ['config', 'remote.origin.partialclonefilter']).trim(), 'blob:none');
  fs.writeFileSync(path.join(clone, 'local'), 'made here\n');
  sandbox.git(clone, ['add', 'local']);
  sandbox.git(clone, ['commit', '-q', '-m', 'local']);
  sandbox.git(clone, ['repack', '-q', '-d']);
  const before = packFiles(clone);
  // The write-order estimate runs too (rev-list and cat-file of the repository itself).
  const result = packscope(['repack-preview', '--json', '.'], clone, path.join(root, 'cache'));
  assert.equal(result.status, 0, result.stderr);
  const document = JSON.parse(result.stdout) as { git: string[]; preview: { objects: number } };
  assert.ok(document.git.includes('--exclude-promisor-objects'), document.git.join(' '));
  // What git's own pack-objects --exclude-promisor-objects packs: the local commit, its tree and blob.
  const outside = sandbox
    .gitText(clone, ['rev-list', '--objects', '--all', '--exclude-promisor-objects'], {
      env: { GIT_NO_LAZY_FETCH: '1' },
    })
    .trim()
    .split('\n').length;
  assert.equal(document.preview.objects, outside);
  assert.equal(fs.existsSync(fetched), false, 'nothing fetched');
  assert.deepEqual(packFiles(clone), before, 'no pack written into the repository');
});

test('promisor packs with no promisor remote configured: the preview refuses at once and says why, as git repack would fail', () => {
  const { clone, fetched } = partialClone('no-remote');
  for (const key of ['remote.origin.promisor', 'extensions.partialClone', 'remote.origin.partialCloneFilter'])
    unsetConfig(clone, key);
  assert.equal(runGit(sandbox, clone, ['config', '--get-regexp', 'promisor|partialclone']).stdout, '');
  const before = packFiles(clone);
  const result = packscope(['repack-preview', '.'], clone, path.join(root, 'cache'));
  assert.equal(result.status, 1);
  assert.equal(
    result.stderr,
    `packscope: ${path.join(clone, '.git')}: no repack preview: 1 of its 1 packs is a promisor pack (a promisor pack holds objects fetched from a promisor remote of a partial clone; the objects they refer to may be missing here, and git fetches them when it needs them), but its configuration names no promisor remote, so git repack -a -d would read every object they refer to and stop at the first one missing; \`git config remote.origin.promisor true\` makes it a partial clone again, whose preview leaves promisor objects out as git repack does\n`,
  );
  // git itself: its repack stops at a missing object, as said.
  const copy = path.join(root, 'no-remote-copy');
  fs.cpSync(clone, copy, { recursive: true });
  const git = runGit(sandbox, copy, ['repack', '-a', '-d']);
  assert.match(git.stderr, /^fatal: unable to read [0-9a-f]{40}$/m);
  assert.equal(fs.existsSync(fetched), false);
  assert.deepEqual(packFiles(clone), before);
});

test('--geometric in a partial clone: git 2.39 refuses it, and the preview says why before git’s words', () => {
  const { clone, fetched } = partialClone('geometric');
  fs.writeFileSync(path.join(clone, 'local'), 'made here\n');
  sandbox.git(clone, ['add', 'local']);
  sandbox.git(clone, ['commit', '-q', '-m', 'local']);
  sandbox.git(clone, ['repack', '-q', '-d']);
  const version = sandbox
    .gitText(clone, ['version'])
    .trim()
    .replace(/^git version /, '');
  // git's own repack on a copy: what it prints is what the preview quotes.
  const copy = path.join(root, 'geometric-copy');
  fs.cpSync(clone, copy, { recursive: true });
  const git = runGit(sandbox, copy, ['-c', 'protocol.allow=never', 'repack', '--geometric=2', '-d']);
  if (git.status === 0) return; // a git that repacks a partial clone geometrically: nothing to explain
  const words = git.stderr.split('\n').filter((line) => line.startsWith('fatal: '));
  assert.deepEqual(words, ['fatal: cannot use internal rev list with --stdin-packs']);
  const promisorPacks = packFiles(clone).filter((name) => name.endsWith('.promisor')).length;
  assert.ok(promisorPacks > 0);
  const result = packscope(['repack-preview', '--geometric', '2', '.'], clone, path.join(root, 'cache'));
  assert.equal(result.status, 1);
  assert.equal(
    result.stderr,
    `packscope: no preview: git ${version}'s repack --geometric cannot run in a repository with promisor packs (${promisorPacks} here; a promisor pack holds objects fetched from a promisor remote of a partial clone; the objects they refer to may be missing here, and git fetches them when it needs them): it asks pack-objects for --stdin-packs and --exclude-promisor-objects together, which pack-objects refuses, so \`git repack --geometric=2 -d\` fails here the same way (git says: ${words[0]})\n`,
  );
  assert.equal(fs.existsSync(fetched), false);
});

test('stats in a blob:none clone: names from git, the blobs it lacks counted and listed as rev-list lists them, nothing fetched', () => {
  const { clone, fetched } = partialClone('stats');
  const result = packscope(['stats', '--top', '3', '.'], clone, path.join(root, 'stats-cache'));
  assert.equal(result.status, 0, result.stderr);
  const missing = runGit(sandbox, clone, ['rev-list', '--objects', '--all', '--missing=print'])
    .stdout.split('\n')
    .filter((line) => line.startsWith('?'))
    .map((line) => line.slice(1))
    .sort();
  assert.equal(missing.length, 3, 'three blobs, one per commit');
  const lines = result.stdout.split('\n');
  const header = lines.findIndex((line) => line.startsWith('  not every object is named'));
  assert.equal(
    lines[header],
    "  not every object is named (3 objects the history reaches are in no pack and not loose: a partial clone's, or a broken repository):",
  );
  assert.deepEqual(
    lines
      .slice(header + 1, header + 4)
      .map(
        (line) => /^ {4}([0-9a-f]{40}) is in no pack and not loose: git rev-list lists it as missing$/.exec(line)?.[1],
      )
      .sort(),
    missing,
  );
  assert.equal(fs.existsSync(fetched), false);
});
