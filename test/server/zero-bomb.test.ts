/**
 * The zero-blob delta bomb: a pack of about 75 KB holding a 64 MiB blob of zeros and
 * 200 chained OFS_DELTAs, each copying its whole base and inserting one byte (written by
 * test/support/zero-bomb.ts, indexed by real `git index-pack`, read back by `git cat-file`). Against
 * the server: the object is found with git's size; an object document of a version whose rebuild
 * stays within the budget of bytes rebuilt is answered while hovers answer first; deeper versions
 * are refused naming the budget; cancelled rebuilds answer RequestCancelled.
 *
 * Costly to build: git index-pack hashes every version (200 × 64 MiB: two CPU minutes, 13 minutes
 * on a loaded 2-core machine). So `npm test` builds the same pack with 8 deltas (the blob, the
 * budget, the refusals and the cancellations are the same; only the chain is shorter), and
 * PACKSCOPE_ZERO_BOMB_DELTAS=200 builds the whole case.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  CancellationTokenSource,
  DidOpenTextDocumentNotification,
  ErrorCodes,
  HoverRequest,
  LSPErrorCodes,
  ResponseError,
  type Hover,
} from 'vscode-languageserver-protocol/node';
import { MAX_REBUILT_BYTES_PER_REQUEST } from '../../src/server/object-content.ts';
import { ObjectContentRequest, ObjectRequest } from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { LspServer } from '../support/lsp-server.ts';
import { installZeroBomb, ZERO_BLOB_BYTES } from '../support/zero-bomb.ts';

const DELTAS = (() => {
  const wanted = Number(process.env.PACKSCOPE_ZERO_BOMB_DELTAS ?? 8);
  return Number.isInteger(wanted) && wanted >= 5 ? wanted : 8;
})();
/** The deepest version whose rebuild (depth × ~64 MiB of delta results) stays within the budget. */
const WITHIN = Math.floor(MAX_REBUILT_BYTES_PER_REQUEST / (ZERO_BLOB_BYTES + DELTAS));

let root: string;
let sandbox: GitSandbox;
let repo: string;
let stem: string;
let server: LspServer;
/** Object ids by depth (0: the blob of zeros), from git cat-file --batch-check. */
let byDepth: string[];

async function rejection(promise: Promise<unknown>): Promise<ResponseError<unknown>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ResponseError, `a ResponseError, got ${String(error)}`);
    return error;
  }
  assert.fail('the request should have failed');
}

before(async () => {
  root = tempDir(undefined, 'packscope-zero-bomb-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = sandbox.init('bomb');
  stem = installZeroBomb(repo, sandbox.home, DELTAS);
  // git reads it: every version a blob of 64 MiB plus its depth in bytes, each a delta of the one before.
  const listing = sandbox.gitText(repo, [
    'cat-file',
    '--batch-all-objects',
    '--batch-check=%(objectname) %(objecttype) %(objectsize) %(deltabase)',
  ]);
  const rows = listing
    .trim()
    .split('\n')
    .map((line) => line.split(' ') as [string, string, string, string]);
  assert.equal(rows.length, DELTAS + 1);
  byDepth = new Array<string>(DELTAS + 1);
  for (const [oid, type, size] of rows) {
    assert.equal(type, 'blob');
    byDepth[Number(size) - ZERO_BLOB_BYTES] = oid;
  }
  const baseOf = new Map(rows.map(([oid, , , base]) => [oid, base]));
  assert.match(baseOf.get(byDepth[0]!)!, /^0+$/, 'the blob of zeros is stored whole');
  for (let depth = 1; depth <= DELTAS; depth++)
    assert.equal(baseOf.get(byDepth[depth]!), byDepth[depth - 1], `depth ${depth} is a delta of depth ${depth - 1}`);
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: gitEnv(sandbox.home),
  });
  await server.connection.sendRequest(ObjectRequest, { oid: byDepth[DELTAS]! });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe(`the zero-blob delta bomb: 64 MiB of zeros under ${DELTAS} deltas`, () => {
  test(`the pack is what the issue says: under 100 KB on disk, git reads the deepest as 64 MiB + ${DELTAS} bytes`, () => {
    assert.ok(fs.statSync(`${stem}.pack`).size < 100_000, `${fs.statSync(`${stem}.pack`).size} bytes`);
    assert.equal(sandbox.gitText(repo, ['cat-file', '-s', byDepth[DELTAS]!]).trim(), String(ZERO_BLOB_BYTES + DELTAS));
    assert.equal(WITHIN, 3, 'three 64 MiB rebuilds fit the 256 MiB budget');
  });

  test(`the server finds the deepest version with git's size and its chain of ${DELTAS} deltas`, async () => {
    const result = await server.connection.sendRequest(ObjectRequest, { oid: byDepth[DELTAS]! });
    assert.ok(result.found, result.found ? '' : result.reason);
    assert.equal(result.object.size, ZERO_BLOB_BYTES + DELTAS);
    assert.equal(result.object.chain.length, DELTAS + 1);
    assert.equal(result.object.root, byDepth[0]);
  });

  test('an object document within the budget is rebuilt in a worker while a hover answers first', async () => {
    const uri = pathToFileURL(path.join(root, 'notes.txt')).href;
    await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'plaintext', version: 1, text: `${byDepth[WITHIN]!}\n` },
    });
    const order: string[] = [];
    const content = server.connection
      .sendRequest(ObjectContentRequest, { oid: byDepth[WITHIN]!, maxContentBytes: 64, maxInstructions: 10 })
      .then((result) => {
        order.push('objectContent');
        return result;
      });
    const hover = server.connection
      .sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 3 } })
      .then((result) => {
        order.push('hover');
        return result as Hover | null;
      });
    const [rebuilt, hovered] = await Promise.all([content, hover]);
    assert.ok(hovered, 'a hover on the object');
    assert.ok(rebuilt.found);
    assert.equal(rebuilt.content.contentBytes, ZERO_BLOB_BYTES + WITHIN);
    assert.equal(Buffer.from(rebuilt.content.contentBase64, 'base64').toString('hex'), '00'.repeat(64));
    assert.equal(rebuilt.content.details.depth, WITHIN);
    assert.deepEqual(order, ['hover', 'objectContent'], 'the hover answered before the objectContent finished');
  });

  test('one delta past the budget, and the deepest, are refused naming the budget, not rebuilt', async () => {
    for (const depth of [WITHIN + 1, DELTAS]) {
      const error = await rejection(
        server.connection.sendRequest(ObjectContentRequest, {
          oid: byDepth[depth]!,
          maxContentBytes: 64,
          maxInstructions: 10,
        }),
      );
      assert.equal(error.code, ErrorCodes.InvalidParams);
      assert.match(
        error.message,
        new RegExp(
          `applies ${depth} deltas whose results add up to more than the ${MAX_REBUILT_BYTES_PER_REQUEST}-byte budget`,
        ),
      );
    }
  });

  test('cancelled rebuilds answer RequestCancelled, and the server answers afterwards', async () => {
    const sources = Array.from({ length: 20 }, () => new CancellationTokenSource());
    const pending = sources.map((source) =>
      server.connection.sendRequest(
        ObjectContentRequest,
        { oid: byDepth[WITHIN]!, maxContentBytes: 64, maxInstructions: 10 },
        source.token,
      ),
    );
    for (const source of sources) source.cancel();
    for (const outcome of await Promise.allSettled(pending)) {
      assert.equal(outcome.status, 'rejected');
      assert.equal((outcome.reason as ResponseError<unknown>).code, LSPErrorCodes.RequestCancelled);
    }
    const after = await server.connection.sendRequest(ObjectRequest, { oid: byDepth[1]! });
    assert.ok(after.found);
    assert.equal(after.object.size, ZERO_BLOB_BYTES + 1);
  });
});
