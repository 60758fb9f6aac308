/**
 * packscope/sizes over LSP: the document of `packscope sizes --json` for a workspace repository,
 * computed in a task worker, whose rows equal what `git filter-repo --analyze` wrote for the same
 * repository (a clone the test made, so that both read the same packs); `rows` keeps the largest
 * paths and extensions (directories stay whole: a view's tree); a count it does not know and a repository outside the workspace are refused.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ErrorCodes } from 'vscode-languageserver/node';
import type { SizesRow } from '../../src/core/documents/sizes-document.ts';
import { ListRepositoriesRequest, SizesRequest } from '../../src/protocol/server-protocol.ts';
import { gitEnv, GitSandbox, tempDir } from '../support/git.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let clone: string;
let server: LspServer;

function commit(dir: string, message: string, step: number): void {
  const date = `${1_650_000_000 + step * 86_400} +0200`;
  sandbox.git(dir, ['add', '-A']);
  sandbox.git(dir, ['commit', '-q', '-m', message], { env: { GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date } });
}

before(async () => {
  root = tempDir(undefined, 'packscope-sizes-server-');
  sandbox = new GitSandbox(root);
  const source = sandbox.init('source');
  const write = (name: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(source, name)), { recursive: true });
    fs.writeFileSync(path.join(source, name), text);
  };
  write('src/a.c', 'int a;\n'.repeat(300));
  write('src/lib/b.h', 'int b;\n'.repeat(40));
  write('docs/old.txt', 'old\n'.repeat(100));
  write('.gitignore', '*.o\n');
  commit(source, 'first', 1);
  sandbox.git(source, ['mv', 'src/a.c', 'src/main.c']);
  commit(source, 'rename', 2);
  sandbox.git(source, ['rm', '-rq', 'docs']);
  write('src/lib/b.h', 'int b;\n'.repeat(41));
  commit(source, 'delete docs', 3);
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  clone = path.join(workspace, 'clone');
  sandbox.git(root, ['clone', '-q', '--no-local', source, clone]);
  sandbox.git(clone, ['filter-repo', '--analyze']);
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

/** filter-repo's rows of one report file: unpacked, packed, date, name. */
function filterRepoRows(file: string, empty: string): string[] {
  const text = fs.readFileSync(path.join(clone, '.git', 'filter-repo', 'analysis', file), 'utf8');
  return text
    .split('\n')
    .slice(2, -1)
    .map((line) => {
      const m = /^ +(\d+) +(\d+) (.{10}) (.*)$/.exec(line)!;
      return `${m[1]} ${m[2]} ${m[3]!.trim()} ${m[4] === empty ? '' : m[4]}`;
    });
}

const ours = (rows: SizesRow[]): string[] =>
  rows.map((r) => `${r.inflated} ${r.disk} ${r.deleted ?? '<present>'} ${r.path}`);

test("the document's rows are filter-repo's; rows keeps the largest paths and extensions", async () => {
  const listing = await server.connection.sendRequest(ListRepositoriesRequest, {});
  const id = listing.repositories.find((r) => 'id' in r)!.id as string;
  const document = await server.connection.sendRequest(SizesRequest, { repository: id });
  assert.equal(document.schema, 'packscope.sizes/1');
  assert.deepEqual(ours(document.paths), filterRepoRows('path-all-sizes.txt', ''));
  assert.deepEqual(ours(document.directories), filterRepoRows('directories-all-sizes.txt', '<toplevel>'));
  assert.deepEqual(ours(document.extensions), filterRepoRows('extensions-all-sizes.txt', '<no extension>'));
  assert.ok(
    document.paths.some((r) => r.deleted !== null),
    'a deleted path is in the case',
  );
  assert.ok(document.commits.length > 0);
  for (const c of document.commits)
    assert.equal(
      `${c.subject} ${c.date}`,
      sandbox.gitText(clone, ['log', '-1', '--date=short', '--format=%s %cd', c.commit]).trim(),
    );
  const two = await server.connection.sendRequest(SizesRequest, { repository: id, rows: 2, top: 1 });
  assert.deepEqual(two.directories, document.directories, 'directories stay complete');
  const kept = (rows: SizesRow[]): SizesRow[] => {
    const deleted = rows.filter((r) => r.deleted !== null).slice(0, 2);
    return rows.filter((r, i) => i < 2 || deleted.includes(r));
  };
  assert.deepEqual(two.paths, kept(document.paths), 'the two largest paths, and the two largest deleted');
  assert.deepEqual(two.extensions, kept(document.extensions));
  assert.equal(two.commits.length, 1);
  await expectError(
    server.connection.sendRequest(SizesRequest, { repository: id, count: 'per-byte' as 'per-blob' }),
    (error) => assert.equal(error.code, ErrorCodes.InvalidParams),
  );
  await expectError(server.connection.sendRequest(SizesRequest, { repository: path.join(root, 'source') }), (error) =>
    assert.equal(error.code, ErrorCodes.InvalidParams),
  );
});
