/**
 * The map worker lets its memory go when the server is idle: the server ends the worker
 * thread (its models, maps, colour tables and recording overlays go with its isolate) after the
 * idle period its other caches are released after, and the next map request starts a new worker
 * that rebuilds what it needs: the same tiles, byte for byte, with and without a recording (whose
 * reads the new worker must be sent again). The idle period is shortened for the test
 * (PACKSCOPE_IDLE_RELEASE_MS); nothing here is timed, the test waits for the server's own log lines.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { inflateRawSync } from 'node:zlib';
import { hilbertIndex } from '../../src/common/pack-map-geometry.ts';
import {
  AllowReadRequest,
  PackMapInfoRequest,
  PackMapObjectAtRequest,
  PackMapTileRequest,
  type PackMapTileParams,
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
let server: LspServer;
let pack: string;
let trace: string;
let entries: VerifyPackEntry[];

before(async () => {
  root = tempDir(undefined, 'packscope-server-map-idle-');
  const sandbox = new GitSandbox(root);
  const repo = historyRepository(sandbox, 'history', {
    commits: 30,
    seed: 5,
    files: 4,
    linesPerFile: 40,
    repack: ['-adf', '--depth=20'],
  });
  pack = `${onlyPackStem(path.join(repo, '.git', 'objects', 'pack'))}.pack`;
  entries = verifyPackEntries(sandbox, repo, pack);
  trace = path.join(root, 'log.trace');
  sandbox.git(repo, ['log', '--raw', '-n', '10'], { env: { GIT_TRACE_PACK_ACCESS: trace } });
  server = await LspServer.start({
    workspaceFolders: [repo],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: { ...gitEnv(sandbox.home), TMPDIR: root, PACKSCOPE_IDLE_RELEASE_MS: '300' },
  });
  // As the Pack Map's recording picker does for a file the user chose (the server's read rules, read-rules.ts).
  await server.connection.sendRequest(AllowReadRequest, { file: trace });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const tile = async (
  params: Omit<PackMapTileParams, 'pack'>,
): Promise<{ rgba: Buffer; litCells: number; recordingObjects: number | undefined }> => {
  const result = await server.connection.sendRequest(PackMapTileRequest, { pack, ...params });
  return {
    rgba: inflateRawSync(Buffer.from(result.rgbaDeflated, 'base64')),
    litCells: result.litCells,
    recordingObjects: result.recordingObjects,
  };
};

const started = (): number[] =>
  server.log.flatMap((line) => /^the map worker started \(thread (\d+)\)/.exec(line)?.slice(1).map(Number) ?? []);
const ended = (): number[] =>
  server.log.flatMap((line) => /^idle: ended the map worker \(thread (\d+)\)/.exec(line)?.slice(1).map(Number) ?? []);

/** Waits (without a deadline of its own: the test runner's applies) until the server logs that it ended the map worker `count` times. */
async function releasedTimes(count: number): Promise<void> {
  while (ended().length < count) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('Pack Map worker when idle', () => {
  test('ends its thread when the server is idle; the next requests start another that draws the same tiles and names the same objects', async () => {
    const info = await server.connection.sendRequest(PackMapInfoRequest, { pack });
    const order = Math.min(9, info.maxOrder);
    const wanted = [
      { attribute: 'family' as const, order, tileX: 0, tileY: 0 },
      { attribute: 'disk-size' as const, order, tileX: 0, tileY: 0 },
      { attribute: 'type' as const, order, tileX: 0, tileY: 0, recording: trace },
    ];
    const before = [];
    for (const w of wanted) before.push(await tile(w));
    assert.ok(before[2]!.litCells > 0, 'the recording lights cells');
    assert.equal(started().length, 1, server.log.join('\n'));

    await releasedTimes(1);
    assert.deepEqual(ended(), started(), 'the worker that was started is the one ended');

    for (const [i, w] of wanted.entries()) {
      const again = await tile(w);
      assert.ok(
        again.rgba.equals(before[i]!.rgba),
        `${w.attribute}${w.recording ? ' with the recording' : ''}: the same pixels after the release`,
      );
      assert.equal(again.litCells, before[i]!.litCells);
      assert.equal(again.recordingObjects, before[i]!.recordingObjects);
    }
    assert.equal(started().length, 2);
    assert.notEqual(started()[1], started()[0], 'a new thread drew them');

    // And after a second release, a hover's lookup (the first request) names git's object, with
    // no map worker started for it: the server's thread looks it up in its model.
    await releasedTimes(2);
    const cell = { order, x: 3, y: 0 };
    const found = await server.connection.sendRequest(PackMapObjectAtRequest, { pack, ...cell });
    assert.ok(found.found);
    // The object git's verify-pack lists at the cell's first byte.
    const d = hilbertIndex(order, cell.x, cell.y);
    const firstByte = info.dataStart + Math.floor((d * (info.dataEnd - info.dataStart)) / 4 ** order);
    assert.equal(found.object.oid, entryHolding(entries, firstByte).oid);
    assert.equal(started().length, 2);
  });
});
