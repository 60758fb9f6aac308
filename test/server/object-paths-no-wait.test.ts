/**
 * The server's object answers never wait for the path walk (on a large repository the walk
 * takes minutes: bench/README.md, "Figures the comments rely on"): the first packscope/object and
 * packscope/objectContent of a blob, asked before any walk has run, answer at once without a path (undefined: not known yet, not "none"); the walk they start
 * runs in a worker, and a later ask has the path `git rev-list --objects --all` prints.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ObjectContentRequest, ObjectRequest } from '../../src/protocol/server-protocol.ts';
import { gitEnv, GitSandbox, tempDir } from '../support/git.ts';
import { LspServer } from '../support/lsp-server.ts';
import { pathsRepository, revListNames } from '../support/paths-repository.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let server: LspServer;

before(async () => {
  root = tempDir(undefined, 'packscope-paths-no-wait-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = pathsRepository(sandbox, 'repo', 60);
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

test("the first object and object document answer without waiting for the walk; a later one has rev-list's path", async () => {
  const blob = sandbox.gitText(repo, ['rev-parse', 'main:renamed/same.txt']).trim();
  const expected = revListNames(sandbox, repo).get(blob);
  assert.ok(expected);
  // No walk has run yet: the answer is the object without a path, as soon as its model is there.
  const first = await server.connection.sendRequest(ObjectRequest, { oid: blob });
  assert.ok(first.found, JSON.stringify(first));
  assert.equal(first.object.oid, blob);
  assert.equal(first.object.path, undefined, 'no path before the walk has ended');
  // …and says so: the editor shows "resolving names…", not nothing.
  assert.equal(first.object.namesPending, true, 'a walk under way is said to be resolving');
  const document = await server.connection.sendRequest(ObjectContentRequest, {
    oid: blob,
    maxContentBytes: 1 << 16,
    maxInstructions: 100,
  });
  assert.ok(document.found);
  assert.equal(document.content.details.oid, blob);
  // The walk those asks started ends in the background; then the path is rev-list's.
  let named: string | undefined;
  for (let i = 0; i < 300 && named === undefined; i++) {
    const again = await server.connection.sendRequest(ObjectRequest, { oid: blob });
    if (again.found && typeof again.object.path === 'string') named = again.object.path;
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(named, expected, server.log.join('\n'));
});
