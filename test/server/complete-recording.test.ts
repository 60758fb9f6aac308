/**
 * packscope/completeRecording: a real limit-0 recording of `blame` of a build file edited across
 * 360 commits is bounded wide at the small limits (eviction separates bases from children there);
 * the request runs the recording's own command again through `record`, writes the completed
 * recording beside the original in the recording directory, and the sweep of it is exact there and
 * equal to real git (trace lines and inflations). A terminal recording, a passive one and an
 * untrusted workspace are refused with the reason.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import {
  CompleteRecordingRequest,
  MeasureRequest,
  RecordRequest,
  SweepRequest,
  type SweepResult,
} from '../../src/protocol/server-protocol.ts';
import { limitsWiderThan, WIDE_BOUND_SHARE } from '../../src/common/bound-width.ts';
import { GitSandbox, gitEnv, runCli, tempDir } from '../support/git.ts';
import { blobId, writeChosenPack, type ChosenEntry } from '../support/chosen-delta-pack.ts';
import { longHistory } from '../support/long-history.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';

const ARGS = ['blame', 'Makefile'];
const LIMITS = [0, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20];

let root: string;
let sandbox: GitSandbox;
let server: LspServer;
let repo: string;
let recordings: string;
let shim: string;

before(async () => {
  root = tempDir(undefined, 'packscope-complete-request-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = sandbox.init('repo');
  sandbox.fastImport(repo, longHistory(360, 3));
  sandbox.git(repo, ['repack', '-adf', '--depth=50', '--window=50']);
  sandbox.git(repo, ['reset', '-q', '--hard', 'main']);
  shim = buildInflateCounter(root);
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

function realRun(limit: number): { lines: number; inflations: number } {
  const trace = path.join(root, `real-${process.hrtime.bigint()}.trace`);
  const counts = `${trace}.count`;
  sandbox.git(repo, ['-c', `core.deltaBaseCacheLimit=${limit}`, ...ARGS], {
    env: { GIT_TRACE_PACK_ACCESS: trace, ...countingEnv(shim, counts) },
  });
  const lines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length : 0;
  return { lines, inflations: readInflateCount(counts) };
}

async function sweep(file: string): Promise<SweepResult['results']> {
  return (await server.connection.sendRequest(SweepRequest, { file, policies: ['git'], limits: LIMITS })).results;
}

test('completes a wide limit-0 recording at its wide limits, beside it, with progress: exact there, as real git', async () => {
  const original = path.join(recordings, 'blame.psrec');
  await server.connection.sendRequest(RecordRequest, {
    cwd: repo,
    args: ARGS,
    output: original,
    mode: 'exact',
    git: 'git',
  });
  const before = await sweep(original);
  const wide = limitsWiderThan(before, WIDE_BOUND_SHARE);
  assert.ok(wide.length > 0, 'a genuinely wide recording');
  const originalBytes = fs.readFileSync(original);

  const token = 'complete-recording-1';
  const values = server.progressFor(token);
  const info = await server.connection.sendRequest(CompleteRecordingRequest, {
    file: original,
    limits: wide,
    git: 'git',
    workDoneToken: token,
  });
  assert.equal(path.dirname(info.file), recordings, 'beside the original, in the recording directory');
  assert.notEqual(info.file, original);
  assert.deepEqual(fs.readFileSync(original), originalBytes, 'the original is kept as it was');
  const messages = values.map((v) => v.message ?? '');
  assert.ok(
    messages.some((m) => m.startsWith(`run ${wide.length + 1} of ${wide.length + 1}: git ${ARGS.join(' ')} at`)),
    `progress for each run: ${messages.join(' | ')}`,
  );
  const header = JSON.parse(
    fs
      .readFileSync(info.file, 'utf8')
      .split('\n')[0]!
      .replace(/^#packscope-recording 1 /, ''),
  ) as { completeAt: number[]; command: string[]; cwd: string; mode: string };
  assert.deepEqual(header.completeAt, wide);
  assert.deepEqual(header.command, ARGS);
  assert.equal(header.mode, 'exact');

  const after = await sweep(info.file);
  assert.deepEqual(limitsWiderThan(after, WIDE_BOUND_SHARE), []);
  const zero = realRun(0);
  const atZero = after.find((cell) => cell.limit === 0)!;
  assert.equal(atZero.exact, true);
  // Inflations outside unpack_entry (§1.8) are the same at every limit: measured at limit 0.
  const outside = zero.inflations - atZero.inflations;
  for (const limit of wide) {
    const cell = after.find((c) => c.limit === limit)!;
    const real = realRun(limit);
    const line = `${limit}: lines ${cell.logged} real ${real.lines}, inflations ${cell.inflations} real ${real.inflations - outside} (was ${before.find((c) => c.limit === limit)!.bounds?.inflations.join('–')})`;
    assert.equal(cell.exact, true, line);
    assert.equal(cell.logged, real.lines, line);
    assert.equal(cell.inflations, real.inflations - outside, line);
  }
});

test('Measure for real keeps no split of the command’s time that rests on wide bounds, and says what it needs', async () => {
  const original = path.join(recordings, 'blame.psrec');
  const wide = limitsWiderThan(await sweep(original), WIDE_BOUND_SHARE);
  const result = await server.connection.sendRequest(MeasureRequest, {
    cwd: repo,
    args: ARGS,
    git: 'git',
    limits: [0, wide.at(-1)!],
    runs: 1,
    recording: { file: original },
  });
  assert.equal(result.kept?.file, null);
  assert.match(
    result.kept?.note ?? '',
    /^not kept: the split of this command's time needs the recording completed at \d+k: bounds [\d,]+–[\d,]+ inflations at \d+k are too wide/,
  );
});

test('a recording of cat-file --batch is completed on the input it kept: exact where it was bounded, as git', async () => {
  // git-internals §8.1's minimal case (Z→Y→X, G1→G; read Z G1 Y X): at 4,390 bytes the read of X
  // that limit 0 hides misses.
  const text = (seed: string): Buffer => Buffer.from(seed.repeat(100).slice(0, 2000));
  const X = text('the base of a chain ');
  const G = text('another family root ');
  const entries: ChosenEntry[] = [
    { content: X },
    { base: 0, content: Buffer.concat([X.subarray(0, 1990), Buffer.from('Y!Y!Y!Y!Y!')]) },
    { content: G },
  ];
  entries.push({ base: 1, content: Buffer.concat([entries[1]!.content.subarray(0, 1990), Buffer.from('Z:Z:Z:Z:Z:')]) });
  entries.push({ base: 2, content: Buffer.concat([G.subarray(0, 1990), Buffer.from('G1G1G1G1G1')]) });
  const batchRepo = sandbox.init('batch');
  const packDir = path.join(batchRepo, '.git', 'objects', 'pack');
  fs.writeFileSync(path.join(packDir, 'pack-test.pack'), writeChosenPack(entries));
  sandbox.git(packDir, ['index-pack', 'pack-test.pack']);
  const [x, y, , z, g1] = entries.map((entry) => blobId(entry.content).toString('hex'));
  const input = [z, g1, y, x].join('\n') + '\n';
  const args = ['cat-file', '--batch=%(objectname)'];
  const original = path.join(recordings, 'batch.psrec');
  const recorded = runCli(['record', '-o', original, '-C', batchRepo, '--', ...args], {
    env: gitEnv(sandbox.home) as Record<string, string>,
    input,
  });
  assert.equal(recorded.status, 0, recorded.stderr);

  const info = await server.connection.sendRequest(CompleteRecordingRequest, {
    file: original,
    limits: [4390],
    git: 'git',
  });
  assert.deepEqual(info.completeAt, [4390]);
  assert.equal(fs.readFileSync(`${info.file}.input`, 'utf8'), input, 'the completed recording keeps the input too');
  const [cell] = (
    await server.connection.sendRequest(SweepRequest, { file: info.file, policies: ['git'], limits: [4390] })
  ).results;
  const trace = path.join(root, `batch-${process.hrtime.bigint()}.trace`);
  sandbox.git(batchRepo, ['-c', 'core.deltaBaseCacheLimit=4390', ...args], {
    input,
    env: { GIT_TRACE_PACK_ACCESS: trace },
  });
  const real = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length;
  assert.equal(real, 3, 'git at 4390 logs Z G1 X');
  assert.deepEqual({ exact: cell!.exact, logged: cell!.logged }, { exact: true, logged: real });
});

test('a terminal recording and a passive one are refused with what completion needs', async () => {
  const trace = path.join(recordings, 'terminal.trace');
  sandbox.git(repo, ['-c', 'core.deltaBaseCacheLimit=0', 'log', '-p', '-n', '5'], {
    env: { GIT_TRACE_PACK_ACCESS: trace },
  });
  await expectError(
    server.connection.sendRequest(CompleteRecordingRequest, { file: trace, limits: [65536], git: 'git' }),
    (error) =>
      assert.match(
        error.message,
        /no single command to run again; completion needs a recording made by packscope record/,
      ),
  );
  const passive = path.join(recordings, 'passive.psrec');
  await server.connection.sendRequest(RecordRequest, {
    cwd: repo,
    args: ['log', '-n', '5'],
    output: passive,
    mode: 'passive',
    git: 'git',
  });
  await expectError(
    server.connection.sendRequest(CompleteRecordingRequest, { file: passive, limits: [65536], git: 'git' }),
    (error) => assert.match(error.message, /needs a recording made in exact mode/),
  );
  const completed = fs.readdirSync(recordings).filter((name) => name.includes('.complete-'));
  assert.ok(
    completed.every((name) => name.startsWith('blame.') || name.startsWith('batch.')),
    `nothing written for a refused one: ${completed.join(', ')}`,
  );
});

test('an untrusted workspace runs no git to complete a recording', async () => {
  const untrusted = await LspServer.start({
    workspaceFolders: [path.join(root, 'workspace')],
    settings: { modelCacheDirectory: path.join(root, 'untrusted-models'), workspaceTrusted: false },
    env: gitEnv(sandbox.home),
    recordingDirectory: recordings,
  });
  try {
    await expectError(
      untrusted.connection.sendRequest(CompleteRecordingRequest, {
        file: path.join(recordings, 'blame.psrec'),
        limits: [65536],
        git: 'git',
      }),
      (error) => assert.match(error.message, /not trusted: PackScope runs no git in it, so no completing a recording/),
    );
  } finally {
    assert.equal(await untrusted.stop(), 0);
  }
});
