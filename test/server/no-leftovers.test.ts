/**
 * No leftovers in the temporary directory: a few of the suite's parts (repack previews in partial
 * clones, recordings and maps through alternates, a server's warm-up and its cancel, servers with
 * persisting off) run with a TMPDIR of their own, which holds nothing of PackScope's afterwards;
 * and a server with persisting off that is killed (SIGKILL: no shutdown, no exit handler) leaves its private model cache, which
 * the next server removes. Before, such directories piled up in /tmp (one held 3,003 models).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { GitSandbox, gitEnv, projectRoot, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { LspServer } from '../support/lsp-server.ts';

let root: string;
/** The TMPDIR of everything this test runs. */
let tmp: string;

before(() => {
  root = tempDir(undefined, 'packscope-no-leftovers-');
  tmp = path.join(root, 'tmp');
  fs.mkdirSync(tmp);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

/** What of PackScope's is in `dir` (tsx keeps its own cache there too, which is not ours). */
const ours = (dir: string): string[] =>
  fs
    .readdirSync(dir)
    .filter((name) => name.startsWith('packscope'))
    .sort();

test('parts of the suite leave nothing of PackScope’s in their TMPDIR', () => {
  const parts = [
    'test/cli/partial-clone.test.ts',
    'test/cli/map-alternates.test.ts',
    'test/server/cancel-warm-up.test.ts',
  ];
  // Not as a child of this test run (NODE_TEST_CONTEXT): a nested runner would run nothing here.
  const { NODE_TEST_CONTEXT: _child, ...environment } = process.env;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...parts], {
    cwd: projectRoot,
    env: { ...environment, TMPDIR: tmp },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    timeout: 600_000,
  });
  assert.equal(run.status, 0, `${parts.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  // They ran: each file's tests passed, none failed.
  assert.match(run.stdout, /^# fail 0$/m);
  assert.ok(Number(/^# pass (\d+)$/m.exec(run.stdout)?.[1]) >= parts.length, run.stdout);
  assert.deepEqual(ours(tmp), []);
});

test('a killed server’s private model cache is removed by the next server', async () => {
  const sandbox = new GitSandbox(path.join(root, 'git'));
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const repo = path.join(workspace, 'repo');
  sandbox.git(root, ['init', '-q', '-b', 'main', repo]);
  sandbox.fastImport(repo, historyStream({ commits: 30, files: 3 }));
  sandbox.git(repo, ['repack', '-adq']);
  const env = { ...gitEnv(sandbox.home), TMPDIR: tmp };
  const start = (): Promise<LspServer> =>
    LspServer.start({ workspaceFolders: [workspace], settings: { persistModels: false }, env });

  const killed = await start();
  const left = await waitFor(() => ours(tmp).filter((name) => name.startsWith('packscope-server-models-')));
  assert.equal(left.length, 1, ours(tmp).join(', '));
  killed.child.kill('SIGKILL');
  await new Promise((resolve) => killed.child.once('exit', resolve));
  killed.connection.dispose();
  assert.deepEqual(ours(tmp), left, 'SIGKILL leaves the directory behind');

  const next = await start();
  const removed = await waitFor(() =>
    next.log.filter((line) => line.startsWith('removed the stale private model cache')),
  );
  assert.deepEqual(removed, [`removed the stale private model cache ${path.join(tmp, left[0]!)}`]);
  const own = ours(tmp);
  assert.equal(own.length, 1, 'the new server has its own');
  assert.notEqual(own[0], left[0]);
  assert.equal(await next.stop(), 0);
  assert.deepEqual(ours(tmp), [], 'shutdown removed the new one');
});

async function waitFor<T extends unknown[]>(probe: () => T, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value.length > 0 || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
