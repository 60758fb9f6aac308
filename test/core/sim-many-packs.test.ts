/**
 * Scale edges: a replay's pack numbers do not wrap past 65,535 packs (they were 16-bit). The
 * same real pack's model stands for each of 70,000 packs: object n of pack k must say pack k, and
 * the (pack, offset) keys of two packs must stay apart, as the delta base cache keys them (§1.2).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { compactForReads, simObjectsFrom } from '../../src/core/sim/sim-objects.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { historyRepository, onlyPackStem } from '../support/git-oracle.ts';

const root = tempDir(undefined, 'packscope-sim-many-packs-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('pack numbers past 65,535 stay exact in the replay objects, compacted or not', () => {
  const sandbox = new GitSandbox(root);
  const repo = historyRepository(sandbox, 'history', {
    commits: 2,
    seed: 3,
    files: 1,
    linesPerFile: 5,
    repack: ['-adf'],
  });
  const model = buildPackModel(packFilesFor(`${onlyPackStem(path.join(repo, '.git', 'objects', 'pack'))}.pack`));
  const packs = 70_000;
  const objects = simObjectsFrom(Array.from({ length: packs }, () => model));
  assert.equal(objects.count, packs * model.count);
  for (const k of [0, 65_535, 65_536, 69_999]) {
    const first = objects.packBase[k]!;
    assert.equal(objects.pack[first], k, `pack ${k}'s first object`);
    assert.equal(objects.offset[first], model.columns.offset[0]);
  }
  // A read of the same object in pack 0 and in pack 65,536 are two objects (a 16-bit number made them one key).
  const reads = Int32Array.from([objects.packBase[0]!, objects.packBase[65_536]!]);
  const compact = compactForReads(objects, reads);
  assert.deepEqual(
    [...compact.objects.pack.slice(0, 2)].sort((a, b) => a - b),
    [0, 65_536],
  );
});
