/**
 * Pack Map tiles never keep a hover waiting. On the bundled server over LSP, with a real
 * repository: a flood of tile requests (more than the map worker can draw in the test's time) is
 * sent, and then the map's hovers (packscope/packMapObjectAt) and an editor hover each answer
 * within a generous bound while the tiles are still queued; tile requests of a view that a newer
 * view of the same pane supersedes are dropped (RequestCancelled) before they are drawn, while
 * those the newer view still shows are drawn.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import {
  CancellationTokenSource,
  DidOpenTextDocumentNotification,
  HoverRequest,
  LSPErrorCodes,
  ResponseError,
} from 'vscode-languageserver-protocol/node';
import {
  PackMapInfoRequest,
  PackMapObjectAtRequest,
  PackMapTileRequest,
  type PackMapTileParams,
} from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { historyRepository, onlyPackStem } from '../support/git-oracle.ts';
import { LspServer } from '../support/lsp-server.ts';

/** Tile requests in the flood: each takes the map worker a fraction of a millisecond at least. */
const FLOOD = 20_000;
/** A hover's bound under the flood: generous for a loaded machine; in order, they waited seconds. */
const HOVER_BOUND_MS = 1500;

let root: string;
let sandbox: GitSandbox;
let server: LspServer;
let repo: string;
let pack: string;
let maxOrder: number;

before(async () => {
  root = tempDir(undefined, 'packscope-map-flood-');
  sandbox = new GitSandbox(root);
  repo = historyRepository(sandbox, 'history', {
    commits: 60,
    seed: 15,
    files: 5,
    linesPerFile: 40,
    repack: ['-adf', '--depth=20'],
  });
  pack = `${onlyPackStem(path.join(repo, '.git', 'objects', 'pack'))}.pack`;
  server = await LspServer.start({
    workspaceFolders: [repo],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: { ...gitEnv(sandbox.home), TMPDIR: root },
  });
  ({ maxOrder } = await server.connection.sendRequest(PackMapInfoRequest, { pack }));
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

interface Flood {
  settled: Promise<{ drawn: number; cancelled: number }>;
  stop: () => void;
}

/** `count` tile requests at the deepest order, sent at once; `extra` tags each (a view). */
function flood(count: number, extra: (i: number) => Partial<PackMapTileParams> = () => ({})): Flood {
  const source = new CancellationTokenSource();
  const perSide = 2 ** maxOrder / 256;
  let drawn = 0;
  let cancelled = 0;
  const all: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const params: PackMapTileParams = {
      pack,
      attribute: 'type',
      order: maxOrder,
      tileX: i % perSide,
      tileY: Math.floor(i / perSide) % perSide,
      ...extra(i),
    };
    all.push(
      server.connection.sendRequest(PackMapTileRequest, params, source.token).then(
        () => void drawn++,
        (error: unknown) => {
          if (error instanceof ResponseError && error.code === LSPErrorCodes.RequestCancelled) cancelled++;
          else throw error;
        },
      ),
    );
  }
  return { settled: Promise.all(all).then(() => ({ drawn, cancelled })), stop: () => source.cancel() };
}

async function timed<T>(request: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await request();
  return { ms: performance.now() - started, value };
}

test('under a flood of tile requests, map hovers and editor hovers answer within the bound', async () => {
  const oidText = sandbox.gitText(repo, ['rev-parse', 'HEAD']).trim();
  const uri = `file://${path.join(repo, 'notes.txt')}`;
  await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'plaintext', version: 1, text: `see ${oidText}\n` },
  });
  const editorHover = (): Promise<unknown> =>
    server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 6 } });
  const tiles = flood(FLOOD);
  // LSP messages are read in order: the first hover answers once the server has read the flood
  // (the time that takes is the bench's figure); from then on the tiles wait in their own queue.
  await editorHover();
  const mapHovers: number[] = [];
  const editorHovers: number[] = [];
  for (let i = 0; i < 10; i++) {
    const map = await timed(() =>
      server.connection.sendRequest(PackMapObjectAtRequest, { pack, order: 4, x: i, y: i % 4 }),
    );
    mapHovers.push(map.ms);
    const editor = await timed(editorHover);
    assert.ok(editor.value, 'the editor hover names the commit');
    editorHovers.push(editor.ms);
  }
  tiles.stop();
  const { drawn, cancelled } = await tiles.settled;
  // The hovers were answered while tiles were still waiting: the flood was not drawn before them.
  assert.ok(cancelled > 0, `the flood was still queued after the hovers (${drawn} drawn, ${cancelled} cancelled)`);
  const worst = (ms: number[]): number => Math.max(...ms);
  assert.ok(
    worst(mapHovers) < HOVER_BOUND_MS,
    `map hovers under the flood: ${mapHovers.map((ms) => ms.toFixed(0)).join(', ')} ms`,
  );
  assert.ok(
    worst(editorHovers) < HOVER_BOUND_MS,
    `editor hovers under the flood: ${editorHovers.map((ms) => ms.toFixed(0)).join(', ')} ms`,
  );
});

test("a newer view of a pane drops the older view's tiles that wait, and draws its own", async () => {
  const older = flood(2000, () => ({ view: { id: 'panel-1/0', generation: 1 } }));
  const other = flood(8, () => ({ view: { id: 'panel-2/0', generation: 1 } }));
  const newer = await timed(() =>
    server.connection.sendRequest(PackMapTileRequest, {
      pack,
      attribute: 'depth',
      order: 0,
      tileX: 0,
      tileY: 0,
      view: { id: 'panel-1/0', generation: 2 },
    }),
  );
  assert.equal(newer.value.size, 1);
  const superseded = await older.settled;
  // A few were in the map worker already; the rest never were.
  assert.ok(superseded.cancelled > 1900, `older view: ${superseded.drawn} drawn, ${superseded.cancelled} dropped`);
  assert.ok(newer.ms < HOVER_BOUND_MS * 4, `the newer view's tile took ${newer.ms.toFixed(0)} ms`);
  // Another pane's view is not touched by it.
  assert.deepEqual(await other.settled, { drawn: 8, cancelled: 0 });
  // A request of the older generation, come late, is dropped at once.
  await assert.rejects(
    server.connection.sendRequest(PackMapTileRequest, {
      pack,
      attribute: 'type',
      order: 0,
      tileX: 0,
      tileY: 0,
      view: { id: 'panel-1/0', generation: 1 },
    }),
    (error: unknown) => error instanceof ResponseError && error.code === LSPErrorCodes.RequestCancelled,
  );
});
