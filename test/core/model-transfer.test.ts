/**
 * A model moved between threads (the server's model workers) arrives whole: the same columns, the
 * same derived columns, the same answers — through a real structured clone with transferred buffers.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { modelForTransfer, modelFromTransfer } from '../../src/core/model/model-transfer.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

function everything(model: PackModel): unknown {
  const c = model.columns;
  const n = model.count;
  const perObject = Array.from({ length: n }, (_, i) => [
    model.oidHex(i),
    c.offset[i],
    c.inPackType[i],
    c.type[i],
    c.size.get(i),
    c.resultSize.get(i),
    c.diskSize.get(i),
    c.base[i],
    c.depth[i],
    c.byOffset[i],
    model.rootOf(i),
    model.familySize(i),
    Array.from(model.children(i)),
    model.objectAt(c.offset[i]!),
  ]);
  return {
    n,
    checksum: model.checksumHex,
    packSize: model.packSize,
    packVersion: model.packVersion,
    idxVersion: model.index.version,
    perObject,
    derived: Object.fromEntries(
      Object.entries(model.derivedColumns()).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)]),
    ),
  };
}

test('a model survives postMessage-style transfer: columns, derived columns, lookups', (t) => {
  const sandbox = new GitSandbox(tempDir(t));
  const repo = sandbox.init('repo');
  sandbox.fastImport(repo, historyStream({ commits: 60, seed: 5 }));
  sandbox.git(repo, ['repack', '-adf', '--depth=20']);
  const files = packFilesFor(`${packStems(path.join(repo, '.git', 'objects'))[0]}.pack`);
  // Both sources the worker sends from: a fresh build, and a model read back from the model cache.
  const cache = new ModelStore(path.join(sandbox.root, 'cache'));
  cache.load(files);
  for (const original of [buildPackModel(files), cache.load(files).model]) {
    const expected = everything(original);
    const { message, transfer } = modelForTransfer(original);
    const received = modelFromTransfer(structuredClone(message, { transfer }));
    assert.deepEqual(everything(received), expected);
    // The buffers moved: the sender's columns are detached, nothing was copied.
    assert.equal(original.columns.base.length, 0);
    const oid = received.oidHex(received.count - 1);
    assert.equal(received.findHex(oid), received.count - 1);
    assert.deepEqual(received.findPrefix(oid.slice(0, 8), 2), [received.count - 1]);
  }
});
