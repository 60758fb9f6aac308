/**
 * The server shows what a Git developer knows an object by: a hover on a blob's id names its path
 * (the name `git rev-list --objects --all` prints), a hover on a commit its subject (`git log -1
 * --format=%s`); packscope/object and the Packs view's lists carry the same, once the repository's
 * walk (a task worker) has finished. Real server over stdio, real repository.
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
import {
  ListRepositoriesRequest,
  ObjectListRequest,
  ObjectNamesRequest,
  ObjectRequest,
} from '../../src/protocol/server-protocol.ts';
import { gitEnv, GitSandbox, tempDir } from '../support/git.ts';
import { LspServer } from '../support/lsp-server.ts';
import { pathsRepository, revListNames } from '../support/paths-repository.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let server: LspServer;

before(async () => {
  root = tempDir(undefined, 'packscope-paths-server-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = pathsRepository(sandbox, 'repo', 80);
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

/** Hovers on `oid` until `ready` accepts the Markdown (the walk runs in the background), for at most 30 s. */
async function hoverUntil(oid: string, ready: (markdown: string) => boolean): Promise<string> {
  const uri = pathToFileURL(path.join(root, `notes-${oid}.txt`)).href;
  await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'plaintext', version: 1, text: `see ${oid}\n` },
  });
  let last = '';
  for (let i = 0; i < 300; i++) {
    const hover = (await server.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 0, character: 8 },
    })) as Hover | null;
    last = hover ? (hover.contents as MarkupContent).value : '';
    if (ready(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(
    `no hover on ${oid} met the condition in 30 s; the last was:\n${last}\nserver log:\n${server.log.join('\n')}`,
  );
}

describe('hovers, objects and lists name objects', () => {
  test("a blob's hover shows rev-list's path; a commit's hover shows its subject", async () => {
    const names = revListNames(sandbox, repo);
    const blob = sandbox.gitText(repo, ['rev-parse', 'main:renamed/same.txt']).trim();
    const expected = Buffer.from(names.get(blob)!, 'latin1').toString('utf8');
    assert.ok(expected.length > 0);
    const markdown = await hoverUntil(blob, (value) => value.includes('path `'));
    assert.ok(markdown.includes(`path \`${expected}\``), markdown);
    assert.ok(
      server.log.some((line) => /object paths of .*: walked \d+ commits and \d+ trees, \d+ objects named/.test(line)),
      server.log.join('\n'),
    );

    const commit = sandbox.gitText(repo, ['rev-parse', 'main~1']).trim();
    const subject = sandbox.gitText(repo, ['log', '-1', '--format=%s', commit]).trim();
    const commitHover = await hoverUntil(commit, (value) => value.length > 0);
    assert.ok(commitHover.includes(`\n${subject}\n`), commitHover);
  });

  test('packscope/object and the largest-objects list carry the same path', async () => {
    const names = revListNames(sandbox, repo);
    const tree = sandbox.gitText(repo, ['rev-parse', 'main:deep/a/b']).trim();
    const found = await server.connection.sendRequest(ObjectRequest, { oid: tree });
    assert.ok(found.found);
    assert.equal(Buffer.from(found.object.path ?? '', 'utf8').toString('latin1'), names.get(tree));
    const listing = await server.connection.sendRequest(ListRepositoriesRequest, {});
    const pack = listing.repositories.flatMap((r) => r.packs).sort((a, b) => (b.objects ?? 0) - (a.objects ?? 0))[0]!;
    const page = await server.connection.sendRequest(ObjectListRequest, {
      pack: pack.pack,
      kind: 'largest',
      start: 0,
      count: 20,
    });
    assert.ok(page.items.length > 0);
    for (const item of page.items) {
      if (item.type === 'commit')
        assert.equal(item.subject, sandbox.gitText(repo, ['log', '-1', '--format=%s', item.oid]).trim());
      else
        assert.equal(
          item.path === null ? undefined : Buffer.from(item.path ?? '', 'utf8').toString('latin1'),
          names.get(item.oid),
          item.oid,
        );
    }
  });

  test("packscope/objectNames (the repack preview's tables) gives rev-list's paths by id", async () => {
    const names = revListNames(sandbox, repo);
    const blob = sandbox.gitText(repo, ['rev-parse', 'main:renamed/same.txt']).trim();
    const tree = sandbox.gitText(repo, ['rev-parse', 'main:deep/a/b']).trim();
    const commit = sandbox.gitText(repo, ['rev-parse', 'main~1']).trim();
    const repository = path.join(repo, '.git');
    let answer = await server.connection.sendRequest(ObjectNamesRequest, { repository, oids: [blob, tree, commit] });
    for (let i = 0; i < 300 && answer.names.some((name) => name.namesPending); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await server.connection.sendRequest(ObjectNamesRequest, { repository, oids: [blob, tree, commit] });
    }
    assert.deepEqual(
      answer.names.map((name) =>
        name.path === undefined ? undefined : Buffer.from(name.path ?? '', 'utf8').toString('latin1'),
      ),
      [names.get(blob), names.get(tree), undefined],
    );
  });

  test("a blob's hover, its object and its document name the commit that introduced it at its path, as git log --find-object does", async () => {
    const blob = sandbox.gitText(repo, ['rev-parse', 'main:renamed/same.txt']).trim();
    const expected = lastAddingCommit(blob, 'renamed/same.txt');
    assert.ok(expected);
    const subject = sandbox.gitText(repo, ['log', '-1', '--format=%s', expected]).trim();
    const markdown = await hoverUntil(blob, (value) => value.includes('introduced by `'));
    assert.ok(markdown.includes(`introduced by \`${expected.slice(0, 12)}\` ${subject}`), markdown);
    const found = await server.connection.sendRequest(ObjectRequest, { oid: blob, introducedBy: true });
    assert.ok(found.found);
    assert.deepEqual(found.object.introducedBy, { commit: expected, subject });
    // Not asked for (a chain, an id being typed): no git runs for it, none is said.
    const plain = await server.connection.sendRequest(ObjectRequest, { oid: blob });
    assert.ok(plain.found);
    assert.equal(plain.object.introducedBy, undefined);
    // A tree too (git log --find-object implies -t).
    const tree = sandbox.gitText(repo, ['rev-parse', 'main:deep/a']).trim();
    const treeExpected = lastAddingCommit(tree, 'deep/a');
    let treeFound;
    for (let i = 0; i < 100; i++) {
      treeFound = await server.connection.sendRequest(ObjectRequest, { oid: tree, introducedBy: true });
      if (treeFound.found && treeFound.object.introducedBy?.resolving !== true) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(treeFound?.found);
    assert.equal(treeFound.object.introducedBy?.commit, treeExpected);
  });
});

/**
 * git's answer: the last commit `git log --all --find-object` lists (merges diffed against each
 * parent, renames off) whose raw change has `oid` as the new side at `file`.
 */
function lastAddingCommit(oid: string, file: string): string | null {
  const output = sandbox.gitText(repo, [
    '-c',
    'core.quotePath=false',
    'log',
    '--all',
    `--find-object=${oid}`,
    '--no-renames',
    '--diff-merges=separate',
    '--format=commit %H',
    '--raw',
    '--no-abbrev',
  ]);
  let commit: string | null = null;
  let last: string | null = null;
  for (const line of output.split('\n')) {
    if (line.startsWith('commit ')) commit = line.slice(7);
    const [header, changed] = line.split('\t');
    const [, , before, after] = (header ?? '').split(' ');
    if (line.startsWith(':') && after === oid && before !== oid && changed === file) last = commit;
  }
  return last;
}
