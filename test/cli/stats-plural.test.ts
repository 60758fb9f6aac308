/**
 * `packscope stats` counts in words that agree with the number:
 * a repository of one commit with one file and an annotated tag says "1 commit, 1 tree, 1 blob,
 * 1 tag" and, its pack having no deltas, "4 families"; git's counts are the oracle.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { GitSandbox, runCli, tempDir } from '../support/git.ts';

test('stats says 1 commit, 1 tree, 1 blob, 1 tag (not "1 commits")', (t) => {
  const root = tempDir(t, 'packscope-stats-plural-');
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('one');
  fs.writeFileSync(path.join(repo, 'only.txt'), 'one file\n');
  sandbox.git(repo, ['add', 'only.txt']);
  sandbox.git(repo, ['commit', '-q', '-m', 'the only commit']);
  sandbox.git(repo, ['tag', '-a', 'v1', '-m', 'the only tag']);
  sandbox.git(repo, ['repack', '-adq']);
  const types = sandbox
    .gitText(repo, ['cat-file', '--batch-all-objects', '--batch-check=%(objecttype)'])
    .trim()
    .split('\n')
    .sort();
  assert.deepEqual(types, ['blob', 'commit', 'tag', 'tree']);
  const result = runCli(['stats', '--no-paths', '--no-cache', repo]);
  assert.equal(result.status, 0, result.stderr);
  const text = result.stdout.toString('utf8');
  assert.ok(text.includes('  objects: 4 (1 commit, 1 tree, 1 blob, 1 tag)'), text);
  assert.match(text, /^ {2}deltas: 0 \(0 OFS, 0 REF\), 4 families$/m);
});
