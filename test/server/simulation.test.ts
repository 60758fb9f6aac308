/**
 * Server side: the recording, sweep, locality, index-pack, record and measure requests of the
 * bundled server driven over LSP, checked against `packscope … --json` on the same recordings and
 * against git's own GIT_TRACE_PACK_ACCESS; progress, cancellation (workers really stop), a recording
 * whose repository is gone, a failing git command.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CancellationTokenSource, LSPErrorCodes, ResponseError } from 'vscode-languageserver-protocol/node';
import {
  AllowReadRequest,
  IndexPackSimRequest,
  ListRepositoriesRequest,
  LocalityRequest,
  MeasureRequest,
  RecordingInfoRequest,
  RecordRequest,
  SweepRequest,
  type RecordingInfo,
  type SimCell,
} from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, packStems, runCli, tempDir } from '../support/git.ts';
import { historyRepository } from '../support/git-oracle.ts';
import { expectError, LspServer, type ProgressValue } from '../support/lsp-server.ts';
import type { RecordingSummary } from '../../src/core/documents/recording-document.ts';
import { readSeconds } from '../../src/core/cost/cost-model.ts';
import {
  CALIBRATION_SCHEMA,
  type Calibration,
  type ReadReplay,
} from '../../src/core/documents/calibration-document.ts';
import { CALIBRATION_TUNABLES } from '../../src/core/cost/calibrate.ts';
import { fitMeasuredSplit } from '../../src/common/measured-split-fit.ts';

const LIMITS = [0, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 96 << 20];
const POLICIES = ['git', 'git-legacy', 'belady', 'keep-on-hit', 'admit-max:64k'];

let root: string;
let sandbox: GitSandbox;
let server: LspServer;
let repo: string;
let stem: string;
let cliCache: string;
let recordings: string;
let logRaw: string;
let logP: string;
let big: string;
let tokenCounter = 0;

function cliEnv(): Record<string, string> {
  return { ...(gitEnv(sandbox.home) as Record<string, string>), PACKSCOPE_CACHE_DIR: cliCache };
}

function cliJson<T>(args: string[]): T {
  const result = runCli(args, { env: cliEnv() });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout.toString('utf8')) as T;
}

function cliRecord(name: string, args: string[], cwd = repo): string {
  const output = path.join(recordings, `${name}.psrec`);
  const result = runCli(['record', '--exact', '-o', output, '-C', cwd, '--', ...args], { env: cliEnv() });
  assert.equal(result.status, 0, result.stderr);
  return output;
}

function withoutSeconds(cells: object[]): object[] {
  return cells.map((cell) => {
    const { seconds: _seconds, ...rest } = cell as { seconds?: number };
    return rest;
  });
}

function progressToken(): { token: string; values: ProgressValue[] } {
  const token = `simulation-test-${++tokenCounter}`;
  return { token, values: server.progressFor(token) };
}

/** Threads of the server process (Linux: /proc/<pid>/task). */
function serverThreads(): number {
  return fs.readdirSync(`/proc/${server.child.pid}/task`).length;
}

async function threadsSettleTo(limit: number): Promise<number> {
  let count = serverThreads();
  for (let i = 0; i < 50 && count > limit; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    count = serverThreads();
  }
  return count;
}

/** The server answers a cheap request quickly (it is not stuck behind a simulation). */
async function assertResponsive(): Promise<void> {
  const started = performance.now();
  await server.connection.sendRequest(ListRepositoriesRequest, {});
  assert.ok(performance.now() - started < 1000, 'listRepositories answered within a second');
}

before(async () => {
  root = tempDir(undefined, 'packscope-simulation-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = historyRepository(sandbox, 'history', {
    commits: 250,
    seed: 11,
    files: 8,
    linesPerFile: 60,
    repack: ['-adf', '--depth=40', '--window=50'],
  });
  stem = packStems(path.join(repo, '.git', 'objects'))[0]!;
  cliCache = path.join(root, 'cli-models');
  recordings = path.join(root, 'recordings');
  fs.mkdirSync(recordings);
  logRaw = cliRecord('log-raw', ['log', '--raw']);
  logP = cliRecord('log-p', ['log', '-p', '-n', '50']);
  big = cliRecord('log-p-all', ['log', '-p']);
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
  assert.equal(code, 0, 'the server exits cleanly after shutdown/exit');
});

function assertSameRecording(info: RecordingInfo, cli: RecordingSummary): void {
  const {
    segments,
    gitVersion: _v,
    startedAt: _s,
    exitStatus: _e,
    completeAt: _k,
    warnings: _w,
    args: _a,
    cwd: _c,
    elsewhere,
    ...rest
  } = info;
  assert.deepEqual({ ...rest, segments: segments.length }, cli);
  assert.deepEqual(elsewhere, [], "every git process ran in the recording's repository");
}

describe('packscope/recordingInfo', () => {
  test('the CLI recording summary, plus segments with their commands, git version, start and exit status', async () => {
    const { token, values } = progressToken();
    const info = await server.connection.sendRequest(RecordingInfoRequest, { file: logRaw, workDoneToken: token });
    const cli = cliJson<{ recording: RecordingSummary }>(['simulate', '--json', logRaw]);
    assertSameRecording(info, cli.recording);
    assert.equal(info.mode, 'exact');
    assert.equal(info.recordedLimit, 0);
    assert.equal(info.command, 'git log --raw');
    assert.deepEqual(info.args, ['log', '--raw']);
    assert.equal(info.cwd, repo);
    assert.equal(info.exitStatus, 0);
    assert.equal(info.completeAt, null, 'not a complete recording');
    assert.equal(
      info.gitVersion,
      sandbox
        .gitText(repo, ['--version'])
        .trim()
        .replace(/^git version /, ''),
    );
    assert.ok(info.startedAt && !Number.isNaN(Date.parse(info.startedAt)));
    assert.deepEqual(info.warnings, []);
    assert.ok(info.reads > 0 && info.reads === info.traceLines);
    assert.equal(
      info.segments.reduce((sum, s) => sum + s.reads, 0),
      info.reads,
    );
    assert.ok(
      info.segments.some((s) => s.command !== null && /^git log --raw/.test(s.command)),
      JSON.stringify(info.segments),
    );
    assert.deepEqual(
      info.packs.map((p) => p.path),
      [`${stem}.pack`],
    );
    assert.equal(values[0]?.kind, 'begin');
    assert.equal(values.at(-1)?.kind, 'end');
  });

  test("args keep git's arguments as recorded (spaces included), cwd where git ran; sweep and locality return them too", async () => {
    const recording = cliRecord('format', ['log', '--format=%H %s']);
    const expected = ['log', '--format=%H %s'];
    const info = await server.connection.sendRequest(RecordingInfoRequest, { file: recording });
    assert.deepEqual(info.args, expected);
    assert.equal(info.cwd, repo);
    assert.equal(info.command, 'git log --format=%H %s');
    const sweep = await server.connection.sendRequest(SweepRequest, {
      file: recording,
      policies: ['git'],
      limits: [0],
    });
    assert.deepEqual([sweep.recording.args, sweep.recording.cwd], [expected, repo]);
    const locality = await server.connection.sendRequest(LocalityRequest, { file: recording });
    assert.deepEqual([locality.recording.args, locality.recording.cwd], [expected, repo]);
    // A raw trace has no metadata: neither is known.
    const raw = path.join(recordings, 'format-raw.trace');
    fs.writeFileSync(raw, fs.readFileSync(recording, 'utf8').split('\n').slice(1).join('\n'));
    const rawInfo = await server.connection.sendRequest(RecordingInfoRequest, { file: raw });
    assert.equal(rawInfo.mode, 'raw');
    assert.deepEqual([rawInfo.args, rawInfo.cwd, rawInfo.command], [null, null, null]);
  });

  test('a recording whose repository was deleted gives one clear error', async () => {
    const copy = path.join(root, 'doomed');
    fs.cpSync(repo, copy, { recursive: true });
    const recording = cliRecord('doomed', ['log', '--raw', '-n', '20'], copy);
    fs.rmSync(copy, { recursive: true, force: true });
    await expectError(server.connection.sendRequest(RecordingInfoRequest, { file: recording }), (error) => {
      assert.match(error.message, /repository it was recorded in \(.*doomed\) is gone/);
      assert.ok(!error.message.includes('\n'), 'one line');
    });
    await expectError(
      server.connection.sendRequest(RecordingInfoRequest, { file: path.join(root, 'no-such.psrec') }),
      (error) => {
        assert.match(error.message, /no such recording/);
      },
    );
  });
});

describe('packscope/sweep', () => {
  for (const [name, file] of [
    ['git log --raw', () => logRaw],
    ['git log -p -n 50', () => logP],
  ] as const) {
    test(`${name}: 8 limits × 5 policies equal packscope sweep --json`, async (t) => {
      const { token, values } = progressToken();
      const started = performance.now();
      const result = await server.connection.sendRequest(SweepRequest, {
        file: file(),
        policies: POLICIES,
        limits: LIMITS,
        workDoneToken: token,
      });
      const ms = performance.now() - started;
      const cli = cliJson<{ recording: RecordingSummary; results: SimCell[] }>([
        'sweep',
        '--json',
        '--limits',
        LIMITS.join(','),
        '--policies',
        POLICIES.join(','),
        file(),
      ]);
      assert.equal(result.results.length, LIMITS.length * POLICIES.length);
      assert.deepEqual(withoutSeconds(result.results), withoutSeconds(cli.results));
      assertSameRecording(result.recording, cli.recording);
      const reports = values.filter((v) => v.kind === 'report' && /cells/.test(v.message ?? ''));
      assert.ok(
        reports.some(
          (v) =>
            v.kind === 'report' &&
            v.message === `${LIMITS.length * POLICIES.length} of ${LIMITS.length * POLICIES.length} cells`,
        ),
        'progress as cells complete',
      );
      t.diagnostic(
        `${name}: sweep of ${result.results.length} cells over ${result.recording.reads} reads in ${ms.toFixed(0)} ms`,
      );
    });
  }

  test('one segment, as --segment', async () => {
    const info = await server.connection.sendRequest(RecordingInfoRequest, { file: logRaw });
    const segment = info.segments.findIndex((s) => s.reads > 0) + 1;
    const result = await server.connection.sendRequest(SweepRequest, {
      file: logRaw,
      segment,
      policies: ['git'],
      limits: [0, 1 << 20],
    });
    const cli = cliJson<{ results: SimCell[] }>([
      'sweep',
      '--json',
      '--segment',
      String(segment),
      '--limits',
      '0,1m',
      '--policies',
      'git',
      logRaw,
    ]);
    assert.deepEqual(withoutSeconds(result.results), withoutSeconds(cli.results));
    assert.equal(result.recording.segments.length, 1);
    assert.equal(result.recording.segments[0]!.index, segment);
  });

  test('an unknown policy or a bad limit is refused before any work', async () => {
    await expectError(
      server.connection.sendRequest(SweepRequest, { file: logRaw, policies: ['no-such-policy'], limits: [0] }),
      (error) => assert.match(error.message, /no-such-policy/),
    );
    await expectError(
      server.connection.sendRequest(SweepRequest, { file: logRaw, policies: ['git'], limits: [-1] }),
      (error) => assert.match(error.message, /limits/),
    );
  });

  test('cancelled right after sending: RequestCancelled, no worker threads left, the next sweep works', async () => {
    await server.connection.sendRequest(RecordingInfoRequest, { file: logP });
    const baseline = serverThreads();
    const source = new CancellationTokenSource();
    const pending = server.connection.sendRequest(
      SweepRequest,
      { file: logP, policies: POLICIES, limits: LIMITS },
      source.token,
    );
    source.cancel();
    await expectError(pending, (error) => assert.equal(error.code, LSPErrorCodes.RequestCancelled));
    assert.ok((await threadsSettleTo(baseline)) <= baseline, `threads back to ${baseline}`);
    await assertResponsive();
    const again = await server.connection.sendRequest(SweepRequest, { file: logP, policies: ['git'], limits: [0] });
    assert.equal(again.results.length, 1);
  });

  test('cancelled mid-way on a bigger recording: the workers stop at once', async () => {
    const limits = [...LIMITS, 32 << 20, 64 << 20, 128 << 20, 256 << 20];
    const policies = [...POLICIES, 'gdsf', 'separate-blob-lru', 'belady'];
    const info = await server.connection.sendRequest(RecordingInfoRequest, { file: big });
    const baseline = serverThreads();
    const { token, values } = progressToken();
    const source = new CancellationTokenSource();
    const started = performance.now();
    const pending = server.connection.sendRequest(
      SweepRequest,
      { file: big, policies, limits, workDoneToken: token },
      source.token,
    );
    // Cancel once the first cells are done (or after 1 s), while workers are busy.
    for (let i = 0; i < 100 && !values.some((v) => v.kind === 'report' && /^[1-9]\d* of/.test(v.message ?? '')); i++)
      await new Promise((r) => setTimeout(r, 10));
    const busyThreads = serverThreads();
    const cancelledAt = performance.now();
    source.cancel();
    let finishedEarly = false;
    try {
      await pending;
      finishedEarly = true;
    } catch (error) {
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, LSPErrorCodes.RequestCancelled);
    }
    const answerMs = performance.now() - cancelledAt;
    assert.ok(
      !finishedEarly,
      `the sweep (${limits.length * policies.length} cells over ${info.reads} reads) ended before the cancellation after ${(cancelledAt - started).toFixed(0)} ms`,
    );
    assert.ok(answerMs < 2000, `cancellation answered in ${answerMs.toFixed(0)} ms`);
    assert.ok(busyThreads > baseline, `workers were running (${busyThreads} threads vs ${baseline})`);
    assert.ok((await threadsSettleTo(baseline)) <= baseline, `threads back to ${baseline}`);
    await assertResponsive();
    const again = await server.connection.sendRequest(SweepRequest, { file: logRaw, policies: ['git'], limits: [0] });
    assert.equal(again.results.length, 1);
  });
});

describe('packscope/locality', () => {
  test('the numbers of packscope locality --json, plus a distance CDF consistent with the percentiles', async () => {
    for (const file of [logRaw, logP]) {
      const result = await server.connection.sendRequest(LocalityRequest, { file });
      const cli = cliJson<{ recording: RecordingSummary; pageCache: object; packs: object[] }>([
        'locality',
        '--json',
        file,
      ]);
      assert.deepEqual(result.pageCache, cli.pageCache);
      assert.deepEqual(
        result.packs.map(({ distanceQuantiles: _q, ...rest }) => rest),
        cli.packs,
      );
      assertSameRecording(result.recording, cli.recording);
      for (const pack of result.packs) {
        const q = pack.distanceQuantiles;
        assert.equal(q.length, 101);
        for (let p = 1; p <= 100; p++) assert.ok(q[p]! >= q[p - 1]!, `monotone at ${p}`);
        for (const { p, bytes } of pack.percentiles) {
          if (Number.isInteger(p)) assert.equal(q[p], bytes, `quantile ${p} equals the percentile`);
          else
            assert.ok(
              q[Math.floor(p)]! <= bytes && bytes <= q[Math.ceil(p)]!,
              `percentile ${p} between its neighbours`,
            );
        }
        assert.ok(pack.seeks > 10 && q[100]! > q[0]!, 'not a degenerate CDF');
      }
    }
    const custom = await server.connection.sendRequest(LocalityRequest, { file: logP, cacheMiB: 1, readaheadKiB: 16 });
    const cli = cliJson<{ packs: { pageFaults: number }[] }>([
      'locality',
      '--json',
      '--cache-mib',
      '1',
      '--readahead-kib',
      '16',
      logP,
    ]);
    assert.deepEqual(
      custom.packs.map((p) => p.pageFaults),
      cli.packs.map((p) => p.pageFaults),
    );
  });
});

describe('packscope/indexPackSim', () => {
  test('the three variants of packscope index-pack-sim --json', async () => {
    for (const limit of [undefined, 64 << 10]) {
      const { token, values } = progressToken();
      const result = await server.connection.sendRequest(IndexPackSimRequest, {
        pack: `${stem}.pack`,
        workDoneToken: token,
        ...(limit === undefined ? {} : { limit }),
      });
      const { schema, ...cli } = cliJson<{
        schema: string;
        pack: string;
        objects: number;
        limit: number;
        results: object[];
      }>(['index-pack-sim', '--json', ...(limit === undefined ? [] : ['--limit', String(limit)]), `${stem}.pack`]);
      assert.equal(schema, 'packscope.index-pack-sim/1');
      assert.deepEqual(
        { pack: result.pack, objects: result.objects, limit: result.limit, results: result.variants },
        cli,
      );
      assert.deepEqual(
        result.variants.map((v) => v.variant),
        ['v2.36', 'v2.55', 'release-when-done'],
      );
      assert.equal(values.at(-1)?.kind, 'end');
    }
  });

  test('a path that is neither a workspace pack nor a pack file; a bare pack without its idx is indexed, as the CLI does', async () => {
    await expectError(
      server.connection.sendRequest(IndexPackSimRequest, { pack: path.join(root, 'nothing.pack') }),
      (error) => assert.match(error.message, /not a pack of the workspace, nor a pack file/),
    );
    const lonely = path.join(root, 'lonely');
    fs.mkdirSync(lonely);
    const bare = path.join(lonely, 'pack-lonely.pack');
    fs.copyFileSync(`${stem}.pack`, bare);
    // Outside the workspace: the user picked it (the read rules refuse it otherwise; read-rules.test.ts).
    await server.connection.sendRequest(AllowReadRequest, { file: bare });
    const { token, values } = progressToken();
    const result = await server.connection.sendRequest(IndexPackSimRequest, { pack: bare, workDoneToken: token });
    const { schema: _schema, ...cli } = cliJson<{
      schema: string;
      pack: string;
      objects: number;
      limit: number;
      results: object[];
    }>(['index-pack-sim', '--json', bare]);
    assert.deepEqual(
      { pack: result.pack, objects: result.objects, limit: result.limit, results: result.variants },
      cli,
    );
    const withIdx = cliJson<{ results: object[] }>(['index-pack-sim', '--json', `${stem}.pack`]);
    assert.deepEqual(result.variants, withIdx.results, 'the same counts as the pack with its idx');
    assert.ok(
      values.some((value) => value.kind === 'report' && /indexing \(no \.idx\)/.test(value.message ?? '')),
      'progress says the pack is being indexed',
    );
    assert.deepEqual(fs.readdirSync(lonely), ['pack-lonely.pack'], 'nothing written next to the bare pack');
    await expectError(server.connection.sendRequest(IndexPackSimRequest, { pack: path.join(lonely) }), (error) =>
      assert.match(error.message, /not a pack of the workspace/),
    );
  });

  /** Every file under `dir` with its size and modification time: what "nothing written" compares. */
  function snapshot(dir: string): string[] {
    return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
      .map((d) => path.join(d.parentPath, d.name))
      .map((file) => {
        const stat = fs.statSync(file);
        return `${path.relative(dir, file)} ${stat.isFile() ? stat.size : 'dir'} ${stat.mtimeMs}`;
      })
      .sort();
  }

  for (const objectFormat of ['sha1', 'sha256'] as const) {
    test(`a recording's pack in a ${objectFormat} repository outside the workspace: as packscope index-pack-sim --json, nothing written in it`, async () => {
      const outside = new GitSandbox(path.join(root, `outside-${objectFormat}`));
      const elsewhere = historyRepository(outside, 'elsewhere', {
        commits: 60,
        seed: 5,
        files: 4,
        linesPerFile: 40,
        objectFormat,
        repack: ['-adf', '--depth=20'],
      });
      const recording = cliRecord(`outside-${objectFormat}`, ['log', '--raw'], elsewhere);
      const { repositories } = await server.connection.sendRequest(ListRepositoriesRequest, {});
      assert.ok(
        !repositories.some((r) => r.gitDir.startsWith(outside.root)),
        'the repository is not one of the workspace',
      );
      const info = await server.connection.sendRequest(RecordingInfoRequest, { file: recording });
      assert.equal(info.packs.length, 1);
      const pack = info.packs[0]!.path;
      const before = snapshot(elsewhere);
      for (const limit of [undefined, 16 << 10]) {
        const { token, values } = progressToken();
        const result = await server.connection.sendRequest(IndexPackSimRequest, {
          pack,
          workDoneToken: token,
          ...(limit === undefined ? {} : { limit }),
        });
        const { schema: _schema, ...cli } = cliJson<{
          schema: string;
          pack: string;
          objects: number;
          limit: number;
          results: object[];
        }>(['index-pack-sim', '--json', ...(limit === undefined ? [] : ['--limit', String(limit)]), pack]);
        assert.deepEqual(
          { pack: result.pack, objects: result.objects, limit: result.limit, results: result.variants },
          cli,
        );
        assert.ok(result.objects > 0);
        assert.equal(values.at(-1)?.kind, 'end');
      }
      assert.deepEqual(snapshot(elsewhere), before, 'nothing written inside the repository');
    });
  }
});

describe('packscope/record', () => {
  function traceLinesOfRealGit(args: string[]): number {
    const trace = path.join(root, `real-${++tokenCounter}.trace`);
    sandbox.git(repo, ['-c', 'core.deltaBaseCacheLimit=0', ...args], { env: { GIT_TRACE_PACK_ACCESS: trace } });
    return fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length;
  }

  for (const args of [
    ['log', '--raw'],
    ['log', '-p', '-n', '50'],
  ]) {
    test(`git ${args.join(' ')}: as many reads as git's own trace with the same config, and as the CLI's recording`, async () => {
      const output = path.join(recordings, `server-${args.join('-')}.psrec`);
      const { token, values } = progressToken();
      const info = await server.connection.sendRequest(RecordRequest, {
        cwd: repo,
        args,
        output,
        mode: 'exact',
        git: 'git',
        workDoneToken: token,
      });
      assert.ok(fs.existsSync(output));
      assert.equal(info.file, output);
      assert.equal(info.mode, 'exact');
      assert.equal(info.recordedLimit, 0);
      assert.equal(info.command, `git ${args.join(' ')}`);
      assert.equal(info.exitStatus, 0);
      assert.deepEqual(info.warnings, []);
      const real = traceLinesOfRealGit(args);
      assert.ok(real > 0);
      assert.equal(info.traceLines, real);
      assert.equal(info.reads, real);
      const cli = await server.connection.sendRequest(RecordingInfoRequest, {
        file: args.length === 2 ? logRaw : logP,
      });
      assert.equal(info.reads, cli.reads);
      assert.ok(
        values.some((v) => v.kind === 'report' && (v.message ?? '').startsWith(`running git ${args.join(' ')}…`)),
        'progress names the command',
      );
    });
  }

  test('refuses to write the recording inside the repository', async () => {
    const output = path.join(repo, 'inside.psrec');
    await expectError(
      server.connection.sendRequest(RecordRequest, {
        cwd: repo,
        args: ['log', '-1'],
        output,
        mode: 'exact',
        git: 'git',
      }),
      (error) => assert.match(error.message, /outside the repository/),
    );
    assert.ok(!fs.existsSync(output));
  });

  test('cancelled: git is killed and no recording is left', async () => {
    const output = path.join(recordings, 'cancelled.psrec');
    const { token, values } = progressToken();
    const source = new CancellationTokenSource();
    // A git that keeps running until it is killed (cat-file --batch reading from a never-ending
    // pipe is not available with stdin ignored; an alias to a shell loop is).
    const pending = server.connection.sendRequest(
      RecordRequest,
      {
        cwd: repo,
        args: ['-c', 'alias.spin=!sleep 37.25', 'spin'],
        output,
        mode: 'exact',
        git: 'git',
        workDoneToken: token,
      },
      source.token,
    );
    for (let i = 0; i < 200 && !values.some((v) => v.kind === 'report' && /running/.test(v.message ?? '')); i++)
      await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200));
    const started = performance.now();
    source.cancel();
    await expectError(pending, (error) => assert.equal(error.code, LSPErrorCodes.RequestCancelled));
    assert.ok(performance.now() - started < 5000, 'git (and its sleep) stopped at once');
    assert.ok(!fs.existsSync(output), 'no partial recording');
    // git's own child (the alias's sleep) went with it.
    const sleeping = (): boolean =>
      fs
        .readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .some((pid) => {
          try {
            return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes('sleep 37.25');
          } catch {
            return false;
          }
        });
    for (let i = 0; i < 50 && sleeping(); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(!sleeping(), "git's child process was killed too");
    assert.deepEqual(
      fs.readdirSync(recordings).filter((f) => f.startsWith('cancelled')),
      [],
    );
  });
});

describe('packscope/measure', () => {
  test('runs × limits timings, all positive, best of N, and the git version', async () => {
    const { token, values } = progressToken();
    const result = await server.connection.sendRequest(MeasureRequest, {
      cwd: repo,
      args: ['log', '--raw', '-n', '30'],
      git: 'git',
      limits: [0, 96 << 20],
      runs: 3,
      workDoneToken: token,
    });
    assert.equal(
      result.gitVersion,
      sandbox
        .gitText(repo, ['--version'])
        .trim()
        .replace(/^git version /, ''),
    );
    assert.deepEqual(
      result.results.map((r) => r.limit),
      [0, 96 << 20],
    );
    for (const r of result.results) {
      assert.equal(r.seconds.length, 3);
      assert.ok(r.seconds.every((s) => s > 0 && s < 60));
      assert.equal(r.bestSeconds, Math.min(...r.seconds));
      // CPU time and page faults of each run, from the shell that ran git (core/git/child-usage.ts).
      assert.equal(r.cpuSeconds.length, 3);
      assert.ok(r.cpuSeconds.every((s) => s !== null && s >= 0 && s < 60));
      assert.equal(r.minorFaults.length, 3);
      // git maps its binary, libraries and pack: hundreds of pages at least, on Linux.
      if (process.platform === 'linux')
        assert.ok(
          r.minorFaults.every((f) => f !== null && f > 100),
          `faults ${r.minorFaults}`,
        );
    }
    assert.equal(
      values.filter((v) => v.kind === 'report' && /run \d of 3/.test(v.message ?? '')).length,
      6,
      'progress per run',
    );
  });

  test("with its recording: the split of the command's time is kept with the calibration, and the next time estimate of that command starts from it", async () => {
    // The recording's own command, where it ran: what the kept split is for.
    const limits = [0, 1 << 20, 96 << 20];
    const result = await server.connection.sendRequest(MeasureRequest, {
      cwd: repo,
      args: ['log', '-p', '-n', '50'],
      git: 'git',
      limits,
      runs: 2,
      recording: { file: logP },
    });
    const kept = result.kept;
    assert.ok(kept, 'a recording was named');
    assert.ok(kept.file, kept.note);
    const calibration = JSON.parse(fs.readFileSync(kept.file, 'utf8')) as Calibration;
    assert.equal(calibration.schema, CALIBRATION_SCHEMA);
    const entry = calibration.measured![0]!;
    assert.deepEqual([entry.args, entry.cwd, entry.runs], [['log', '-p', '-n', '50'], repo, 2]);
    assert.deepEqual(
      entry.points.map((p) => [p.limit, p.bestSeconds]),
      result.results.map((r) => [r.limit, r.bestSeconds]),
    );
    // The kept fit is the fit of the kept points (measured-split.ts), and what the reply says.
    const fit = fitMeasuredSplit(
      entry.points.map((p) => ({ limit: p.limit, reads: p.predictedReadSeconds, measured: p.bestSeconds })),
    );
    assert.deepEqual(entry.split, fit ? { nonReadSeconds: fit.nonReadSeconds, readScale: fit.readScale } : null);
    assert.deepEqual(kept.split, entry.split);
    // Each point's predicted reads are the model's formula on the replay's counts at that limit.
    const sweep = await server.connection.sendRequest(SweepRequest, {
      file: logP,
      policies: ['git'],
      limits,
      time: true,
    });
    for (const point of entry.points) {
      const cell = sweep.results.find((r) => r.limit === point.limit)!;
      assert.equal(
        point.predictedReadSeconds,
        readSeconds({ ...cell, appliedBytes: cell.appliedBytes ?? 0 }, calibration.parameters),
      );
    }
    const time = sweep.time!;
    if (entry.split === null) {
      assert.equal(time.basis.source, 'recording');
      return;
    }
    assert.equal(time.basis.source, 'measured');
    assert.deepEqual(time.basis.measured!.limits, limits);
    for (const cell of time.cells) {
      const counts = sweep.results.find((r) => r.policy === cell.policy && r.limit === cell.limit)!;
      const read = readSeconds({ ...counts, appliedBytes: counts.appliedBytes ?? 0 }, calibration.parameters);
      assert.ok(Math.abs(cell.predictedSeconds - (entry.split.nonReadSeconds + entry.split.readScale * read)) < 1e-12);
    }
    // Another command is not this one: measured without its recording, nothing is kept.
    const other = await server.connection.sendRequest(MeasureRequest, {
      cwd: repo,
      args: ['log', '--raw'],
      git: 'git',
      limits: [0],
      runs: 1,
    });
    assert.equal(other.kept, undefined);
    const mismatched = await server.connection.sendRequest(MeasureRequest, {
      cwd: repo,
      args: ['log', '--raw', '-n', '3'],
      git: 'git',
      limits: [0, 1 << 20],
      runs: 1,
      recording: { file: logRaw },
    });
    assert.equal(mismatched.kept!.file, null);
    assert.match(mismatched.kept!.note, /not the recording’s own command/);
  });

  test("with a kept heap: each limit is run again with the calibration's malloc thresholds, run by run in turn", async () => {
    const { token, values } = progressToken();
    const result = await server.connection.sendRequest(MeasureRequest, {
      cwd: repo,
      args: ['log', '--raw', '-n', '30'],
      git: 'git',
      limits: [0, 1 << 20],
      runs: 2,
      keptHeap: true,
      workDoneToken: token,
    });
    assert.equal(result.heapTunables, CALIBRATION_TUNABLES);
    for (const r of result.results) {
      assert.ok(r.keptHeap, 'kept-heap runs for every limit');
      for (const side of [r, r.keptHeap]) {
        assert.equal(side.seconds.length, 2);
        assert.equal(side.bestSeconds, Math.min(...side.seconds));
        assert.equal(side.cpuSeconds.length, 2);
        assert.equal(side.minorFaults.length, 2);
      }
    }
    const messages = values.filter((v) => v.kind === 'report').map((v) => v.message ?? '');
    assert.deepEqual(
      messages.filter((m) => /: run \d of 2/.test(m)),
      [0, 1 << 20].flatMap((limit) =>
        [1, 2].flatMap((run) => [
          `core.deltaBaseCacheLimit=${limit === 0 ? '0' : '1m'}: run ${run} of 2`,
          `core.deltaBaseCacheLimit=${limit === 0 ? '0' : '1m'}: run ${run} of 2, kept heap`,
        ]),
      ),
    );
    // Without it, nothing of the kind.
    const plain = await server.connection.sendRequest(MeasureRequest, {
      cwd: repo,
      args: ['log', '--raw', '-n', '30'],
      git: 'git',
      limits: [0],
      runs: 1,
    });
    assert.equal(plain.heapTunables, undefined);
    assert.equal(plain.results[0]!.keptHeap, undefined);
  });

  test("a time estimate with replay times the recording's own reads on git once, keeps them with the calibration, and reuses them", async () => {
    const replayed = (): ReadReplay[] => {
      const found: ReadReplay[] = [];
      const walk = (dir: string): void => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(full);
          else if (dir.endsWith('calibrations') && entry.name.endsWith('.json'))
            found.push(...((JSON.parse(fs.readFileSync(full, 'utf8')) as Calibration).replays ?? []));
        }
      };
      if (fs.existsSync(path.join(root, 'models'))) walk(path.join(root, 'models'));
      return found.filter((r) => r.command.args.join(' ') === 'log --raw');
    };
    assert.deepEqual(replayed(), [], 'no replay of log --raw before');
    const first = progressToken();
    const sweep = await server.connection.sendRequest(SweepRequest, {
      file: logRaw,
      policies: ['git'],
      limits: [0, 1 << 20],
      time: true,
      replay: true,
      workDoneToken: first.token,
    });
    assert.ok(sweep.time, sweep.timeError);
    const kept = replayed();
    assert.equal(kept.length, 1);
    assert.deepEqual(kept[0]!.limits, [0, 16 << 20]);
    assert.equal(kept[0]!.readsTimed, sweep.recording.reads);
    assert.equal(
      first.values.filter(
        (v) =>
          v.kind === 'report' &&
          /^replaying the recorded reads \(\d of 6 runs of git cat-file\)$/.test(v.message ?? ''),
      ).length,
      6,
      'progress per cat-file run',
    );
    // The basis says what the cells rest on: a scale when the cache saved enough to tell, else the recording's own split.
    assert.equal(sweep.time.basis.source, kept[0]!.readScale === null ? 'recording' : 'replay');
    const second = progressToken();
    await server.connection.sendRequest(SweepRequest, {
      file: logRaw,
      policies: ['git'],
      limits: [0, 1 << 20],
      time: true,
      replay: true,
      workDoneToken: second.token,
    });
    assert.deepEqual(replayed(), kept, 'kept, not timed again');
    assert.equal(second.values.filter((v) => /replaying/.test(v.message ?? '')).length, 0);
  });

  test("a failing git command gives one error with git's own message", async () => {
    const real = spawnSync('git', ['log', '--no-such-option'], {
      cwd: repo,
      env: gitEnv(sandbox.home),
      encoding: 'utf8',
    });
    assert.notEqual(real.status, 0);
    const gitMessage = real.stderr.trim();
    assert.ok(gitMessage, 'git itself fails');
    await expectError(
      server.connection.sendRequest(MeasureRequest, {
        cwd: repo,
        args: ['log', '--no-such-option'],
        git: 'git',
        limits: [0],
        runs: 1,
      }),
      (error) => {
        assert.ok(error.message.includes(gitMessage), `${error.message} includes ${gitMessage}`);
      },
    );
  });
});
