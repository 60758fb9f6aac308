/**
 * What the Pack Map draws over the pack, against real git. A delta family's members and
 * arcs are those `git verify-pack -v` gives (each delta joined to the base its line names, members
 * the objects whose chain ends at the same root); a recording's seek path is git's own
 * GIT_TRACE_PACK_ACCESS offsets in the order git wrote them, sampled as documented, and its figures
 * are packscope locality's.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { packLocality, replayPageCache } from '../../src/core/locality/locality.ts';
import { familyArcs } from '../../src/core/map/family-arcs.ts';
import { seekPath } from '../../src/core/map/seek-path.ts';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { historyRepository, onlyPackStem, verifyPackEntries, type VerifyPackEntry } from '../support/git-oracle.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let stem: string;
let entries: VerifyPackEntry[];
let model: PackModel;
/** git's trace of `git log -p`: the offsets of this pack, in the order git read them. */
let traceOffsets: number[];

before(() => {
  root = tempDir(undefined, 'packscope-map-overlays-');
  sandbox = new GitSandbox(root);
  repo = historyRepository(sandbox, 'history', {
    commits: 50,
    seed: 16,
    files: 4,
    linesPerFile: 40,
    repack: ['-adf', '--depth=20'],
  });
  stem = onlyPackStem(path.join(repo, '.git', 'objects', 'pack'));
  entries = verifyPackEntries(sandbox, repo, `${stem}.pack`);
  model = buildPackModel(packFilesFor(`${stem}.pack`));
  const trace = path.join(root, 'log-p.trace');
  sandbox.git(repo, ['-c', 'core.deltaBaseCacheLimit=0', 'log', '-p'], { env: { GIT_TRACE_PACK_ACCESS: trace } });
  traceOffsets = fs
    .readFileSync(trace, 'utf8')
    .trim()
    .split('\n')
    .map((line) => /(\S+\.pack) (\d+)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && path.basename(m[1]!) === path.basename(`${stem}.pack`))
    .map((m) => Number(m[2]));
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

describe('a delta family over the map', () => {
  test('members and arcs are those git verify-pack -v gives', () => {
    const byOid = new Map(entries.map((e) => [e.oid, e]));
    const rootOf = (e: VerifyPackEntry): string => {
      let at = e;
      while (at.base !== undefined) at = byOid.get(at.base)!;
      return at.oid;
    };
    // The largest family git's lines make, and a one-object family.
    const families = new Map<string, VerifyPackEntry[]>();
    for (const e of entries) families.set(rootOf(e), [...(families.get(rootOf(e)) ?? []), e]);
    const sorted = [...families.values()].sort((a, b) => b.length - a.length);
    const largest = sorted[0]!;
    assert.ok(largest.length >= 10, `the history makes a family of some size (largest ${largest.length})`);
    const single = sorted.at(-1)!;
    assert.equal(single.length, 1);
    for (const members of [largest, single]) {
      // Asked about any member (here the last in pack order), the family is the same.
      const asked = members.at(-1)!;
      const family = familyArcs(model, model.findHex(asked.oid));
      assert.equal(model.oidHex(family.root), rootOf(asked));
      assert.equal(family.members, members.length);
      assert.deepEqual(
        family.memberOffsets,
        members.map((e) => e.offset),
        'every member, in pack order',
      );
      const expectedArcs = members
        .filter((e) => e.base !== undefined)
        .map((e) => [e.offset, byOid.get(e.base!)!.offset]);
      assert.deepEqual(family.arcs, expectedArcs, 'one arc per delta, to the base git names');
      assert.equal(family.externalBases, 0);
      assert.equal(family.truncated, false);
    }
  });

  test('a family larger than the cap is cut in pack order, and says so', () => {
    const largest = model.findHex(entries.find((e) => e.depth === Math.max(...entries.map((x) => x.depth)))!.oid);
    const whole = familyArcs(model, largest);
    const cut = familyArcs(model, largest, 3);
    assert.equal(cut.truncated, true);
    assert.equal(cut.members, whole.members);
    assert.deepEqual(cut.memberOffsets, whole.memberOffsets.slice(0, 3));
    assert.throws(() => familyArcs(model, model.count), /not in the pack/);
  });
});

describe('a recording as a seek path', () => {
  const cache = { cacheMiB: 1, readaheadKiB: 16 };
  const input = (): { pack: string; offsets: Float64Array; entryBytes: Float64Array } => ({
    pack: `${stem}.pack`,
    offsets: Float64Array.from(traceOffsets),
    entryBytes: Float64Array.from(traceOffsets, (offset) => entries.find((e) => e.offset === offset)!.diskSize),
  });

  test("every read, in git's order, with packscope locality's figures", () => {
    assert.ok(traceOffsets.length > 50, `git log -p read the pack (${traceOffsets.length} reads)`);
    const path = seekPath(input(), cache);
    assert.equal(path.stride, 1);
    assert.deepEqual(path.offsets, traceOffsets);
    assert.equal(path.reads, traceOffsets.length);
    assert.equal(path.seeks, traceOffsets.length - 1);
    assert.equal(path.backwardSeeks, traceOffsets.filter((offset, i) => i > 0 && offset < traceOffsets[i - 1]!).length);
    assert.deepEqual(path.locality, packLocality(input(), cache));
    // Faulting reads: as many as the replay marks, and at least one read per fault when every read is a point.
    const marked = new Uint8Array(traceOffsets.length);
    const faults = replayPageCache(input().offsets, input().entryBytes, cache, marked);
    assert.equal(faults, path.locality.pageFaults);
    assert.deepEqual(
      path.faults,
      [...marked].flatMap((m, i) => (m ? [i] : [])),
    );
    assert.ok(path.faults.length > 0 && path.faults.length <= faults);
  });

  test('a long path is sampled every stride-th read, keeping the last, and a point faults when a read it stands for did', () => {
    const whole = seekPath(input(), cache);
    const max = 10;
    const sampled = seekPath(input(), cache, max);
    const stride = Math.ceil((traceOffsets.length - 1) / (max - 1));
    assert.equal(sampled.stride, stride);
    const indices = [...Array(Math.ceil(traceOffsets.length / stride)).keys()].map((k) => k * stride);
    if (indices.at(-1) !== traceOffsets.length - 1) indices.push(traceOffsets.length - 1);
    assert.ok(indices.length <= max);
    assert.deepEqual(
      sampled.offsets,
      indices.map((i) => traceOffsets[i]!),
    );
    const faulted = new Set(whole.faults);
    const expected = indices.flatMap((read, k) => {
      const from = k === 0 ? 0 : indices[k - 1]! + 1;
      for (let r = from; r <= read; r++) if (faulted.has(r)) return [k];
      return [];
    });
    assert.deepEqual(sampled.faults, expected);
    assert.deepEqual(sampled.locality, whole.locality, 'the figures are of every read');
    assert.throws(() => seekPath(input(), cache, 1), /at least 2/);
  });
});
