/**
 * Cancelling the warm-up (packscope.cancelLoad → packscope/cancelLoads): the
 * server starts warming up the repository's pack at `initialized` (in a model worker: the pack is
 * over the in-process size); a cancel sent right after stops it. Afterwards: no model is loaded or
 * persisted, the listing says the load was cancelled (`loadCancelled`), a hover does not restart
 * it, and a later request loads the model with git's object count and clears the state.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { DidOpenTextDocumentNotification, HoverRequest } from 'vscode-languageserver-protocol/node';
import {
  CancelLoadsNotification,
  ConfigureNotification,
  DEFAULT_SERVER_SETTINGS,
  ListRepositoriesRequest,
  PackSummaryRequest,
  type PackListing,
} from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, packStems, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let workspace: string;
let repo: string;
let stem: string;
let objects: number;
let server: LspServer | undefined;

before(() => {
  root = tempDir(undefined, 'packscope-cancel-warm-up-');
  workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = sandbox.init('repo');
  sandbox.fastImport(repo, historyStream({ commits: 1500, files: 20 }));
  sandbox.git(repo, ['repack', '-adq']);
  stem = packStems(path.join(repo, '.git', 'objects'))[0]!;
  objects = sandbox
    .gitText(repo, ['show-index'], { input: fs.readFileSync(`${stem}.idx`) })
    .trim()
    .split('\n').length;
});

after(async () => {
  if (server) assert.equal(await server.stop(), 0);
  fs.rmSync(root, { recursive: true, force: true });
});

async function packListing(s: LspServer): Promise<PackListing> {
  const listing = await s.connection.sendRequest(ListRepositoriesRequest, {});
  const pack = listing.repositories.flatMap((r) => r.packs).find((p) => p.pack === `${stem}.pack`);
  assert.ok(pack, JSON.stringify(listing));
  return pack;
}

async function waitForLog(s: LspServer, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const line = s.log.find((l) => pattern.test(l));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`no log line matched ${pattern} in 30 s:\n${s.log.join('\n')}`);
}

test('a cancelled warm-up leaves no model, says it was cancelled, is not restarted by a hover, and a request then loads the model', async () => {
  // Over IN_PROCESS_PACK_BYTES (256 KiB): the warm-up builds it in a worker, which the cancel ends.
  assert.ok(fs.statSync(`${stem}.pack`).size > 256 * 1024, 'the pack is built in a worker');
  const cacheDir = path.join(root, 'models');
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: cacheDir },
    env: gitEnv(sandbox.home),
  });
  // initialized started the warm-up (a worker, whose start alone outlasts this message's trip).
  await server.connection.sendNotification(CancelLoadsNotification, {});
  await waitForLog(server, /model loads cancelled: the warm-up stops/);
  await waitForLog(server, /warm-up cancelled: 1 pack model not loaded/);

  const cancelled = await packListing(server);
  assert.equal(cancelled.summary, undefined, 'no model');
  assert.equal(cancelled.loadCancelled, true);
  assert.equal(cancelled.objects, objects, 'the idx count is still listed');
  const persisted = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((name) => name.endsWith('.psmodel')) : [];
  assert.deepEqual(persisted, [], 'the worker ended before it persisted a model');

  // A hover asks for a warm-up of what is not loaded: the cancelled pack is not among it.
  const oid = sandbox.gitText(repo, ['rev-parse', 'HEAD']).trim();
  const uri = pathToFileURL(path.join(root, 'notes.txt')).href;
  await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'plaintext', version: 1, text: `see ${oid}\n` },
  });
  await server.connection.sendRequest(HoverRequest.type, {
    textDocument: { uri },
    position: { line: 0, character: 8 },
  });
  // Had the hover restarted the warm-up, this cancel would find it running (a worker build) and say so.
  await server.connection.sendNotification(CancelLoadsNotification, {});
  const afterHover = await packListing(server);
  assert.equal(server.log.filter((l) => /model loads cancelled/.test(l)).length, 1, server.log.join('\n'));
  assert.equal(afterHover.loadCancelled, true, 'still cancelled after a hover');
  assert.equal(afterHover.summary, undefined);

  const summary = await server.connection.sendRequest(PackSummaryRequest, { pack: `${stem}.pack` });
  assert.equal(summary.objects, objects);
  assert.equal(summary.source, 'built');
  const loaded = await packListing(server);
  assert.equal(loaded.loadCancelled, undefined, 'a load clears the cancelled state');
  assert.equal(loaded.summary?.objects, objects);
});

test('a model cache changed during the warm-up: the new cache warms up in its place and the listing gets the model', async () => {
  // The extension sends the settings' model cache once the server is up; the e2e first build saw it
  // arrive during the warm-up, whose model went to the replaced loader: the row kept "N objects".
  const first = path.join(root, 'models-first');
  const second = path.join(root, 'models-second');
  const s = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: first },
    env: gitEnv(sandbox.home),
  });
  try {
    const starting = await packListing(s);
    assert.ok(starting.loading !== undefined, 'the warm-up is under way when the settings change');
    await s.connection.sendNotification(ConfigureNotification, {
      ...DEFAULT_SERVER_SETTINGS,
      scanDepth: 1,
      modelCacheDirectory: second,
      hoverIndexLimit: 5_000_000,
    });
    await waitForLog(s, /warm-up stopped: the model cache changed/);
    let listed = await packListing(s);
    for (let i = 0; i < 300 && listed.summary === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      listed = await packListing(s);
    }
    assert.equal(listed.summary?.objects, objects, `the listing has the model: ${JSON.stringify(listed)}`);
    assert.equal(listed.loadCancelled, undefined, 'not listed as the user cancelling it');
    assert.ok(
      fs.readdirSync(second).some((name) => name.endsWith('.psmodel')),
      'persisted in the new cache',
    );
  } finally {
    assert.equal(await s.stop(), 0);
  }
});
