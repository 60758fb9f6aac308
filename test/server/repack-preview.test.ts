/**
 * Repack previews, server side: `packscope/repackPreview` of the bundled server driven over LSP equals a real
 * `git repack -adf --threads=1` with the same options on a copy of the repository (objects, depth
 * histogram, .pack size) and the CLI's JSON; the repository is byte-identical afterwards, also when
 * the request is cancelled midway; git's meters arrive as $/progress; a cancel leaves no temporary
 * directory and no git child of the server; a bad option fails with git's own message;
 * `packscope/gitCapabilities` probes the installed git.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CancellationTokenSource, LSPErrorCodes, WorkDoneProgress } from 'vscode-languageserver-protocol/node';
import {
  AllowReadRequest,
  GitCapabilitiesRequest,
  RepackPreviewRequest,
  type RepackPreviewResult,
} from '../../src/protocol/server-protocol.ts';
import { directorySnapshot, GitSandbox, gitEnv, runCli, tempDir } from '../support/git.ts';
import { historyRepository, parseVerifyPack } from '../support/git-oracle.ts';
import { expectError, LspServer, type ProgressValue } from '../support/lsp-server.ts';

const TEMP_PREFIX = 'packscope-repack-';

let root: string;
let sandbox: GitSandbox;
let server: LspServer;
let serverTmp: string;
let repo: string;
let big: string;
let cliCache: string;
let recordings: string;
let tokenCounter = 0;

/** A real `git repack -adf` of a copy (`cp -a`): the new pack's objects, depth histogram and size. */
function realRepack(source: string, options: string[]): { objects: number; histogram: number[]; packBytes: number } {
  const copy = path.join(root, `copy-${process.hrtime.bigint()}`);
  assert.equal(spawnSync('cp', ['-a', source, copy]).status, 0);
  try {
    sandbox.git(copy, ['repack', '-adf', '-q', ...options]);
    const packDir = path.join(copy, '.git', 'objects', 'pack');
    const packs = fs.readdirSync(packDir).filter((name) => name.endsWith('.pack'));
    assert.equal(packs.length, 1);
    const pack = path.join(packDir, packs[0]!);
    const histogram: number[] = [0];
    const entries = parseVerifyPack(sandbox.gitText(copy, ['verify-pack', '-v', pack]));
    for (const e of entries) {
      while (histogram.length <= e.depth) histogram.push(0);
      histogram[e.depth]!++;
    }
    return { objects: entries.length, histogram, packBytes: fs.statSync(pack).size };
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** Processes whose parent is the server (from /proc): git children left behind would show here. */
function serverChildren(): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === server.child.pid)
        found.push(`${entry} ${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function previewTemps(): string[] {
  return fs.readdirSync(serverTmp).filter((name) => name.startsWith(TEMP_PREFIX));
}

function progressToken(): { token: string; values: ProgressValue[] } {
  const token = `repack-test-${++tokenCounter}`;
  return { token, values: server.progressFor(token) };
}

function cliEnv(): Record<string, string> {
  return { ...(gitEnv(sandbox.home) as Record<string, string>), PACKSCOPE_CACHE_DIR: cliCache, TMPDIR: serverTmp };
}

async function settled(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  for (const started = Date.now(); !check();) {
    if (Date.now() - started > timeoutMs) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

before(async () => {
  root = tempDir(undefined, 'packscope-repack-server-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = historyRepository(sandbox, 'history', { commits: 200, seed: 21, files: 6, linesPerFile: 50, repack: ['-ad'] });
  // A few thousand objects with long files: --window=250 --depth=250 keeps pack-objects busy for seconds.
  big = historyRepository(sandbox, 'big', { commits: 900, seed: 22, files: 12, linesPerFile: 160, repack: ['-ad'] });
  cliCache = path.join(root, 'cli-models');
  recordings = path.join(root, 'recordings');
  fs.mkdirSync(recordings);
  serverTmp = path.join(root, 'server-tmp');
  fs.mkdirSync(serverTmp);
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: { ...gitEnv(sandbox.home), TMPDIR: serverTmp },
  });
});

after(async () => {
  const code = await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(code, 0, 'the server exits cleanly after shutdown/exit');
});

describe('packscope/repackPreview', () => {
  test("equals git repack -adf --threads=1 on a copy and the CLI; progress in git's words; the repository untouched", async () => {
    const recording = path.join(recordings, 'log-raw.psrec');
    const recorded = runCli(['record', '--exact', '-o', recording, '-C', repo, '--', 'log', '--raw'], {
      env: cliEnv(),
    });
    assert.equal(recorded.status, 0, recorded.stderr);
    // Made by the CLI outside the workspace: the server reads it once the user picked it (read-rules.ts).
    await server.connection.sendRequest(AllowReadRequest, { file: recording });
    const before = directorySnapshot(path.join(repo, '.git'));
    const { token, values } = progressToken();
    const started = performance.now();
    const result = await server.connection.sendRequest(RepackPreviewRequest, {
      repository: repo,
      depth: 20,
      window: 30,
      threads: 1,
      extraOptions: [],
      git: 'git',
      recordings: [recording],
      estimate: true,
      workDoneToken: token,
    });
    const seconds = (performance.now() - started) / 1000;
    assert.deepEqual(directorySnapshot(path.join(repo, '.git')), before, '.git byte-identical');
    assert.deepEqual(previewTemps(), [], 'no temporary directory left');
    const real = realRepack(repo, ['--depth=20', '--window=30', '--threads=1']);
    assert.equal(result.schema, 'packscope.repack-preview/1');
    assert.equal(result.preview!.objects, real.objects);
    assert.deepEqual(result.preview!.depthHistogram, real.histogram);
    assert.equal(result.preview!.packBytes, real.packBytes);
    assert.deepEqual(result.equivalent, [
      'git',
      'repack',
      '-a',
      '-d',
      '-f',
      '--depth=20',
      '--window=30',
      '--threads=1',
    ]);
    assert.ok(result.git!.includes('pack-objects') && result.git!.includes('--depth=20'));

    // git's meters, as the user reads them in the notification.
    const messages = values.flatMap((v) => (v.kind === 'report' && v.message ? [v.message] : []));
    for (const phase of ['Counting objects', 'Compressing objects', 'Writing objects']) {
      assert.ok(
        messages.some((m) => new RegExp(`^${phase}: \\d+% \\([\\d,]+/[\\d,]+\\)`).test(m)),
        `a ${phase} report among ${messages.slice(0, 20).join(' | ')}`,
      );
    }
    assert.equal(values[0]?.kind, 'begin');
    assert.equal(values.at(-1)?.kind, 'end');

    // The same document as `packscope repack-preview --json` (times and temporary paths aside), which
    // without --no-paths also names the largest changes (the panel asks the server for names apart).
    const cli = runCli(
      [
        'repack-preview',
        '--json',
        '--no-paths',
        '--depth',
        '20',
        '--window',
        '30',
        '--threads',
        '1',
        '--recording',
        recording,
        repo,
      ],
      { env: cliEnv() },
    );
    assert.equal(cli.status, 0, cli.stderr);
    const doc = JSON.parse(cli.stdout.toString('utf8')) as RepackPreviewResult;
    const comparable = (d: RepackPreviewResult): unknown => {
      const {
        seconds: _s,
        git: _g,
        gitEnvironment: _e,
        warnings: _w,
        preview,
        estimate,
        recordings: replays,
        ...rest
      } = d;
      return {
        ...rest,
        preview: { ...preview, packs: preview!.packs.map((p) => ({ ...p, pack: path.basename(p.pack) })) },
        estimate: { ...estimate, estimate: { ...estimate!.estimate, seconds: 0 } },
        // The preview pack's path was in the (removed) temporary directory: its name is what both share.
        recordings: replays.map((r) => ({
          ...r,
          preview: r.preview && {
            ...r.preview,
            locality: r.preview.locality.map((l) => ({ ...l, pack: path.basename(l.pack) })),
          },
        })),
      };
    };
    assert.deepEqual(comparable(result), comparable(doc));
    assert.equal(result.recordings.length, 1);
    assert.ok(result.recordings[0]!.reads > 0);
    assert.ok(result.estimate?.accuracy !== null);
    console.log(
      `repackPreview of ${result.preview!.objects} objects with a recording and the estimate: ${seconds.toFixed(2)} s`,
    );
  });

  test('estimate only: no pack-objects run, labelled an estimate', async () => {
    const before = directorySnapshot(path.join(repo, '.git'));
    const result = await server.connection.sendRequest(RepackPreviewRequest, {
      repository: repo,
      extraOptions: [],
      git: 'git',
      recordings: [],
      estimate: true,
      estimateOnly: true,
    });
    assert.equal(result.preview, null);
    assert.equal(result.git, null);
    assert.equal(result.estimate?.estimate.kind, 'estimate');
    const walked = sandbox
      .gitText(repo, ['rev-list', '--objects', '--all', '--reflog', '--indexed-objects'])
      .split('\n')
      .filter(Boolean).length;
    assert.equal(result.estimate!.estimate.objects, walked);
    // Today's packs are described even without a run (the panel compares the estimate with them).
    const packs = fs.readdirSync(path.join(repo, '.git', 'objects', 'pack')).filter((n) => n.endsWith('.pack'));
    assert.equal(result.current!.packs.length, packs.length);
    assert.equal(
      result.current!.packBytes,
      packs.reduce((sum, n) => sum + fs.statSync(path.join(repo, '.git', 'objects', 'pack', n)).size, 0),
    );
    assert.deepEqual(directorySnapshot(path.join(repo, '.git')), before);
  });

  test('cancelled after the first progress report: git killed, no temporary directory, repository untouched', async () => {
    const before = directorySnapshot(path.join(big, '.git'));
    const source = new CancellationTokenSource();
    const token = `repack-cancel-${++tokenCounter}`;
    let reportsAtCancel = 0;
    let childrenAtCancel: string[] = [];
    let tempsAtCancel: string[] = [];
    server.connection.onProgress(WorkDoneProgress.type, token, (value) => {
      if (value.kind !== 'report' || !/objects/.test(value.message ?? '') || reportsAtCancel > 0) return;
      reportsAtCancel++;
      childrenAtCancel = serverChildren().filter((c) => / git$/.test(c));
      tempsAtCancel = previewTemps();
      source.cancel();
    });
    const started = performance.now();
    await expectError(
      server.connection.sendRequest(
        RepackPreviewRequest,
        {
          repository: big,
          depth: 250,
          window: 250,
          threads: 1,
          extraOptions: [],
          git: 'git',
          recordings: [],
          estimate: false,
          workDoneToken: token,
        },
        source.token,
      ),
      (error) => assert.equal(error.code, LSPErrorCodes.RequestCancelled),
    );
    const seconds = (performance.now() - started) / 1000;
    assert.equal(reportsAtCancel, 1, 'cancelled on the first report');
    assert.equal(
      childrenAtCancel.length,
      1,
      `git pack-objects ran when the cancel came: ${childrenAtCancel.join(', ')}`,
    );
    assert.equal(tempsAtCancel.length, 1, 'the temporary directory existed while git ran');
    await settled(() => serverChildren().length === 0);
    assert.deepEqual(
      serverChildren().filter((c) => / git$/.test(c)),
      [],
      'no git child of the server left',
    );
    assert.deepEqual(previewTemps(), [], 'no temporary directory left');
    assert.deepEqual(directorySnapshot(path.join(big, '.git')), before, '.git byte-identical after a cancel');
    console.log(`cancelled after ${seconds.toFixed(2)} s`);
    // The server still answers: a cheap request right after.
    const capabilities = await server.connection.sendRequest(GitCapabilitiesRequest, { git: 'git' });
    assert.equal(typeof capabilities.version, 'string');
  });

  test("a bad pack-objects option fails with git's own message; nothing left behind", async () => {
    const before = directorySnapshot(path.join(repo, '.git'));
    await expectError(
      server.connection.sendRequest(RepackPreviewRequest, {
        repository: repo,
        extraOptions: ['--no-such-option'],
        git: 'git',
        recordings: [],
        estimate: false,
      }),
      (error) => {
        assert.equal(error.code, LSPErrorCodes.RequestFailed);
        assert.match(error.message, /error: unknown option `no-such-option'/);
        assert.ok(!error.message.includes('\n'), 'one line for the user');
      },
    );
    // A request naming another git is refused before anything runs (trusted-git.ts); the server runs only the one it was configured with.
    await expectError(
      server.connection.sendRequest(RepackPreviewRequest, {
        repository: repo,
        extraOptions: [],
        git: path.join(root, 'no-such-git'),
        recordings: [],
        estimate: false,
      }),
      (error) => assert.match(error.message, /runs only the git it was configured with \("git"\), not ".*no-such-git"/),
    );
    await expectError(
      server.connection.sendRequest(RepackPreviewRequest, {
        repository: repo,
        depth: -1,
        extraOptions: [],
        git: 'git',
        recordings: [],
        estimate: false,
      }),
      (error) => assert.match(error.message, /depth must be an integer/),
    );
    assert.deepEqual(previewTemps(), []);
    assert.deepEqual(
      serverChildren().filter((c) => / git$/.test(c)),
      [],
    );
    assert.deepEqual(directorySnapshot(path.join(repo, '.git')), before);
  });
});

describe('packscope/gitCapabilities', () => {
  test('the installed git: its version, and what its pack-objects -h lists', async () => {
    const capabilities = await server.connection.sendRequest(GitCapabilitiesRequest, { git: 'git' });
    const version = spawnSync('git', ['--version'], { encoding: 'utf8' })
      .stdout.trim()
      .replace(/^git version /, '');
    assert.equal(capabilities.version, version);
    const [major, minor] = version.split('.').map(Number) as [number, number];
    // --name-hash-version came with git 2.49.0, --path-walk with 2.51.0 (their release notes).
    assert.equal(capabilities.nameHashVersion, major > 2 || (major === 2 && minor >= 49));
    assert.equal(capabilities.pathWalk, major > 2 || (major === 2 && minor >= 51));
    if (version === '2.39.5')
      assert.deepEqual({ ...capabilities }, { version: '2.39.5', nameHashVersion: false, pathWalk: false });
    await expectError(
      server.connection.sendRequest(GitCapabilitiesRequest, { git: path.join(root, 'no-such-git') }),
      (error) => assert.match(error.message, /runs only the git it was configured with/),
    );
  });

  test('a configured git that is missing: both requests say git cannot run, and name it', async () => {
    const missingGit = path.join(root, 'missing', 'git');
    const misconfigured = await LspServer.start({
      workspaceFolders: [path.join(root, 'workspace')],
      settings: { modelCacheDirectory: path.join(root, 'models'), git: missingGit },
      env: { ...gitEnv(sandbox.home), TMPDIR: serverTmp },
    });
    try {
      await expectError(misconfigured.connection.sendRequest(GitCapabilitiesRequest, { git: missingGit }), (error) =>
        assert.match(error.message, /cannot run git .*missing\/git/),
      );
      await expectError(
        misconfigured.connection.sendRequest(RepackPreviewRequest, {
          repository: repo,
          extraOptions: [],
          git: missingGit,
          recordings: [],
          estimate: false,
        }),
        (error) => assert.match(error.message, /cannot run git .*missing\/git/),
      );
      assert.deepEqual(previewTemps(), [], 'no temporary directory left');
    } finally {
      assert.equal(await misconfigured.stop(), 0);
    }
  });
});
