/**
 * What a model load tells the user and the log: $/progress names each stage
 * with git's object count ("Reading index: N objects", "Reading objects: n of N", "Resolving delta
 * chains of N objects"; "Opening the stored model: N objects" on a reopen), the server log has the
 * breakdown of the load's time, and Record a Git Command's progress shows pack reads and seconds.
 * The warm-up is off (hoverIndexLimit 0), so each load is the request's own.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { PackSummaryRequest, RecordRequest } from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, packStems, tempDir } from '../support/git.ts';
import { historyRepository } from '../support/git-oracle.ts';
import { LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let workspace: string;
let repo: string;
let stem: string;
let objects: number;
const servers: LspServer[] = [];

async function startServer(): Promise<LspServer> {
  const server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models'), hoverIndexLimit: 0 },
    env: gitEnv(sandbox.home),
    recordingDirectory: path.join(root, 'recordings'),
  });
  servers.push(server);
  return server;
}

before(() => {
  root = tempDir(undefined, 'packscope-load-progress-');
  workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  fs.mkdirSync(path.join(root, 'recordings'));
  sandbox = new GitSandbox(workspace);
  repo = historyRepository(sandbox, 'history', { commits: 80, seed: 5, repack: ['-adf', '--depth=20', '--window=10'] });
  stem = packStems(path.join(repo, '.git', 'objects'))[0]!;
  // git's own count of the pack's objects: one show-index line each.
  objects = sandbox
    .gitText(repo, ['show-index'], { input: fs.readFileSync(`${stem}.idx`) })
    .trim()
    .split('\n').length;
});

after(async () => {
  for (const server of servers) assert.equal(await server.stop(), 0);
  fs.rmSync(root, { recursive: true, force: true });
});

const formatted = (n: number): string => n.toLocaleString('en-US');

test('a first build reports its stages with the object count, and the log has where its time went', async () => {
  const server = await startServer();
  const token = 'load-progress-build';
  const values = server.progressFor(token);
  const summary = await server.connection.sendRequest(PackSummaryRequest, {
    pack: `${stem}.pack`,
    workDoneToken: token,
  });
  assert.equal(summary.objects, objects);
  const messages = values.map((v) => v.message ?? '');
  const at = (text: string): number => messages.findIndex((m) => m.includes(text));
  const index = at(`Reading index: ${formatted(objects)} objects`);
  const reading = at(`Reading objects: `);
  const chains = at(`Resolving delta chains of ${formatted(objects)} objects`);
  assert.ok(index >= 0 && reading > index && chains > reading, `stages in order: ${messages.join(' | ')}`);
  assert.ok(!messages.some((m) => m.includes('Opening the stored model')), 'nothing was stored yet');
  const breakdown = server.log.find((line) => line.includes(`model of ${path.basename(stem)}.pack (built)`));
  assert.ok(breakdown, server.log.join('\n'));
  assert.match(
    breakdown,
    /worker start \d+ ms, idx read \d+ ms, scan and chains \d+ ms, derived columns computed \d+ ms, moved to the server thread \d+ ms/,
  );
});

test('a reopen of the persisted model says so, and its breakdown names the stored model read', async () => {
  const server = await startServer();
  const token = 'load-progress-reopen';
  const values = server.progressFor(token);
  await server.connection.sendRequest(PackSummaryRequest, { pack: `${stem}.pack`, workDoneToken: token });
  const messages = values.map((v) => v.message ?? '');
  assert.ok(
    messages.some((m) => m.includes(`Opening the stored model: ${formatted(objects)} objects`)),
    messages.join(' | '),
  );
  assert.ok(!messages.some((m) => m.includes('Reading objects: ')), 'no scan on a reopen');
  const breakdown = server.log.find((line) => line.includes(`model of ${path.basename(stem)}.pack (persisted)`));
  assert.ok(breakdown, server.log.join('\n'));
  assert.match(
    breakdown,
    /worker start \d+ ms, idx read \d+ ms, stored model read\+check \d+ ms, derived columns stored \d+ ms/,
  );
});

test('Record a Git Command reports pack reads so far and elapsed seconds while git runs', async () => {
  const server = servers[servers.length - 1]!;
  const token = 'load-progress-record';
  const values = server.progressFor(token);
  const output = path.join(root, 'recordings', 'slow.psrec');
  // An alias that waits first: the progress ticks (every 250 ms) while git is still running.
  const args = ['-c', 'alias.slow=!sleep 1; git log -p; sleep 1', 'slow'];
  await server.connection.sendRequest(RecordRequest, {
    cwd: repo,
    args,
    output,
    mode: 'exact',
    git: 'git',
    workDoneToken: token,
  });
  const ticks = values.map((v) => v.message ?? '').filter((m) => m.startsWith(`running git ${args.join(' ')}…`));
  assert.ok(ticks.length >= 2, values.map((v) => v.message).join(' | '));
  const last = /… ([\d,]+) pack reads?, (\d+\.\d) s/.exec(ticks[ticks.length - 1]!);
  assert.ok(last, ticks.join(' | '));
  assert.ok(Number(last[1]!.replace(/,/g, '')) > 0, 'reads counted from the growing trace');
  assert.ok(Number(last[2]) >= 1, "at least the alias's first second");
});
