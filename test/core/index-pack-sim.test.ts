import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import type { IndexPackVariant } from '../../src/core/documents/simulation-documents.ts';
import { indexPackVariantFor, simulateIndexPack } from '../../src/core/sim/index-pack-sim.ts';
import { writeChosenPack, type ChosenEntry } from '../support/chosen-delta-pack.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';

const MIB = 1024 * 1024;

/**
 * A pack set up for `git index-pack` outside any repository (git-internals §2.4: inside one,
 * sha1_object's collision checks read existing objects through §1's cache and add inflations).
 */
class IndexPackBench {
  readonly sandbox: GitSandbox;
  readonly shim: string;
  private serial = 0;

  constructor(root: string) {
    this.sandbox = new GitSandbox(root);
    this.shim = buildInflateCounter(root);
  }

  /** Copies the pack bytes into a fresh directory with no repository above it; returns x.pack's path. */
  place(pack: Buffer): string {
    const dir = path.join(this.sandbox.root, `outside-${this.serial++}`);
    fs.mkdirSync(dir);
    const packPath = path.join(dir, 'x.pack');
    fs.writeFileSync(packPath, pack);
    return packPath;
  }

  /** inflateInit calls of `git index-pack --threads=1` at one core.deltaBaseCacheLimit. */
  count(packPath: string, limit: number, config: string[] = []): number {
    const dir = path.dirname(packPath);
    const idx = path.join(dir, 'x.idx');
    fs.rmSync(idx, { force: true });
    const counts = path.join(dir, 'inflate-count');
    this.sandbox.git(
      dir,
      [
        ...config.flatMap((item) => ['-c', item]),
        '-c',
        `core.deltaBaseCacheLimit=${limit}`,
        'index-pack',
        '--threads=1',
        '-o',
        idx,
        packPath,
      ],
      {
        // Stop repository discovery at the directory itself.
        env: { GIT_CEILING_DIRECTORIES: path.dirname(dir), ...countingEnv(this.shim, counts) },
      },
    );
    return readInflateCount(counts);
  }

  /** Indexes the pack once (uncounted) and models it. */
  model(packPath: string): PackModel {
    this.count(packPath, 96 * MIB);
    return buildPackModel(packFilesFor(packPath));
  }

  assertOutsideRepository(packPath: string): void {
    const dir = path.dirname(packPath);
    assert.throws(
      () => this.sandbox.git(dir, ['rev-parse', '--git-dir'], { env: { GIT_CEILING_DIRECTORIES: path.dirname(dir) } }),
      /not a git repository/,
    );
  }
}

function installedVariant(sandbox: GitSandbox): IndexPackVariant {
  const version = sandbox.gitText(sandbox.root, ['--version']);
  const variant = indexPackVariantFor(version);
  if (!variant) throw new Error(`no index-pack model for ${version.trim()} (v2.29+ needed)`);
  return variant;
}

const text = (seed: string, length: number): Buffer =>
  Buffer.from(seed.repeat(Math.ceil(length / seed.length)).slice(0, length));

/** §2.5 worked example: R(1000), D1→R(1002), D11→D1, D12→D1, D2→R, in that pack order. */
function workedExample(): ChosenEntry[] {
  const r = text('the quick brown fox jumps over the lazy dog. ', 1000);
  const d1 = Buffer.concat([r.subarray(0, 990), Buffer.from('D1 changes!!')]);
  assert.equal(d1.length, 1002);
  return [
    { content: r },
    { content: d1, base: 0 },
    { content: Buffer.concat([d1, Buffer.from('D11')]), base: 1 },
    { content: Buffer.concat([d1, Buffer.from('D12')]), base: 1 },
    { content: Buffer.concat([r, Buffer.from('D2')]), base: 0 },
  ];
}

test('indexPackVariantFor maps git versions to the §2.5 variants', () => {
  assert.equal(indexPackVariantFor('git version 2.39.5'), 'v2.36');
  assert.equal(indexPackVariantFor('2.36.0'), 'v2.36');
  assert.equal(indexPackVariantFor('2.54.3'), 'v2.36');
  assert.equal(indexPackVariantFor('git version 2.55.0'), 'v2.55');
  assert.equal(indexPackVariantFor('2.55.GIT'), 'v2.55');
  assert.equal(indexPackVariantFor('2.30.1'), 'v2.55');
  assert.equal(indexPackVariantFor('2.28.0'), undefined);
});

test('§2.5 worked example: the table for both variants, and real git for the installed one', (t) => {
  const bench = new IndexPackBench(tempDir(t));
  const packPath = bench.place(writeChosenPack(workedExample()));
  bench.assertOutsideRepository(packPath);
  const model = bench.model(packPath);
  assert.deepEqual(model.depthHistogram(), [1, 2, 2]);

  const limits = [96 * MIB, 1500, 1000, 0];
  const table: Record<IndexPackVariant, number[]> = {
    'v2.36': [12, 14, 14, 14],
    'v2.55': [10, 11, 13, 14],
    'release-when-done': [],
  };
  for (const variant of ['v2.36', 'v2.55'] as const) {
    const simulated = limits.map((limit) => simulateIndexPack(model, { limit, variant }).inflations);
    assert.deepEqual(simulated, table[variant], `${variant} at limits ${limits.join('/')}`);
  }
  const installed = installedVariant(bench.sandbox);
  const real = limits.map((limit) => bench.count(packPath, limit));
  assert.deepEqual(real, table[installed], `installed git (${installed}) at limits ${limits.join('/')}`);

  // Pass 1 streams blobs over core.bigFileThreshold through a scratch buffer: still one
  // inflation each (§2.1), and pass 2 inflates R in full as before, so the counts do not move.
  assert.equal(bench.count(packPath, 0, ['core.bigFileThreshold=500']), table[installed][3]);

  // Delta applications: 4 deltas + the delta rebuilds; at 96m v2.36 rebuilds R and D1 once each.
  const at96m = simulateIndexPack(model, { limit: 96 * MIB, variant: 'v2.36' });
  assert.deepEqual(at96m, { inflations: 12, deltaApplications: 5, reconstructions: 2, peakBytes: 2002 });
  assert.deepEqual(simulateIndexPack(model, { limit: 96 * MIB, variant: 'v2.55' }), {
    inflations: 10,
    deltaApplications: 4,
    reconstructions: 0,
    peakBytes: 2002,
  });
});

test('release-when-done frees a base once its last child is resolved', (t) => {
  const bench = new IndexPackBench(tempDir(t));
  const model = bench.model(bench.place(writeChosenPack(workedExample())));
  // At 96m nothing is ever rebuilt: R is freed after D2 (its last child), D1 after D12.
  assert.deepEqual(simulateIndexPack(model, { limit: 96 * MIB, variant: 'release-when-done' }), {
    inflations: 10,
    deltaApplications: 4,
    reconstructions: 0,
    peakBytes: 2002,
  });
  // At 1500, v2.55 prunes R when D1 arrives and must re-inflate it for D2 (11). Same here: R is
  // not done when D1 arrives (D2 is still to come).
  assert.equal(simulateIndexPack(model, { limit: 1500, variant: 'release-when-done' }).inflations, 11);
  // Chain A ← B ← C ← D: each base is done once its only child is resolved, and is freed before
  // that child is accounted, so only one base is ever accounted (v2.55 holds the whole chain).
  const a = text('abcdefghij', 600);
  const b = Buffer.concat([a, Buffer.from('B')]);
  const c = Buffer.concat([b, Buffer.from('C')]);
  const chain = bench.model(
    bench.place(
      writeChosenPack([
        { content: a },
        { content: b, base: 0 },
        { content: c, base: 1 },
        { content: Buffer.concat([c, Buffer.from('D')]), base: 2 },
      ]),
    ),
  );
  const released = simulateIndexPack(chain, { limit: 96 * MIB, variant: 'release-when-done' });
  const kept = simulateIndexPack(chain, { limit: 96 * MIB, variant: 'v2.55' });
  assert.equal(released.inflations, kept.inflations);
  assert.equal(kept.peakBytes, 600 + 601 + 602);
  assert.equal(released.peakBytes, 602);
});

test('pass 2 skips childless roots and resolves REF children before OFS children', (t) => {
  const bench = new IndexPackBench(tempDir(t));
  const r = text('0123456789abcdef', 1000);
  const a = Buffer.concat([r, Buffer.from('A')]);
  const b = Buffer.concat([r, Buffer.from('BB')]);
  // R has an OFS leaf A (first in pack order) and a REF child B with its own child B1. A lone blob
  // L is never touched by pass 2.
  const entries: ChosenEntry[] = [
    { content: r },
    { content: text('lonely blob ', 300) },
    { content: a, base: 0 },
    { content: b, base: 0, ref: true },
    { content: Buffer.concat([b, Buffer.from('1')]), base: 3 },
  ];
  const packPath = bench.place(writeChosenPack(entries));
  const model = bench.model(packPath);
  const variant = installedVariant(bench.sandbox);
  // Limit = R + a bit: pushing B (1002) pushes the total over, so R's data is pruned.
  // REF first: B, B1, then A needs R again (+1). OFS first would have resolved A while R was held.
  const limit = 1100;
  const v255 = simulateIndexPack(model, { limit, variant: 'v2.55' });
  assert.equal(v255.inflations, 5 + 5, 'pass 1 + R, B, B1, R again, A');
  assert.equal(v255.reconstructions, 1);
  for (const l of [0, limit, 96 * MIB])
    assert.equal(simulateIndexPack(model, { limit: l, variant }).inflations, bench.count(packPath, l), `limit ${l}`);
});

/** Random packs of OFS and REF chains, like the spec's randomised comparer (§0). */
function randomEntries(seed: number): ChosenEntry[] {
  let state = seed;
  const random = (n: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const count = 3 + random(38);
  const entries: ChosenEntry[] = [];
  for (let k = 0; k < count; k++) {
    const tag = Buffer.from(`object ${seed}/${k} `);
    if (k === 0 || random(4) === 0) {
      entries.push({ content: Buffer.concat([tag, text(`seed ${seed} root ${k} `, 100 + random(2000))]) });
      continue;
    }
    const ref = random(3) === 0;
    // REF bases may sit anywhere in the pack; OFS bases must come earlier.
    const base = ref && random(4) === 0 ? k + 1 + random(Math.max(1, count - k - 1)) : random(k);
    if (base >= count) {
      entries.push({ content: Buffer.concat([tag, text('tail root ', 200 + random(500))]) });
      continue;
    }
    entries.push({ content: Buffer.alloc(0), base, ref });
  }
  // Contents: bases before deltas, so materialise in dependency order.
  const done = new Set<number>();
  const materialise = (k: number, guard: number): void => {
    const entry = entries[k]!;
    if (done.has(k)) return;
    if (!('base' in entry)) {
      done.add(k);
      return;
    }
    if (guard > count) {
      entries[k] = { content: text(`cycle broken ${k} `, 300) };
      done.add(k);
      return;
    }
    materialise(entry.base, guard + 1);
    // The recursion may have broken a cycle through this very entry (it is a blob now).
    if (done.has(k)) return;
    const baseContent = entries[entry.base]!.content;
    entries[k] = {
      ...entry,
      content: Buffer.concat([
        baseContent.subarray(0, Math.max(0, baseContent.length - random(50))),
        Buffer.from(` delta ${seed}/${k} `),
        text('x', random(400)),
      ]),
    };
    done.add(k);
  };
  for (let k = 0; k < count; k++) materialise(k, 0);
  return entries;
}

test('random OFS/REF packs: simulated inflations equal real index-pack at 0, random and 96m', (t) => {
  const bench = new IndexPackBench(tempDir(t));
  const variant = installedVariant(bench.sandbox);
  const other: IndexPackVariant = variant === 'v2.36' ? 'v2.55' : 'v2.36';
  let compared = 0;
  let otherVariantWrong = 0;
  let refPacks = 0;
  let rebuilt = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const packPath = bench.place(writeChosenPack(randomEntries(seed)));
    const model = bench.model(packPath);
    if (model.counts().refDeltas > 0 && model.counts().ofsDeltas > 0) refPacks++;
    const total = model.byteTotals().inflated;
    const limits = [0, 1 + ((seed * 7919) % Math.max(1, Math.floor(total / 3))), 96 * MIB];
    for (const limit of limits) {
      const simulated = simulateIndexPack(model, { limit, variant });
      const real = bench.count(packPath, limit);
      assert.equal(simulated.inflations, real, `seed ${seed}, limit ${limit}`);
      if (simulateIndexPack(model, { limit, variant: other }).inflations !== real) otherVariantWrong++;
      if (simulated.reconstructions > 0) rebuilt++;
      compared++;
    }
  }
  assert.equal(compared, 120);
  // The comparison tells the variants apart and exercises mixed packs and rebuilds (§0).
  t.diagnostic(
    `mixed OFS+REF packs ${refPacks}/40; runs with rebuilds ${rebuilt}/120; ${other} wrong in ${otherVariantWrong}/120`,
  );
  assert.ok(refPacks >= 20 && rebuilt >= 40 && otherVariantWrong >= 20);
});

/**
 * A repository from historyStream, repacked with `--depth`. (Some seeds make historyStream rename a
 * file in the commit that creates it, which fast-import rejects; these seeds do not.)
 */
function historyRepository(sandbox: GitSandbox, name: string, seed: number, depth: number): string {
  const repo = sandbox.init(name, { bare: true });
  sandbox.fastImport(repo, historyStream({ commits: 400, seed, binaryRate: 0.2 }));
  // One delta-search thread: the same pack on every run.
  sandbox.git(repo, ['-c', 'pack.threads=1', 'repack', '-adfq', `--depth=${depth}`, '--window=20']);
  return repo;
}

const HISTORY_LIMITS = [0, 4096, 16 * 1024, 64 * 1024, 96 * MIB];

test('history packs (OFS deltas): simulated inflations equal real index-pack exactly', (t) => {
  const bench = new IndexPackBench(tempDir(t));
  const variant = installedVariant(bench.sandbox);
  for (const [seed, depth] of [
    [3, 10],
    [5, 50],
    [7, 250],
  ] as const) {
    const repo = historyRepository(bench.sandbox, `history-${depth}`, seed, depth);
    const [stem] = packStems(path.join(repo, 'objects'));
    const packPath = bench.place(fs.readFileSync(`${stem}.pack`));
    bench.assertOutsideRepository(packPath);
    const model = bench.model(packPath);
    assert.ok(model.counts().ofsDeltas > model.count / 2, 'mostly OFS deltas');
    assert.equal(model.counts().refDeltas, 0);
    const report: string[] = [];
    for (const limit of HISTORY_LIMITS) {
      const real = bench.count(packPath, limit);
      const simulated = simulateIndexPack(model, { limit, variant });
      report.push(
        `depth ${depth} limit ${limit}: real ${real}, simulated ${simulated.inflations} (N=${model.count}, reconstructions ${simulated.reconstructions})`,
      );
      assert.equal(simulated.inflations, real, report.at(-1));
    }
    for (const line of report) t.diagnostic(line);
  }
});

test('history pack with REF deltas (pack-objects without --delta-base-offset): exact against real index-pack', (t) => {
  const bench = new IndexPackBench(tempDir(t));
  const variant = installedVariant(bench.sandbox);
  const repo = historyRepository(bench.sandbox, 'history-ref', 11, 50);
  const pack = bench.sandbox.git(repo, ['pack-objects', '-q', '--all', '--revs', '--stdout'], { input: '' });
  const packPath = bench.place(pack);
  const model = bench.model(packPath);
  assert.ok(model.counts().refDeltas > model.count / 2, 'mostly REF deltas');
  assert.equal(model.counts().ofsDeltas, 0);
  const report: string[] = [];
  for (const limit of HISTORY_LIMITS) {
    const real = bench.count(packPath, limit);
    const simulated = simulateIndexPack(model, { limit, variant });
    report.push(
      `REF limit ${limit}: real ${real}, simulated ${simulated.inflations} (N=${model.count}, reconstructions ${simulated.reconstructions})`,
    );
    assert.equal(simulated.inflations, real, report.at(-1));
  }
  for (const line of report) t.diagnostic(line);
});
