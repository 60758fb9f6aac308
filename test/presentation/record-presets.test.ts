// "Record a Git Command…"'s git log presets (src/presentation/record-presets.ts): the whole history
// on a small repository, -n chosen from the packs' size on a big one, and the picker says which.
// The commits git counts come from a real repository (git rev-list --count), the rest from sizes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { LOG_PRESET_COMMITS, logPreset } from '../../src/presentation/record-presets.ts';
import { GitSandbox, tempDir } from '../support/git.ts';

test('a small repository records its whole history, and the picker says how much that is', (t) => {
  const root = tempDir(t, 'packscope-presets-');
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('small');
  for (let i = 1; i <= 3; i++) {
    fs.writeFileSync(path.join(repo, 'file'), `version ${i}\n`);
    sandbox.git(repo, ['add', 'file']);
    sandbox.git(repo, ['commit', '-q', '-m', `c${i}`]);
  }
  sandbox.git(repo, ['repack', '-adq']);
  const commits = Number(sandbox.gitText(repo, ['rev-list', '--count', '--all']).trim());
  const objects = sandbox.gitText(repo, ['cat-file', '--batch-all-objects', '--batch-check']).trim().split('\n').length;
  assert.equal(commits, 3);
  const raw = logPreset('raw', { objects, commits });
  assert.deepEqual(raw.args, ['log', '--raw']);
  assert.equal(raw.label, 'git log --raw');
  assert.equal(raw.count, undefined);
  assert.equal(
    raw.detail,
    `Every commit (3 commits, ${objects} objects in packs), each with the trees it changes (commits and trees, no blobs)`,
  );
  // What the preset runs, git runs to the end: its every commit.
  assert.equal(
    sandbox
      .gitText(repo, [...raw.args, '--format=%H'])
      .split('\n')
      .filter((l) => /^[0-9a-f]{40}$/.test(l)).length,
    3,
  );
});

test('a big repository gets -n from its size, said in the label and the detail', () => {
  // git.git's pack as the README measures it: 849,014 objects; its commits not counted yet.
  const patch = logPreset('patch', { objects: 849_014 });
  assert.deepEqual(patch.args, ['log', '-p', '-n', String(LOG_PRESET_COMMITS.patch)]);
  assert.equal(patch.label, 'git log -p -n 2000');
  assert.equal(
    patch.detail,
    'The newest 2,000 of about 84,901 commits, 849,014 objects in packs, each with its patch (reads blobs, the workload of the delta-base-cache thread); -n because the whole history runs long with the cache off',
  );
  const raw = logPreset('raw', { objects: 849_014, commits: 75_000 });
  assert.deepEqual(raw.args, ['log', '--raw', '-n', '20000']);
  assert.match(raw.detail, /^The newest 20,000 of 75,000 commits, 849,014 objects in packs,/);
  // At the bound exactly: the whole history still.
  assert.equal(logPreset('patch', { objects: 1, commits: LOG_PRESET_COMMITS.patch }).count, undefined);
  assert.equal(
    logPreset('patch', { objects: 1, commits: LOG_PRESET_COMMITS.patch + 1 }).count,
    LOG_PRESET_COMMITS.patch,
  );
});
