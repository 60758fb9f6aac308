/**
 * Who names the server's objects by path: git rev-list in a trusted workspace (the same names at
 * about a quarter of the walk's CPU), the walk in Restricted Mode, where PackScope runs no git.
 * Either way a hover names the blob as rev-list does. Real servers over stdio, a real repository.
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
import { gitEnv, GitSandbox, pausingGit, tempDir } from '../support/git.ts';
import { LspServer } from '../support/lsp-server.ts';
import { pathsRepository, revListNames } from '../support/paths-repository.ts';

let root: string;
let workspace: string;
let sandbox: GitSandbox;
let repo: string;

before(() => {
  root = tempDir(undefined, 'packscope-names-source-');
  workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = pathsRepository(sandbox, 'repo', 60);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The hover on `oid` once it names a path (the naming runs in the background), for at most 30 s. */
async function pathHover(server: LspServer, oid: string): Promise<string> {
  const uri = pathToFileURL(path.join(root, `notes-${oid}.txt`)).href;
  await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'plaintext', version: 1, text: `see ${oid}\n` },
  });
  let last = '';
  for (const started = Date.now(); Date.now() - started < 30_000;) {
    const hover = (await server.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 0, character: 8 },
    })) as Hover | null;
    last = hover ? (hover.contents as MarkupContent).value : '';
    if (last.includes('path `')) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`no path in the hover on ${oid} in 30 s; the last was:\n${last}\nserver log:\n${server.log.join('\n')}`);
}

describe('who names the objects', () => {
  for (const trusted of [true, false])
    test(`${trusted ? 'a trusted workspace: git rev-list' : 'Restricted Mode: the walk, no git'}`, async () => {
      const server = await LspServer.start({
        workspaceFolders: [workspace],
        settings: { modelCacheDirectory: path.join(root, `models-${trusted}`), workspaceTrusted: trusted },
        env: gitEnv(sandbox.home),
      });
      try {
        const blob = sandbox.gitText(repo, ['rev-parse', 'main:renamed/same.txt']).trim();
        const expected = Buffer.from(revListNames(sandbox, repo).get(blob)!, 'latin1').toString('utf8');
        const markdown = await pathHover(server, blob);
        assert.ok(markdown.includes(`path \`${expected}\``), markdown);
        const named = server.log.filter((line) => /object paths of .*: walked \d+ commits/.test(line));
        assert.equal(named.length, 1, server.log.join('\n'));
        assert.equal(named[0]!.includes('by git rev-list'), trusted, named[0]);
        assert.equal(
          server.log.some((line) => line.includes('git did not name')),
          false,
          server.log.join('\n'),
        );
      } finally {
        await server.stop();
      }
    });
});

test('while git lists the objects, a hover says how far it is, then names the blob', async () => {
  // A git whose rev-list --objects gives its first 5 lines, then waits 3 s before the rest; every other git is git.
  const slowGit = pausingGit(path.join(root, 'slow-bin'), 'rev-list --objects', 5, 3);
  const server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models-slow'), workspaceTrusted: true, git: slowGit },
    env: gitEnv(sandbox.home),
  });
  try {
    const blob = sandbox.gitText(repo, ['rev-parse', 'main:renamed/same.txt']).trim();
    const objects = Number(/^in-pack: (\d+)$/m.exec(sandbox.gitText(repo, ['count-objects', '-v']))![1]);
    const uri = pathToFileURL(path.join(root, `notes-slow-${blob}.txt`)).href;
    await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'plaintext', version: 1, text: `see ${blob}\n` },
    });
    const seen: string[] = [];
    for (const started = Date.now(); Date.now() - started < 30_000;) {
      const hover = (await server.connection.sendRequest(HoverRequest.type, {
        textDocument: { uri },
        position: { line: 0, character: 8 },
      })) as Hover | null;
      const markdown = hover ? (hover.contents as MarkupContent).value : '';
      seen.push(markdown);
      if (markdown.includes('path `')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const progress = seen
      .map((markdown) => /resolving names… \(git rev-list has listed ([\d,]+) of ([\d,]+) objects\)/.exec(markdown))
      .filter((match) => match !== null);
    assert.ok(progress.length > 0, `no count while git listed:\n${seen.at(-1)}\n${server.log.join('\n')}`);
    for (const [, listedText, totalText] of progress) {
      const listed = Number(listedText!.replace(/,/g, ''));
      assert.ok(listed >= 5, 'the lines git had given');
      // Against the packs' objects; git also lists the loose ones, so its count may pass them.
      assert.equal(Number(totalText!.replace(/,/g, '')), Math.max(objects, listed));
    }
    const expected = Buffer.from(revListNames(sandbox, repo).get(blob)!, 'latin1').toString('utf8');
    assert.ok(seen.at(-1)!.includes(`path \`${expected}\``), seen.at(-1));
  } finally {
    await server.stop();
  }
});
