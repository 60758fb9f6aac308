/**
 * The Pack Map's requests on the bundled server over LSP. Tiles are the very
 * pixels `packscope map` writes for the same pack at the same order (decoded from its PNG), and
 * their colours are git's types (verify-pack -v, cat-file) of the object holding each cell's first
 * byte; packMapObjectAt names the object git lists at that offset; a recording lights exactly the
 * CLI's lit pixels with the trace's distinct objects; bad parameters are refused in one line; and
 * cancelled tile requests answer RequestCancelled while the server keeps drawing.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { CancellationTokenSource, ErrorCodes, LSPErrorCodes } from 'vscode-languageserver-protocol/node';
import { hilbertIndex, TYPE_COLOURS } from '../../src/common/pack-map-geometry.ts';
import {
  PackMapInfoRequest,
  PackMapObjectAtRequest,
  PackMapTileRequest,
  type PackMapTileParams,
  type PackMapTileResult,
} from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, runCli, tempDir } from '../support/git.ts';
import {
  historyRepository,
  onlyPackStem,
  verifyPackEntries,
  type VerifyPackEntry,
  entryHolding,
} from '../support/git-oracle.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';
import { decodePng } from '../support/png-decode.ts';

const TYPE_NUMBER: Record<string, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

let root: string;
let sandbox: GitSandbox;
let server: LspServer;
let repo: string;
let pack: string;
let entries: VerifyPackEntry[];
let typeOf: Map<string, string>;
let packBytes: number;
let trace: string;

before(async () => {
  root = tempDir(undefined, 'packscope-server-map-');
  sandbox = new GitSandbox(root);
  repo = historyRepository(sandbox, 'history', {
    commits: 60,
    seed: 15,
    files: 5,
    linesPerFile: 40,
    repack: ['-adf', '--depth=20'],
  });
  pack = `${onlyPackStem(path.join(repo, '.git', 'objects', 'pack'))}.pack`;
  entries = verifyPackEntries(sandbox, repo, pack);
  const checked = sandbox.gitText(repo, [
    'cat-file',
    '--batch-all-objects',
    '--batch-check=%(objectname) %(objecttype)',
  ]);
  typeOf = new Map(
    checked
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
  packBytes = fs.statSync(pack).size;
  // In the recording directory, where the extension keeps recordings (the server reads no trace elsewhere: read-rules.ts).
  trace = path.join(root, 'log.trace');
  sandbox.git(repo, ['-c', 'core.deltaBaseCacheLimit=0', 'log', '--raw', '-n', '20'], {
    env: { GIT_TRACE_PACK_ACCESS: trace },
  });
  server = await LspServer.start({
    workspaceFolders: [repo],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: { ...gitEnv(sandbox.home), TMPDIR: root },
    recordingDirectory: root,
  });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

function tile(
  params: Omit<PackMapTileParams, 'pack'>,
  token = new CancellationTokenSource().token,
): Promise<PackMapTileResult> {
  return server.connection.sendRequest(PackMapTileRequest, { pack, ...params }, token);
}

/** The tiles of the whole map at `order`, as one picture: pixel(x, y) → [r, g, b], and the lit cells of all tiles. */
async function wholeMap(
  order: number,
  extra: Partial<PackMapTileParams> = {},
): Promise<{ pixel: (x: number, y: number) => [number, number, number]; lit: number; tiles: PackMapTileResult[] }> {
  const side = 2 ** order;
  const tilesPerSide = Math.max(1, side / 256);
  const tiles: PackMapTileResult[] = [];
  for (let tileY = 0; tileY < tilesPerSide; tileY++)
    for (let tileX = 0; tileX < tilesPerSide; tileX++)
      tiles.push(await tile({ attribute: 'type', order, tileX, tileY, ...extra }));
  const size = Math.min(256, side);
  // The pixels as the host inflates them for the webview (binaryTile).
  const decoded = tiles.map((t) => Buffer.from(inflateRawSync(Buffer.from(t.rgbaDeflated, 'base64'))));
  for (const [i, t] of tiles.entries()) {
    assert.equal(t.size, size);
    assert.equal(decoded[i]!.length, size * size * 4);
  }
  return {
    tiles,
    lit: tiles.reduce((sum, t) => sum + t.litCells, 0),
    pixel: (x, y) => {
      const k = Math.floor(y / size) * tilesPerSide + Math.floor(x / size);
      const at = ((y % size) * size + (x % size)) * 4;
      const rgba = decoded[k]!;
      assert.equal(rgba[at + 3], 255, 'opaque');
      return [rgba[at]!, rgba[at + 1]!, rgba[at + 2]!];
    },
  };
}

function entryAt(offset: number): VerifyPackEntry {
  return entryHolding(entries, offset);
}

/** The first byte of the cell at distance d: equal shares of bytes 12 … size − 20 (SHA-1 trailer). */
function cellStart(d: number, order: number): number {
  return 12 + Math.floor((d * (packBytes - 20 - 12)) / 4 ** order);
}

describe('the Pack Map over LSP', () => {
  test("packMapInfo: git's object count, the pack's size, the type legend in the map's colours", async () => {
    const info = await server.connection.sendRequest(PackMapInfoRequest, { pack });
    assert.equal(info.objects, entries.length);
    assert.equal(info.packBytes, packBytes);
    assert.equal(info.dataStart, 12);
    assert.equal(info.dataEnd, packBytes - 20);
    assert.equal(info.maxDepth, Math.max(...entries.map((e) => e.depth)));
    // The top of the size scale: the largest entry git stored.
    assert.equal(info.largestOnDisk, Math.max(...entries.map((e) => e.diskSize)));
    assert.ok(
      4 ** info.maxOrder >= packBytes - 32 && 4 ** (info.maxOrder - 1) < packBytes - 32,
      `order ${info.maxOrder}: cells of at most one byte`,
    );
    assert.deepEqual(
      info.legends.type.map((e) => e.rgb),
      [1, 2, 3, 4].map((t) => [...TYPE_COLOURS[t]!]),
    );
    assert.match(info.legends.type[0]!.label, /^commit \(60\)$/);
  });

  for (const order of [6, 9]) {
    test(`tiles at order ${order} are the pixels of packscope map --size ${2 ** order}, and git's types`, async () => {
      const output = path.join(root, 'out', `types-${order}.png`);
      const result = runCli(['map', '--no-scales', '--size', String(2 ** order), '-o', output, repo], {
        env: { ...gitEnv(sandbox.home), PACKSCOPE_CACHE_DIR: path.join(root, 'cli-cache') },
      });
      assert.equal(result.status, 0, result.stderr.toString());
      const png = decodePng(output);
      const map = await wholeMap(order);
      const side = 2 ** order;
      for (let y = 0; y < side; y++) {
        for (let x = 0; x < side; x++) {
          assert.deepEqual(map.pixel(x, y), png.pixel(x, y), `cell (${x}, ${y}) at order ${order}`);
          const type = typeOf.get(entryAt(cellStart(hilbertIndex(order, x, y), order)).oid)!;
          assert.deepEqual(
            map.pixel(x, y),
            [...TYPE_COLOURS[TYPE_NUMBER[type]!]!],
            `cell (${x}, ${y}): git says ${type}`,
          );
        }
      }
    });
  }

  test("packMapObjectAt names the object git lists at the cell's first byte, with git's type and size", async () => {
    const order = 9;
    for (let i = 0; i < 64; i++) {
      const x = (i * 37) % 512;
      const y = (i * 91 + 5) % 512;
      const answer = await server.connection.sendRequest(PackMapObjectAtRequest, { pack, order, x, y });
      assert.ok(answer.found, `(${x}, ${y}) holds an object`);
      const expected = entryAt(cellStart(hilbertIndex(order, x, y), order));
      assert.equal(answer.object.oid, expected.oid, `(${x}, ${y})`);
      assert.equal(answer.object.offset, expected.offset);
      assert.equal(answer.object.diskSize, expected.diskSize);
      assert.equal(answer.object.depth, expected.depth);
      assert.equal(answer.object.type, typeOf.get(expected.oid));
      assert.equal(answer.object.size, Number(sandbox.gitText(repo, ['cat-file', '-s', expected.oid]).trim()));
    }
  });

  test("a recording lights the CLI's lit pixels, over the trace's distinct objects", async () => {
    const lines = fs.readFileSync(trace, 'utf8').trim().split('\n');
    const distinct = new Set(lines.map((line) => Number(/ (\d+)$/.exec(line)![1]))).size;
    const output = path.join(root, 'out', 'heat.png');
    const result = runCli(['map', '--json', '--no-scales', '--size', '512', '--recording', trace, '-o', output, repo], {
      env: { ...gitEnv(sandbox.home), PACKSCOPE_CACHE_DIR: path.join(root, 'cli-cache') },
    });
    assert.equal(result.status, 0, result.stderr.toString());
    const document = JSON.parse(result.stdout.toString());
    const map = await wholeMap(9, { recording: trace });
    for (const t of map.tiles) {
      assert.equal(t.recordingObjects, distinct);
      assert.equal(t.recordingReads, lines.length);
    }
    assert.equal(map.lit, document.recording.litPixels);
    assert.ok(map.lit > 0);
    const png = decodePng(output);
    for (let y = 0; y < 512; y += 3)
      for (let x = 0; x < 512; x += 3) assert.deepEqual(map.pixel(x, y), png.pixel(x, y), `heat at (${x}, ${y})`);
  });

  test('bad parameters are refused in one line, naming the parameter', async () => {
    const refused = async (params: unknown, pattern: RegExp): Promise<void> =>
      expectError(server.connection.sendRequest(PackMapTileRequest, params as PackMapTileParams), (error) => {
        assert.equal(error.code, ErrorCodes.InvalidParams, error.message);
        assert.match(error.message, pattern);
      });
    await refused(
      { pack, attribute: 'colour', order: 3, tileX: 0, tileY: 0 },
      /attribute must be one of type, depth, family, disk-size/,
    );
    await refused({ pack, attribute: 'type', order: 16, tileX: 0, tileY: 0 }, /order must be an integer from 0 to 15/);
    await refused({ pack, attribute: 'type', order: 1.5, tileX: 0, tileY: 0 }, /order must be an integer/);
    await refused({ pack, attribute: 'type', order: 9, tileX: 2, tileY: 0 }, /tileX must be an integer from 0 to 1/);
    await refused({ pack, attribute: 'type', order: 9, tileX: 0, tileY: -1 }, /tileY must be an integer/);
    await refused(
      { pack, attribute: 'type', order: 3, tileX: 0, tileY: 0, segment: 1 },
      /segment applies to a recording/,
    );
    await refused(
      { pack, attribute: 'type', order: 3, tileX: 0, tileY: 0, recording: path.join(root, 'none.trace') },
      /no such recording/,
    );
    await refused(
      { pack: path.join(root, 'elsewhere.pack'), attribute: 'type', order: 3, tileX: 0, tileY: 0 },
      /is not a pack of the workspace/,
    );
    await refused([pack], /the parameters must be an object/);
    await expectError(server.connection.sendRequest(PackMapObjectAtRequest, { pack, order: 4, x: 16, y: 0 }), (error) =>
      assert.match(error.message, /x must be an integer from 0 to 15/),
    );
    await expectError(server.connection.sendRequest(PackMapInfoRequest, { pack: 'x'.repeat(5000) }), (error) =>
      assert.match(error.message, /pack is longer than 4096/),
    );
  });

  test("packMapObjectAt gives the object's path beside its id: git rev-list --objects --all's name once the walk has ended", async () => {
    const names = new Map(
      sandbox
        .gitText(repo, ['rev-list', '--objects', '--all'])
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.slice(0, 40), line.length > 40 ? line.slice(41) : undefined] as const),
    );
    const order = 9;
    let named = 0;
    for (let i = 0; i < 64; i++) {
      const x = (i * 53) % 512;
      const y = (i * 29 + 3) % 512;
      let answer = await server.connection.sendRequest(PackMapObjectAtRequest, { pack, order, x, y });
      // Until the repository's walk has ended the answer says so ("resolving names…" in the tooltip).
      for (let wait = 0; wait < 300 && answer.found && answer.object.namesPending; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await server.connection.sendRequest(PackMapObjectAtRequest, { pack, order, x, y });
      }
      assert.ok(answer.found);
      const { oid, type, path: objectPath } = answer.object;
      if (type === 'commit') assert.equal(objectPath, undefined);
      else {
        assert.equal(objectPath, names.get(oid) ?? null, oid);
        if (objectPath) named++;
      }
    }
    assert.ok(named > 0, 'some cell holds a blob or tree with a path');
  });

  test('cancelled tile requests answer RequestCancelled; the server goes on drawing', async () => {
    const order = 13;
    const reference = await tile({ attribute: 'depth', order, tileX: 5, tileY: 7 });
    const sources = Array.from({ length: 48 }, () => new CancellationTokenSource());
    const requests = sources.map((source, i) =>
      tile({ attribute: 'family', order, tileX: i % 32, tileY: Math.floor(i / 32) }, source.token),
    );
    for (const source of sources) source.cancel();
    const settled = await Promise.allSettled(requests);
    let cancelled = 0;
    for (const outcome of settled) {
      if (outcome.status === 'rejected') {
        assert.equal(
          (outcome.reason as { code?: number }).code,
          LSPErrorCodes.RequestCancelled,
          String(outcome.reason),
        );
        cancelled++;
      }
    }
    assert.ok(cancelled >= 40, `${cancelled} of 48 cancelled (a few may have been drawn before the cancel arrived)`);
    const again = await tile({ attribute: 'depth', order, tileX: 5, tileY: 7 });
    assert.equal(again.rgbaDeflated, reference.rgbaDeflated);
    assert.ok(server.alive);
  });
});
