/**
 * A repository of many one-object packs. The server loads packs up to 256 KiB on
 * its own thread when it reads many in a row (model-loader.ts, loadInProcess), from the model cache
 * or built and persisted there. Checked: every object is found with git's type and size, each small
 * pack's model is persisted, and a second server reads them from the cache with the same answers.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { DidOpenTextDocumentNotification, HoverRequest, type Hover } from 'vscode-languageserver-protocol/node';
import { ObjectRequest, type ObjectResult } from '../../src/protocol/server-protocol.ts';
import { gitEnv, GitSandbox, packStems, tempDir } from '../support/git.ts';
import { LspServer } from '../support/lsp-server.ts';

const PACK_COUNT = 150;

let root: string;
let sandbox: GitSandbox;
let repo: string;
let workspace: string;
/** git cat-file --batch-check of every object: oid → "type size". */
let expected: Map<string, string>;

before(() => {
  root = tempDir(undefined, 'packscope-many-small-packs-');
  workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = sandbox.init('many');
  // One blob per pack: a checkpoint after each, and no unpacking into loose objects.
  let stream = '';
  for (let i = 0; i < PACK_COUNT; i++)
    stream += `blob\ndata <<EOF\nobject ${i} ${'x'.repeat(i)}\nEOF\n\ncheckpoint\n\n`;
  sandbox.git(repo, ['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet'], { input: stream });
  assert.equal(packStems(path.join(repo, '.git', 'objects')).length, PACK_COUNT, 'one pack per object');
  const listing = sandbox.gitText(repo, [
    'cat-file',
    '--batch-all-objects',
    '--batch-check=%(objectname) %(objecttype) %(objectsize)',
  ]);
  expected = new Map(
    listing
      .trim()
      .split('\n')
      .map((line) => {
        const [oid, type, size] = line.split(' ');
        return [oid!, `${type} ${size}`];
      }),
  );
  assert.equal(expected.size, PACK_COUNT);
});

after(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

async function answers(server: LspServer): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const results = await Promise.all(
    [...expected.keys()].map((oid) => server.connection.sendRequest(ObjectRequest, { oid }) as Promise<ObjectResult>),
  );
  for (const result of results) {
    assert.ok(result.found, result.found ? '' : result.reason);
    found.set(result.object.oid, `${result.object.type} ${result.object.size}`);
  }
  return found;
}

function modelFiles(directory: string): string[] {
  return fs.existsSync(directory)
    ? fs
        .readdirSync(directory, { recursive: true, encoding: 'utf8' })
        .filter((file) => fs.statSync(path.join(directory, file)).isFile())
    : [];
}

test(`${PACK_COUNT} one-object packs: every object as git lists it, each pack's model persisted and read back by a second server`, async () => {
  const models = path.join(root, 'models');
  const first = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: models },
    env: gitEnv(sandbox.home),
  });
  try {
    // Sent while the packs load on the server's thread (one per event-loop turn): a hover is answered
    // (no object yet, or the right one) and every object request gets git's answer.
    const oid = [...expected.keys()][PACK_COUNT - 1]!;
    const uri = pathToFileURL(path.join(root, 'notes.txt')).href;
    await first.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'plaintext', version: 1, text: `${oid}\n` },
    });
    const hoverAt = { textDocument: { uri }, position: { line: 0, character: 3 } };
    const [early, found] = await Promise.all([
      first.connection.sendRequest(HoverRequest.type, hoverAt) as Promise<Hover | null>,
      answers(first),
    ]);
    assert.deepEqual(found, expected);
    if (early !== null) assert.match(JSON.stringify(early.contents), new RegExp(oid.slice(0, 7)));
    // Once loaded, the hover names the object with git's type and size.
    const late = (await first.connection.sendRequest(HoverRequest.type, hoverAt)) as Hover | null;
    assert.ok(late, 'a hover once the packs are loaded');
    const text = JSON.stringify(late.contents);
    const [type, size] = expected.get(oid)!.split(' ');
    assert.ok(text.includes(type!) && text.includes(size!), text);
  } finally {
    assert.equal(await first.stop(), 0);
  }
  const persisted = modelFiles(models);
  assert.ok(
    persisted.length >= PACK_COUNT,
    `a model file per pack in ${models}: ${persisted.length} files for ${PACK_COUNT} packs`,
  );
  const stamps = new Map(persisted.map((file) => [file, fs.statSync(path.join(models, file)).mtimeMs]));

  const second = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: models },
    env: gitEnv(sandbox.home),
  });
  try {
    assert.deepEqual(await answers(second), expected);
  } finally {
    assert.equal(await second.stop(), 0);
  }
  // Read, not rebuilt: no model file was written again.
  for (const [file, stamp] of stamps)
    assert.equal(fs.statSync(path.join(models, file)).mtimeMs, stamp, `${file} was rewritten`);
});
