/**
 * The bundled server driven over LSP (stdio) without VS Code: every custom request and hovers, checked
 * against what git says about repositories the test builds; progress, cancellation, a pack replaced
 * while the server has it open, a damaged pack next to sound ones.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  CancellationTokenSource,
  DidOpenTextDocumentNotification,
  ErrorCodes,
  HoverRequest,
  LSPErrorCodes,
  ResponseError,
  type Hover,
  type MarkupContent,
} from 'vscode-languageserver-protocol/node';
import {
  ListRepositoriesRequest,
  ObjectContentRequest,
  ObjectListRequest,
  ObjectRequest,
  PackSummaryRequest,
  ResolveIdsRequest,
  type ObjectItem,
  type ObjectListKind,
  type RepositoryListing,
} from '../../src/protocol/server-protocol.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import { historyRepository, verifyPackEntries, type VerifyPackEntry } from '../support/git-oracle.ts';
import { LspServer } from '../support/lsp-server.ts';

let root: string;
let workspace: string;
let sandbox: GitSandbox;
let server: LspServer;
let repo: string;
let stem: string;
let entries: VerifyPackEntry[];
let catFile: Map<string, { type: string; size: number }>;

function gitCatFile(repository: string): Map<string, { type: string; size: number }> {
  const map = new Map<string, { type: string; size: number }>();
  for (const line of sandbox
    .gitText(repository, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype) %(objectsize)'])
    .split('\n')) {
    if (!line) continue;
    const [oid, type, size] = line.split(' ');
    map.set(oid!, { type: type!, size: Number(size) });
  }
  return map;
}

async function listing(): Promise<RepositoryListing> {
  const { repositories } = await server.connection.sendRequest(ListRepositoriesRequest, {});
  const found = repositories.find((r) => r.workTree === repo);
  assert.ok(found, `repository ${repo} listed among ${repositories.map((r) => r.id).join(', ')}`);
  return found;
}

before(async () => {
  root = tempDir(undefined, 'packscope-server-');
  workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = historyRepository(sandbox, 'history', {
    commits: 200,
    seed: 7,
    repack: ['-adf', '--depth=50', '--window=10'],
  });
  stem = packStems(path.join(repo, '.git', 'objects'))[0]!;
  entries = verifyPackEntries(sandbox, repo, `${stem}.idx`);
  catFile = gitCatFile(repo);
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
  });
});

after(async () => {
  const code = await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(code, 0, 'the server exits cleanly after shutdown/exit');
});

describe('packscope/listRepositories', () => {
  test('finds the repository below the workspace folder and lists its pack with the idx object count', async () => {
    const repository = await listing();
    assert.equal(repository.gitDir, path.join(repo, '.git'));
    assert.equal(repository.objectFormat, 'sha1');
    assert.deepEqual(
      repository.packs.map((p) => p.pack),
      [`${stem}.pack`],
    );
    assert.equal(repository.packs[0]!.objects, entries.length);
    assert.equal(repository.packs[0]!.packFileBytes, fs.statSync(`${stem}.pack`).size);
  });
});

describe('packscope/packSummary', () => {
  test('reports $/progress and equals git verify-pack -v and cat-file', async () => {
    const token = 'summary-progress';
    const progress = server.progressFor(token);
    const summary = await server.connection.sendRequest(PackSummaryRequest, {
      pack: `${stem}.pack`,
      workDoneToken: token,
    });
    assert.equal(summary.objects, entries.length);
    const byType = { commit: 0, tree: 0, blob: 0, tag: 0 };
    for (const { type } of catFile.values()) byType[type as keyof typeof byType]++;
    assert.deepEqual(summary.byType, byType);
    const histogram: number[] = [];
    for (const e of entries) histogram[e.depth] = (histogram[e.depth] ?? 0) + 1;
    assert.deepEqual(
      summary.depthHistogram,
      Array.from(histogram, (v) => v ?? 0),
    );
    assert.equal(summary.maxDepth, Math.max(...entries.map((e) => e.depth)));
    assert.equal(summary.deltas.ofs + summary.deltas.ref, entries.filter((e) => e.base !== undefined).length);
    assert.equal(
      summary.bytes.onDisk,
      entries.reduce((sum, e) => sum + e.diskSize, 0),
    );
    assert.equal(
      summary.bytes.inflated,
      [...catFile.values()].reduce((sum, e) => sum + e.size, 0),
    );
    assert.equal(summary.families, entries.filter((e) => e.base === undefined).length);
    // The model may have been built by the background warm-up already; progress then is begin/end
    // or nothing. When it ran for this request it begins and ends.
    if (progress.length > 0) {
      assert.equal(progress[0]!.kind, 'begin');
      assert.equal(progress.at(-1)!.kind, 'end');
    }
    const again = await listing();
    assert.deepEqual(
      again.packs[0]!.summary?.depthHistogram,
      summary.depthHistogram,
      'the listing carries the summary once loaded',
    );
  });
});

describe('packscope/objectList', () => {
  async function wholeList(kind: Exclude<ObjectListKind, 'children'>, pageSize: number): Promise<ObjectItem[]> {
    const items: ObjectItem[] = [];
    for (let start = 0; ; start += pageSize) {
      const page = await server.connection.sendRequest(ObjectListRequest, {
        pack: `${stem}.pack`,
        kind,
        start,
        count: pageSize,
      });
      items.push(...page.items);
      if (items.length >= page.total) return items;
      assert.equal(page.items.length, pageSize);
    }
  }

  test('pages concatenate to every object, largest first; ties in idx order', async () => {
    const largest = await wholeList('largest', 97);
    assert.equal(largest.length, entries.length);
    assert.deepEqual(
      largest.map((i) => i.size),
      [...catFile.values()].map((e) => e.size).sort((a, b) => b - a),
    );
    for (const item of largest) assert.equal(item.size, catFile.get(item.oid)!.size);
    for (let i = 1; i < largest.length; i++)
      if (largest[i - 1]!.size === largest[i]!.size)
        assert.ok(largest[i - 1]!.oid < largest[i]!.oid, 'ties in idx (id) order');
    const onDisk = await wholeList('largestOnDisk', 500);
    assert.deepEqual(
      onDisk.map((i) => i.diskSize),
      entries.map((e) => e.diskSize).sort((a, b) => b - a),
    );
  });

  test('deepest and families follow verify-pack depths and bases', async () => {
    const byOid = new Map(entries.map((e) => [e.oid, e]));
    const deepest = await wholeList('deepest', 200);
    assert.deepEqual(
      deepest.map((i) => i.depth),
      entries.map((e) => e.depth).sort((a, b) => b - a),
    );
    for (const item of deepest.slice(0, 50)) {
      assert.equal(item.depth, byOid.get(item.oid)!.depth);
      assert.equal(item.offset, byOid.get(item.oid)!.offset);
    }
    // Families from git's bases: follow each object's base to its root.
    const rootOf = (oid: string): string => {
      let current = byOid.get(oid)!;
      while (current.base !== undefined) current = byOid.get(current.base)!;
      return current.oid;
    };
    const familySizes = new Map<string, number>();
    for (const e of entries) familySizes.set(rootOf(e.oid), (familySizes.get(rootOf(e.oid)) ?? 0) + 1);
    const families = await wholeList('families', 150);
    assert.equal(families.length, familySizes.size);
    assert.deepEqual(
      families.map((f) => f.familySize),
      [...familySizes.values()].sort((a, b) => b - a),
    );
    for (const family of families)
      assert.equal(family.familySize, familySizes.get(family.oid), `family of ${family.oid}`);
    // Children of the largest family's root are exactly the objects whose base git names as that root.
    const top = families[0]!;
    const children = await server.connection.sendRequest(ObjectListRequest, {
      pack: `${stem}.pack`,
      kind: 'children',
      oid: top.oid,
      start: 0,
      count: 100_000,
    });
    assert.deepEqual(
      children.items.map((c) => c.oid).sort(),
      entries
        .filter((e) => e.base === top.oid)
        .map((e) => e.oid)
        .sort(),
    );
    assert.equal(children.total, top.children);
  });

  test('mostUsedBases pages every object by its direct delta children as verify-pack names bases, ties in idx order', async () => {
    const childCounts = new Map(entries.map((e) => [e.oid, 0]));
    for (const e of entries) if (e.base !== undefined) childCounts.set(e.base, childCounts.get(e.base)! + 1);
    const expected = [...childCounts].sort(([a, ca], [b, cb]) => cb - ca || (a < b ? -1 : 1));
    assert.ok(expected[0]![1] > 1, 'the pack has a base with several delta children');
    const bases = await wholeList('mostUsedBases', 37);
    assert.deepEqual(
      bases.map((i) => [i.oid, i.children]),
      expected,
    );
    // A page from the middle is the same slice of the whole list; a page past the end is empty.
    const middle = await server.connection.sendRequest(ObjectListRequest, {
      pack: `${stem}.pack`,
      kind: 'mostUsedBases',
      start: 50,
      count: 20,
    });
    assert.equal(middle.total, entries.length);
    // Items gain their path or subject once the repository's path walk ends (which may fall between
    // the two requests): the page is compared on everything else.
    const unnamed = (items: typeof bases): unknown[] =>
      items.map(({ path: _path, subject: _subject, ...rest }) => rest);
    assert.deepEqual(unnamed(middle.items), unnamed(bases.slice(50, 70)));
    const beyond = await server.connection.sendRequest(ObjectListRequest, {
      pack: `${stem}.pack`,
      kind: 'mostUsedBases',
      start: entries.length,
      count: 20,
    });
    assert.deepEqual(beyond, { total: entries.length, items: [] });
    // The top base's children, as its own list, are the objects git names it the base of.
    const top = bases[0]!;
    const children = await server.connection.sendRequest(ObjectListRequest, {
      pack: `${stem}.pack`,
      kind: 'children',
      oid: top.oid,
      start: 0,
      count: 100_000,
    });
    assert.deepEqual(
      children.items.map((c) => c.oid).sort(),
      entries
        .filter((e) => e.base === top.oid)
        .map((e) => e.oid)
        .sort(),
    );
  });

  test('a kind that names no ranking is an invalid request, not a server error', async () => {
    for (const kind of ['biggest', 'toString', '__proto__']) {
      const request = server.connection.sendRequest(ObjectListRequest, {
        pack: `${stem}.pack`,
        kind: kind as ObjectListKind,
        start: 0,
        count: 10,
      });
      await assert.rejects(
        request,
        (error: unknown) =>
          error instanceof ResponseError &&
          error.code === ErrorCodes.InvalidParams &&
          error.message === `${kind} is not a list of objects`,
        kind,
      );
    }
  });
});

describe('packscope/object and packscope/objectContent', () => {
  test('an object found by unique prefix: sizes, depth and chain as git says', async () => {
    const deep = entries.reduce((a, b) => (b.depth > a.depth ? b : a));
    const result = await server.connection.sendRequest(ObjectRequest, { oid: deep.oid.slice(0, 10) });
    assert.ok(result.found);
    const object = result.object;
    assert.equal(object.oid, deep.oid);
    assert.equal(object.type, catFile.get(deep.oid)!.type);
    assert.equal(object.size, catFile.get(deep.oid)!.size);
    assert.equal(object.depth, deep.depth);
    assert.equal(object.offset, deep.offset);
    assert.equal(object.chain.length, deep.depth + 1);
    const byOid = new Map(entries.map((e) => [e.oid, e]));
    for (let i = 1; i < object.chain.length; i++)
      assert.equal(object.chain[i]!.oid, byOid.get(object.chain[i - 1]!.oid)!.base);
    assert.equal(object.pack, `${stem}.pack`);
  });

  test('unknown and ambiguous ids are reported, not thrown', async () => {
    const missing = await server.connection.sendRequest(ObjectRequest, {
      oid: '0000000000000000000000000000000000000bad',
    });
    assert.equal(missing.found, false);
    const counts = new Map<string, number>();
    for (const oid of catFile.keys()) counts.set(oid.slice(0, 4), (counts.get(oid.slice(0, 4)) ?? 0) + 1);
    const ambiguous = [...counts].find(([, n]) => n > 1);
    if (ambiguous) {
      const result = await server.connection.sendRequest(ObjectRequest, { oid: ambiguous[0] });
      assert.equal(result.found, false);
      assert.match(result.found ? '' : result.reason, /ambiguous/);
    }
  });

  test('content equals git cat-file for a delta blob; its instructions rebuild it from its base', async () => {
    const delta = entries.find((e) => e.base !== undefined && catFile.get(e.oid)!.type === 'blob' && e.depth >= 2)!;
    const result = await server.connection.sendRequest(ObjectContentRequest, {
      oid: delta.oid,
      maxContentBytes: 1 << 20,
      maxInstructions: 100_000,
    });
    assert.ok(result.found);
    const { content } = result;
    const expected = sandbox.git(repo, ['cat-file', 'blob', delta.oid]);
    assert.equal(content.contentBytes, expected.length);
    assert.deepEqual(Buffer.from(content.contentBase64, 'base64'), expected);
    assert.equal(content.truncated, false);
    assert.ok(content.delta);
    assert.equal(content.delta.base, delta.base);
    const base = sandbox.git(repo, ['cat-file', 'blob', delta.base!]);
    assert.equal(content.delta.baseSize, base.length);
    assert.equal(content.delta.resultSize, expected.length);
    assert.equal(content.delta.copiedBytes + content.delta.insertedBytes, expected.length);
    assert.equal(content.delta.totalInstructions, content.delta.instructions.length);
    // Copies are checked byte for byte against git's base; inserts by length (their text is a preview).
    let at = 0;
    for (const instruction of content.delta.instructions) {
      if (instruction.op === 'copy')
        assert.deepEqual(
          expected.subarray(at, at + instruction.length),
          base.subarray(instruction.baseOffset, instruction.baseOffset + instruction.length),
        );
      at += instruction.length;
    }
    assert.equal(at, expected.length);
  });

  test('content is cut at maxContentBytes and says so', async () => {
    const big = entries.find((e) => catFile.get(e.oid)!.size > 100)!;
    const result = await server.connection.sendRequest(ObjectContentRequest, {
      oid: big.oid,
      maxContentBytes: 64,
      maxInstructions: 1,
    });
    assert.ok(result.found);
    assert.equal(Buffer.from(result.content.contentBase64, 'base64').length, 64);
    assert.equal(result.content.truncated, true);
    assert.equal(result.content.contentBytes, catFile.get(big.oid)!.size);
    assert.deepEqual(
      Buffer.from(result.content.contentBase64, 'base64'),
      sandbox.git(repo, ['cat-file', '-p', big.oid]).subarray(0, 64),
    );
  });
});

describe('hover and packscope/resolveIds', () => {
  test('a hover on an object id shows its facts; nothing for a word that resolves to nothing', async () => {
    const commit = [...catFile].find(([, v]) => v.type === 'commit')![0];
    const uri = pathToFileURL(path.join(root, 'notes.txt')).href;
    const text = `see ${commit.slice(0, 12)} and deadbeefdeadbeef here\nfull ${commit}\n`;
    await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'plaintext', version: 1, text },
    });
    const hover = (await server.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 0, character: 8 },
    })) as Hover | null;
    assert.ok(hover, 'hover on an abbreviated commit id');
    const value = (hover.contents as MarkupContent).value;
    assert.match(value, new RegExp(`\\*\\*commit\\*\\* \`${commit}\``));
    assert.match(value, new RegExp(`${catFile.get(commit)!.size} bytes`));
    assert.match(value, new RegExp(path.basename(stem)));
    assert.match(value, /command:packscope\.revealObject/);
    assert.deepEqual(hover.range, { start: { line: 0, character: 4 }, end: { line: 0, character: 16 } });
    const none = await server.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 0, character: 25 },
    });
    assert.equal(none, null, 'deadbeefdeadbeef is not an object here');
    const plainWord = await server.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 0, character: 1 },
    });
    assert.equal(plainWord, null);
    const full = (await server.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 1, character: 30 },
    })) as Hover | null;
    assert.ok(full);
  });

  test('resolveIds answers each word: full id when unique, else null', async () => {
    const [first, second] = [...catFile.keys()];
    const { oids } = await server.connection.sendRequest(ResolveIdsRequest, {
      words: [first!.slice(0, 7), 'abcdefz', second!, 'ffffffffffffffff', first!.slice(0, 3)],
    });
    assert.deepEqual(oids, [first, null, second, null, null]);
  });
});

describe('cancellation, a pack replaced while open, damaged packs', () => {
  test('a cancelled summary request ends with RequestCancelled and a later one succeeds', async () => {
    const other = historyRepository(sandbox, 'cancel-me', {
      commits: 400,
      seed: 3,
      repack: ['-adf', '--depth=50', '--window=10'],
    });
    const otherStem = packStems(path.join(other, '.git', 'objects'))[0]!;
    // A second server with a fresh cache, so the build really happens for this request.
    const fresh = await LspServer.start({
      workspaceFolders: [],
      settings: { repositories: [other], modelCacheDirectory: path.join(root, 'models-cancel'), hoverIndexLimit: 0 },
    });
    try {
      const source = new CancellationTokenSource();
      const pending = fresh.connection.sendRequest(PackSummaryRequest, { pack: `${otherStem}.pack` }, source.token);
      source.cancel();
      await assert.rejects(
        pending,
        (error: unknown) => error instanceof ResponseError && error.code === LSPErrorCodes.RequestCancelled,
      );
      const summary = await fresh.connection.sendRequest(PackSummaryRequest, { pack: `${otherStem}.pack` });
      assert.equal(summary.objects, verifyPackEntries(sandbox, other, `${otherStem}.idx`).length);
      // 'persisted' when the cancelled build's worker had already saved the model (a small pack
      // builds in milliseconds); either way the second request gets a complete, correct model.
    } finally {
      assert.equal(await fresh.stop(), 0);
    }
  });

  test('git repack while the server has the pack open: packsChanged, the new pack listed, the old one gone', async () => {
    const changed = server.nextPacksChanged();
    sandbox.git(repo, ['repack', '-q', '-adf', '--depth=5', '--window=10']);
    assert.equal(await changed, path.join(repo, '.git'));
    const newStem = packStems(path.join(repo, '.git', 'objects'))[0]!;
    assert.notEqual(newStem, stem);
    const repository = await listing();
    assert.deepEqual(
      repository.packs.map((p) => p.pack),
      [`${newStem}.pack`],
    );
    await assert.rejects(
      server.connection.sendRequest(PackSummaryRequest, { pack: `${stem}.pack` }),
      /not a pack of the workspace/,
    );
    const summary = await server.connection.sendRequest(PackSummaryRequest, { pack: `${newStem}.pack` });
    assert.equal(summary.maxDepth, Math.max(...verifyPackEntries(sandbox, repo, `${newStem}.idx`).map((e) => e.depth)));
    assert.ok(summary.maxDepth <= 5);
    stem = newStem;
  });

  test('a first load is built (in a worker) and persisted; a restarted server reads it back', async () => {
    const cache = path.join(root, 'models-restart');
    const current = verifyPackEntries(sandbox, repo, `${stem}.idx`);
    for (const expected of ['built', 'persisted'] as const) {
      const probe = await LspServer.start({
        workspaceFolders: [workspace],
        settings: { modelCacheDirectory: cache, hoverIndexLimit: 0 },
      });
      try {
        const summary = await probe.connection.sendRequest(PackSummaryRequest, { pack: `${stem}.pack` });
        assert.equal(summary.source, expected);
        assert.equal(summary.objects, catFile.size);
        const deepest = current.reduce((a, b) => (b.depth > a.depth ? b : a));
        const object = await probe.connection.sendRequest(ObjectRequest, { oid: deepest.oid });
        assert.ok(object.found);
        assert.equal(object.object.depth, deepest.depth);
        assert.equal(object.object.familySize > 1, true);
      } finally {
        assert.equal(await probe.stop(), 0);
      }
    }
  });

  test('a model cache directory inside a repository is refused: nothing is written there', async () => {
    const listFiles = (dir: string): string[] => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
    const before = listFiles(repo);
    const probe = await LspServer.start({
      workspaceFolders: [workspace],
      settings: { modelCacheDirectory: path.join(repo, '.git', 'packscope-models'), hoverIndexLimit: 0 },
    });
    try {
      const summary = await probe.connection.sendRequest(PackSummaryRequest, { pack: `${stem}.pack` });
      assert.equal(summary.objects, catFile.size);
      assert.ok(
        probe.shown.some((m) => /must be outside the repository/.test(m)),
        `a warning is shown: ${probe.shown.join(' | ')}`,
      );
    } finally {
      assert.equal(await probe.stop(), 0);
    }
    assert.deepEqual(listFiles(repo), before);
  });

  test('a damaged pack is an error naming the file and offset; the sound one keeps working', async () => {
    const damaged = historyRepository(sandbox, 'damaged', { commits: 20, seed: 11, repack: ['-adf'] });
    const damagedStem = packStems(path.join(damaged, '.git', 'objects'))[0]!;
    // Overwrite the first object's header and the bytes after it: the scan stops there.
    const fd = fs.openSync(`${damagedStem}.pack`, 'r+');
    fs.writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, 12);
    fs.closeSync(fd);
    const probe = await LspServer.start({
      workspaceFolders: [workspace],
      settings: { modelCacheDirectory: path.join(root, 'models-damaged'), hoverIndexLimit: 0 },
    });
    try {
      await assert.rejects(
        probe.connection.sendRequest(PackSummaryRequest, { pack: `${damagedStem}.pack` }),
        (error: unknown) => {
          assert.ok(error instanceof ResponseError);
          assert.match(
            error.message,
            new RegExp(`${path.basename(damagedStem)}\\.pack.*offset \\d+|${path.basename(damagedStem)}\\.pack`),
          );
          return true;
        },
      );
      const { repositories } = await probe.connection.sendRequest(ListRepositoriesRequest, {});
      const listed = repositories.find((r) => r.workTree === damaged)!;
      assert.match(listed.packs[0]!.error ?? '', new RegExp(path.basename(damagedStem)));
      const sound = await probe.connection.sendRequest(PackSummaryRequest, { pack: `${stem}.pack` });
      assert.equal(sound.objects, catFile.size);
      // A second, sound pack in the damaged repository still answers lookups and hovers.
      // Objects git can write without reading the damaged pack: a new tree and a parentless commit.
      const loose = sandbox
        .gitText(damaged, ['hash-object', '-w', '-t', 'tree', '--stdin'], {
          input: `100644 after\0${'\u0001'.repeat(20)}`,
        })
        .trim();
      const fresh = sandbox.gitText(damaged, ['commit-tree', loose, '-m', 'after the damage']).trim();
      sandbox.git(damaged, ['pack-objects', '-q', path.join(damaged, '.git', 'objects', 'pack', 'pack')], {
        input: `${fresh}\n${loose}\n`,
      });
      await probe.nextPacksChanged();
      const found = await probe.connection.sendRequest(ObjectRequest, { oid: fresh, repository: listed.id });
      assert.ok(found.found, 'an object of the sound pack is found although the other pack is damaged');
      assert.equal(found.object.type, 'commit');
      assert.ok(probe.alive);
    } finally {
      assert.equal(await probe.stop(), 0);
    }
  });
});
