/**
 * "Go to Object…"'s request, packscope/resolveName, on a real server and repository: in a trusted
 * workspace any name `git rev-parse --verify` takes resolves to git's own answer; an unknown name
 * keeps git's words; a prefix two objects share is ambiguous; in Restricted Mode only hex ids are
 * taken, and the refusal says why.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ResolveNameRequest } from '../../src/protocol/server-protocol.ts';
import { gitEnv, GitSandbox, tempDir } from '../support/git.ts';
import { LspServer } from '../support/lsp-server.ts';
import { pathsRepository } from '../support/paths-repository.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
const servers: LspServer[] = [];

before(() => {
  root = tempDir(undefined, 'packscope-resolve-name-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = pathsRepository(sandbox, 'repo', 120);
  sandbox.git(repo, ['tag', 'v1.0', 'main~2']);
});

after(async () => {
  for (const server of servers) await server.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

async function start(trusted: boolean): Promise<LspServer> {
  const server = await LspServer.start({
    workspaceFolders: [path.dirname(repo)],
    settings: { modelCacheDirectory: path.join(root, `models-${trusted}`), workspaceTrusted: trusted },
    env: gitEnv(sandbox.home),
  });
  servers.push(server);
  return server;
}

/** A prefix of 4 or more digits that two objects of the repository share (there are hundreds of objects). */
function sharedPrefix(): string | undefined {
  const ids = sandbox
    .gitText(repo, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)'])
    .split('\n')
    .filter(Boolean)
    .sort();
  for (let i = 1; i < ids.length; i++) if (ids[i]!.slice(0, 4) === ids[i - 1]!.slice(0, 4)) return ids[i]!.slice(0, 4);
  return undefined;
}

describe('packscope/resolveName', () => {
  test('trusted: rev-parse names resolve to git rev-parse --verify; unknown and ambiguous names say why', async () => {
    const server = await start(true);
    const repository = path.join(repo, '.git');
    for (const name of ['main~1:deep/a/b/c/same.txt', 'v1.0^{tree}', 'main~3', 'side']) {
      const expected = sandbox.gitText(repo, ['rev-parse', '--verify', name]).trim();
      const result = await server.connection.sendRequest(ResolveNameRequest, { name });
      assert.deepEqual(result, { found: true, oid: expected, repository }, name);
    }
    const full = sandbox.gitText(repo, ['rev-parse', 'main~1']).trim();
    assert.deepEqual(await server.connection.sendRequest(ResolveNameRequest, { name: full.slice(0, 10) }), {
      found: true,
      oid: full,
      repository,
    });
    const unknown = await server.connection.sendRequest(ResolveNameRequest, { name: 'main:no/such/file' });
    assert.equal(unknown.found, false);
    assert.ok(!unknown.found && unknown.reason.includes("path 'no/such/file' does not exist"), JSON.stringify(unknown));
    const prefix = sharedPrefix();
    assert.ok(prefix, 'the repository has two objects sharing 4 digits');
    const ambiguous = await server.connection.sendRequest(ResolveNameRequest, { name: prefix });
    assert.ok(!ambiguous.found && ambiguous.reason.includes('ambiguous'), JSON.stringify(ambiguous));
  });

  test('Restricted Mode: hex ids only, and the refusal says why', async () => {
    const server = await start(false);
    const refused = await server.connection.sendRequest(ResolveNameRequest, { name: 'HEAD:Makefile' });
    assert.ok(!refused.found && /not trusted.*runs no git/.test(refused.reason), JSON.stringify(refused));
    const full = sandbox.gitText(repo, ['rev-parse', 'main~1']).trim();
    const byId = await server.connection.sendRequest(ResolveNameRequest, { name: full.slice(0, 12) });
    assert.deepEqual(byId, { found: true, oid: full, repository: path.join(repo, '.git') });
  });
});
