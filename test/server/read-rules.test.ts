/**
 * What the server reads: it reads a file its client names only below its recording
 * directory, its workspace folders and repositories, a repository an allowed recording was made in,
 * or a file the client said the user picked (packscope/allowRead; src/server/read-rules.ts). Built
 * with real git: a trace of `git log --raw` made by git itself, a "secret" file, a symbolic link out of
 * the workspace and a repository outside it. Every request that takes a path is tried with a path
 * outside (refused, naming it), and the same file once allowed (answered as from inside).
 * Before read-rules.ts each of these outside reads was answered.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { applyRecordingVariables, recordingVariables } from '../../src/common/recording-environment.ts';
import {
  AllowReadRequest,
  IndexPackSimRequest,
  LocalityRequest,
  MeasureRequest,
  PackMapSeeksRequest,
  PackMapTileRequest,
  RecordingInfoRequest,
  RepackPreviewRequest,
  SweepRequest,
} from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, packStems, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let ours: string;
let outsideRepo: string;
let storage: string;
let outsideDir: string;
let server: LspServer;
let ourPack: string;

/** A terminal recording of `git log --raw` in `cwd` (GIT_TRACE_PACK_ACCESS and GIT_TRACE_SETUP), written by git into `file`. */
function trace(cwd: string, file: string): string {
  const base = gitEnv(sandbox.home);
  execFileSync('git', ['log', '--raw'], {
    cwd,
    env: applyRecordingVariables(base, recordingVariables(base, file, 'exact')),
    stdio: 'ignore',
    maxBuffer: 64 << 20,
  });
  assert.ok(fs.readFileSync(file, 'utf8').includes('.pack '), `${file} has pack reads`);
  return file;
}

const OUTSIDE =
  /the server reads a .* only below its recording directory, its workspace folders and repositories, or a file the user picked \(packscope\/allowRead\); this one is outside them/;

function refusedNaming(file: string): (error: { message: string }) => void {
  return (error) => {
    assert.match(error.message, OUTSIDE);
    assert.ok(error.message.startsWith(`${file}:`), `names ${file}: ${error.message}`);
  };
}

before(async () => {
  root = tempDir(undefined, 'packscope-read-rules-');
  sandbox = new GitSandbox(root);
  ours = sandbox.init('workspace');
  sandbox.fastImport(ours, historyStream({ commits: 12, seed: 3 }));
  sandbox.git(ours, ['repack', '-adq']);
  ourPack = `${packStems(path.join(ours, '.git', 'objects'))[0]!}.pack`;
  outsideRepo = sandbox.init('outside-repo');
  sandbox.fastImport(outsideRepo, historyStream({ commits: 8, seed: 4 }));
  sandbox.git(outsideRepo, ['repack', '-adq']);
  storage = path.join(root, 'storage');
  outsideDir = path.join(root, 'elsewhere');
  fs.mkdirSync(storage);
  fs.mkdirSync(outsideDir);
  server = await LspServer.start({
    workspaceFolders: [ours],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: gitEnv(sandbox.home),
    recordingDirectory: storage,
  });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the server reads only where its rules say', () => {
  test('a trace in the recording directory is read; the same trace outside is refused by every recording request, naming it', async () => {
    const inside = trace(ours, path.join(storage, 'log.trace'));
    const outside = path.join(outsideDir, 'log.trace');
    fs.copyFileSync(inside, outside);
    const info = await server.connection.sendRequest(RecordingInfoRequest, { file: inside });
    assert.ok(info.reads > 0);
    await expectError(server.connection.sendRequest(RecordingInfoRequest, { file: outside }), refusedNaming(outside));
    await expectError(
      server.connection.sendRequest(SweepRequest, { file: outside, policies: ['git'], limits: [0] }),
      refusedNaming(outside),
    );
    await expectError(server.connection.sendRequest(LocalityRequest, { file: outside }), refusedNaming(outside));
    await expectError(
      server.connection.sendRequest(PackMapSeeksRequest, { pack: ourPack, recording: outside }),
      refusedNaming(outside),
    );
    await expectError(
      server.connection.sendRequest(PackMapTileRequest, {
        pack: ourPack,
        attribute: 'type',
        order: 2,
        tileX: 0,
        tileY: 0,
        recording: outside,
      }),
      refusedNaming(outside),
    );
    await expectError(
      server.connection.sendRequest(RepackPreviewRequest, {
        repository: ours,
        extraOptions: [],
        git: 'git',
        recordings: [outside],
        estimate: true,
        estimateOnly: true,
      }),
      refusedNaming(outside),
    );
    // Once the user picked it, it is read, with the same answer as the copy inside.
    assert.deepEqual(await server.connection.sendRequest(AllowReadRequest, { file: outside }), { file: outside });
    const allowed = await server.connection.sendRequest(RecordingInfoRequest, { file: outside });
    assert.deepEqual({ ...allowed, file: inside }, { ...info, file: inside });
  });

  test('a file that is no recording (a key, a config) is refused before it is opened, and nothing of it is in the error', async () => {
    const secret = path.join(outsideDir, 'id_ed25519');
    fs.writeFileSync(secret, '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-line\n');
    await expectError(server.connection.sendRequest(RecordingInfoRequest, { file: secret }), (error) => {
      refusedNaming(secret)(error);
      assert.ok(!error.message.includes('secret-line') && !error.message.includes('BEGIN'), error.message);
    });
  });

  test('a symbolic link inside the workspace that leads out of it is refused, naming both', async () => {
    const target = trace(ours, path.join(outsideDir, 'linked.trace'));
    const link = path.join(ours, 'linked.trace');
    fs.symlinkSync(target, link);
    await expectError(server.connection.sendRequest(RecordingInfoRequest, { file: link }), (error) => {
      refusedNaming(link)(error);
      assert.ok(error.message.includes(`(it leads to ${fs.realpathSync(target)})`), error.message);
    });
  });

  test("a pack outside the workspace: refused, until a recording made in its repository is read; measure's working directory likewise", async () => {
    const theirPack = `${packStems(path.join(outsideRepo, '.git', 'objects'))[0]!}.pack`;
    await expectError(
      server.connection.sendRequest(IndexPackSimRequest, { pack: theirPack }),
      refusedNaming(theirPack),
    );
    await expectError(
      server.connection.sendRequest(MeasureRequest, {
        cwd: outsideRepo,
        args: ['log', '-1'],
        git: 'git',
        limits: [0],
        runs: 1,
      }),
      refusedNaming(outsideRepo),
    );
    await expectError(
      server.connection.sendRequest(RepackPreviewRequest, {
        repository: outsideRepo,
        extraOptions: [],
        git: 'git',
        recordings: [],
        estimate: true,
        estimateOnly: true,
      }),
      refusedNaming(outsideRepo),
    );
    // Naming it as a recording's repository does not open it either.
    const ourTrace = trace(ours, path.join(storage, 'ours.trace'));
    await expectError(
      server.connection.sendRequest(RecordingInfoRequest, { file: ourTrace, repository: outsideRepo }),
      refusedNaming(outsideRepo),
    );
    // A terminal recording of that repository, in the recording directory: its repository may now be read.
    const theirs = trace(outsideRepo, path.join(storage, 'theirs.trace'));
    const info = await server.connection.sendRequest(RecordingInfoRequest, { file: theirs });
    assert.equal(info.repository, path.join(outsideRepo, '.git'));
    const simulated = await server.connection.sendRequest(IndexPackSimRequest, { pack: theirPack });
    assert.equal(simulated.pack, theirPack);
    const measured = await server.connection.sendRequest(MeasureRequest, {
      cwd: outsideRepo,
      args: ['log', '-1'],
      git: 'git',
      limits: [0],
      runs: 1,
    });
    assert.equal(measured.results.length, 1);
  });

  test('allowRead of a missing file is refused, naming it', async () => {
    const missing = path.join(outsideDir, 'missing.psrec');
    await expectError(server.connection.sendRequest(AllowReadRequest, { file: missing }), (error) =>
      assert.equal(error.message, `${missing}: no such file`),
    );
  });
});
