/**
 * Every kind of pack, built with git and compared with what git says about it: a kept pack, a
 * cruft pack (`git repack --cruft -d`), bitmaps (`repack -adb`), a `.rev`, a multi-pack-index with
 * a bitmap and a chosen preferred pack, packs holding the same objects, loose objects (one also
 * packed), garbage, an alternate, a promisor pack of a partial clone, and a FIFO named `.keep`.
 * `stats --json`'s layout is compared with `git count-objects -v` field by field, each pack's
 * objects with `git verify-pack -v`, the pack answering each object with `git cat-file
 * --batch-check`'s `%(objectsize:disk)`, and a partial clone's objects with `git rev-list --objects
 * --all --missing=print`.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import type { RepositoryLayout } from '../../src/core/documents/repository-layout-document.ts';
import { runCliBounded } from '../support/bounded-cli.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { packscope, parseVerifyPack } from '../support/git-oracle.ts';

let root: string;
let cache: string;
let sandbox: GitSandbox;
let repo: string;

function commit(dir: string, file: string, text: string, message: string): void {
  fs.writeFileSync(path.join(dir, file), text);
  sandbox.git(dir, ['add', file]);
  sandbox.git(dir, ['commit', '-q', '-m', message]);
}

function packDir(dir: string): string {
  return path.join(dir, '.git', 'objects', 'pack');
}

function packNames(dir: string): string[] {
  return fs
    .readdirSync(packDir(dir))
    .filter((n) => n.endsWith('.pack'))
    .sort();
}

function layoutOf(dir: string): RepositoryLayout {
  const result = packscope(['stats', '--json', '--top', '0', dir], root, cache);
  assert.equal(result.status, 0, result.stderr);
  const layout = JSON.parse(result.stdout).layout as RepositoryLayout | undefined;
  assert.ok(layout, 'stats --json has a layout');
  return layout;
}

/** `git count-objects -v` as a map, and its `alternate:` lines. */
function countObjects(dir: string): { fields: Map<string, number>; alternates: string[] } {
  const fields = new Map<string, number>();
  const alternates: string[] = [];
  for (const line of sandbox.gitText(dir, ['count-objects', '-v']).trim().split('\n')) {
    const [key, value] = line.split(': ') as [string, string];
    if (key === 'alternate') alternates.push(value);
    else fields.set(key, Number(value));
  }
  return { fields, alternates };
}

function assertCountObjects(dir: string, layout: RepositoryLayout): void {
  const git = countObjects(dir);
  const l = layout.loose;
  const ours = new Map<string, number | undefined>([
    ['count', l.count],
    ['size', l.size],
    ['in-pack', l.inPack],
    ['packs', l.packs],
    ['size-pack', l.sizePack],
    ['prune-packable', l.prunePackable],
    ['garbage', l.garbage],
    ['size-garbage', l.sizeGarbage],
  ]);
  assert.deepEqual([...ours], [...git.fields], 'count-objects -v, field by field');
  assert.deepEqual(layout.alternates, git.alternates);
}

/** Writes a loose object by hand (git will not write one that a pack already has). */
function writeLoose(dir: string, type: string, content: Buffer): string {
  const body = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const oid = sandbox.gitText(dir, ['hash-object', '-t', type, '--stdin'], { input: content }).trim();
  const file = path.join(dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, deflateSync(body));
  return oid;
}

/** cat-file's answer for every object: the disk size comes from the pack git reads it from. */
function batchCheck(dir: string): Map<string, string> {
  const out = sandbox.gitText(dir, [
    'cat-file',
    '--batch-all-objects',
    '--batch-check=%(objectname) %(objecttype) %(objectsize) %(objectsize:disk)',
  ]);
  return new Map(
    out
      .trim()
      .split('\n')
      .map((line) => [line.split(' ')[0]!, line]),
  );
}

before(() => {
  root = tempDir(undefined, 'packscope-pack-kinds-');
  cache = path.join(root, 'cache');
  sandbox = new GitSandbox(root);
  repo = sandbox.init('kinds');
  for (let i = 1; i <= 4; i++) commit(repo, `f${i}.txt`, `line of file ${i}\n`.repeat(40 * i), `c${i}`);
  // Unreachable objects for the cruft pack: a commit dropped by a reset, its reflog expired.
  commit(repo, 'dropped.txt', 'soon unreachable\n'.repeat(30), 'dropped');
  sandbox.git(repo, ['reset', '-q', '--hard', 'HEAD~1']);
  sandbox.git(repo, ['reflog', 'expire', '--expire=now', '--all']);
  // One pack of every reachable object, with a bitmap (a later -adb would drop the cruft pack), and the cruft pack.
  sandbox.git(repo, ['repack', '-q', '--cruft', '-d', '-b']);
  commit(repo, 'f5.txt', 'fifth\n'.repeat(50), 'c5');
  sandbox.git(repo, ['-c', 'pack.writeReverseIndex=true', 'repack', '-q', '-d']);
  // A pack repeating objects the first pack has (a blob and HEAD~1's tree).
  const repeated = ['HEAD~1:f1.txt', 'HEAD~1^{tree}'].map((spec) => sandbox.gitText(repo, ['rev-parse', spec]).trim());
  sandbox.git(repo, ['pack-objects', '-q', path.join(packDir(repo), 'pack')], { input: repeated.join('\n') + '\n' });
  commit(repo, 'f6.txt', 'sixth\n'.repeat(50), 'c6');
  sandbox.git(repo, ['repack', '-q', '-d']);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

test('kept, cruft, bitmap, .rev and repeated packs: kinds and markers as the files say, objects as verify-pack lists them', () => {
  const packs = packNames(repo);
  // The pack of c6 alone is kept, with a reason as receive-pack writes one.
  const newest = sandbox.gitText(repo, ['rev-parse', 'HEAD']).trim();
  const keptPack = packs.find((name) =>
    sandbox
      .gitText(repo, ['show-index'], {
        input: fs.readFileSync(path.join(packDir(repo), name.replace(/\.pack$/, '.idx'))),
      })
      .includes(newest),
  )!;
  fs.writeFileSync(path.join(packDir(repo), keptPack.replace(/\.pack$/, '.keep')), 'receive-pack 4242 on test\n');
  const layout = layoutOf(repo);
  assert.deepEqual(layout.packs.map((p) => p.name).sort(), packs);
  for (const p of layout.packs) {
    const stem = p.pack.slice(0, -5);
    const expected = (['keep', 'promisor', 'mtimes', 'bitmap', 'rev'] as const).filter((m) =>
      fs.existsSync(`${stem}.${m}`),
    );
    assert.deepEqual(p.markers, expected, p.name);
    assert.equal(p.kind, expected.includes('mtimes') ? 'cruft' : 'normal', p.name);
    assert.equal(p.inMidx, false);
    assert.equal(p.local, true);
    const verified = parseVerifyPack(sandbox.gitText(repo, ['verify-pack', '-v', `${stem}.idx`]));
    assert.equal(p.objects, verified.length, `${p.name}: verify-pack's object count`);
    assert.equal(p.packFileBytes, fs.statSync(p.pack).size);
  }
  assert.equal(layout.packs.filter((p) => p.kind === 'cruft').length, 1, 'one cruft pack');
  assert.equal(layout.packs.filter((p) => p.markers.includes('bitmap')).length, 1, 'one bitmap');
  assert.ok(
    layout.packs.some((p) => p.markers.includes('rev')),
    'a .rev',
  );
  const kept = layout.packs.find((p) => p.name === keptPack)!;
  assert.equal(kept.keepReason, 'receive-pack 4242 on test');
  // The bitmap's commit count: the bitmapped pack holds the 4 reachable commits.
  assert.equal(layout.packs.find((p) => p.markers.includes('bitmap'))!.bitmapCommits, 4);
  assert.deepEqual(layout.midx, []);
  assertCountObjects(repo, layout);
});

test('which pack answers: the disk size of every object is the one cat-file reports, copies elsewhere are listed', () => {
  const git = batchCheck(repo);
  const repeated = sandbox.gitText(repo, ['rev-parse', 'HEAD~2:f1.txt']).trim();
  const objects = [...git.keys()];
  for (const oid of [repeated, ...objects.slice(0, 6)]) {
    const result = packscope(['object', '--json', '--no-paths', oid, repo], root, cache);
    assert.equal(result.status, 0, result.stderr);
    const doc = JSON.parse(result.stdout);
    assert.equal(
      `${doc.oid} ${doc.type} ${doc.size} ${doc.diskSize}`,
      git.get(oid),
      `${oid}: the pack git reads it from`,
    );
    const holders = packNames(repo).filter((name) =>
      sandbox
        .gitText(repo, ['show-index'], {
          input: fs.readFileSync(path.join(packDir(repo), name.replace(/\.pack$/, '.idx'))),
        })
        .includes(oid),
    );
    assert.deepEqual(
      [path.basename(doc.pack), ...doc.alsoInPacks.map((p: string) => path.basename(p))].sort(),
      holders.sort(),
      `${oid}: every pack holding it`,
    );
    if (oid === repeated) assert.equal(doc.alsoInPacks.length, 1, 'the repeated blob is in two packs');
  }
});

test('loose objects, one also packed, and garbage: count-objects -v field for field; a loose copy is named but packs answer', () => {
  const dir = path.join(root, 'loose');
  fs.cpSync(repo, dir, { recursive: true });
  const onlyLoose = sandbox.gitText(dir, ['hash-object', '-w', '--stdin'], { input: 'only loose\n' }).trim();
  sandbox.git(dir, ['hash-object', '-w', '--stdin'], { input: 'loose too\n'.repeat(3000) });
  const packedBlob = sandbox.gitText(dir, ['rev-parse', 'HEAD:f2.txt']).trim();
  writeLoose(dir, 'blob', sandbox.git(dir, ['cat-file', 'blob', packedBlob]));
  fs.writeFileSync(path.join(dir, '.git', 'objects', packedBlob.slice(0, 2), 'not-an-object'), 'x'.repeat(3000));
  fs.writeFileSync(path.join(packDir(dir), 'pack-0000000000000000000000000000000000000000.keep'), 'orphan keep\n');
  fs.writeFileSync(path.join(packDir(dir), 'stray.tmp'), 'y'.repeat(2000));
  const layout = layoutOf(dir);
  assert.equal(layout.loose.count, 3);
  assert.equal(layout.loose.prunePackable, 1);
  assert.equal(layout.loose.garbage, 3);
  assertCountObjects(dir, layout);
  const result = packscope(['object', '--json', '--no-paths', packedBlob, dir], root, cache);
  assert.equal(result.status, 0, result.stderr);
  const doc = JSON.parse(result.stdout);
  assert.deepEqual(doc.alsoLoose, [path.join(dir, '.git', 'objects', packedBlob.slice(0, 2), packedBlob.slice(2))]);
  assert.equal(`${doc.oid} ${doc.type} ${doc.size} ${doc.diskSize}`, batchCheck(dir).get(packedBlob));
  // An object no pack has: git reads the loose file, and the error names it.
  const loose = packscope(['object', '--no-paths', onlyLoose, dir], root, cache);
  assert.equal(loose.status, 1);
  assert.ok(
    loose.stderr.includes(path.join(dir, '.git', 'objects', onlyLoose.slice(0, 2), onlyLoose.slice(2))),
    loose.stderr,
  );
  assert.match(loose.stderr, /is loose, in no pack/);
});

test('a multi-pack-index with a bitmap and a preferred pack: coverage, preferred pack, RIDX, and cat-file agrees on every object', () => {
  const dir = path.join(root, 'midx');
  fs.cpSync(repo, dir, { recursive: true });
  const preferred = packNames(dir).find(
    (name) =>
      !fs.existsSync(path.join(packDir(dir), name.replace(/\.pack$/, '.mtimes'))) &&
      !fs.existsSync(path.join(packDir(dir), name.replace(/\.pack$/, '.bitmap'))),
  )!;
  sandbox.git(dir, ['multi-pack-index', 'write', '--bitmap', `--preferred-pack=${preferred}`]);
  sandbox.git(dir, ['multi-pack-index', 'verify']);
  const layout = layoutOf(dir);
  assert.equal(layout.midx.length, 1);
  const midx = layout.midx[0]!;
  assert.deepEqual(
    [...midx.packs].sort(),
    packNames(dir).map((n) => n.replace(/\.pack$/, '.idx')),
  );
  assert.equal(midx.preferredPack, preferred.replace(/\.pack$/, '.idx'));
  assert.equal(midx.bitmap, true);
  assert.equal(midx.reverseIndexChunk, true, 'git 2.39 writes a RIDX chunk with a bitmap');
  assert.deepEqual(midx.missingPacks, []);
  // The MIDX holds each object once: its count is cat-file's.
  const git = batchCheck(dir);
  assert.equal(midx.objects, git.size);
  assert.ok(layout.packs.every((p) => p.inMidx));
  assertCountObjects(dir, layout);
  // The repeated blob: the MIDX picks one copy; cat-file's disk size says which.
  const repeated = sandbox.gitText(dir, ['rev-parse', 'HEAD~2:f1.txt']).trim();
  for (const oid of [repeated, ...[...git.keys()].slice(0, 4)]) {
    const doc = JSON.parse(packscope(['object', '--json', '--no-paths', oid, dir], root, cache).stdout);
    assert.equal(doc.viaMidx, true);
    assert.equal(`${doc.oid} ${doc.type} ${doc.size} ${doc.diskSize}`, git.get(oid));
  }
  const text = packscope(['stats', '--top', '0', dir], root, cache).stdout;
  assert.match(text, new RegExp(`preferred pack ${preferred.replace(/\.pack$/, '.idx')}`));
  assert.match(text, /read through the multi-pack-index/);
});

test('an alternate: listed as count-objects -v lists it, its packs not local and searched after the own ones', () => {
  const dir = path.join(root, 'borrower');
  sandbox.git(root, ['clone', '-q', '--shared', repo, dir]);
  commit(dir, 'own.txt', 'own\n', 'own commit');
  sandbox.git(dir, ['repack', '-q', '-d', '-l']);
  const layout = layoutOf(dir);
  assert.deepEqual(layout.alternates, [path.join(repo, '.git', 'objects')]);
  const firstForeign = layout.packs.findIndex((p) => !p.local);
  assert.ok(
    firstForeign > 0 &&
      layout.packs.slice(firstForeign).every((p) => !p.local && p.objectsDir === path.join(repo, '.git', 'objects')),
  );
  assertCountObjects(dir, layout);
});

test("a partial clone: its pack is a promisor pack, and the objects PackScope finds are rev-list --missing=print's present ones", () => {
  sandbox.git(repo, ['config', 'uploadpack.allowFilter', 'true']);
  const dir = path.join(root, 'partial');
  sandbox.git(root, ['clone', '-q', '--no-checkout', '--filter=blob:none', `file://${repo}`, dir]);
  const layout = layoutOf(dir);
  assert.deepEqual(
    layout.packs.map((p) => [p.kind, p.markers.includes('promisor')]),
    [['promisor', true]],
  );
  assertCountObjects(dir, layout);
  const listed = sandbox.gitText(dir, ['rev-list', '--objects', '--all', '--missing=print']).trim().split('\n');
  const missing = listed.filter((l) => l.startsWith('?')).map((l) => l.slice(1));
  const present = listed.filter((l) => !l.startsWith('?')).map((l) => l.split(' ')[0]!);
  assert.ok(missing.length > 0 && present.length > 0);
  const packed = new Set(
    parseVerifyPack(sandbox.gitText(dir, ['verify-pack', '-v', layout.packs[0]!.pack.replace(/\.pack$/, '.idx')])).map(
      (e) => e.oid,
    ),
  );
  assert.deepEqual(
    present.filter((oid) => !packed.has(oid)),
    [],
    'every object rev-list has is in the promisor pack',
  );
  assert.deepEqual(
    missing.filter((oid) => packed.has(oid)),
    [],
    'no missing object is in it',
  );
  const absent = packscope(['object', '--json', '--no-paths', missing[0]!, dir], root, cache);
  assert.equal(absent.status, 1);
  assert.match(absent.stderr, /not in any pack/);
});

test(
  'a FIFO named .keep: the pack counts as kept (git only checks it exists) and stats does not wait on it',
  { skip: process.platform === 'win32' },
  async () => {
    const dir = path.join(root, 'fifo');
    fs.cpSync(repo, dir, { recursive: true });
    for (const name of fs.readdirSync(packDir(dir)))
      if (name.endsWith('.keep')) fs.rmSync(path.join(packDir(dir), name));
    const target = packNames(dir)[0]!;
    execFileSync('mkfifo', [path.join(packDir(dir), target.replace(/\.pack$/, '.keep'))]);
    // A FIFO as a pack's .bitmap, and one named like a loose object: git's count-objects calls the latter garbage.
    const unbitmapped = packNames(dir).find(
      (name) => !fs.existsSync(path.join(packDir(dir), name.replace(/\.pack$/, '.bitmap'))),
    )!;
    execFileSync('mkfifo', [path.join(packDir(dir), unbitmapped.replace(/\.pack$/, '.bitmap'))]);
    fs.mkdirSync(path.join(dir, '.git', 'objects', 'fe'), { recursive: true });
    execFileSync('mkfifo', [path.join(dir, '.git', 'objects', 'fe', 'f'.repeat(38))]);
    const run = await runCliBounded(['stats', '--json', '--top', '0', dir], {
      env: { ...process.env, PACKSCOPE_CACHE_DIR: cache } as Record<string, string>,
      timeoutMs: 60_000,
    });
    assert.equal(run.timedOut, false);
    assert.equal(run.status, 0, run.stderr);
    const layout = JSON.parse(run.stdout).layout as RepositoryLayout;
    const kept = layout.packs.find((p) => p.name === target)!;
    assert.ok(kept.markers.includes('keep'));
    assert.match(kept.keepProblem ?? '', /not a regular file/);
    assert.equal(kept.keepReason, undefined);
    const fifoBitmap = layout.packs.find((p) => p.name === unbitmapped)!;
    assert.ok(fifoBitmap.markers.includes('bitmap'));
    assert.equal(fifoBitmap.bitmapCommits, undefined, 'a FIFO is not read as a bitmap');
    assertCountObjects(dir, layout);
    assert.ok(layout.loose.garbageFiles.some((g) => g.path.endsWith(path.join('fe', 'f'.repeat(38)))));
  },
);
