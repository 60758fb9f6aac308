import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { parsePolicy } from '../../src/core/sim/policy-registry.ts';
import { simObjectsFrom } from '../../src/core/sim/sim-objects.ts';
import { simulateSegments } from '../../src/core/sim/simulate.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';
import { blobId, writeChosenPack, type ChosenEntry } from '../support/chosen-delta-pack.ts';

/**
 * git-internals §8.1's blind spot of a limit-0 recording, built and checked against real git: the
 * reads a limit-0 trace cannot show, and the bounds a replay puts on them (src/core/sim/hidden-reads.ts).
 */

function repositoryWithPack(
  sandbox: GitSandbox,
  name: string,
  entries: ChosenEntry[],
): { repo: string; packPath: string; oids: string[] } {
  const repo = sandbox.init(name);
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  const packPath = path.join(packDir, 'pack-test.pack');
  fs.writeFileSync(packPath, writeChosenPack(entries));
  sandbox.git(packDir, ['index-pack', 'pack-test.pack']);
  return { repo, packPath, oids: entries.map((entry) => blobId(entry.content).toString('hex')) };
}

/** `git cat-file --batch='%(objectname)'` over `oids` at `limit`: the offsets it logs and its inflate count. */
function runCatFile(
  sandbox: GitSandbox,
  repo: string,
  oids: string[],
  limit: number,
  shim: string,
): { offsets: number[]; inflations: number } {
  const trace = path.join(sandbox.root, `trace-${process.hrtime.bigint()}`);
  const counts = `${trace}.count`;
  sandbox.git(repo, ['-c', `core.deltaBaseCacheLimit=${limit}`, 'cat-file', '--batch=%(objectname)'], {
    input: oids.join('\n') + '\n',
    env: { GIT_TRACE_PACK_ACCESS: trace, GIT_TRACE_BARE: '1', ...countingEnv(shim, counts) },
  });
  const lines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean) : [];
  return {
    offsets: lines.map((line) => Number(line.slice(line.lastIndexOf(' ') + 1))),
    inflations: readInflateCount(counts),
  };
}

const text = (seed: string, length: number): Buffer =>
  Buffer.from(seed.repeat(Math.ceil(length / seed.length)).slice(0, length));

test('§8.1 minimal case: Z→Y→X then G1→G; the limit-0 trace hides X, the bounds contain git at every limit', (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const shim = buildInflateCounter(sandbox.root);
  // 2,000-byte objects: at 4,390 bytes the cache holds two of them, not three.
  const X = text('the base of a chain ', 2000);
  const G = text('another family root ', 2000);
  const entries: ChosenEntry[] = [
    { content: X },
    { base: 0, content: Buffer.concat([X.subarray(0, 1990), Buffer.from('Y!Y!Y!Y!Y!')]) },
    { content: G },
  ];
  entries.push({ base: 1, content: Buffer.concat([entries[1]!.content.subarray(0, 1990), Buffer.from('Z:Z:Z:Z:Z:')]) });
  entries.push({ base: 2, content: Buffer.concat([G.subarray(0, 1990), Buffer.from('G1G1G1G1G1')]) });
  const { repo, packPath, oids } = repositoryWithPack(sandbox, 'repo', entries);
  const [x, y, , z, g1] = oids as [string, string, string, string, string];
  const model = buildPackModel(packFilesFor(packPath));
  const objects = simObjectsFrom([model]);
  const idAt = (offset: number): number => model.objectAt(offset);
  const offsetOf = (oid: string): number => model.columns.offset[model.findHex(oid)]!;
  const reads = [z, g1, y, x];

  // Git's own traces: the spec's (§8.1).
  const atZero = runCatFile(sandbox, repo, reads, 0, shim);
  assert.deepEqual(atZero.offsets, [z, g1, y].map(offsetOf), 'limit 0 logs Z G1 Y: X is a hit on the one entry kept');
  assert.deepEqual(runCatFile(sandbox, repo, reads, 4390, shim).offsets, [z, g1, x].map(offsetOf), '4390 logs Z G1 X');

  const recorded = Int32Array.from(atZero.offsets, idAt);
  const git = parsePolicy('git');
  const simulateAt = (limit: number): ReturnType<typeof simulateSegments> =>
    simulateSegments(git, objects, recorded, [0], limit, { recordedLimit: 0 });
  const atZeroPredicted = simulateAt(0);
  assert.equal(atZeroPredicted.exact, true, 'exact at the limit it was recorded with');
  // Inflations outside unpack_entry (size reads, §1.8) do not depend on the limit: measured at 0.
  const outside = atZero.inflations - atZeroPredicted.inflations;
  const widths: string[] = [];
  for (const limit of [0, 1000, 2500, 4000, 4390, 6000, 8000, 96 << 20]) {
    const real = runCatFile(sandbox, repo, reads, limit, shim);
    const predicted = simulateAt(limit);
    const bounds = predicted.bounds!;
    assert.ok(bounds, `bounds at ${limit}`);
    const inside = (value: number, [low, high]: [number, number]): boolean => low <= value && value <= high;
    assert.ok(
      inside(real.offsets.length, bounds.logged),
      `limit ${limit}: git's ${real.offsets.length} lines within ${bounds.logged.join('–')}`,
    );
    assert.ok(
      inside(real.inflations - outside, bounds.inflations),
      `limit ${limit}: git's ${real.inflations - outside} inflations within ${bounds.inflations.join('–')}`,
    );
    if (predicted.exact) {
      assert.equal(predicted.logged, real.offsets.length, `limit ${limit}: exact lines`);
      assert.equal(predicted.inflations, real.inflations - outside, `limit ${limit}: exact inflations`);
    }
    // Not trivially wide: one place (after Y) can hide a read, of a non-delta (X): at most one line
    // and one inflation.
    assert.ok(
      bounds.logged[1] - bounds.logged[0] <= (predicted.hiddenReads?.placesThatMiss ?? 0),
      `limit ${limit}: logged width`,
    );
    assert.ok(
      bounds.logged[1] - bounds.logged[0] <= 1 && bounds.inflations[1] - bounds.inflations[0] <= 1,
      `limit ${limit}: width ${JSON.stringify(bounds)}`,
    );
    widths.push(`${limit}: ${bounds.logged.join('–')} real ${real.offsets.length}`);
  }
  const at4390 = simulateAt(4390);
  assert.equal(at4390.exact, false, 'at 4390 the hidden read of X matters');
  assert.deepEqual(at4390.bounds!.logged, [2, 3], `at 4390: ${widths.join('; ')}`);
  assert.equal(simulateAt(96 << 20).exact, true, 'at 96m X is still cached when it is read: the hidden read is a hit');
});

test('a place can hide the same read twice: each misses again (the maximum assumes one per place)', (t) => {
  // §8.1 says "at most one extra miss per place"; that holds for the cache state, not for the
  // counts: git's final result is never cached (§1.4), so a second read of X misses too.
  const sandbox = new GitSandbox(tempDir(t));
  const shim = buildInflateCounter(sandbox.root);
  const X = text('the base of a chain ', 2000);
  const G = text('another family root ', 2000);
  const entries: ChosenEntry[] = [
    { content: X },
    { base: 0, content: Buffer.concat([X.subarray(0, 1990), Buffer.from('Y!Y!Y!Y!Y!')]) },
    { content: G },
  ];
  entries.push({ base: 1, content: Buffer.concat([entries[1]!.content.subarray(0, 1990), Buffer.from('Z:Z:Z:Z:Z:')]) });
  entries.push({ base: 2, content: Buffer.concat([G.subarray(0, 1990), Buffer.from('G1G1G1G1G1')]) });
  const { repo, packPath, oids } = repositoryWithPack(sandbox, 'repo', entries);
  const [x, y, , z, g1] = oids as [string, string, string, string, string];
  const model = buildPackModel(packFilesFor(packPath));
  const offsetOf = (oid: string): number => model.columns.offset[model.findHex(oid)]!;
  const reads = [z, g1, y, x, x];
  assert.deepEqual(
    runCatFile(sandbox, repo, reads, 0, shim).offsets,
    [z, g1, y].map(offsetOf),
    'limit 0: the same trace as with one read of X',
  );
  assert.deepEqual(
    runCatFile(sandbox, repo, reads, 4390, shim).offsets,
    [z, g1, x, x].map(offsetOf),
    '4390: both reads of X miss',
  );
  const objects = simObjectsFrom([model]);
  const recorded = Int32Array.from([z, g1, y], (oid) => model.findHex(oid));
  const bounds = simulateSegments(parsePolicy('git'), objects, recorded, [0], 4390, { recordedLimit: 0 }).bounds!;
  assert.deepEqual(bounds.logged, [2, 3], 'the bound takes one hidden read per place: git logged 4 here');
});
