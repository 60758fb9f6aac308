/**
 * Incremental multi-pack-index chains (`pack/multi-pack-index.d/`), written by the test-only writer
 * in test/support/midx-writer.ts because git 2.39 can neither write nor read them (reader since
 * 2.47). git 2.39 ignores the chain and reads the packs directly, so the comparisons here are:
 *   - over disjoint packs, `objects` must still equal cat-file's listing;
 *   - with duplicated objects, the chain's choice is checked against a single multi-pack-index that
 *     git writes with the same choice (--preferred-pack), which git 2.39 does read;
 *   - `object --json` must report the pack and offset the chain lists for objects of every layer;
 *   - next to a plain multi-pack-index, git reads that one first (midx.c load_multi_pack_index).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { assertMatchesGit } from '../support/assert-output.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import {
  catFileBatchCheck,
  historyOnRef,
  historyRepository,
  packscope,
  setPackMtime,
  verifyPackEntries,
} from '../support/git-oracle.ts';
import { packObjectsWithGit, writeMidxChain, type PackObjects, type WrittenChain } from '../support/midx-writer.ts';

const T0 = 1_600_000_000;

let root: string;
let sandbox: GitSandbox;
let cacheDir: string;
/** Four disjoint packs: A (repack -adf of main), then B, C, D written by fast-import (three side branches). */
let base: string;
let stems: { a: string; b: string; c: string; d: string };

after(() => fs.rmSync(root, { recursive: true, force: true }));

function newPack(repo: string, known: string[]): string {
  const added = packStems(path.join(repo, '.git', 'objects')).filter((s) => !known.includes(s));
  assert.equal(added.length, 1, `one new pack in ${repo}`);
  return added[0]!;
}

before(() => {
  root = tempDir(undefined, 'packscope-exact-chain-');
  sandbox = new GitSandbox(root);
  cacheDir = path.join(root, 'cache');
  base = historyRepository(sandbox, 'base', { commits: 250, seed: 19, repack: ['-adf', '--depth=50', '--window=10'] });
  const [a] = packStems(path.join(base, '.git', 'objects'));
  const known = [a!];
  const sides: string[] = [];
  for (const [i, seed] of [23, 29, 37].entries()) {
    sandbox.fastImport(base, historyOnRef({ commits: 80, seed }, `side${i}`, `side${i}-`));
    sides.push(newPack(base, known));
    known.push(sides[i]!);
  }
  stems = { a: a!, b: sides[0]!, c: sides[1]!, d: sides[2]! };
  setPackMtime(stems.a, T0);
  setPackMtime(stems.b, T0 + 10);
  setPackMtime(stems.c, T0 + 20);
  setPackMtime(stems.d, T0 + 30);
});

interface Copy {
  repo: string;
  packDir: string;
  /** A pack of the base repository, in this copy. */
  at: (stem: string) => string;
  objects: (stem: string) => PackObjects;
}

function copyOfBase(name: string): Copy {
  const repo = path.join(root, name);
  fs.cpSync(base, repo, { recursive: true, preserveTimestamps: true });
  const at = (stem: string): string => path.join(repo, path.relative(base, stem));
  return {
    repo,
    packDir: path.join(repo, '.git', 'objects', 'pack'),
    at,
    objects: (stem) => packObjectsWithGit(sandbox, repo, `${stem}.idx`, 'sha1'),
  };
}

interface ObjectDocument {
  oid: string;
  pack: string;
  offset: number;
  diskSize: number;
}

function objectJson(oid: string, cwd: string): ObjectDocument {
  const result = packscope(['object', '--json', oid], cwd, cacheDir);
  assert.equal(result.stderr, '', `object --json ${oid}: stderr`);
  assert.equal(result.status, 0, `object --json ${oid}: exit status`);
  return JSON.parse(result.stdout) as ObjectDocument;
}

/** `object --json` reports, for a few objects of every pack of every layer, the pack and offset the chain lists. */
function assertObjectsReportChainEntries(copy: Copy, chain: WrittenChain, oids: string[]): void {
  for (const oid of oids) {
    const entry = chain.entries.get(oid);
    assert.ok(entry, `${oid} is in the chain`);
    const doc = objectJson(oid, copy.repo);
    assert.equal(doc.oid, oid);
    assert.equal(
      doc.pack,
      path.join(copy.packDir, entry.pack.replace(/\.idx$/, '.pack')),
      `${oid} (layer ${entry.layer}): pack`,
    );
    assert.equal(doc.offset, entry.offset, `${oid} (layer ${entry.layer}): offset`);
  }
}

/** Two objects of each pack the chain lists: the first and a middle one by id. */
function sampleOfEachPack(chain: WrittenChain): string[] {
  const byPack = new Map<string, string[]>();
  for (const [oid, entry] of chain.entries) {
    const list = byPack.get(entry.pack) ?? [];
    list.push(oid);
    byPack.set(entry.pack, list);
  }
  return [...byPack.values()].flatMap((oids) => {
    oids.sort();
    return [oids[0]!, oids[oids.length >> 1]!];
  });
}

/**
 * P_dup: the objects of main's first 100 commits again, with shallow chains, older than A, so a
 * reader that ignored the MIDX would take A's copies (newer) and list different disk sizes.
 */
function addDuplicatePack(copy: Copy): string {
  const known = Object.values(stems).map(copy.at);
  sandbox.git(copy.repo, ['pack-objects', '-q', '--revs', '--depth=3', '--window=5', path.join(copy.packDir, 'pack')], {
    input: 'v99\n',
  });
  const dup = newPack(copy.repo, known);
  setPackMtime(dup, T0 - 100);
  const inA = new Map(verifyPackEntries(sandbox, copy.repo, `${copy.at(stems.a)}.idx`).map((e) => [e.oid, e.diskSize]));
  const differing = verifyPackEntries(sandbox, copy.repo, `${dup}.idx`).filter(
    (e) => inA.get(e.oid) !== e.diskSize,
  ).length;
  assert.ok(differing > 100, `${differing} duplicated objects differ on disk between P_dup and A`);
  return dup;
}

test('a three-layer chain over disjoint packs', async (t) => {
  const copy = copyOfBase('disjoint');
  // Layer 1 holds two packs (ids 0 and 1 within the layer) and stores its offsets in LOFF.
  const chain = writeMidxChain(
    copy.packDir,
    'sha1',
    [
      [copy.objects(copy.at(stems.a))],
      [copy.objects(copy.at(stems.b)), copy.objects(copy.at(stems.c))],
      [copy.objects(copy.at(stems.d))],
    ],
    (k) => (k === 1 ? { largeOffsetsAbove: 0x1000 } : {}),
  );
  assert.equal(fs.existsSync(path.join(copy.packDir, 'multi-pack-index')), false);
  assert.ok(chain.layers[1]!.largeOffsets > 0, 'layer 1 has a LOFF chunk');
  const expected = catFileBatchCheck(sandbox, copy.repo);
  assert.equal(chain.entries.size, expected.split('\n').length - 1, 'the chain lists every object once');

  await t.test('objects equals cat-file (git 2.39 reads the packs directly)', () =>
    assertMatchesGit(packscope(['objects'], copy.repo, cacheDir), expected, 'objects with a MIDX chain'),
  );
  await t.test('object --json reports the pack and offset of objects in each layer', () =>
    assertObjectsReportChainEntries(copy, chain, sampleOfEachPack(chain)),
  );
});

test('a chain with duplicated objects: each is read from the layer that lists it', async (t) => {
  const copy = copyOfBase('duplicates');
  const dup = addDuplicatePack(copy);
  // git's own MIDX with the same choices: P_dup's copies wherever P_dup has the object.
  sandbox.git(copy.repo, ['multi-pack-index', 'write', `--preferred-pack=${path.basename(dup)}.pack`]);
  const expected = catFileBatchCheck(sandbox, copy.repo);
  fs.rmSync(path.join(copy.packDir, 'multi-pack-index'));
  // Layer 0 lists P_dup with every offset in LOFF; layer 1 lists A's remaining objects and B; layer 2 C and D.
  const chain = writeMidxChain(
    copy.packDir,
    'sha1',
    [
      [copy.objects(dup)],
      [copy.objects(copy.at(stems.a)), copy.objects(copy.at(stems.b))],
      [copy.objects(copy.at(stems.c)), copy.objects(copy.at(stems.d))],
    ],
    (k) => (k === 0 ? { largeOffsetsAbove: 0 } : {}),
  );
  assert.equal(chain.entries.size, expected.split('\n').length - 1);

  await t.test("objects equals cat-file over git's equivalent multi-pack-index", () =>
    assertMatchesGit(packscope(['objects'], copy.repo, cacheDir), expected, 'objects with a MIDX chain and duplicates'),
  );
  await t.test("object --json reports the layer's pack and offset, duplicates included", () =>
    assertObjectsReportChainEntries(copy, chain, sampleOfEachPack(chain)),
  );
});

test('a multi-pack-index next to a chain is read first, as git does', async (t) => {
  const copy = copyOfBase('both');
  const dup = addDuplicatePack(copy);
  // The plain MIDX prefers A; the chain below prefers P_dup for the same objects.
  sandbox.git(copy.repo, ['multi-pack-index', 'write', `--preferred-pack=${path.basename(copy.at(stems.a))}.pack`]);
  writeMidxChain(copy.packDir, 'sha1', [
    [copy.objects(dup)],
    [
      copy.objects(copy.at(stems.a)),
      copy.objects(copy.at(stems.b)),
      copy.objects(copy.at(stems.c)),
      copy.objects(copy.at(stems.d)),
    ],
  ]);
  const expected = catFileBatchCheck(sandbox, copy.repo);

  await t.test('objects equals cat-file', () =>
    assertMatchesGit(packscope(['objects'], copy.repo, cacheDir), expected, 'objects with a MIDX and a chain'),
  );
  await t.test('object --json of a duplicated object names A', () => {
    const inDup = new Set(copy.objects(dup).objects.map((o) => o.oid));
    const duplicated = copy.objects(copy.at(stems.a)).objects.find((o) => inDup.has(o.oid))!;
    const doc = objectJson(duplicated.oid, copy.repo);
    assert.equal(doc.pack, `${copy.at(stems.a)}.pack`);
    assert.equal(doc.offset, duplicated.offset);
  });
});

test("the test writer's layer format passes git multi-pack-index verify (as a plain multi-pack-index)", () => {
  // git 2.39 reads a layer written with base count 0 as an ordinary MIDX: this checks the writer
  // (chunk table, fan-out, LOFF, checksum, offsets) against git itself.
  const copy = copyOfBase('writer-check');
  const chain = writeMidxChain(
    copy.packDir,
    'sha1',
    [
      [
        copy.objects(copy.at(stems.a)),
        copy.objects(copy.at(stems.b)),
        copy.objects(copy.at(stems.c)),
        copy.objects(copy.at(stems.d)),
      ],
    ],
    () => ({ largeOffsetsAbove: 0x2000 }),
  );
  const layer = chain.layers[0]!;
  assert.ok(layer.largeOffsets > 0);
  fs.rmSync(path.join(copy.packDir, 'multi-pack-index.d'), { recursive: true });
  fs.writeFileSync(path.join(copy.packDir, 'multi-pack-index'), layer.bytes);
  sandbox.git(copy.repo, ['multi-pack-index', 'verify']);
  assert.equal(
    catFileBatchCheck(sandbox, copy.repo),
    catFileBatchCheck(sandbox, base),
    'git reads every object through it',
  );
});

test('a two-layer chain in a SHA-256 repository', async (t) => {
  const repo = historyRepository(sandbox, 'sha256', {
    commits: 120,
    seed: 19,
    objectFormat: 'sha256',
    repack: ['-adf', '--depth=50', '--window=10'],
  });
  const [first] = packStems(path.join(repo, '.git', 'objects'));
  sandbox.fastImport(repo, historyOnRef({ commits: 60, seed: 23 }, 'side', 'side-'));
  const second = newPack(repo, [first!]);
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  const chain = writeMidxChain(
    packDir,
    'sha256',
    [
      [packObjectsWithGit(sandbox, repo, `${first}.idx`, 'sha256')],
      [packObjectsWithGit(sandbox, repo, `${second}.idx`, 'sha256')],
    ],
    () => ({ largeOffsetsAbove: 0x1000 }),
  );
  assert.match(fs.readFileSync(chain.chainFile, 'utf8'), /^([0-9a-f]{64}\n){2}$/);
  const expected = catFileBatchCheck(sandbox, repo);
  assert.match(expected, /^[0-9a-f]{64} /);
  await t.test('objects equals cat-file', () =>
    assertMatchesGit(packscope(['objects'], repo, cacheDir), expected, 'objects (sha256 chain)'),
  );
  await t.test('object --json reports the pack and offset of objects in each layer', () => {
    for (const oid of sampleOfEachPack(chain)) {
      const entry = chain.entries.get(oid)!;
      const doc = objectJson(oid, repo);
      assert.equal(doc.pack, path.join(packDir, entry.pack.replace(/\.idx$/, '.pack')));
      assert.equal(doc.offset, entry.offset);
    }
  });
});
