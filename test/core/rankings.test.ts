/**
 * The rankings the Packs view pages through, checked against what git itself says about a pack it
 * wrote: `git verify-pack -v` names each delta's base, and the counts below come from that column
 * alone, not from the model.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { rankedOrder, topRanked } from '../../src/core/model/rankings.ts';
import { historyRepository, verifyPackEntries } from '../support/git-oracle.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';

test('mostUsedBases: objects by their number of direct delta children as verify-pack names bases, most first, ties in id order', (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const repo = historyRepository(sandbox, 'history', {
    commits: 120,
    seed: 11,
    repack: ['-adf', '--depth=50', '--window=10'],
  });
  const [stem] = packStems(path.join(repo, '.git', 'objects'));
  assert.ok(stem, 'git repack wrote a pack');
  const entries = verifyPackEntries(sandbox, repo, `${stem}.idx`);

  const childCounts = new Map(entries.map((e) => [e.oid, 0]));
  for (const e of entries) if (e.base !== undefined) childCounts.set(e.base, childCounts.get(e.base)! + 1);
  const expected = [...childCounts].sort(([a, ca], [b, cb]) => cb - ca || (a < b ? -1 : 1));
  assert.ok(expected[0]![1] > 1, 'the pack has a base with several delta children');
  const top = 25;
  const tiedInTop = expected.slice(0, top).some(([, count], i) => i > 0 && count === expected[i - 1]![1]);
  assert.ok(tiedInTop, 'the top entries include a tie, so the tie order is checked');

  const model = buildPackModel(packFilesFor(`${stem}.pack`));
  assert.equal(model.count, entries.length);
  const order = [...rankedOrder(model, 'mostUsedBases')].map((n) => model.oidHex(n));
  assert.equal(order.length, entries.length, 'every object is in the list');
  assert.deepEqual(
    order.slice(0, top),
    expected.slice(0, top).map(([oid]) => oid),
  );
  assert.deepEqual(
    order.map((oid) => childCounts.get(oid)),
    expected.map(([, count]) => count),
    'the whole list by child count',
  );

  const best = topRanked(model, 'mostUsedBases', top);
  assert.deepEqual(
    best.map(({ object, value }) => [model.oidHex(object), value]),
    expected.slice(0, top),
  );
});
