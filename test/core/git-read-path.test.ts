import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { replayGitReads } from '../../src/core/sim/git-read-path.ts';
import { GitLruCache } from '../../src/core/sim/policies/git-lru.ts';
import { simObjectsFrom } from '../../src/core/sim/sim-objects.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';
import { blobId, writeChosenPack, type ChosenEntry } from '../support/chosen-delta-pack.ts';
import { SeededRandom } from '../support/seeded-random.ts';

/** A repository whose only pack is `entries`, indexed by git itself. */
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

interface GitRun {
  offsets: number[];
  inflations: number;
}

/** `git cat-file --batch='%(objectname)'` over `oids` at `limit`: its trace lines (bare) and inflate count. */
function runCatFile(sandbox: GitSandbox, repo: string, oids: string[], limit: number, shim: string): GitRun {
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

function predict(
  packPath: string,
  oids: string[],
  limit: number,
): { offsets: number[]; inflations: number; deltaReads: number } {
  const model = buildPackModel(packFilesFor(packPath));
  const objects = simObjectsFrom([model]);
  const reads = Int32Array.from(oids, (oid) => model.findHex(oid));
  const offsets: number[] = [];
  const counts = replayGitReads(objects, reads, new GitLruCache(objects.count, objects.size, limit), {
    onLogged: (r) => offsets.push(objects.offset[reads[r]!]!),
  });
  let deltaReads = 0;
  for (const id of reads) if (objects.base[id]! >= 0) deltaReads++;
  return { offsets, inflations: counts.inflations, deltaReads };
}

const text = (seed: string, length: number): Buffer =>
  Buffer.from(seed.repeat(Math.ceil(length / seed.length)).slice(0, length));

test('the behavioural tests T1–T7 of git-internals §1.6, against real git', (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const shim = buildInflateCounter(sandbox.root);
  // A, B, C: 1000-byte blobs; A1, B1, C1 deltas on them; A2 a delta on A1.
  const A = text('a quick brown fox ', 1000);
  const B = text('jumps over the lazy dog ', 1000);
  const C = text('pack delta chain base ', 1000);
  const entries: ChosenEntry[] = [
    { content: A },
    { content: B },
    { content: C },
    { base: 0, content: Buffer.concat([A.subarray(0, 990), Buffer.from('A1 changed!!')]) },
    { base: 1, content: Buffer.concat([B.subarray(0, 990), Buffer.from('B1 changed!!')]) },
    { base: 2, content: Buffer.concat([C.subarray(0, 990), Buffer.from('C1 changed!!')]) },
  ];
  entries.push({ base: 3, content: Buffer.concat([entries[3]!.content.subarray(0, 995), Buffer.from('A2 again')]) });
  const { repo, packPath, oids } = repositoryWithPack(sandbox, 'repo', entries);
  const [a, b, c, a1, b1, c1, a2] = oids as [string, string, string, string, string, string, string];
  const model = buildPackModel(packFilesFor(packPath));
  const offsetOf = new Map(oids.map((oid) => [oid, model.columns.offset[model.findHex(oid)]!]));

  const table: [string, number, string[], string[]][] = [
    ['T1', 2500, [a1, b1, c1, a, b, c], [a1, b1, c1, a]],
    ['T2', 2500, [a1, b1, a1, c1, b, a], [a1, b1, a1, c1, b]],
    ['T3', 2000, [a1, b1, a, b], [a1, b1]],
    ['T4', 900, [a1, a, b1, a, b], [a1, b1, a]],
    ['T5', 96 << 20, [a1, a, a, a], [a1]],
    ['T6', 96 << 20, [a2, a1, a], [a2]],
    ['T7', 0, [a1, a], [a1]],
  ];
  for (const [name, limit, reads, expectedLogged] of table) {
    const real = runCatFile(sandbox, repo, reads, limit, shim);
    const predicted = predict(packPath, reads, limit);
    const expectedOffsets = expectedLogged.map((oid) => offsetOf.get(oid)!);
    assert.deepEqual(real.offsets, expectedOffsets, `${name}: git's own trace is the spec's`);
    assert.deepEqual(predicted.offsets, real.offsets, `${name}: predicted trace lines`);
    // Inflations outside unpack_entry (header-only size reads, §1.8) depend on the reads, not the
    // cache: the same difference at every limit.
    const differences = new Set<number>();
    for (const other of [limit, 0, 96 << 20]) {
      differences.add(
        runCatFile(sandbox, repo, reads, other, shim).inflations - predict(packPath, reads, other).inflations,
      );
    }
    assert.equal(differences.size, 1, `${name}: inflations beyond the model vary with the limit: ${[...differences]}`);
  }
  // T6 on its own: A2 → A, Δ(A1), Δ(A2); then A1 and A are cache hits (§1.6).
  assert.equal(predict(packPath, [a2, a1, a], 96 << 20).inflations, 3);
});

test("random packs, reads and limits: predicted trace lines equal git's, inflations differ by a constant", (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const shim = buildInflateCounter(sandbox.root);
  for (let trial = 0; trial < 24; trial++) {
    const generator = new SeededRandom(1000 + trial);
    const random = (): number => generator.next();
    const count = 3 + Math.floor(random() * 38);
    const entries: ChosenEntry[] = [];
    for (let i = 0; i < count; i++) {
      if (i === 0 || random() < 0.3) {
        entries.push({ content: text(`object ${i} ${random()} `, 200 + Math.floor(random() * 3000)) });
      } else {
        const base = Math.floor(random() * i);
        const baseContent = entries[base]!.content;
        const content = Buffer.concat([
          baseContent.subarray(0, Math.floor(baseContent.length * (0.5 + random() / 2))),
          Buffer.from(`delta ${i} of ${base} ${random()}`),
        ]);
        entries.push({ base, content, ref: random() < 0.3 });
      }
    }
    const { repo, packPath, oids } = repositoryWithPack(sandbox, `repo-${trial}`, entries);
    const distinct = [...new Set(oids)];
    const reads: string[] = [];
    const readCount = 5 + Math.floor(random() * 40);
    for (let i = 0; i < readCount; i++) reads.push(distinct[Math.floor(random() * distinct.length)]!);
    const limits = [0, 500 + Math.floor(random() * 8000), 96 << 20];
    const differences = new Set<number>();
    for (const limit of limits) {
      const real = runCatFile(sandbox, repo, reads, limit, shim);
      const predicted = predict(packPath, reads, limit);
      assert.deepEqual(predicted.offsets, real.offsets, `trial ${trial} (seed ${1000 + trial}), limit ${limit}`);
      differences.add(real.inflations - predicted.inflations);
    }
    assert.equal(
      differences.size,
      1,
      `trial ${trial}: inflations beyond the model vary with the limit: ${[...differences]}`,
    );
  }
});
