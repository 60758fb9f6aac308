/**
 * packscope/repackModes and packscope/repackModePreview: which `git repack` modes the installed git
 * takes, and a `--cruft -d` / `--geometric=2 -d` preview over LSP (the same document as
 * `packscope repack-preview --cruft --json`), the repository left as it was, a bad mode refused.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { RepackModePreviewRequest, RepackModesRequest } from '../../src/protocol/server-protocol.ts';
import { directorySnapshot, gitEnv, GitSandbox, tempDir } from '../support/git.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let server: LspServer;

function commit(dir: string, file: string, text: string, message: string): void {
  fs.writeFileSync(path.join(dir, file), text);
  sandbox.git(dir, ['add', file]);
  sandbox.git(dir, ['commit', '-q', '-m', message]);
}

before(async () => {
  root = tempDir(undefined, 'packscope-repack-modes-server-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = sandbox.init('modes');
  for (let i = 0; i < 4; i++) {
    commit(repo, `f${i}.txt`, `file ${i}\n`.repeat(10 + i), `c${i}`);
    sandbox.git(repo, ['repack', '-q', '-d']);
  }
  commit(repo, 'gone.txt', 'gone\n', 'gone');
  sandbox.git(repo, ['reset', '-q', '--hard', 'HEAD~1']);
  sandbox.git(repo, ['reflog', 'expire', '--expire=now', '--all']);
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: gitEnv(sandbox.home),
  });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

test('the modes git 2.39 takes, and a --cruft preview: packs before and after, the repository untouched', async () => {
  const version = sandbox
    .gitText(root, ['--version'])
    .trim()
    .replace(/^git version /, '');
  const modes = await server.connection.sendRequest(RepackModesRequest, { git: 'git' });
  if (version === '2.39.5') assert.deepEqual({ ...modes }, { geometric: true, cruft: true });
  const objects = path.join(repo, '.git', 'objects');
  const snapshot = directorySnapshot(objects);
  const doc = await server.connection.sendRequest(RepackModePreviewRequest, {
    repository: repo,
    mode: { kind: 'cruft' },
    git: 'git',
  });
  assert.deepEqual(directorySnapshot(objects), snapshot);
  assert.equal(doc.schema, 'packscope.repack-mode-preview/1');
  assert.equal(doc.before.packs.length, 4);
  assert.deepEqual(doc.after.packs.map((p) => p.kind).sort(), ['cruft', 'normal']);
  assert.equal(doc.removed.length, 4);
  const geometric = await server.connection.sendRequest(RepackModePreviewRequest, {
    repository: repo,
    mode: { kind: 'geometric', factor: 2 },
    git: 'git',
  });
  assert.ok(geometric.after.packs.length < geometric.before.packs.length);
});

test('a mode the server does not know, or a factor below 2, is refused', async () => {
  await expectError(
    server.connection.sendRequest(RepackModePreviewRequest, {
      repository: repo,
      mode: { kind: 'aggressive' } as never,
      git: 'git',
    }),
    (error) => assert.match(error.message, /mode.kind must be/),
  );
  await expectError(
    server.connection.sendRequest(RepackModePreviewRequest, {
      repository: repo,
      mode: { kind: 'geometric', factor: 1 },
      git: 'git',
    }),
    (error) => assert.match(error.message, /mode.factor/),
  );
});
