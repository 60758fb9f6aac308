/**
 * The server against a hostile repository and a hostile client. A pack whose
 * file name is Markdown (built with git, then renamed) must not put a link, an image or a trusted
 * command into the hover; `packscope/record` and `packscope/measure` run only the configured git and
 * write recordings only into the recording directory named at initialization, never in a repository.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  DidOpenTextDocumentNotification,
  HoverRequest,
  type Hover,
  type MarkupContent,
} from 'vscode-languageserver-protocol/node';
import { MeasureRequest, ObjectRequest, RecordRequest } from '../../src/protocol/server-protocol.ts';
import { gitEnv, GitSandbox, packStems, tempDir } from '../support/git.ts';
import { historyRepository } from '../support/git-oracle.ts';
import { LspServer, expectError } from '../support/lsp-server.ts';
import { linksOf } from '../support/markdown-tokens.ts';

// A file name cannot hold `/`, so the URLs use what renderers accept without one.
const HOSTILE_PACK_NAME =
  'pack-`](http:evil.invalid) ![i](https:evil.invalid%2Fi.png) <img src=x> [c](command:packscope.openObject?%5B%7B%22oid%22%3A%22x%22%7D%5D) `x.pack';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let other: string;
let recordings: string;
let server: LspServer;

before(async () => {
  root = tempDir(undefined, 'packscope-hostile-trust-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = historyRepository(sandbox, 'hostile', { commits: 20, seed: 3, repack: ['-adf'] });
  const stem = packStems(path.join(repo, '.git', 'objects'))[0]!;
  const packDir = path.dirname(stem);
  const crafted = path.join(packDir, HOSTILE_PACK_NAME.slice(0, -'.pack'.length));
  for (const extension of ['.pack', '.idx']) fs.renameSync(`${stem}${extension}`, `${crafted}${extension}`);
  for (const extension of ['.rev', '.bitmap']) fs.rmSync(`${stem}${extension}`, { force: true });
  other = historyRepository(sandbox, 'other', { commits: 3, seed: 4, repack: ['-ad'] });
  recordings = path.join(root, 'storage', 'recordings');
  fs.mkdirSync(recordings, { recursive: true });
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: gitEnv(sandbox.home),
    recordingDirectory: recordings,
  });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('a pack named with backticks and Markdown', () => {
  test("the hover shows the name as code: its only links are PackScope's two commands, no image, no HTML", async () => {
    const commit = sandbox.gitText(repo, ['rev-parse', 'HEAD']).trim();
    const found = await server.connection.sendRequest(ObjectRequest, { oid: commit });
    assert.ok(found.found, 'the renamed pack is read');
    const uri = pathToFileURL(path.join(root, 'notes.txt')).href;
    await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'plaintext', version: 1, text: `see ${commit}\n` },
    });
    let hover: Hover | null = null;
    for (let i = 0; i < 100 && hover === null; i++) {
      hover = (await server.connection.sendRequest(HoverRequest.type, {
        textDocument: { uri },
        position: { line: 0, character: 8 },
      })) as Hover | null;
      if (hover === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(hover, 'a hover on the commit');
    const value = (hover.contents as MarkupContent).value;
    const { links, images, html } = linksOf(value);
    assert.deepEqual(images, [], value);
    assert.equal(html, false, value);
    assert.equal(links.length, 2, value);
    const [reveal, open] = links.map((link) => /^command:(packscope\.\w+)\?(.*)$/.exec(link));
    assert.equal(reveal?.[1], 'packscope.revealObject', value);
    assert.equal(open?.[1], 'packscope.openObject', value);
    for (const link of [reveal!, open!])
      assert.deepEqual(JSON.parse(decodeURIComponent(link[2]!)), [
        { oid: commit, repository: path.join(repo, '.git') },
      ]);
    assert.ok(
      value.includes('\n``pack-`](http:evil.invalid)'),
      `the name is in a code span fenced longer than its backticks: ${value}`,
    );
  });
});

describe('packscope/record and packscope/measure against a hostile client', () => {
  test('git: "python3" is refused, and python is not run', async () => {
    const marker = path.join(root, 'python-ran');
    const script = `open(${JSON.stringify(marker)}, "w").write("ran")`;
    await expectError(
      server.connection.sendRequest(RecordRequest, {
        cwd: repo,
        args: ['-c', script],
        output: path.join(recordings, 'py.psrec'),
        mode: 'exact',
        git: 'python3',
      }),
      (error) => assert.match(error.message, /runs only the git it was configured with/),
    );
    await expectError(
      server.connection.sendRequest(MeasureRequest, {
        cwd: repo,
        args: ['-c', script],
        git: 'python3',
        limits: [0],
        runs: 1,
      }),
      (error) => assert.match(error.message, /runs only the git it was configured with/),
    );
    assert.ok(!fs.existsSync(marker), 'python3 did not run');
    assert.deepEqual(fs.readdirSync(recordings), []);
  });

  test('non-string git arguments are refused', async () => {
    await expectError(
      server.connection.sendRequest(MeasureRequest, {
        cwd: repo,
        args: ['log', 7 as unknown as string],
        git: 'git',
        limits: [0],
        runs: 1,
      }),
      (error) => assert.match(error.message, /must be a string/),
    );
  });

  test("a recording inside another repository's .git/objects/pack, or outside the recording directory, is refused and nothing is created", async () => {
    const packDir = path.join(other, '.git', 'objects', 'pack');
    const before = fs.readdirSync(packDir).sort();
    for (const output of [
      path.join(packDir, 'pack-evil.psrec'),
      path.join(packDir, 'sub', 'x.psrec'),
      path.join(root, 'elsewhere', 'x.psrec'),
      path.join(recordings, '..', 'escape.psrec'),
    ]) {
      await expectError(
        server.connection.sendRequest(RecordRequest, {
          cwd: repo,
          args: ['log', '-1'],
          output,
          mode: 'exact',
          git: 'git',
        }),
        (error) => assert.match(error.message, /recordings are written only into/),
      );
      assert.ok(!fs.existsSync(output), output);
    }
    assert.deepEqual(
      fs.readdirSync(packDir).sort(),
      before,
      "nothing written in the other repository's pack directory",
    );
    assert.ok(!fs.existsSync(path.join(root, 'elsewhere')));
  });

  test('a symbolic link in the recording directory that leads into a repository is refused', async () => {
    const link = path.join(recordings, 'into-other');
    fs.symlinkSync(path.join(other, '.git', 'objects', 'pack'), link);
    try {
      await expectError(
        server.connection.sendRequest(RecordRequest, {
          cwd: repo,
          args: ['log', '-1'],
          output: path.join(link, 'x.psrec'),
          mode: 'exact',
          git: 'git',
        }),
        (error) => assert.match(error.message, /symbolic link leads out of it/),
      );
      assert.ok(!fs.existsSync(path.join(other, '.git', 'objects', 'pack', 'x.psrec')));
    } finally {
      fs.rmSync(link);
    }
  });

  test('a repository made inside the recording directory is not written into', async () => {
    const nested = sandbox.init('nested-target');
    const inside = path.join(recordings, 'nested');
    fs.renameSync(nested, inside);
    try {
      const output = path.join(inside, '.git', 'objects', 'pack', 'x.psrec');
      await expectError(
        server.connection.sendRequest(RecordRequest, {
          cwd: repo,
          args: ['log', '-1'],
          output,
          mode: 'exact',
          git: 'git',
        }),
        (error) => assert.match(error.message, /is inside the repository/),
      );
      assert.ok(!fs.existsSync(output));
    } finally {
      fs.rmSync(inside, { recursive: true, force: true });
    }
  });

  test('a recording directory inside a workspace repository is refused; without one the server records nothing', async () => {
    const insideOther = path.join(other, 'storage');
    const inRepository = await LspServer.start({
      workspaceFolders: [],
      settings: { repositories: [other], modelCacheDirectory: path.join(root, 'models-2') },
      env: gitEnv(sandbox.home),
      recordingDirectory: insideOther,
    });
    const none = await LspServer.start({
      workspaceFolders: [],
      settings: { modelCacheDirectory: path.join(root, 'models-3') },
      env: gitEnv(sandbox.home),
    });
    try {
      await expectError(
        inRepository.connection.sendRequest(RecordRequest, {
          cwd: repo,
          args: ['log', '-1'],
          output: path.join(insideOther, 'x.psrec'),
          mode: 'exact',
          git: 'git',
        }),
        (error) => assert.match(error.message, /is inside the repository/),
      );
      assert.ok(!fs.existsSync(insideOther));
      await expectError(
        none.connection.sendRequest(RecordRequest, {
          cwd: repo,
          args: ['log', '-1'],
          output: path.join(recordings, 'y.psrec'),
          mode: 'exact',
          git: 'git',
        }),
        (error) => assert.match(error.message, /none was named/),
      );
    } finally {
      await inRepository.stop();
      await none.stop();
    }
  });

  test('a recording directory inside a repository outside the workspace (a home kept in git) records nothing there', async () => {
    const home = sandbox.init('home-in-git');
    const storage = path.join(home, '.local', 'share', 'storage', 'recordings');
    const homeServer = await LspServer.start({
      workspaceFolders: [],
      settings: { modelCacheDirectory: path.join(root, 'models-4') },
      env: gitEnv(sandbox.home),
      recordingDirectory: storage,
    });
    try {
      await expectError(
        homeServer.connection.sendRequest(RecordRequest, {
          cwd: repo,
          args: ['log', '-1'],
          output: path.join(storage, 'x.psrec'),
          mode: 'exact',
          git: 'git',
        }),
        (error) => assert.match(error.message, /PackScope never writes inside a repository/),
      );
      assert.ok(!fs.existsSync(path.join(home, '.local')), 'not even the directories were made');
    } finally {
      assert.equal(await homeServer.stop(), 0);
    }
  });

  test('the configured git records into the recording directory', async () => {
    const output = path.join(recordings, 'fine', 'log.psrec');
    const info = await server.connection.sendRequest(RecordRequest, {
      cwd: repo,
      args: ['log', '-1'],
      output,
      mode: 'exact',
      git: 'git',
    });
    assert.equal(info.file, output);
    assert.ok(fs.existsSync(output));
  });
});
