import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { ModelStore } from '../../src/core/model/model-store.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { STATS_RANKINGS, STORED_RANKING_HEAD, topRanked } from '../../src/core/model/rankings.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

function columnsOf(model: PackModel): unknown {
  const c = model.columns;
  return {
    inPackType: Array.from(c.inPackType),
    type: Array.from(c.type),
    size: Array.from(c.size.low),
    resultSize: Array.from(c.resultSize.low),
    diskSize: Array.from(c.diskSize.low),
    base: Array.from(c.base),
    depth: Array.from(c.depth),
    byOffset: Array.from(c.byOffset),
    offset: Array.from(c.offset),
  };
}

function makePack(t: Parameters<typeof tempDir>[0]): { sandbox: GitSandbox; repo: string; pack: string } {
  const sandbox = new GitSandbox(tempDir(t));
  const repo = sandbox.init('repo');
  sandbox.fastImport(repo, historyStream({ commits: 80, seed: 3 }));
  sandbox.git(repo, ['repack', '-adf', '--depth=12']);
  return { sandbox, repo, pack: `${packStems(path.join(repo, '.git', 'objects'))[0]}.pack` };
}

test('a persisted model reopens with identical columns, and nothing is written in the repository', (t) => {
  const { sandbox, repo, pack } = makePack(t);
  const cacheDir = path.join(sandbox.root, 'cache');
  const before = sandbox.gitText(repo, ['status', '--porcelain', '--ignored']);
  const listing = (): string[] => fs.readdirSync(path.join(repo, '.git', 'objects', 'pack')).sort();
  const packFilesBefore = listing();

  const store = new ModelStore(cacheDir);
  const first = store.load(packFilesFor(pack));
  assert.equal(first.source, 'built');
  assert.equal(fs.readdirSync(cacheDir).filter((f) => f.endsWith('.psmodel')).length, 1);
  const second = new ModelStore(cacheDir).load(packFilesFor(pack));
  assert.equal(second.source, 'persisted');
  assert.deepEqual(columnsOf(second.model), columnsOf(first.model));
  assert.deepEqual(columnsOf(second.model), columnsOf(buildPackModel(packFilesFor(pack))));

  assert.equal(sandbox.gitText(repo, ['status', '--porcelain', '--ignored']), before);
  assert.deepEqual(listing(), packFilesBefore);
});

test('corrupt, truncated and stale model files are detected and rebuilt', (t) => {
  const { sandbox, repo, pack } = makePack(t);
  const cacheDir = path.join(sandbox.root, 'cache');
  const store = new ModelStore(cacheDir);
  const reference = columnsOf(store.load(packFilesFor(pack)).model);
  const file = path.join(
    cacheDir,
    fs.readdirSync(cacheDir).find((f) => f.endsWith('.psmodel'))!,
  );
  const pristine = fs.readFileSync(file);

  const damaged = Buffer.from(pristine);
  damaged[damaged.length >> 1] ^= 0x40;
  fs.writeFileSync(file, damaged);
  let loaded = new ModelStore(cacheDir).load(packFilesFor(pack));
  assert.equal(loaded.source, 'built');
  assert.match(loaded.rebuiltBecause ?? '', /checksum mismatch/);
  assert.deepEqual(columnsOf(loaded.model), reference);
  // Written back: the same bytes up to the seal, whose GCM nonce is new for every file written.
  const SEAL_BYTES = 12 + 16;
  const rewritten = fs.readFileSync(file);
  assert.equal(rewritten.length, pristine.length);
  assert.deepEqual(
    rewritten.subarray(0, -SEAL_BYTES),
    pristine.subarray(0, -SEAL_BYTES),
    'the rebuilt model was written back',
  );
  assert.notDeepEqual(rewritten.subarray(-SEAL_BYTES), pristine.subarray(-SEAL_BYTES), 'a nonce was used twice');

  fs.writeFileSync(file, pristine.subarray(0, pristine.length - 100));
  loaded = new ModelStore(cacheDir).load(packFilesFor(pack));
  assert.equal(loaded.source, 'built');
  assert.ok(loaded.rebuiltBecause);

  fs.writeFileSync(file, Buffer.from('not a model at all'));
  loaded = new ModelStore(cacheDir).load(packFilesFor(pack));
  assert.equal(loaded.source, 'built');
  assert.match(loaded.rebuiltBecause ?? '', /not a PackScope model/);

  // A different pack (after a repack) has another checksum, hence another model file.
  sandbox.git(repo, ['commit', '--allow-empty', '-qm', 'one more']);
  sandbox.git(repo, ['repack', '-adf', '--depth=5']);
  const newPack = `${packStems(path.join(repo, '.git', 'objects'))[0]}.pack`;
  assert.notEqual(newPack, pack);
  assert.equal(new ModelStore(cacheDir).load(packFilesFor(newPack)).source, 'built');
  assert.equal(new ModelStore(cacheDir).load(packFilesFor(newPack)).source, 'persisted');
});

test('a model file whose pack was rewritten in place (same name, other bytes) is not used', (t) => {
  const { sandbox, pack } = makePack(t);
  const cacheDir = path.join(sandbox.root, 'cache');
  new ModelStore(cacheDir).load(packFilesFor(pack));
  // Same idx, pack trailer changed: the model must not be trusted (and the pack is then invalid).
  const bytes = fs.readFileSync(pack);
  fs.chmodSync(pack, 0o644);
  bytes[bytes.length - 1] ^= 1;
  fs.writeFileSync(pack, bytes);
  assert.throws(() => new ModelStore(cacheDir).load(packFilesFor(pack)), /do not belong together/);
});

test('a persisted model brings its derived columns, summary and ranking heads, equal to a fresh build’s', (t) => {
  const { sandbox, pack } = makePack(t);
  const cacheDir = path.join(sandbox.root, 'cache');
  new ModelStore(cacheDir).load(packFilesFor(pack));
  const reopened = new ModelStore(cacheDir).load(packFilesFor(pack));
  assert.equal(reopened.source, 'persisted');
  const model = reopened.model;
  const fresh = buildPackModel(packFilesFor(pack));
  assert.equal(model.derivedSource, 'stored');
  const { offsetsInPackOrder: _a, ...stored } = model.derivedColumns();
  const { offsetsInPackOrder: _b, ...built } = fresh.derivedColumns();
  assert.deepEqual(stored, built);
  assert.deepEqual(model.summaryFacts(), fresh.summaryFacts());
  assert.equal(model.familyCount(), fresh.familyCount());
  for (const ranking of STATS_RANKINGS) {
    assert.ok(model.rankingHead(ranking), `${ranking}: no stored head`);
    for (const k of [1, 10, STORED_RANKING_HEAD, STORED_RANKING_HEAD + 5])
      assert.deepEqual(topRanked(model, ranking, k), topRanked(fresh, ranking, k), `${ranking}, top ${k}`);
  }
});

test('a pack or idx touched since the model was built (same bytes, another time): rebuilt once, saying why', (t) => {
  const { sandbox, pack } = makePack(t);
  const cacheDir = path.join(sandbox.root, 'cache');
  const files = packFilesFor(pack);
  const reference = columnsOf(new ModelStore(cacheDir).load(files).model);
  // What git does when it "freshens" a pack, and what cp or an editor does to a file's time.
  const later = new Date(Date.now() + 60_000);
  for (const [file, why] of [
    [files.pack, /pack size or modification time changed/],
    [files.idx, /idx size or modification time changed/],
  ] as const) {
    fs.utimesSync(file, later, later);
    const touched = new ModelStore(cacheDir).load(files);
    assert.equal(touched.source, 'built', `${path.basename(file)} touched: the model was used`);
    assert.match(touched.rebuiltBecause ?? '', why);
    assert.deepEqual(columnsOf(touched.model), reference);
    assert.equal(new ModelStore(cacheDir).load(files).source, 'persisted', 'the rebuilt model records the new time');
    later.setTime(later.getTime() + 60_000);
  }
});
