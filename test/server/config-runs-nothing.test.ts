/**
 * A repository whose configuration names a program (core.fsmonitor, a textconv, a filter, a
 * promisor's upload-pack), each leaving a marker file: `packscope repack-preview` (default, --cruft,
 * --geometric), the server's repack previews and Measure for real never run it. Measure for real
 * also refuses, with a sentence naming the refused part, every command that is not one that reads.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  AllowReadRequest,
  ListRepositoriesRequest,
  MeasureRequest,
  RepackModePreviewRequest,
  RepackPreviewRequest,
  RecordRequest,
  SizesRequest,
  SweepRequest,
  TrackedFilesRequest,
} from '../../src/protocol/server-protocol.ts';
import { gitEnv, GitSandbox, runCli, tempDir } from '../support/git.ts';
import { LspServer, expectError } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let other: string;
let marker: string;
let server: LspServer;

const marking = (then = 'true'): string => `touch '${marker}'; ${then}`;

before(async () => {
  root = tempDir(undefined, 'packscope-config-runs-nothing-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = sandbox.init('repo');
  for (let i = 1; i <= 4; i++) {
    fs.writeFileSync(path.join(repo, 'file.txt'), `line\n`.repeat(i * 10));
    sandbox.git(repo, ['add', 'file.txt']);
    sandbox.git(repo, ['commit', '-qm', `commit ${i}`]);
    sandbox.git(repo, ['repack', '-dq']);
  }
  fs.writeFileSync(path.join(repo, '.gitattributes'), 'file.txt diff=conv filter=f\n');
  marker = path.join(workspace, 'marker');
  sandbox.git(repo, ['config', 'core.fsmonitor', marking()]);
  sandbox.git(repo, ['config', 'diff.conv.textconv', marking('cat')]);
  sandbox.git(repo, ['config', 'filter.f.clean', marking('cat')]);
  sandbox.git(repo, ['config', 'filter.f.smudge', marking('cat')]);
  sandbox.git(repo, ['config', 'diff.external', marking()]);
  other = sandbox.init('other');
  fs.writeFileSync(path.join(other, 'file.txt'), 'other\n');
  sandbox.git(other, ['add', 'file.txt']);
  sandbox.git(other, ['commit', '-q', '-m', 'other']);
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: gitEnv(sandbox.home),
  });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

function assertNoMarker(what: string): void {
  assert.equal(fs.existsSync(marker), false, `${what}: a program the repository configures ran`);
}

describe('a repository’s configured programs never run', () => {
  for (const mode of [[], ['--cruft'], ['--geometric', '2']]) {
    test(`packscope repack-preview ${mode.join(' ') || '(default)'}`, () => {
      const result = runCli(['repack-preview', ...mode, repo], {
        env: gitEnv(sandbox.home) as Record<string, string>,
      });
      assert.equal(result.status, 0, result.stderr);
      assertNoMarker(`repack-preview ${mode.join(' ')}`);
    });
  }

  test('the server’s repack preview with its estimate, and its cruft and geometric previews', async () => {
    await server.connection.sendRequest(RepackPreviewRequest, {
      repository: repo,
      extraOptions: [],
      git: 'git',
      recordings: [],
      estimate: true,
    });
    assertNoMarker('the repack preview');
    for (const mode of [{ kind: 'cruft' as const }, { kind: 'geometric' as const, factor: 2 }]) {
      await server.connection.sendRequest(RepackModePreviewRequest, { repository: repo, mode, git: 'git' });
      assertNoMarker(`the ${mode.kind} preview`);
    }
  });

  test('the files to blame come from the server’s ls-files, which reads the index without the fsmonitor', async () => {
    const { repositories } = await server.connection.sendRequest(ListRepositoriesRequest, {});
    const listing = repositories.find((r) => r.workTree === repo);
    assert.ok(listing, JSON.stringify(repositories));
    const { files } = await server.connection.sendRequest(TrackedFilesRequest, { repository: listing.id, git: 'git' });
    assert.deepEqual(files, ['file.txt']);
    assertNoMarker('ls-files');
    await expectError(
      server.connection.sendRequest(TrackedFilesRequest, { repository: other + '-elsewhere', git: 'git' }),
      (error) => assert.match(error.message, /not a workspace repository/),
    );
  });

  test('Measure for real of commands that reach a textconv, a filter and the index', async () => {
    fs.writeFileSync(path.join(repo, 'file.txt'), 'changed\n');
    for (const args of [
      ['cat-file', '--filters', 'HEAD:file.txt'],
      ['grep', 'changed'],
    ]) {
      const result = await server.connection.sendRequest(MeasureRequest, {
        cwd: repo,
        args,
        git: 'git',
        limits: [0],
        runs: 1,
      });
      assert.equal(result.results.length, 1);
      assertNoMarker(`Measure of git ${args.join(' ')}`);
    }
    // The repository's textconv, emptied, cannot start: the command fails in git's words instead.
    for (const args of [
      ['log', '-p', '-2'],
      ['show', 'HEAD'],
    ]) {
      await expectError(
        server.connection.sendRequest(MeasureRequest, { cwd: repo, args, git: 'git', limits: [0], runs: 1 }),
        (error) => assert.match(error.message, /cannot run/),
      );
      assertNoMarker(`Measure of git ${args.join(' ')}`);
    }
  });
});

describe('Measure for real re-runs only commands that read', () => {
  const refused: [string[], RegExp][] = [
    [['config', '--global', 'core.fsmonitor', 'CMD'], /refuses "config"/],
    [['log', '-1', '--output=FILE'], /refuses "log --output=FILE": it writes a file/],
    [['--git-dir=OTHER', 'log'], /refuses "--git-dir=OTHER": it moves git to another repository/],
    [['config'], /refuses "config"/],
    [['commit', '--allow-empty', '-m', 'x'], /refuses "commit"/],
    [['gc', '--prune=now'], /refuses "gc"/],
    [['clean', '-fdx'], /refuses "clean"/],
    [['reset', '--hard'], /refuses "reset"/],
    [['push', 'origin'], /refuses "push"/],
    [['-c', 'include.path=INCLUDED', 'log'], /refuses "-c include.path=INCLUDED"/],
    [['-c', 'core.pager=CMD', 'log'], /refuses "-c core.pager=CMD"/],
    [['-C', 'OTHER', 'log'], /refuses "-C": it moves git to another repository/],
    [['--work-tree=OTHER', 'status'], /refuses "--work-tree=OTHER"/],
    [['--exec-path=OTHER', 'log'], /refuses "--exec-path=OTHER"/],
    [['--config-env=core.pager=X', 'log'], /refuses "--config-env=core.pager=X"/],
    [['--namespace=x', 'log'], /refuses "--namespace=x"/],
    [['archive', '--outp=FILE', 'HEAD'], /refuses "archive --outp=FILE": it writes a file/],
    [['archive', '-oFILE', 'HEAD'], /refuses "archive -oFILE": it writes a file/],
    [['archive', '--remote=OTHER', 'HEAD'], /refuses "archive --remote=OTHER"/],
    [['grep', '-O', 'line'], /refuses "grep -O"/],
    [['diff', '--ext-diff'], /refuses "diff --ext-diff"/],
    [['diff', '--no-index', 'a', 'b'], /refuses "diff --no-index"/],
  ];

  test('each refused command is refused with the part named, and nothing happens', async () => {
    const file = path.join(root, 'FILE');
    const included = path.join(root, 'included');
    fs.writeFileSync(included, `[core]\n\tpager = ${marking('cat')}\n`);
    const configBefore = fs.readFileSync(path.join(repo, '.git', 'config'), 'utf8');
    const head = sandbox.gitText(repo, ['rev-parse', 'HEAD']);
    for (const [pattern, expected] of refused) {
      const args = pattern.map((arg) =>
        arg
          .replaceAll('FILE', file)
          .replaceAll('OTHER', other)
          .replaceAll('INCLUDED', included)
          .replace('CMD', marking()),
      );
      const shown = new RegExp(
        expected.source
          .replaceAll('FILE', file)
          .replaceAll('OTHER', other)
          .replaceAll('INCLUDED', included)
          .replace('CMD', '.*'),
      );
      await expectError(
        server.connection.sendRequest(MeasureRequest, { cwd: repo, args, git: 'git', limits: [0], runs: 1 }),
        (error) => assert.match(error.message, shown, JSON.stringify(args)),
      );
    }
    assert.equal(fs.existsSync(file), false, 'no file was written');
    assert.equal(fs.readFileSync(path.join(repo, '.git', 'config'), 'utf8'), configBefore);
    assert.equal(fs.existsSync(path.join(sandbox.home, '.gitconfig')), false, 'the global configuration is untouched');
    assert.equal(sandbox.gitText(repo, ['rev-parse', 'HEAD']), head);
    assertNoMarker('a refused Measure');
  });

  test('what reads still runs: log, rev-list, cat-file, ls-tree, archive to stdout', async () => {
    for (const args of [
      ['log', '--raw', '-2'],
      ['rev-list', '--objects', '--all'],
      ['-c', 'core.deltaBaseCacheLimit=0', 'cat-file', '--batch-all-objects', '--batch-check'],
      ['ls-tree', '-r', 'HEAD'],
      ['archive', 'HEAD'],
      ['log', '--output-indicator-new=+', '-p', '-1'],
    ]) {
      const result = await server.connection.sendRequest(MeasureRequest, {
        cwd: other,
        args,
        git: 'git',
        limits: [0],
        runs: 1,
      });
      assert.equal(result.results.length, 1, JSON.stringify(args));
    }
    assertNoMarker('Measure of reading commands');
  });
});

describe('a server told that the workspace is untrusted runs no git on it', () => {
  let untrusted: LspServer;
  let recording: string;

  before(async () => {
    recording = path.join(root, 'other-log.psrec');
    const recorded = runCli(['record', '--exact', '-o', recording, '-C', other, '--', 'log', '--raw'], {
      env: gitEnv(sandbox.home) as Record<string, string>,
    });
    assert.equal(recorded.status, 0, recorded.stderr);
    untrusted = await LspServer.start({
      workspaceFolders: [path.dirname(repo)],
      settings: { modelCacheDirectory: path.join(root, 'untrusted-models'), workspaceTrusted: false },
      env: gitEnv(sandbox.home),
      recordingDirectory: path.join(root, 'untrusted-recordings'),
    });
    await untrusted.connection.sendRequest(AllowReadRequest, { file: recording });
  });

  after(async () => {
    await untrusted?.stop();
  });

  test('repack previews (the estimate too), Measure for real, recording, ls-files, sizes: refused with the reason', async () => {
    const refusal = /This workspace is not trusted: PackScope runs no git in it/;
    for (const estimateOnly of [false, true]) {
      await expectError(
        untrusted.connection.sendRequest(RepackPreviewRequest, {
          repository: repo,
          extraOptions: [],
          git: 'git',
          recordings: [],
          estimate: true,
          estimateOnly,
        }),
        (error) => assert.match(error.message, refusal),
      );
    }
    await expectError(
      untrusted.connection.sendRequest(RepackModePreviewRequest, {
        repository: repo,
        mode: { kind: 'cruft' },
        git: 'git',
      }),
      (error) => assert.match(error.message, refusal),
    );
    await expectError(
      untrusted.connection.sendRequest(MeasureRequest, {
        cwd: repo,
        args: ['log', '-1'],
        git: 'git',
        limits: [0],
        runs: 1,
      }),
      (error) => assert.match(error.message, refusal),
    );
    await expectError(
      untrusted.connection.sendRequest(RecordRequest, {
        cwd: repo,
        args: ['status'],
        output: path.join(root, 'untrusted-recordings', 'status.psrec'),
        mode: 'exact',
        git: 'git',
      }),
      (error) => assert.match(error.message, refusal),
    );
    const { repositories } = await untrusted.connection.sendRequest(ListRepositoriesRequest, {});
    const listing = repositories.find((r) => r.workTree === repo);
    assert.ok(listing, JSON.stringify(repositories));
    await expectError(
      untrusted.connection.sendRequest(TrackedFilesRequest, { repository: listing.id, git: 'git' }),
      (error) => assert.match(error.message, refusal),
    );
    // The history's sizes come from git's rev-list and diff-tree: not in Restricted Mode either.
    await expectError(untrusted.connection.sendRequest(SizesRequest, { repository: listing.id }), (error) =>
      assert.match(error.message, refusal),
    );
    assertNoMarker('an untrusted workspace');
  });

  test('a sweep still counts, and says why it has no time estimate', async () => {
    const sweep = await untrusted.connection.sendRequest(SweepRequest, {
      file: recording,
      policies: ['git'],
      limits: [0, 16 << 20],
      time: true,
    });
    assert.ok(sweep.results.length > 0);
    assert.equal(sweep.time, undefined);
    assert.match(sweep.timeError ?? '', /not trusted: PackScope runs no git in it, so no time estimate/);
  });
});
