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
import { packscope } from '../support/git-oracle.ts';

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
