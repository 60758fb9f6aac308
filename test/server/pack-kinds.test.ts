/**
 * The server's listing and object answers for every kind of pack (the Packs view's pack rows, its
 * Storage node and hovers read these): a cruft pack, a kept pack, a pack repeating objects, a
 * multi-pack-index with a bitmap and a preferred pack, loose objects, and a repository borrowing
 * through an alternate. Checked against the files git wrote and `git count-objects -v`.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  DidOpenTextDocumentNotification,
  HoverRequest,
  type Hover,
  type MarkupContent,
} from 'vscode-languageserver-protocol/node';
import {
  ListRepositoriesRequest,
  ObjectRequest,
  type ObjectResult,
  type RepositoryListing,
} from '../../src/protocol/server-protocol.ts';
import { gitEnv, GitSandbox, tempDir } from '../support/git.ts';
import { LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let borrower: string;
let server: LspServer;
let repeated: string;
let preferred: string;

function commit(dir: string, file: string, text: string, message: string): void {
  fs.writeFileSync(path.join(dir, file), text);
  sandbox.git(dir, ['add', file]);
  sandbox.git(dir, ['commit', '-q', '-m', message]);
}

const packDir = (dir: string): string => path.join(dir, '.git', 'objects', 'pack');
const packNames = (dir: string): string[] =>
  fs
    .readdirSync(packDir(dir))
    .filter((n) => n.endsWith('.pack'))
    .sort();

before(async () => {
  root = tempDir(undefined, 'packscope-pack-kinds-server-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = sandbox.init('kinds');
  for (let i = 1; i <= 3; i++) commit(repo, `f${i}.txt`, `file ${i}\n`.repeat(30 * i), `c${i}`);
  commit(repo, 'gone.txt', 'unreachable soon\n'.repeat(20), 'gone');
  sandbox.git(repo, ['reset', '-q', '--hard', 'HEAD~1']);
  sandbox.git(repo, ['reflog', 'expire', '--expire=now', '--all']);
  sandbox.git(repo, ['repack', '-q', '--cruft', '-d', '-b']);
  commit(repo, 'f4.txt', 'four\n'.repeat(40), 'c4');
  sandbox.git(repo, ['repack', '-q', '-d']);
  repeated = sandbox.gitText(repo, ['rev-parse', 'HEAD~1:f1.txt']).trim();
  sandbox.git(repo, ['pack-objects', '-q', path.join(packDir(repo), 'pack')], { input: `${repeated}\n` });
  const newest = packNames(repo).find((name) => {
    const idx = fs.readFileSync(path.join(packDir(repo), name.replace(/\.pack$/, '.idx')));
    return sandbox
      .gitText(repo, ['show-index'], { input: idx })
      .includes(sandbox.gitText(repo, ['rev-parse', 'HEAD']).trim());
  })!;
  fs.writeFileSync(path.join(packDir(repo), newest.replace(/\.pack$/, '.keep')), 'kept for the test\n');
  preferred = newest.replace(/\.pack$/, '.idx');
  sandbox.git(repo, ['multi-pack-index', 'write', '--bitmap', `--preferred-pack=${newest}`]);
  sandbox.git(repo, ['hash-object', '-w', '--stdin'], { input: 'a loose blob\n' });
  borrower = path.join(workspace, 'borrower');
  sandbox.git(workspace, ['clone', '-q', '--shared', repo, borrower]);
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: gitEnv(sandbox.home),
  });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

async function listing(dir: string): Promise<RepositoryListing> {
  const { repositories } = await server.connection.sendRequest(ListRepositoriesRequest, {});
  const found = repositories.find((r) => fs.realpathSync(r.gitDir) === fs.realpathSync(path.join(dir, '.git')));
  assert.ok(found, `${dir} is listed: ${repositories.map((r) => r.gitDir).join(', ')}`);
  return found;
}

function countObjects(dir: string): Map<string, string> {
  return new Map(
    sandbox
      .gitText(dir, ['count-objects', '-v'])
      .trim()
      .split('\n')
      .map((line) => line.split(': ') as [string, string]),
  );
}

test('pack rows carry their kind, markers and MIDX coverage; the storage has the MIDX, loose objects and no alternate', async () => {
  const listed = await listing(repo);
  assert.deepEqual(listed.packs.map((p) => p.name).sort(), packNames(repo));
  for (const pack of listed.packs) {
    const layout = pack.layout;
    assert.ok(layout, `${pack.name} has a layout`);
    const stem = pack.pack.slice(0, -5);
    assert.deepEqual(
      layout.markers,
      (['keep', 'promisor', 'mtimes', 'bitmap', 'rev'] as const).filter((m) => fs.existsSync(`${stem}.${m}`)),
      pack.name,
    );
    assert.equal(layout.kind, fs.existsSync(`${stem}.mtimes`) ? 'cruft' : 'normal');
    assert.equal(layout.inMidx, true);
  }
  assert.equal(listed.packs.filter((p) => p.layout?.kind === 'cruft').length, 1);
  assert.equal(listed.packs.find((p) => p.layout?.markers.includes('keep'))?.layout?.keepReason, 'kept for the test');
  const storage = listed.storage;
  assert.ok(storage);
  assert.equal(storage.midx.length, 1);
  assert.equal(storage.midx[0]!.preferredPack, preferred);
  assert.equal(storage.midx[0]!.bitmap, true);
  const git = countObjects(repo);
  assert.equal(String(storage.loose.count), git.get('count'));
  assert.equal(String(storage.loose.size), git.get('size'));
  assert.equal(String(storage.loose.inPack), git.get('in-pack'));
  assert.equal(String(storage.loose.sizePack), git.get('size-pack'));
  assert.deepEqual(storage.alternates, []);
});

test('the borrowing repository lists its alternate and the packs it reads through it', async () => {
  const listed = await listing(borrower);
  assert.deepEqual(listed.storage?.alternates, [path.join(repo, '.git', 'objects')]);
  assert.ok(listed.packs.length > 0 && listed.packs.every((p) => !p.local && p.layout?.local === false));
});

test('an object in two packs: the answer says the MIDX chose it and names the other copy; the hover says so too', async () => {
  const result = (await server.connection.sendRequest(ObjectRequest, {
    oid: repeated,
    repository: (await listing(repo)).id,
  })) as ObjectResult;
  assert.ok(result.found, result.found ? '' : result.reason);
  const where = result.object.whereabouts;
  assert.ok(where && 'pack' in where.answeredBy);
  assert.equal(where.answeredBy.pack, result.object.pack);
  assert.equal(where.answeredBy.viaMidx, true);
  assert.equal(where.alsoInPacks.length, 1);
  // cat-file reads the same copy: its disk size is the answer's.
  const line = sandbox
    .gitText(repo, ['cat-file', '--batch-check=%(objectsize:disk)'], { input: `${repeated}\n` })
    .trim();
  assert.equal(String(result.object.diskSize), line);
  const uri = pathToFileURL(path.join(root, 'notes.txt')).href;
  await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'plaintext', version: 1, text: `see ${repeated}\n` },
  });
  let markdown = '';
  for (let i = 0; i < 300 && !markdown.includes('also in'); i++) {
    const hover = (await server.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 0, character: 8 },
    })) as Hover | null;
    markdown = hover ? (hover.contents as MarkupContent).value : '';
    if (!markdown.includes('also in')) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.match(markdown, /git reads it from this pack \(through the multi-pack-index\) · also in 1 other pack/);
});
