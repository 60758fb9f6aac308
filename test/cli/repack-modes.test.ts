/**
 * repack-preview --geometric=2 and --cruft (git 2.39 takes both): the preview runs that very
 * repack against a shadow of the objects directory. Compared with the same `git repack` run for
 * real in a copy of the repository: the packs kept, the packs written (their object counts and
 * kinds), the loose objects left; and the repository itself is left byte for byte (and mtime for
 * mtime) as it was.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { RepackModePreviewDocument } from '../../src/core/documents/repack-mode-document.ts';
import { directorySnapshot, GitSandbox, tempDir } from '../support/git.ts';
import { packscope } from '../support/git-oracle.ts';

let root: string;
let cache: string;
let sandbox: GitSandbox;

before(() => {
  root = tempDir(undefined, 'packscope-repack-modes-');
  cache = path.join(root, 'cache');
  sandbox = new GitSandbox(root);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

function commit(dir: string, file: string, text: string, message: string): void {
  fs.writeFileSync(path.join(dir, file), text);
  sandbox.git(dir, ['add', file]);
  sandbox.git(dir, ['commit', '-q', '-m', message]);
}

const packDir = (dir: string): string => path.join(dir, '.git', 'objects', 'pack');

/** Every file under the objects directory with its content hash and mtime: what "left as it was" means here. */
function objectsState(dir: string): string[] {
  const objects = path.join(dir, '.git', 'objects');
  return directorySnapshot(objects).map((line) => {
    const rel = line.split(' ')[0]!.replace(/\/$/, '');
    return `${line} ${fs.lstatSync(path.join(objects, rel)).mtimeMs}`;
  });
}

/** The packs of a pack directory after a real repack: name → [objects, kind]. */
function realPacks(dir: string): { name: string; objects: number; kind: string }[] {
  return fs
    .readdirSync(packDir(dir))
    .filter((n) => n.endsWith('.pack'))
    .sort()
    .map((name) => {
      const stem = path.join(packDir(dir), name.slice(0, -5));
      const objects = sandbox
        .gitText(dir, ['verify-pack', '-v', `${stem}.idx`])
        .split('\n')
        .filter((l) => /^[0-9a-f]{40} /.test(l)).length;
      return {
        name,
        objects,
        kind: fs.existsSync(`${stem}.mtimes`) ? 'cruft' : fs.existsSync(`${stem}.promisor`) ? 'promisor' : 'normal',
      };
    });
}

function looseCount(dir: string): number {
  return Number(/^count: (\d+)$/m.exec(sandbox.gitText(dir, ['count-objects', '-v']))![1]);
}

function preview(dir: string, args: string[]): RepackModePreviewDocument {
  const result = packscope(['repack-preview', '--json', ...args, dir], root, cache);
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout) as RepackModePreviewDocument;
}

function compareWithRealRepack(dir: string, doc: RepackModePreviewDocument, repackArgs: string[]): void {
  const copy = `${dir}-real`;
  fs.cpSync(dir, copy, { recursive: true });
  sandbox.git(copy, ['repack', '-q', ...repackArgs]);
  const real = realPacks(copy);
  const sideOf = (packs: RepackModePreviewDocument['after']['packs']): string[] =>
    packs.map((p) => `${p.objects} ${p.kind}`).sort();
  assert.deepEqual(
    sideOf(doc.after.packs),
    real.map((p) => `${p.objects} ${p.kind}`).sort(),
    'the packs after: objects and kinds as the real repack left them',
  );
  assert.deepEqual(
    doc.unchanged.sort(),
    real
      .map((p) => p.name)
      .filter((name) => doc.before.packs.some((b) => b.name === name))
      .sort(),
    'the packs kept as they were',
  );
  assert.equal(doc.after.looseObjects, looseCount(copy));
  assert.deepEqual(doc.equivalent, ['git', 'repack', ...repackArgs]);
}

test('--geometric=2: the small packs are rolled up as git repack --geometric=2 -d rolls them, the large one stays', () => {
  const dir = sandbox.init('geometric');
  // One large pack, then packs of one commit each (3 objects): not a geometric progression.
  for (let i = 0; i < 30; i++) commit(dir, `big${i}.txt`, `big file ${i}\n`.repeat(10), `big ${i}`);
  sandbox.git(dir, ['repack', '-q', '-ad']);
  for (let i = 0; i < 4; i++) {
    commit(dir, `small${i}.txt`, `small ${i}\n`, `small ${i}`);
    sandbox.git(dir, ['repack', '-q', '-d']);
  }
  const stateBefore = objectsState(dir);
  const doc = preview(dir, ['--geometric', '2']);
  assert.deepEqual(objectsState(dir), stateBefore, 'the repository is untouched');
  assert.equal(doc.schema, 'packscope.repack-mode-preview/1');
  assert.deepEqual(doc.mode, { kind: 'geometric', factor: 2 });
  assert.equal(doc.before.packs.length, 5);
  assert.ok(doc.after.packs.length < doc.before.packs.length, `fewer packs after: ${doc.after.packs.length}`);
  compareWithRealRepack(dir, doc, ['--geometric=2', '-d']);
  const text = packscope(['repack-preview', '--geometric', '2', dir], root, cache).stdout;
  assert.match(text, /packs\s+5\s+2/);
});

test('--cruft: one pack of the reachable objects and a cruft pack of the unreachable ones, loose objects packed, as git repack --cruft -d does', () => {
  const dir = sandbox.init('cruft');
  for (let i = 0; i < 5; i++) commit(dir, `f${i}.txt`, `file ${i}\n`.repeat(20), `c${i}`);
  sandbox.git(dir, ['repack', '-q', '-ad']);
  commit(dir, 'dropped.txt', 'dropped\n'.repeat(10), 'dropped');
  sandbox.git(dir, ['reset', '-q', '--hard', 'HEAD~1']);
  sandbox.git(dir, ['reflog', 'expire', '--expire=now', '--all']);
  sandbox.git(dir, ['hash-object', '-w', '--stdin'], { input: 'a loose unreachable blob\n' });
  const stateBefore = objectsState(dir);
  const doc = preview(dir, ['--cruft']);
  assert.deepEqual(
    objectsState(dir),
    stateBefore,
    'the repository is untouched (its loose objects too: prune-packed ran on the shadow)',
  );
  assert.ok(doc.before.looseObjects >= 4);
  assert.deepEqual(doc.after.packs.map((p) => p.kind).sort(), ['cruft', 'normal']);
  assert.equal(doc.after.looseObjects, 0);
  compareWithRealRepack(dir, doc, ['--cruft', '-d']);
});

test('--geometric refuses a factor below 2 and the pack-objects options it does not take', () => {
  const dir = path.join(root, 'geometric');
  const low = packscope(['repack-preview', '--geometric', '1', dir], root, cache);
  assert.equal(low.status, 1);
  assert.match(low.stderr, /factor of 2 or more/);
  const tuned = packscope(['repack-preview', '--cruft', '--depth', '5', dir], root, cache);
  assert.equal(tuned.status, 1);
  assert.match(tuned.stderr, /--depth do not apply/);
});
