/**
 * Hostile files, server side: a workspace repository whose objects/info/alternates is
 * a FIFO or a link to /dev/zero must not hold up `initialize` (the repository is listed with the
 * error instead), and a recording that is a FIFO, a device or a directory is refused by
 * recordingInfo, sweep and locality at once, naming the file. Every request runs under a time
 * bound so that a regression fails the test instead of hanging it.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ResponseError } from 'vscode-languageserver-protocol/node';
import {
  AllowReadRequest,
  ListRepositoriesRequest,
  LocalityRequest,
  RecordingInfoRequest,
  SweepRequest,
} from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { LspServer, serverPath } from '../support/lsp-server.ts';

/** Long enough for a loaded machine; a FIFO waited on never answers. */
const REQUEST_TIME_LIMIT_MS = 20_000;

let root: string;
let sandbox: GitSandbox;
let repo: string;

/** `promise`, or a failure naming `what` once REQUEST_TIME_LIMIT_MS have passed. */
async function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${REQUEST_TIME_LIMIT_MS} ms`)),
      REQUEST_TIME_LIMIT_MS,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function startServer(workspace: string): Promise<LspServer> {
  // A server stuck in initialize is killed by the after hook.
  return within(
    'initialize',
    LspServer.start({
      workspaceFolders: [workspace],
      settings: { modelCacheDirectory: path.join(root, 'models') },
      env: gitEnv(sandbox.home),
    }),
  );
}

async function expectRefused(what: string, request: Promise<unknown>, file: string): Promise<void> {
  try {
    await within(what, request);
  } catch (error) {
    assert.ok(error instanceof ResponseError, `${what}: a ResponseError, got ${String(error)}`);
    assert.equal(error.message, `${file}: not a regular file`, what);
    return;
  }
  assert.fail(`${what} should have been refused`);
}

before(() => {
  root = tempDir(undefined, 'packscope-server-hostile-');
  sandbox = new GitSandbox(root);
  repo = sandbox.init('workspace');
  sandbox.fastImport(repo, historyStream({ commits: 10, seed: 7 }));
  sandbox.git(repo, ['repack', '-adq']);
});

/**
 * This process's own server children that are still running, including one whose initialize never
 * answered (LspServer.start has not handed it over then): found by parent pid in /proc.
 */
function ownServerChildren(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(serverPath))
        pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

after(async () => {
  // Those still running are stuck (a regression): stopping them politely could wait for ever.
  for (const pid of ownServerChildren()) process.kill(pid, 'SIGKILL');
  fs.rmSync(root, { recursive: true, force: true });
});

describe('server: hostile objects/info/alternates', () => {
  for (const [what, make] of [
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file])],
    ['a link to /dev/zero', (file: string) => fs.symlinkSync('/dev/zero', file)],
  ] as const) {
    test(`alternates that is ${what}: initialize answers, the repository is listed with the error`, async () => {
      const alternates = path.join(repo, '.git', 'objects', 'info', 'alternates');
      make(alternates);
      try {
        const server = await startServer(repo);
        const { repositories } = await within(
          'listRepositories',
          server.connection.sendRequest(ListRepositoriesRequest, {}),
        );
        assert.equal(repositories.length, 1);
        assert.equal(repositories[0]!.error, `${alternates}: not a regular file`);
        await server.stop();
      } finally {
        fs.rmSync(alternates, { force: true });
      }
    });
  }
});

describe('server: hostile recordings', () => {
  let server: LspServer;
  before(async () => {
    server = await startServer(repo);
  });

  for (const [what, file] of [
    [
      'a directory',
      () => {
        const dir = path.join(root, 'recording-dir.psrec');
        fs.mkdirSync(dir, { recursive: true });
        return dir;
      },
    ],
    [
      'a FIFO',
      () => {
        const fifo = path.join(root, 'recording-fifo.psrec');
        if (!fs.existsSync(fifo)) execFileSync('mkfifo', [fifo]);
        return fifo;
      },
    ],
    ['/dev/zero', () => '/dev/zero'],
    ['/dev/urandom', () => '/dev/urandom'],
  ] as const) {
    test(`a recording that is ${what} is refused by recordingInfo, sweep and locality, naming it`, async () => {
      const recording = file();
      // The user picked it (an open dialog): past the read rules, the checked reader refuses it.
      await server.connection.sendRequest(AllowReadRequest, { file: recording });
      await expectRefused(
        'recordingInfo',
        server.connection.sendRequest(RecordingInfoRequest, { file: recording, repository: repo }),
        recording,
      );
      await expectRefused(
        'sweep',
        server.connection.sendRequest(SweepRequest, {
          file: recording,
          repository: repo,
          policies: ['git'],
          limits: [0],
        }),
        recording,
      );
      await expectRefused(
        'locality',
        server.connection.sendRequest(LocalityRequest, { file: recording, repository: repo }),
        recording,
      );
    });
  }

  test('the server still answers afterwards', async () => {
    const { repositories } = await within(
      'listRepositories',
      server.connection.sendRequest(ListRepositoriesRequest, {}),
    );
    assert.equal(repositories.length, 1);
    assert.equal(await server.stop(), 0);
  });
});
