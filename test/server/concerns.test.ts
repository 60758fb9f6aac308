/**
 * packscope/concerns over LSP: git-sizer's figures for a workspace repository, computed in a task
 * worker from the packs and loose files, with no git run, so that an untrusted workspace (Restricted
 * Mode) gets them too. Its figures are checked against git's own commands (rev-list --objects of
 * the refs, cat-file --batch-check, rev-list --parents) and equal the CLI's `stats --concerns`; a
 * repository outside the workspace is refused.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ErrorCodes } from 'vscode-languageserver/node';
import { ConcernsRequest, ListRepositoriesRequest } from '../../src/protocol/server-protocol.ts';
import type { StatsDocument } from '../../src/core/documents/stats-document.ts';
import { gitEnv, GitSandbox, runCli, tempDir } from '../support/git.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let server: LspServer;

before(async () => {
  root = tempDir(undefined, 'packscope-concerns-server-');
  sandbox = new GitSandbox(root);
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  repo = path.join(workspace, 'repo');
  sandbox.git(root, ['init', '-q', '-b', 'main', repo]);
  const git = (args: string[]): string => sandbox.gitText(repo, args).trim();
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n'.repeat(500));
  fs.symlinkSync('a.txt', path.join(repo, 'link'));
  git(['add', '-A']);
  git(['commit', '-qm', 'first']);
  git(['checkout', '-qb', 'side']);
  fs.mkdirSync(path.join(repo, 'dir/deeper'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'dir/deeper/b.txt'), 'b\n');
  git(['add', '-A']);
  git(['commit', '-qm', 'side']);
  git(['checkout', '-q', 'main']);
  fs.writeFileSync(path.join(repo, 'c.txt'), 'c\n');
  git(['add', '-A']);
  git(['commit', '-qm', 'main']);
  git(['merge', '-q', '--no-edit', 'side']);
  git(['tag', '-a', '-m', 'one', 'v1']);
  git(['tag', '-a', '-m', 'two', 'v2', 'v1']);
  git(['repack', '-adq']);
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models'), workspaceTrusted: false },
    env: gitEnv(sandbox.home),
  });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

test("an untrusted workspace's figures: git's counts, the CLI's document", async () => {
  const listing = await server.connection.sendRequest(ListRepositoriesRequest, {});
  const id = listing.repositories.find((r) => 'id' in r)!.id as string;
  const document = await server.connection.sendRequest(ConcernsRequest, { repository: id });
  assert.equal(document.complete, true);
  const value = (key: string): number => document.metrics.find((m) => m.key === key)!.value;
  const roots = sandbox.gitText(repo, ['for-each-ref', '--format=%(objectname)']);
  const listed = sandbox
    .gitText(repo, ['rev-list', '--objects', '--stdin'], { input: roots })
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.slice(0, 40))
    .join('\n');
  const types = sandbox
    .gitText(repo, ['cat-file', '--batch-check=%(objecttype) %(objectsize)'], { input: listed + '\n' })
    .trim()
    .split('\n')
    .map((l) => l.split(' '));
  for (const [type, key] of [
    ['commit', 'uniqueCommitCount'],
    ['tree', 'uniqueTreeCount'],
    ['blob', 'uniqueBlobCount'],
    ['tag', 'uniqueTagCount'],
  ] as const)
    assert.equal(value(key), types.filter(([t]) => t === type).length, key);
  const parents = sandbox
    .gitText(repo, ['rev-list', '--parents', '--branches'])
    .trim()
    .split('\n')
    .map((l) => l.split(' ').length - 1);
  assert.equal(value('maxCommitParentCount'), Math.max(...parents));
  assert.equal(value('maxTagDepth'), 2);
  const cli = runCli(['stats', '--concerns', '--json', '--no-paths', '--no-cache', repo]);
  assert.equal(cli.status, 0, cli.stderr);
  assert.deepEqual((JSON.parse(cli.stdout.toString()) as StatsDocument).concerns, document);
  // The text report: every row, and its stars when it reaches level 1 (git-sizer's table: a depth
  // of 2 is level 2 / 1.001, one star).
  const text = runCli(['stats', '--concerns', '--no-paths', '--no-cache', repo]);
  assert.equal(text.status, 0, text.stderr);
  const lines = text.stdout.toString().split('\n');
  for (const m of document.metrics)
    assert.ok(
      lines.some((l) => l.trim().startsWith(`${m.name} `)),
      m.name,
    );
  assert.ok(
    lines.some((l) => /^ +Maximum tag depth +2 +\* +[0-9a-f]{40}$/.test(l)),
    lines.join('\n'),
  );
  const pack = fs.readdirSync(path.join(repo, '.git', 'objects', 'pack')).find((f) => f.endsWith('.pack'))!;
  const single = runCli(['stats', '--concerns', path.join(repo, '.git', 'objects', 'pack', pack)]);
  assert.equal(single.status, 1);
  assert.match(single.stderr, /--concerns needs a repository/);
  await expectError(
    server.connection.sendRequest(ConcernsRequest, { repository: path.join(root, 'elsewhere') }),
    (error) => assert.equal(error.code, ErrorCodes.InvalidParams),
  );
});
