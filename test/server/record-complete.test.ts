/**
 * packscope/record with `complete` (git-internals §8.1): the server runs the command 1 + N times,
 * reports each run, stores a header that says where the recording is complete, and its sweep cells
 * are exact there and equal the CLI's.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { RecordRequest, SweepRequest } from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, runCli, tempDir } from '../support/git.ts';
import { historyRepository } from '../support/git-oracle.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let server: LspServer;
let repo: string;
let recordings: string;

before(async () => {
  root = tempDir(undefined, 'packscope-record-complete-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = historyRepository(sandbox, 'history', {
    commits: 120,
    seed: 3,
    files: 8,
    linesPerFile: 60,
    repack: ['-adf', '--depth=40', '--window=50'],
  });
  recordings = path.join(root, 'recordings');
  fs.mkdirSync(recordings);
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: gitEnv(sandbox.home),
    recordingDirectory: recordings,
  });
});

after(async () => {
  const code = await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(code, 0);
});

test('complete: three runs with progress for each, a header with completeAt, exact cells there (as the CLI says)', async () => {
  const output = path.join(recordings, 'complete.psrec');
  const token = 'record-complete-1';
  const values = server.progressFor(token);
  const limits = [16 << 10, 64 << 10];
  const args = ['log', '-p', '-n', '60'];
  await server.connection.sendRequest(RecordRequest, {
    cwd: repo,
    args,
    output,
    mode: 'exact',
    git: 'git',
    workDoneToken: token,
    complete: limits,
  });
  const messages = values.map((v) => v.message ?? '');
  for (const [run, limit] of [
    [1, '0'],
    [2, '16k'],
    [3, '64k'],
  ] as const) {
    assert.ok(
      messages.some((m) => m.startsWith(`run ${run} of 3: git ${args.join(' ')} at core.deltaBaseCacheLimit=${limit}`)),
      `progress for run ${run}: ${messages.join(' | ')}`,
    );
  }
  const header = JSON.parse(
    fs
      .readFileSync(output, 'utf8')
      .split('\n')[0]!
      .replace(/^#packscope-recording 1 /, ''),
  ) as { completeAt: number[]; hiddenReads: unknown[] };
  assert.deepEqual(header.completeAt, limits);
  assert.ok(Array.isArray(header.hiddenReads));
  const sweep = await server.connection.sendRequest(SweepRequest, {
    file: output,
    policies: ['git'],
    limits: [0, ...limits, 96 << 20],
  });
  for (const cell of sweep.results)
    if (cell.limit !== 96 << 20) assert.equal(cell.exact, true, `exact at ${cell.limit}`);
  const cli = runCli(['sweep', '--json', '--policies', 'git', '--limits', [0, ...limits, 96 << 20].join(','), output], {
    env: { ...(gitEnv(sandbox.home) as Record<string, string>), PACKSCOPE_CACHE_DIR: path.join(root, 'cli-models') },
  });
  assert.equal(cli.status, 0, cli.stderr.toString());
  const cliCells = (JSON.parse(cli.stdout.toString()) as { results: typeof sweep.results }).results;
  assert.deepEqual(
    sweep.results.map(({ seconds: _s, ...rest }) => rest),
    cliCells.map(({ seconds: _s, ...rest }) => rest),
  );
});

test('complete is refused in passive mode and when not a list of positive sizes', async () => {
  const output = path.join(recordings, 'refused.psrec');
  await expectError(
    server.connection.sendRequest(RecordRequest, {
      cwd: repo,
      args: ['log', '-1'],
      output,
      mode: 'passive',
      git: 'git',
      complete: [65536],
    }),
    (error) => assert.match(error.message, /complete needs mode "exact"/),
  );
  await expectError(
    server.connection.sendRequest(RecordRequest, {
      cwd: repo,
      args: ['log', '-1'],
      output,
      mode: 'exact',
      git: 'git',
      complete: [-1],
    }),
    (error) => assert.match(error.message, /positive whole byte counts/),
  );
  assert.ok(!fs.existsSync(output));
});
