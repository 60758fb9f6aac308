/**
 * The strict rule on storage: no recording directory and no model cache inside any
 * git repository, also one outside the workspace that holds the storage itself (a home directory
 * kept in git). Built with real git: HOME is a repository, the model cache its default
 * (~/.cache/packscope/models) and the recording directory below it. The server answers from models
 * kept in a temporary directory, records nothing, and writes nothing at all into that home.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ObjectRequest, RecordRequest } from '../../src/protocol/server-protocol.ts';
import { directorySnapshot, GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let home: string;

before(() => {
  root = tempDir(undefined, 'packscope-storage-in-repo-');
  sandbox = new GitSandbox(root);
  repo = sandbox.init('workspace');
  sandbox.fastImport(repo, historyStream({ commits: 6, seed: 2 }));
  sandbox.git(repo, ['repack', '-adq']);
  home = sandbox.init('home');
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

test('a home kept in git: the default model cache and a recording directory inside it are never used', async () => {
  const homeBefore = directorySnapshot(home);
  const env = gitEnv(home);
  delete env.XDG_CACHE_HOME;
  delete env.PACKSCOPE_CACHE_DIR;
  const storage = path.join(home, '.config', 'Code', 'User', 'globalStorage', 'packscope', 'recordings');
  // modelCacheDirectory '' is the default: $HOME/.cache/packscope/models, inside the home repository.
  const server = await LspServer.start({
    workspaceFolders: [repo],
    settings: { modelCacheDirectory: '' },
    env,
    recordingDirectory: storage,
  });
  try {
    const head = sandbox.gitText(repo, ['rev-parse', 'HEAD']).trim();
    const found = await server.connection.sendRequest(ObjectRequest, { oid: head });
    assert.ok(found.found, found.found ? '' : found.reason);
    assert.equal(found.object.type, 'commit');
    const warning = server.log.find((line) => line.includes('is inside the repository'));
    assert.ok(
      warning?.includes(path.join(home, '.cache', 'packscope', 'models')) &&
        warning.includes(`inside the repository ${home}`),
      `the log says why: ${warning}`,
    );
    await expectError(
      server.connection.sendRequest(RecordRequest, {
        cwd: repo,
        args: ['log', '-1'],
        output: path.join(storage, 'log.recording'),
        mode: 'exact',
        git: 'git',
      }),
      (error) => assert.match(error.message, /PackScope never writes inside a repository/),
    );
  } finally {
    assert.equal(await server.stop(), 0);
  }
  assert.deepEqual(directorySnapshot(home), homeBefore, 'nothing written into the home repository');
});
