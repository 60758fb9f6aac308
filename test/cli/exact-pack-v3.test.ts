import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BATCH_CHECK_FORMAT, GitSandbox, packStems, runCli, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

/** git-internals §6.1: version 3 packs are read like version 2; git accepts both. */
test('a version 3 pack: verify-pack -v and objects match git byte for byte', (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const source = sandbox.init('source');
  sandbox.fastImport(source, historyStream({ commits: 60, seed: 8 }));
  sandbox.git(source, ['repack', '-adf', '--depth=20']);
  const v2 = fs.readFileSync(`${packStems(path.join(source, '.git', 'objects'))[0]}.pack`);

  const v3 = Buffer.from(v2);
  v3.writeUInt32BE(3, 4);
  const body = v3.subarray(0, v3.length - 20);
  createHash('sha1')
    .update(body)
    .digest()
    .copy(v3, v3.length - 20);

  const repo = sandbox.init('repo');
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  fs.writeFileSync(path.join(packDir, 'pack-v3.pack'), v3);
  sandbox.git(packDir, ['index-pack', 'pack-v3.pack']); // git itself accepts and indexes it
  const stem = path.join(packDir, 'pack-v3');

  const expected = sandbox.gitText(repo, ['verify-pack', '-v', `${stem}.idx`]);
  const ours = runCli(['verify-pack', '-v', `${stem}.idx`], { cwd: repo });
  assert.equal(ours.stderr, '');
  assert.equal(ours.status, 0);
  assert.equal(ours.stdout.toString(), expected);

  const listing = sandbox.gitText(repo, ['cat-file', '--batch-all-objects', `--batch-check=${BATCH_CHECK_FORMAT}`]);
  const objects = runCli(['objects', '--no-cache', repo]);
  assert.equal(objects.stdout.toString(), listing);
  const stats = JSON.parse(runCli(['stats', '--json', '--no-cache', repo]).stdout.toString());
  assert.equal(stats.packs[0].packVersion, 3);
});
