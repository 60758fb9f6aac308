/**
 * packscope/pathBlobs over LSP: the blobs that were ever at a path, from the sizes walk the server
 * keeps, checked against git on a repository the test makes (renames, a reverted content, one
 * content at two paths, a merge, a deletion, a path with many versions): the set of blobs is what
 * `git log --all -c --raw -- PATH` shows arriving at the path, each blob's sizes are `cat-file`'s,
 * its depth `verify-pack -v`'s, its commit the first in `rev-list --topo-order --reverse --all`
 * whose diff shows it, newest first; pages and the total say how many there are.
 */
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ErrorCodes } from 'vscode-languageserver/node';
import { ListRepositoriesRequest, PathBlobsRequest, SizesRequest } from '../../src/protocol/server-protocol.ts';
import { gitEnv, GitSandbox, tempDir } from '../support/git.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let server: LspServer;
let id: string;
let step = 0;

function commit(message: string): void {
  const date = `${1_650_000_000 + ++step * 86_400} +0000`;
  sandbox.git(repo, ['add', '-A']);
  sandbox.git(repo, ['commit', '-q', '-m', message], { env: { GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date } });
}

function write(name: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(repo, name)), { recursive: true });
  fs.writeFileSync(path.join(repo, name), content);
}

/** Text that deltas well against its earlier versions: the same lines with one changed. */
const version = (n: number): string =>
  Array.from({ length: 400 }, (_, i) => `line ${i} of the log${i === n ? ` changed in version ${n}` : ''}\n`).join('');

before(async () => {
  root = tempDir(undefined, 'packscope-path-blobs-');
  sandbox = new GitSandbox(root);
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  repo = sandbox.init('workspace/repo');
  write('src/a.c', 'int a;\n'.repeat(300));
  write('docs/log.txt', version(0));
  write('assets/logo.bin', crypto.createHash('sha256').update('logo').digest());
  commit('first');
  sandbox.git(repo, ['mv', 'src/a.c', 'src/main.c']);
  commit('rename a.c');
  write('src/main.c', 'int main;\n'.repeat(300));
  commit('change main.c');
  write('src/main.c', 'int a;\n'.repeat(300));
  commit('revert main.c');
  // The same content at a second path.
  write('src/copy.c', 'int main;\n'.repeat(300));
  commit('copy');
  sandbox.git(repo, ['checkout', '-q', '-b', 'side']);
  write('src/side.c', 'side\n');
  write('docs/log.txt', `${version(0)}side\n`);
  commit('side change');
  sandbox.git(repo, ['checkout', '-q', 'main']);
  for (let n = 1; n <= 30; n++) {
    write('docs/log.txt', version(n));
    commit(`log ${n}`);
  }
  sandbox.git(repo, ['merge', '-q', '--no-edit', '-X', 'ours', 'side'], {
    env: { GIT_COMMITTER_DATE: `${1_650_000_000 + ++step * 86_400} +0000` },
  });
  sandbox.git(repo, ['rm', '-q', 'assets/logo.bin']);
  commit('delete the logo');
  // Deltas, so that depths are not all 0.
  sandbox.git(repo, ['repack', '-adfq', '--depth=10', '--window=50']);
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: gitEnv(sandbox.home),
  });
  const listing = await server.connection.sendRequest(ListRepositoriesRequest, {});
  id = listing.repositories.find((r) => 'id' in r)!.id as string;
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The blobs git's raw diffs show arriving at `file` in any commit of any ref (a merge's combined diff included). */
function gitBlobsAt(file: string): Set<string> {
  const text = sandbox.gitText(repo, [
    'log',
    '--all',
    '--full-history',
    '-c',
    '--raw',
    '--no-abbrev',
    '--format=',
    '--',
    file,
  ]);
  const found = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^(:+)(\S.*?)\t/.exec(line);
    if (!m) continue;
    const parents = m[1]!.length;
    const fields = m[2]!.split(' ');
    // Modes, one per parent and the result's, then ids likewise, then the status.
    const result = fields[2 * parents + 1]!;
    if (!/^0+$/.test(result)) found.add(result);
  }
  return found;
}

/** Each blob's first commit in the analysed order, and each commit's place in it. */
function firstCommits(): { first: Map<string, string>; order: Map<string, number> } {
  const commits = sandbox.gitText(repo, ['rev-list', '--topo-order', '--reverse', '--all']).trim().split('\n');
  const first = new Map<string, string>();
  const order = new Map<string, number>();
  commits.forEach((c, i) => order.set(c, i));
  for (const c of commits) {
    const raw = sandbox.gitText(repo, ['diff-tree', '--root', '--always', '-c', '-M', '-r', '--raw', '--no-abbrev', c]);
    for (const line of raw.split('\n')) {
      const m = /^(:+)(\S.*?)\t/.exec(line);
      if (!m) continue;
      const fields = m[2]!.split(' ');
      const result = fields[2 * m[1]!.length + 1]!;
      if (!/^0+$/.test(result) && !first.has(result)) first.set(result, c);
    }
  }
  return { first, order };
}

/** `verify-pack -v`: each packed object's depth (0 when stored whole). */
function packDepths(): Map<string, number> {
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  const idx = fs.readdirSync(packDir).find((f) => f.endsWith('.idx'))!;
  const text = sandbox.gitText(repo, ['verify-pack', '-v', path.join(packDir, idx)]);
  const depths = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{40}) (\w+) +\d+ \d+ \d+(?: (\d+) [0-9a-f]{40})?$/.exec(line);
    if (m) depths.set(m[1]!, m[3] === undefined ? 0 : Number(m[3]));
  }
  return depths;
}

test('the blobs at every path of the history are the ones git shows there, with their sizes, depths and first commits', async () => {
  const document = await server.connection.sendRequest(SizesRequest, { repository: id });
  const { first, order } = firstCommits();
  const depths = packDepths();
  assert.ok(
    [...depths.values()].some((d) => d > 1),
    'the case has chains deeper than one',
  );
  for (const row of document.paths) {
    const answer = await server.connection.sendRequest(PathBlobsRequest, {
      repository: id,
      path: row.path,
      count: 1000,
    });
    const expected = gitBlobsAt(row.path);
    assert.equal(answer.total, expected.size, row.path);
    assert.deepEqual(new Set(answer.blobs.map((b) => b.oid)), expected, row.path);
    const checks = sandbox
      .gitText(repo, ['cat-file', '--batch-check=%(objectname) %(objectsize) %(objectsize:disk)'], {
        input: answer.blobs.map((b) => b.oid).join('\n') + '\n',
      })
      .trim()
      .split('\n');
    answer.blobs.forEach((blob, i) => {
      assert.equal(`${blob.oid} ${blob.inflated} ${blob.disk}`, checks[i], row.path);
      assert.equal(blob.stored, 'packed');
      assert.equal(blob.depth, depths.get(blob.oid), `${row.path} ${blob.oid}`);
      assert.equal(blob.commit, first.get(blob.oid), `${row.path} ${blob.oid}`);
      assert.equal(blob.date, sandbox.gitText(repo, ['log', '-1', '--date=short', '--format=%cd', blob.commit]).trim());
      if (i > 0)
        assert.ok(order.get(blob.commit)! <= order.get(answer.blobs[i - 1]!.commit)!, `${row.path}: newest first`);
    });
    // The per-path totals are the sums over the blobs at the path (filter-repo's per-path count).
    assert.equal(
      answer.blobs.reduce((sum, b) => sum + b.disk, 0),
      row.disk,
      row.path,
    );
  }
  const log = await server.connection.sendRequest(PathBlobsRequest, { repository: id, path: 'docs/log.txt' });
  assert.equal(log.total, 33, 'version 0, the side branch, 30 more, the merge of both');
  const page = await server.connection.sendRequest(PathBlobsRequest, {
    repository: id,
    path: 'docs/log.txt',
    start: 10,
    count: 5,
  });
  assert.deepEqual(
    page.blobs,
    (
      await server.connection.sendRequest(PathBlobsRequest, { repository: id, path: 'docs/log.txt', count: 15 })
    ).blobs.slice(10),
  );
  assert.equal(page.total, 33);
  const reverted = await server.connection.sendRequest(PathBlobsRequest, { repository: id, path: 'src/main.c' });
  assert.equal(reverted.total, 2, 'a content that came back is one blob');
  const none = await server.connection.sendRequest(PathBlobsRequest, { repository: id, path: 'no/such/file' });
  assert.deepEqual(none, { path: 'no/such/file', total: 0, blobs: [] });
  await expectError(
    server.connection.sendRequest(PathBlobsRequest, { repository: id, path: 'src/main.c', count: 5000 }),
    (error) => assert.equal(error.code, ErrorCodes.InvalidParams),
  );
});

test('pathBlobs reads the history itself when no walk of the current packs is kept', async () => {
  write('late.txt', 'late\n');
  commit('late');
  sandbox.git(repo, ['repack', '-adq']);
  // The packs changed: the kept walk is stale, and the answer must know the new path.
  await waitFor(async () => {
    const answer = await server.connection.sendRequest(PathBlobsRequest, { repository: id, path: 'late.txt' });
    return answer.total === 1;
  });
  const reused = await server.connection.sendRequest(SizesRequest, { repository: id, reuse: true });
  assert.ok(
    reused.paths.some((r) => r.path === 'late.txt'),
    'the walk pathBlobs made is the one reused',
  );
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
