/**
 * Before and after a repack on the Pack Map: a repack preview run with keepPack leaves
 * its pack in the temporary directory (never in the repository) while the map shows it, and the
 * map's requests take that pack's path. The preview pack's map is checked against git's own view
 * of that very pack (`git verify-pack -v` of its idx: object count, each cell's object and
 * offset), and a recording of today's pack (git log --raw's GIT_TRACE_PACK_ACCESS) drawn over it
 * lights the cells where the same objects lie in the preview's layout. Released, the directory is
 * gone and the map refuses the pack.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hilbertIndex } from '../../src/common/pack-map-geometry.ts';
import {
  AllowReadRequest,
  PackMapInfoRequest,
  PackMapObjectAtRequest,
  PackMapSeeksRequest,
  PackMapTileRequest,
  ReleasePreviewPackRequest,
  RepackPreviewRequest,
  type PackMapObjectAtResult,
  type RepackPreviewResult,
} from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import {
  entryHolding,
  historyRepository,
  onlyPackStem,
  verifyPackEntries,
  type VerifyPackEntry,
} from '../support/git-oracle.ts';
import { LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let server: LspServer;
let repo: string;
let packDir: string;
let todayEntries: VerifyPackEntry[];
let trace: string;

before(async () => {
  root = tempDir(undefined, 'packscope-server-map-preview-');
  sandbox = new GitSandbox(root);
  // Deltas at depth 50 today; the preview writes depth 4: a different layout of the same objects.
  repo = historyRepository(sandbox, 'history', {
    commits: 40,
    seed: 9,
    files: 4,
    linesPerFile: 40,
    repack: ['-adf', '--depth=50'],
  });
  packDir = path.join(repo, '.git', 'objects', 'pack');
  todayEntries = verifyPackEntries(sandbox, repo, `${onlyPackStem(packDir)}.pack`);
  trace = path.join(root, 'log.trace');
  sandbox.git(repo, ['-c', 'core.deltaBaseCacheLimit=0', 'log', '--raw', '-n', '15'], {
    env: { GIT_TRACE_PACK_ACCESS: trace },
  });
  server = await LspServer.start({
    workspaceFolders: [repo],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: { ...gitEnv(sandbox.home), TMPDIR: root },
  });
  // As the Pack Map's recording picker does for a file the user chose (the server's read rules, read-rules.ts).
  await server.connection.sendRequest(AllowReadRequest, { file: trace });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The cells of a map of `order` over which a byte of one of `ranges` lies (src/core/map/pack-map.ts's lit cells). */
function litCellsOver(order: number, ranges: [number, number][], packBytes: number): number {
  const dataStart = 12;
  const dataEnd = packBytes - 20;
  const span = dataEnd - dataStart;
  const read = new Uint8Array(packBytes);
  for (const [start, end] of ranges) read.fill(1, start, end);
  const before = new Uint32Array(packBytes + 1);
  for (let b = 0; b < packBytes; b++) before[b + 1] = before[b]! + read[b]!;
  const cells = 4 ** order;
  let lit = 0;
  for (let d = 0; d < cells; d++) {
    const start = dataStart + Math.floor((d * span) / cells);
    const end = dataStart + Math.floor(((d + 1) * span) / cells);
    if (start >= dataEnd) continue;
    if (before[Math.max(start, Math.min(end, dataEnd) - 1) + 1]! - before[start]! > 0) lit++;
  }
  return lit;
}

describe('Pack Map of a repack preview', () => {
  test("the kept preview pack's map is git's view of that pack, with today's recording where the same objects lie; released, it is gone", async () => {
    const packsBefore = fs.readdirSync(packDir).sort();
    const result: RepackPreviewResult = await server.connection.sendRequest(RepackPreviewRequest, {
      repository: repo,
      extraOptions: [],
      git: 'git',
      recordings: [],
      estimate: false,
      depth: 4,
      keepPack: true,
    });
    const kept = result.previewPack;
    assert.ok(kept, 'the result names the kept pack');
    assert.ok(fs.existsSync(kept.pack), kept.pack);
    assert.ok(
      !path.resolve(kept.pack).startsWith(path.resolve(repo) + path.sep),
      `${kept.pack} is outside the repository`,
    );
    assert.ok(
      path.resolve(kept.directory).startsWith(path.resolve(root) + path.sep),
      `${kept.directory} is under TMPDIR`,
    );
    assert.deepEqual(fs.readdirSync(packDir).sort(), packsBefore, "the repository's packs are untouched");

    // git's view of the preview pack.
    const entries = verifyPackEntries(sandbox, root, kept.pack);
    assert.equal(result.preview?.objects, entries.length);
    const info = await server.connection.sendRequest(PackMapInfoRequest, { pack: kept.pack });
    assert.equal(info.objects, entries.length);
    assert.equal(info.packBytes, fs.statSync(kept.pack).size);
    const order = Math.min(8, info.maxOrder);
    for (const [x, y] of [
      [0, 0],
      [5, 3],
      [17, 40],
      [100, 100],
      [200, 31],
    ] as const) {
      if (x >= 2 ** order || y >= 2 ** order) continue;
      const d = hilbertIndex(order, x, y);
      const firstByte = info.dataStart + Math.floor((d * (info.dataEnd - info.dataStart)) / 4 ** order);
      const found: PackMapObjectAtResult = await server.connection.sendRequest(PackMapObjectAtRequest, {
        pack: kept.pack,
        order,
        x,
        y,
      });
      if (firstByte >= info.dataEnd) {
        assert.equal(found.found, false);
        continue;
      }
      assert.ok(found.found);
      const git = entryHolding(entries, firstByte);
      assert.equal(found.object.oid, git.oid, `cell (${x}, ${y})`);
      assert.equal(found.object.offset, git.offset);
      assert.equal(found.object.pack, kept.pack);
    }

    // Today's recording over the preview: the objects git read today, where verify-pack puts them in the preview pack.
    const todayAt = new Map(todayEntries.map((e) => [e.offset, e.oid]));
    const readOids = new Set(
      fs
        .readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .map((line) => todayAt.get(Number(/ (\d+)$/.exec(line)![1]))!),
    );
    const previewOf = new Map(entries.map((e) => [e.oid, e]));
    const ranges = [...readOids].map(
      (oid) =>
        [previewOf.get(oid)!.offset, previewOf.get(oid)!.offset + previewOf.get(oid)!.diskSize] as [number, number],
    );
    const side = 2 ** order;
    const size = Math.min(256, side);
    let lit = 0;
    let objects: number | undefined;
    for (let ty = 0; ty < side / size; ty++) {
      for (let tx = 0; tx < side / size; tx++) {
        const tile = await server.connection.sendRequest(PackMapTileRequest, {
          pack: kept.pack,
          attribute: 'type',
          order,
          tileX: tx,
          tileY: ty,
          recording: trace,
        });
        lit += tile.litCells;
        objects = tile.recordingObjects;
      }
    }
    assert.equal(objects, readOids.size, 'distinct objects read');
    assert.equal(lit, litCellsOver(order, ranges, info.packBytes));
    // Its seek path: the same reads, at the preview's offsets of the same objects, in order.
    const seeks = await server.connection.sendRequest(PackMapSeeksRequest, { pack: kept.pack, recording: trace });
    const traced = fs
      .readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((line) => previewOf.get(todayAt.get(Number(/ (\d+)$/.exec(line)![1]))!)!.offset);
    assert.equal(seeks.reads, traced.length);
    if (seeks.stride === 1) assert.deepEqual(seeks.offsets, traced);

    // Released: the directory goes, and the map no longer knows the pack.
    const released = await server.connection.sendRequest(ReleasePreviewPackRequest, { pack: kept.pack });
    assert.equal(released.released, true);
    assert.equal(fs.existsSync(kept.directory), false);
    await assert.rejects(
      server.connection.sendRequest(PackMapInfoRequest, { pack: kept.pack }),
      /not a pack of the workspace/,
    );
    assert.deepEqual(fs.readdirSync(packDir).sort(), packsBefore);
  });

  test('a preview without keepPack keeps nothing', async () => {
    const result: RepackPreviewResult = await server.connection.sendRequest(RepackPreviewRequest, {
      repository: repo,
      extraOptions: [],
      git: 'git',
      recordings: [],
      estimate: false,
    });
    assert.equal(result.previewPack, undefined);
    assert.deepEqual(
      fs.readdirSync(root).filter((name) => name.startsWith('packscope-repack-')),
      [],
    );
  });
});
