/**
 * packscope/objectList's filter (types and a depth range), driven over LSP against the bundled
 * server: the filtered pages hold exactly the objects git's verify-pack and cat-file say pass, in
 * the list's own order; a bad filter is refused with what is wrong.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ResponseError } from 'vscode-languageserver-protocol/node';
import {
  ObjectListRequest,
  type ObjectItem,
  type ObjectListFilter,
  type ObjectListKind,
} from '../../src/protocol/server-protocol.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import { historyRepository, verifyPackEntries, type VerifyPackEntry } from '../support/git-oracle.ts';
import { LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let server: LspServer;
let repo: string;
let stem: string;
let entries: VerifyPackEntry[];
/** Each object's type from git cat-file (a delta's is its base's). */
let types: Map<string, string>;

before(async () => {
  root = tempDir(undefined, 'packscope-filter-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = historyRepository(sandbox, 'history', {
    commits: 120,
    seed: 11,
    repack: ['-adf', '--depth=50', '--window=10'],
  });
  stem = packStems(path.join(repo, '.git', 'objects'))[0]!;
  entries = verifyPackEntries(sandbox, repo, `${stem}.idx`);
  types = new Map(
    sandbox
      .gitText(repo, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)'])
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
  });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

async function wholeList(
  kind: Exclude<ObjectListKind, 'children'>,
  filter: ObjectListFilter | undefined,
  pageSize: number,
): Promise<{ items: ObjectItem[]; total: number }> {
  const items: ObjectItem[] = [];
  for (let start = 0; ; start += pageSize) {
    const page = await server.connection.sendRequest(ObjectListRequest, {
      pack: `${stem}.pack`,
      kind,
      start,
      count: pageSize,
      filter,
    });
    items.push(...page.items);
    if (items.length >= page.total) return { items, total: page.total };
  }
}

test('a filtered list holds exactly the objects of those types and depths, in the list order', async () => {
  const filter: ObjectListFilter = { types: ['blob', 'tree'], minDepth: 2, maxDepth: 6 };
  const expected = entries.filter((e) => e.depth >= 2 && e.depth <= 6 && ['blob', 'tree'].includes(types.get(e.oid)!));
  assert.ok(
    expected.length > 20 && expected.length < entries.length / 2,
    `the test pack has ${expected.length} such objects of ${entries.length}`,
  );
  const { items, total } = await wholeList('deepest', filter, 7);
  assert.equal(total, expected.length);
  assert.deepEqual(items.map((i) => i.oid).sort(), expected.map((e) => e.oid).sort());
  for (const item of items) assert.equal(item.type, types.get(item.oid));
  // The unfiltered order, with the others left out.
  const whole = (await wholeList('deepest', undefined, 500)).items.map((i) => i.oid);
  const kept = new Set(items.map((i) => i.oid));
  assert.deepEqual(
    items.map((i) => i.oid),
    whole.filter((oid) => kept.has(oid)),
  );
});

test('a type alone, a depth alone, and a filter that keeps nothing', async () => {
  const commits = await wholeList('largest', { types: ['commit'] }, 100);
  assert.equal(commits.total, [...types.values()].filter((t) => t === 'commit').length);
  const whole = await wholeList('largestOnDisk', { minDepth: 0 }, 1000);
  assert.equal(whole.total, entries.length);
  const maxDepth = Math.max(...entries.map((e) => e.depth));
  const deepest = await wholeList('families', { minDepth: maxDepth }, 100);
  assert.equal(deepest.total, 0, 'a family root has depth 0');
  const none = await wholeList('deepest', { minDepth: maxDepth + 1 }, 100);
  assert.deepEqual(none, { items: [], total: 0 });
});

test('a bad filter is refused with what is wrong', async () => {
  const refused = async (filter: unknown, message: RegExp): Promise<void> => {
    await assert.rejects(
      server.connection.sendRequest(ObjectListRequest, {
        pack: `${stem}.pack`,
        kind: 'deepest',
        start: 0,
        count: 10,
        filter,
      } as never),
      (error: unknown) => {
        assert.ok(error instanceof ResponseError);
        assert.match(error.message, message);
        return true;
      },
    );
  };
  await refused({ types: ['ofs-delta'] }, /filter\.types must be a list of commit, tree, blob, tag/);
  await refused({ minDepth: -1 }, /filter\.minDepth must be an integer/);
  await refused({ minDepth: 5, maxDepth: 2 }, /filter\.minDepth 5 is above filter\.maxDepth 2/);
  await refused('blob', /must be an object/);
});
