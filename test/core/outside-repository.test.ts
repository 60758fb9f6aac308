import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../../src/core/errors.ts';
import { refuseInsideRepository, repositoryRootHolding } from '../../src/core/model/outside-repository.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { GitSandbox, tempDir } from '../support/git.ts';

test('"never inside a repository": the work tree, the git directories, below them, through symbolic links, not yet created', (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const work = sandbox.init('work');
  const separateWork = path.join(sandbox.root, 'separate-work');
  sandbox.git(sandbox.root, [
    'init',
    '-q',
    '--separate-git-dir',
    path.join(sandbox.root, 'separate.git'),
    separateWork,
  ]);
  fs.symlinkSync(work, path.join(sandbox.root, 'link'));
  const repository = discoverRepository(work);
  const separate = discoverRepository(separateWork);

  assert.equal(repositoryRootHolding(work, repository), repository.workTree);
  assert.equal(repositoryRootHolding(path.join(work, 'new', 'dir', 'x.psrec'), repository), repository.workTree);
  assert.equal(repositoryRootHolding(path.join(sandbox.root, 'link', 'x.psrec'), repository), repository.workTree);
  assert.equal(repositoryRootHolding(path.join(sandbox.root, 'separate.git', 'objects'), separate), separate.gitDir);
  assert.equal(repositoryRootHolding(path.join(sandbox.root, 'work-sibling', 'x'), repository), undefined);
  assert.equal(repositoryRootHolding(sandbox.root, repository), undefined);

  assert.throws(
    () => refuseInsideRepository(path.join(work, 'x'), repository, (root) => `must be outside (${root})`),
    (error: unknown) =>
      error instanceof UsageError &&
      error.code === 'usage' &&
      error.message === `${path.join(work, 'x')}: must be outside (${repository.workTree})`,
  );
  assert.doesNotThrow(() => refuseInsideRepository(path.join(sandbox.root, 'x'), repository, () => 'inside'));
  assert.ok(!fs.existsSync(path.join(work, 'new')), 'the test itself wrote nothing inside');
});
