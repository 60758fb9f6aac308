/**
 * A repository the server cannot open is listed, not dropped: a workspace whose repositories have
 * a `commondir` that is a FIFO or names a device, or a `.git` file whose gitdir is a FIFO, lists
 * each as a row whose error names the file and the reason in the words `packscope stats` prints
 * for it. Built for real (git init, mkfifo), with a time bound on every request: a FIFO read
 * would never answer.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ListRepositoriesRequest, type RepositoryListing } from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, runCli, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { LspServer } from '../support/lsp-server.ts';

/** Long enough for a loaded machine; a FIFO waited on never answers. */
const REQUEST_TIME_LIMIT_MS = 20_000;

let root: string;
let sandbox: GitSandbox;
let workspace: string;
/** The broken repositories, by directory. */
const broken: string[] = [];

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

async function listed(folder: string): Promise<RepositoryListing[]> {
  const server = await within(
    'initialize',
    LspServer.start({
      workspaceFolders: [folder],
      settings: { modelCacheDirectory: path.join(root, 'models') },
      env: gitEnv(sandbox.home),
    }),
  );
  try {
    const { repositories } = await within(
      'listRepositories',
      server.connection.sendRequest(ListRepositoriesRequest, {}),
    );
    return repositories;
  } finally {
    await server.stop();
  }
}

/** What `packscope stats` says of `dir`, without its "packscope: " and the newline. */
function cliError(dir: string): string {
  const result = runCli(['stats', '--no-cache', dir], { env: { HOME: sandbox.home } });
  assert.equal(result.status, 1, result.stderr);
  const match = /^packscope: (.*)\n$/.exec(result.stderr);
  assert.ok(match, result.stderr);
  return match[1]!;
}

before(() => {
  root = tempDir(undefined, 'packscope-unopened-');
  sandbox = new GitSandbox(root);
  workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const good = sandbox.init(path.join('workspace', 'good'));
  sandbox.fastImport(good, historyStream({ commits: 5, seed: 3 }));
  sandbox.git(good, ['repack', '-adq']);

  const fifoCommonDir = sandbox.init(path.join('workspace', 'fifo-commondir'));
  execFileSync('mkfifo', [path.join(fifoCommonDir, '.git', 'commondir')]);
  const deviceCommonDir = sandbox.init(path.join('workspace', 'device-commondir'));
  fs.writeFileSync(path.join(deviceCommonDir, '.git', 'commondir'), '/dev/null\n');
  const fifoGitFile = path.join(workspace, 'fifo-gitfile');
  fs.mkdirSync(fifoGitFile);
  execFileSync('mkfifo', [path.join(root, 'elsewhere-fifo')]);
  fs.writeFileSync(path.join(fifoGitFile, '.git'), `gitdir: ${path.join(root, 'elsewhere-fifo')}\n`);
  broken.push(fifoCommonDir, deviceCommonDir, fifoGitFile);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

test('each repository that cannot be opened is a row naming the file and the reason, as the CLI says it', async () => {
  const repositories = await listed(workspace);
  const good = repositories.find((r) => r.name === 'good');
  assert.ok(good, 'the good repository is listed');
  assert.equal(good.error, undefined);
  assert.ok(good.packs.length > 0);
  const expected = new Map(broken.map((dir) => [dir, cliError(dir)]));
  assert.deepEqual(
    new Map(
      repositories
        .filter((r) => r.name !== 'good')
        .map((r) => [r.id, { error: r.error, packs: r.packs.length, folder: r.workspaceFolder }]),
    ),
    new Map(broken.map((dir) => [dir, { error: expected.get(dir), packs: 0, folder: workspace }])),
  );
  // The words name the file at fault and why.
  assert.match(expected.get(broken[0]!)!, /fifo-commondir\/\.git\/commondir: not a regular file$/);
  assert.match(
    expected.get(broken[1]!)!,
    /device-commondir\/\.git\/commondir: names \/dev\/null: a device, not a git directory$/,
  );
  assert.match(expected.get(broken[2]!)!, /fifo-gitfile\/\.git: gitdir .*elsewhere-fifo: a FIFO, not a git directory$/);
});

test('a workspace folder that is itself such a repository is a row too', async () => {
  const [folder] = broken;
  const repositories = await listed(folder!);
  assert.deepEqual(
    repositories.map((r) => [r.id, r.error]),
    [[folder, cliError(folder!)]],
  );
});
