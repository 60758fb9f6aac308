import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { alternateObjectDirs } from '../../src/core/model/object-store.ts';
import { parseGitConfig } from '../../src/core/model/git-config.ts';
import { parseGitSize } from '../../src/common/git-size.ts';
import { UsageError } from '../../src/core/errors.ts';
import { GitSandbox, tempDir } from '../support/git.ts';

/** What git itself says about a directory: the reference for discovery. */
function gitSays(
  sandbox: GitSandbox,
  cwd: string,
): { gitDir: string; commonDir: string; bare: boolean; format: string } {
  const [gitDir, commonDir, bare, format] = sandbox
    .gitText(cwd, [
      'rev-parse',
      '--path-format=absolute',
      '--git-dir',
      '--git-common-dir',
      '--is-bare-repository',
      '--show-object-format',
    ])
    .trim()
    .split('\n');
  return { gitDir: gitDir!, commonDir: commonDir!, bare: bare === 'true', format: format! };
}

function assertSameAsGit(sandbox: GitSandbox, cwd: string): void {
  const expected = gitSays(sandbox, cwd);
  const found = discoverRepository(cwd);
  assert.equal(found.gitDir, expected.gitDir, `gitDir from ${cwd}`);
  assert.equal(found.commonDir, expected.commonDir, `commonDir from ${cwd}`);
  assert.equal(found.bare, expected.bare, `bare from ${cwd}`);
  assert.equal(found.hash.name, expected.format, `object format from ${cwd}`);
  assert.equal(found.objectsDir, path.join(expected.commonDir, 'objects'));
}

test('discovers repositories the way git rev-parse does', (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const repo = sandbox.init('work');
  fs.mkdirSync(path.join(repo, 'a', 'b'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'a', 'b', 'file.txt'), 'x\n');
  sandbox.git(repo, ['add', '.']);
  sandbox.git(repo, ['commit', '-qm', 'one']);
  assertSameAsGit(sandbox, repo);
  assertSameAsGit(sandbox, path.join(repo, 'a', 'b'));
  assertSameAsGit(sandbox, path.join(repo, '.git', 'objects'));

  const bare = sandbox.init('bare.git', { bare: true });
  assertSameAsGit(sandbox, bare);

  const sha256 = sandbox.init('sha256', { objectFormat: 'sha256' });
  assertSameAsGit(sandbox, sha256);

  // A `.git` file (gitdir:) pointing elsewhere.
  const separateWork = path.join(sandbox.root, 'separate');
  sandbox.git(sandbox.root, [
    'init',
    '-q',
    '--separate-git-dir',
    path.join(sandbox.root, 'separate.git'),
    separateWork,
  ]);
  assert.ok(fs.statSync(path.join(separateWork, '.git')).isFile());
  assertSameAsGit(sandbox, separateWork);

  // A linked worktree: its own git dir, objects in the common dir.
  const linked = path.join(sandbox.root, 'linked');
  sandbox.git(repo, ['worktree', 'add', '-q', linked]);
  assertSameAsGit(sandbox, path.join(linked, 'a', 'b'));
  assert.equal(discoverRepository(path.join(linked, 'a')).workTree, linked);
  assert.equal(discoverRepository(path.join(repo, 'a')).workTree, repo);
});

test('outside any repository is a clear error', (t) => {
  const dir = tempDir(t);
  assert.throws(
    () => discoverRepository(dir),
    (error: unknown) => error instanceof UsageError && error.code === 'not-a-repository',
  );
  assert.throws(() => discoverRepository(path.join(dir, 'missing')), /no such file or directory/);
});

test('alternates: relative, absolute, nested, commented and repeated entries', (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const a = sandbox.init('a');
  const b = sandbox.init('b');
  const c = sandbox.init('c');
  const objects = (repo: string): string => path.join(repo, '.git', 'objects');
  fs.writeFileSync(
    path.join(objects(c), 'info', 'alternates'),
    `# comment\n../../../b/.git/objects\n${objects(b)}\n\n`,
  );
  fs.writeFileSync(path.join(objects(b), 'info', 'alternates'), `"${objects(a)}"\n`);
  assert.deepEqual(alternateObjectDirs(objects(c)), [path.resolve(objects(c), '../../../b/.git/objects'), objects(a)]);
  // A loop back to c is ignored rather than followed forever.
  fs.writeFileSync(path.join(objects(a), 'info', 'alternates'), `${objects(c)}\n`);
  assert.equal(alternateObjectDirs(objects(c)).length, 2);
});

test('git config: sections, subsections, quoting, comments, sizes', () => {
  const config = parseGitConfig(
    [
      '[core]',
      '\tbare = false',
      '\tdeltaBaseCacheLimit = 96m # default',
      '[extensions]',
      '\tobjectFormat = "sha256"',
      '[remote "origin"]',
      '\turl = "a;b"',
      '[Core]',
      '  Flag',
    ].join('\n'),
  );
  assert.equal(config.get('core.bare'), 'false');
  assert.equal(config.get('core.deltabasecachelimit'), '96m');
  assert.equal(config.get('extensions.objectformat'), 'sha256');
  assert.equal(config.get('remote.origin.url'), 'a;b');
  assert.equal(config.get('core.flag'), 'true');
  assert.equal(parseGitSize('96m'), 96 * 1024 * 1024);
  assert.equal(parseGitSize('1g'), 1024 ** 3);
  assert.equal(parseGitSize('12345'), 12345);
  assert.equal(parseGitSize('lots'), undefined);
});
