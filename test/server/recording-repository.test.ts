/**
 * Which repository a terminal recording belongs to. A terminal recording is a raw trace
 * (no header) that may hold commands run anywhere; with the recording variables git also writes
 * GIT_TRACE_SETUP's lines, which say where each git process ran. Checked with real git processes
 * appending to one file as terminals do: the parser's per-process git directories, recordingInfo of
 * a recording made in a repository outside the workspace (listed under that repository, not
 * refused), and a repack preview that replays only the recordings, and only the git processes, of
 * its own repository — also against a clone whose pack has the same name.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { applyRecordingVariables, recordingVariables } from '../../src/common/recording-environment.ts';
import { segmentRepositories } from '../../src/core/trace/load-recording.ts';
import { parseTraceFile } from '../../src/core/trace/trace-log.ts';
import { RecordingInfoRequest, RepackPreviewRequest } from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { LspServer } from '../support/lsp-server.ts';

let sandbox: GitSandbox;
/** The workspace repository. */
let ours: string;
/** A clone of it outside the workspace: its pack has the same name as ours. */
let clone: string;
/** Another repository outside the workspace. */
let elsewhere: string;
let traces: string;

/** Runs `git args` in `cwd` as a recording terminal does: the recording variables over the test's git environment. */
function recordedGit(trace: string, cwd: string, args: string[]): void {
  const base = gitEnv(sandbox.home);
  for (const name of ['GIT_TRACE', 'GIT_TRACE_SETUP', 'GIT_TRACE_BARE']) delete base[name];
  execFileSync('git', args, {
    cwd,
    env: applyRecordingVariables(base, recordingVariables(base, trace, 'exact')),
    stdio: 'ignore',
    maxBuffer: 64 << 20,
  });
}

/** GIT_TRACE_PACK_ACCESS lines of one git command run alone: the oracle for a segment's reads. */
function readsOf(cwd: string, args: string[]): number {
  const trace = path.join(traces, `oracle-${process.hrtime.bigint()}.trace`);
  execFileSync('git', args, {
    cwd,
    env: {
      ...gitEnv(sandbox.home),
      GIT_TRACE_PACK_ACCESS: trace,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.deltaBaseCacheLimit',
      GIT_CONFIG_VALUE_0: '0',
    },
    stdio: 'ignore',
    maxBuffer: 64 << 20,
  });
  return fs
    .readFileSync(trace, 'utf8')
    .split('\n')
    .filter((line) => /\.pack \d+$/.test(line)).length;
}

before(() => {
  const root = tempDir(undefined, 'packscope-recording-repository-');
  process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  sandbox = new GitSandbox(root);
  ours = sandbox.init('workspace');
  sandbox.fastImport(ours, historyStream({ commits: 20, seed: 5 }));
  sandbox.git(ours, ['repack', '-adq']);
  clone = path.join(root, 'outside', 'clone');
  sandbox.git(root, ['clone', '-q', ours, clone]);
  elsewhere = sandbox.init('outside/elsewhere');
  sandbox.fastImport(elsewhere, historyStream({ commits: 15, seed: 9 }));
  sandbox.git(elsewhere, ['repack', '-adq']);
  traces = path.join(root, 'traces');
  fs.mkdirSync(traces);
  const packOf = (repo: string): string[] =>
    fs.readdirSync(path.join(repo, '.git', 'objects', 'pack')).filter((name) => name.endsWith('.pack'));
  assert.deepEqual(packOf(clone), packOf(ours), 'the clone has the same pack name (the case a name match gets wrong)');
});

describe('GIT_TRACE_SETUP in a terminal recording', () => {
  test("each git process's segment carries the git directory it ran in (git -C and cd alike)", () => {
    const trace = path.join(traces, 'mixed.trace');
    recordedGit(trace, ours, ['log', '-p']);
    recordedGit(trace, path.join(elsewhere), ['log', '--raw']);
    recordedGit(trace, traces, ['-C', clone, 'log', '-1', '-p']);
    const log = parseTraceFile(trace);
    const withReads = log.segments.filter((s) => s.endRead > s.firstRead);
    assert.deepEqual(
      withReads.map((s) => [s.command, s.gitDir, s.endRead - s.firstRead]),
      [
        ['git log -p', path.join(ours, '.git'), readsOf(ours, ['log', '-p'])],
        ['git log --raw', path.join(elsewhere, '.git'), readsOf(elsewhere, ['log', '--raw'])],
        ['git log -1 -p', path.join(clone, '.git'), readsOf(clone, ['log', '-1', '-p'])], // GIT_TRACE prints the command after -C
      ],
    );
    assert.deepEqual(
      segmentRepositories(log),
      [path.join(ours, '.git'), path.join(elsewhere, '.git'), path.join(clone, '.git')].sort((a, b) => {
        const reads = (dir: string): number =>
          withReads.filter((s) => s.gitDir === dir).reduce((n, s) => n + s.endRead - s.firstRead, 0);
        return reads(b) - reads(a);
      }),
    );
  });
});

describe('the server: recordings of other repositories', () => {
  let server: LspServer;
  let inElsewhere: string;
  let inClone: string;
  let inOurs: string;
  let mixed: string;
  before(async () => {
    inElsewhere = path.join(traces, 'elsewhere.trace');
    recordedGit(inElsewhere, elsewhere, ['log', '--raw']);
    inClone = path.join(traces, 'clone.trace');
    recordedGit(inClone, clone, ['log', '-p']);
    inOurs = path.join(traces, 'ours.trace');
    recordedGit(inOurs, ours, ['log', '--raw']);
    mixed = path.join(traces, 'ours-and-clone.trace');
    recordedGit(mixed, ours, ['log', '--raw']);
    recordedGit(mixed, clone, ['log', '-p']);
    // The traces lie in the recording directory, where the extension keeps terminal recordings (read-rules.ts).
    server = await LspServer.start({
      workspaceFolders: [ours],
      settings: { modelCacheDirectory: path.join(sandbox.root, 'models') },
      env: gitEnv(sandbox.home),
      recordingDirectory: traces,
    });
  });
  after(() => server?.stop());

  test('recordingInfo of a terminal recording made outside the workspace names that repository and replays all its reads', async () => {
    const info = await server.connection.sendRequest(RecordingInfoRequest, { file: inElsewhere });
    assert.equal(info.repository, path.join(elsewhere, '.git'));
    assert.equal(info.reads, readsOf(elsewhere, ['log', '--raw']));
    assert.deepEqual(info.warnings, []);
    const cloned = await server.connection.sendRequest(RecordingInfoRequest, { file: inClone });
    assert.equal(
      cloned.repository,
      path.join(clone, '.git'),
      'the clone, not the workspace repository whose pack has the same name',
    );
  });

  test('a trace of two repositories replays only the git processes of the one asked for, and says what it left out', async () => {
    const info = await server.connection.sendRequest(RecordingInfoRequest, { file: mixed, repository: ours });
    assert.equal(info.repository, path.join(ours, '.git'));
    assert.equal(info.reads, readsOf(ours, ['log', '--raw']));
    const left = readsOf(clone, ['log', '-p']);
    assert.deepEqual(info.warnings, [
      `${left} reads of 1 git process in other repositories left out (${path.join(clone, '.git')})`,
    ]);
    // …and lists that process, so the Recordings view can show every command the file holds.
    assert.deepEqual(info.elsewhere, [{ command: 'git log -p', reads: left, gitDir: path.join(clone, '.git') }]);
    assert.deepEqual((await server.connection.sendRequest(RecordingInfoRequest, { file: inElsewhere })).elsewhere, []);
  });

  test("a repack preview replays only its own repository's recordings", async () => {
    const result = await server.connection.sendRequest(RepackPreviewRequest, {
      repository: ours,
      extraOptions: [],
      git: 'git',
      recordings: [inElsewhere, inClone, inOurs, mixed],
      estimate: true,
      estimateOnly: true,
    });
    const replayed = result.recordings.map((replay) => [path.basename(replay.recording.file), replay.recording.reads]);
    assert.deepEqual(replayed, [
      ['ours.trace', readsOf(ours, ['log', '--raw'])],
      ['ours-and-clone.trace', readsOf(ours, ['log', '--raw'])],
    ]);
  });
});
