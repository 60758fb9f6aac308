/**
 * `packscope object --json` and `packscope stats --json` against what git says: types and sizes from
 * `git cat-file`, offsets, sizes in pack, depths and bases from `git verify-pack -v`, delta chains
 * by following verify-pack's base column to the root, OFS/REF from the type bits at each offset
 * verify-pack reports; prefixes resolved as `git rev-parse` resolves them.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import {
  edgeCaseStream,
  historyOnRef,
  historyRepository,
  inPackTypeCode,
  packscope,
  runGit,
  verifyPackEntries,
  type VerifyPackEntry,
} from '../support/git-oracle.ts';

const IN_PACK_TYPE_NAMES: Record<number, string> = {
  1: 'commit',
  2: 'tree',
  3: 'blob',
  4: 'tag',
  6: 'ofs-delta',
  7: 'ref-delta',
};

let root: string;
let sandbox: GitSandbox;
let cacheDir: string;

/** What git says about one repository with a single pack. */
interface GitView {
  repo: string;
  stem: string;
  entries: VerifyPackEntry[];
  byOid: Map<string, VerifyPackEntry>;
  /** `git cat-file --batch-check='%(objectname) %(objecttype) %(objectsize)'`. */
  catFile: Map<string, { type: string; size: number }>;
  inPackType: Map<string, string>;
}

/** OFS deltas only (repack -adf). */
let ofs: GitView;
/** REF deltas only (pack-objects without --delta-base-offset). */
let ref: GitView;

after(() => fs.rmSync(root, { recursive: true, force: true }));

function gitView(repo: string, stem: string): GitView {
  const entries = verifyPackEntries(sandbox, repo, `${stem}.idx`);
  const catFile = new Map<string, { type: string; size: number }>();
  for (const line of sandbox
    .gitText(repo, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype) %(objectsize)'])
    .split('\n')) {
    if (!line) continue;
    const [oid, type, size] = line.split(' ');
    catFile.set(oid!, { type: type!, size: Number(size) });
  }
  const bytes = fs.readFileSync(`${stem}.pack`);
  const inPackType = new Map(entries.map((e) => [e.oid, IN_PACK_TYPE_NAMES[inPackTypeCode(bytes, e.offset)]!]));
  return { repo, stem, entries, byOid: new Map(entries.map((e) => [e.oid, e])), catFile, inPackType };
}

before(() => {
  root = tempDir(undefined, 'packscope-exact-object-');
  sandbox = new GitSandbox(root);
  cacheDir = path.join(root, 'cache');
  const repo = historyRepository(sandbox, 'ofs', { commits: 300, seed: 41 });
  sandbox.fastImport(repo, edgeCaseStream('edge', { emptyTree: false }));
  sandbox.git(repo, ['repack', '-q', '-adf', '--depth=50', '--window=10']);
  ofs = gitView(repo, packStems(path.join(repo, '.git', 'objects'))[0]!);
  const refRepo = sandbox.init('ref');
  sandbox.git(
    repo,
    ['pack-objects', '-q', '--window=50', '--depth=20', path.join(refRepo, '.git', 'objects', 'pack', 'pack')],
    { input: sandbox.git(repo, ['rev-list', '--objects', '--all']) },
  );
  ref = gitView(refRepo, packStems(path.join(refRepo, '.git', 'objects'))[0]!);
});

interface Link {
  oid: string;
  type: string;
  inPackType: string;
  size: number;
  headerSize: number;
  diskSize: number;
  offset: number;
}

interface ObjectDocument extends Link {
  schema: string;
  pack: string;
  packChecksum: string;
  depth: number;
  base: string | null;
  root: string;
  chain: Link[];
  children: number;
  familySize: number;
}

/** The chain by verify-pack's base column, from the object down to its root. */
function chainOf(view: GitView, oid: string): string[] {
  const chain = [oid];
  for (let e = view.byOid.get(oid)!; e.base !== undefined; e = view.byOid.get(e.base)!) chain.push(e.base);
  return chain;
}

function expectedLink(view: GitView, oid: string): Link {
  const e = view.byOid.get(oid)!;
  const git = view.catFile.get(oid)!;
  return {
    oid,
    type: git.type,
    inPackType: view.inPackType.get(oid)!,
    size: git.size,
    headerSize: e.size,
    diskSize: e.diskSize,
    offset: e.offset,
  };
}

function checkObject(view: GitView, query: string, oid: string): void {
  const result = packscope(['object', '--json', query], view.repo, cacheDir);
  assert.equal(result.stderr, '', `object --json ${query}: stderr`);
  assert.equal(result.status, 0, `object --json ${query}: exit status`);
  const doc = JSON.parse(result.stdout) as ObjectDocument;
  const e = view.byOid.get(oid)!;
  // Type and size as git cat-file -t / -s say, checked one by one for the object itself.
  assert.equal(doc.type, sandbox.gitText(view.repo, ['cat-file', '-t', oid]).trim(), `${oid}: type`);
  assert.equal(doc.size, Number(sandbox.gitText(view.repo, ['cat-file', '-s', oid])), `${oid}: size`);
  const chain = chainOf(view, oid);
  const rootOid = chain[chain.length - 1]!;
  const rootOf = (o: string): string => chainOf(view, o).pop()!;
  assert.deepEqual(
    {
      schema: doc.schema,
      ...Object.fromEntries(Object.keys(expectedLink(view, oid)).map((k) => [k, doc[k as keyof Link]])),
      pack: doc.pack,
      packChecksum: doc.packChecksum,
      depth: doc.depth,
      base: doc.base,
      root: doc.root,
      chain: doc.chain,
      children: doc.children,
      familySize: doc.familySize,
    },
    {
      schema: 'packscope.object/1',
      ...expectedLink(view, oid),
      pack: `${view.stem}.pack`,
      packChecksum: path.basename(view.stem).slice('pack-'.length),
      depth: e.depth,
      base: e.base ?? null,
      root: rootOid,
      chain: chain.map((o) => expectedLink(view, o)),
      children: view.entries.filter((c) => c.base === oid).length,
      familySize: view.entries.filter((c) => rootOf(c.oid) === rootOid).length,
    },
    `object --json ${query}`,
  );
}

/** Deltas and non-deltas of every kind worth looking at. */
function interestingObjects(view: GitView): string[] {
  const deltas = view.entries.filter((e) => e.depth > 0);
  const deepest = deltas.reduce((a, b) => (b.depth > a.depth ? b : a));
  const pick = (f: (e: VerifyPackEntry) => boolean): string => {
    const found = view.entries.find(f);
    assert.ok(found, 'the pack has such an object');
    return found.oid;
  };
  return [
    deepest.oid,
    pick((e) => e.depth === 1),
    pick((e) => e.depth > 3 && e.type === 'blob'),
    pick((e) => e.depth > 0 && e.type === 'tree'),
    pick((e) => e.depth === 0 && e.type === 'commit'),
    pick((e) => e.depth === 0 && e.type === 'tag'),
    pick((e) => e.depth === 0 && e.type === 'blob' && view.entries.some((c) => c.base === e.oid)),
    pick((e) => e.depth === 0 && e.type === 'tree'),
    // From edgeCaseStream: the empty blob, and the 192 KiB blob's delta.
    pick((e) => e.oid === 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'),
    pick((e) => e.depth > 0 && view.catFile.get(e.oid)!.size === 192 * 1024),
  ];
}

test('object --json for deltas and non-deltas in an OFS pack', () => {
  for (const oid of interestingObjects(ofs)) checkObject(ofs, oid, oid);
});

test('object --json for deltas and non-deltas in a REF pack', () => {
  assert.ok([...ref.inPackType.values()].includes('ref-delta'));
  for (const oid of interestingObjects(ref)) checkObject(ref, oid, oid);
});

test('object prefixes: unique, ambiguous, unknown', async (t) => {
  const oids = [...ofs.byOid.keys()].sort();
  const uniqueLength = (oid: string): number => {
    for (let n = 4; n < 40; n++) if (oids.filter((o) => o.startsWith(oid.slice(0, n))).length === 1) return n;
    return 40;
  };
  await t.test('a unique short prefix resolves to its object, as git rev-parse resolves it', () => {
    for (const oid of interestingObjects(ofs).slice(0, 4)) {
      const prefix = oid.slice(0, uniqueLength(oid));
      assert.equal(
        sandbox.gitText(ofs.repo, ['rev-parse', '--verify', '--quiet', `${prefix}^{object}`]).trim(),
        oid,
        `git resolves ${prefix}`,
      );
      checkObject(ofs, prefix, oid);
    }
  });
  const failsWithOneLine = (query: string): void => {
    const result = packscope(['object', '--json', query], ofs.repo, cacheDir);
    assert.equal(result.status, 1, `object ${query}: exit status`);
    assert.equal(result.stdout, '', `object ${query}: stdout`);
    assert.match(result.stderr, /^[^\n]+\n$/, `object ${query}: one line on stderr`);
    assert.doesNotMatch(result.stderr, /internal error|\n\s+at /, `object ${query}: no crash`);
  };
  await t.test('an ambiguous prefix exits 1 with one line on stderr', () => {
    const shared = oids.find((o, i) => i > 0 && oids[i - 1]!.slice(0, 4) === o.slice(0, 4));
    assert.ok(shared, 'two objects share a 4-digit prefix');
    const prefix = shared.slice(0, 4);
    assert.notEqual(
      runGit(sandbox, ofs.repo, ['rev-parse', '--verify', '--quiet', `${prefix}^{object}`]).status,
      0,
      `git finds ${prefix} ambiguous`,
    );
    failsWithOneLine(prefix);
  });
  await t.test('an unknown prefix or id exits 1 with one line on stderr', () => {
    let unknown = 'ffff';
    for (let i = 0; oids.some((o) => o.startsWith(unknown)); i++) unknown = (0xfffff - i).toString(16);
    assert.notEqual(
      runGit(sandbox, ofs.repo, ['rev-parse', '--verify', '--quiet', `${unknown}^{object}`]).status,
      0,
      `git knows no ${unknown}`,
    );
    failsWithOneLine(unknown);
    failsWithOneLine('0'.repeat(40));
  });
});

interface PackStatsDocument {
  pack: string;
  checksum: string;
  idxVersion: number;
  hasRev: boolean;
  objectFormat: string;
  packFileBytes: number;
  objects: number;
  byType: Record<string, number>;
  deltas: { ofs: number; ref: number };
  depthHistogram: number[];
  maxDepth: number;
  meanDepth: number;
  bytes: { inflated: number; onDisk: number };
  families: number;
  largestObjects: Array<{ oid: string; size: number }>;
  deepestObjects: Array<{ oid: string; depth: number }>;
}

/** The numbers of stats --json for one pack, computed from git's own output. */
function expectedPackStats(view: GitView): Omit<PackStatsDocument, 'largestObjects' | 'deepestObjects' | 'meanDepth'> {
  const byType: Record<string, number> = { commit: 0, tree: 0, blob: 0, tag: 0 };
  for (const e of view.entries) byType[e.type]!++;
  const maxDepth = Math.max(...view.entries.map((e) => e.depth));
  const depthHistogram = new Array<number>(maxDepth + 1).fill(0);
  for (const e of view.entries) depthHistogram[e.depth]!++;
  const types = [...view.inPackType.values()];
  return {
    pack: `${view.stem}.pack`,
    checksum: path.basename(view.stem).slice('pack-'.length),
    idxVersion: 2,
    hasRev: false,
    objectFormat: 'sha1',
    packFileBytes: fs.statSync(`${view.stem}.pack`).size,
    objects: view.entries.length,
    byType,
    deltas: { ofs: types.filter((t) => t === 'ofs-delta').length, ref: types.filter((t) => t === 'ref-delta').length },
    depthHistogram,
    maxDepth,
    bytes: {
      inflated: view.entries.reduce((s, e) => s + view.catFile.get(e.oid)!.size, 0),
      onDisk: view.entries.reduce((s, e) => s + e.diskSize, 0),
    },
    // Every object stored whole is the root of one family (itself and the deltas built on it).
    families: depthHistogram[0]!,
  };
}

function checkPackStats(actual: PackStatsDocument, view: GitView): void {
  const expected = expectedPackStats(view);
  assert.deepEqual(
    Object.fromEntries(Object.keys(expected).map((k) => [k, actual[k as keyof PackStatsDocument]])),
    expected,
    path.basename(view.stem),
  );
  // Types by cat-file agree with verify-pack's.
  const catTypes: Record<string, number> = { commit: 0, tree: 0, blob: 0, tag: 0 };
  for (const e of view.entries) catTypes[view.catFile.get(e.oid)!.type]!++;
  assert.deepEqual(actual.byType, catTypes);
  const mean = view.entries.reduce((s, e) => s + e.depth, 0) / view.entries.length;
  assert.ok(Math.abs(actual.meanDepth - mean) < 0.0005 + 1e-9, `meanDepth ${actual.meanDepth} vs ${mean}`);
  assert.equal(actual.largestObjects[0]!.size, Math.max(...view.entries.map((e) => view.catFile.get(e.oid)!.size)));
  assert.equal(actual.deepestObjects[0]!.depth, expected.maxDepth);
}

function statsJson(cwd: string): {
  packs: PackStatsDocument[];
  total: Omit<PackStatsDocument, 'pack' | 'checksum' | 'idxVersion' | 'hasRev' | 'objectFormat' | 'packFileBytes'>;
} {
  const result = packscope(['stats', '--json'], cwd, cacheDir);
  assert.equal(result.stderr, '');
  assert.equal(result.status, 0);
  return JSON.parse(result.stdout);
}

test('stats --json of an OFS pack equals what verify-pack and cat-file give', () => {
  const stats = statsJson(ofs.repo);
  assert.equal(stats.packs.length, 1);
  checkPackStats(stats.packs[0]!, ofs);
  assert.ok(stats.packs[0]!.deltas.ofs > 500 && stats.packs[0]!.maxDepth > 10);
});

test('stats --json of a REF pack equals what verify-pack and cat-file give', () => {
  const stats = statsJson(ref.repo);
  checkPackStats(stats.packs[0]!, ref);
  assert.ok(stats.packs[0]!.deltas.ref > 500);
});

test('stats --json over two packs: each pack, and the total', () => {
  const two = path.join(root, 'two');
  fs.cpSync(ofs.repo, two, { recursive: true });
  sandbox.fastImport(two, historyOnRef({ commits: 100, seed: 43 }, 'side', 'side-'));
  const stems = packStems(path.join(two, '.git', 'objects'));
  assert.equal(stems.length, 2);
  const views = stems.map((stem) => gitView(two, stem));
  const stats = statsJson(two);
  const byPack = new Map(stats.packs.map((p) => [p.pack, p]));
  for (const view of views) checkPackStats(byPack.get(`${view.stem}.pack`)!, view);
  const sum = (f: (p: PackStatsDocument) => number): number => stats.packs.reduce((s, p) => s + f(p), 0);
  assert.equal(
    stats.total.objects,
    sum((p) => p.objects),
  );
  assert.equal(
    stats.total.objects,
    views.reduce((s, v) => s + v.entries.length, 0),
  );
  assert.deepEqual(stats.total.deltas, { ofs: sum((p) => p.deltas.ofs), ref: sum((p) => p.deltas.ref) });
  assert.deepEqual(stats.total.bytes, { inflated: sum((p) => p.bytes.inflated), onDisk: sum((p) => p.bytes.onDisk) });
  for (const type of ['commit', 'tree', 'blob', 'tag'])
    assert.equal(
      stats.total.byType[type],
      sum((p) => p.byType[type]!),
    );
  const histogram = new Array<number>(stats.total.maxDepth + 1).fill(0);
  for (const view of views) for (const e of view.entries) histogram[e.depth]!++;
  assert.deepEqual(stats.total.depthHistogram, histogram);
});
