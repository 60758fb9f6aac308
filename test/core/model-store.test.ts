import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { ModelStore, readEveryColumn } from '../../src/core/model/model-store.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { STATS_RANKINGS, STORED_RANKING_HEAD, topRanked } from '../../src/core/model/rankings.ts';
import { READ_WHOLE_MAX_BYTES } from '../../src/core/format/random-access-file.ts';
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

function makePack(t: Parameters<typeof tempDir>[0], commits = 80): { sandbox: GitSandbox; repo: string; pack: string } {
  const sandbox = new GitSandbox(tempDir(t));
  const repo = sandbox.init('repo');
  sandbox.fastImport(repo, historyStream({ commits, seed: 3 }));
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

  // A byte of the header: its seal fails on open.
  const headerDamaged = Buffer.from(pristine);
  headerDamaged[20]! ^= 0x40;
  fs.writeFileSync(file, headerDamaged);
  let loaded = new ModelStore(cacheDir).load(packFilesFor(pack));
  assert.equal(loaded.source, 'built');
  assert.match(loaded.rebuiltBecause ?? '', /header checksum mismatch/);
  assert.deepEqual(columnsOf(loaded.model), reference);

  // A byte of a column: the header's seal holds, so the file opens; the column's own seal fails when
  // the column is first read, and the model is built from the pack then.
  const damaged = Buffer.from(pristine);
  damaged[damaged.length >> 1]! ^= 0x40;
  fs.writeFileSync(file, damaged);
  loaded = new ModelStore(cacheDir).load(packFilesFor(pack));
  assert.equal(loaded.source, 'persisted');
  assert.deepEqual(columnsOf(loaded.model), reference);
  assert.equal(loaded.source, 'built');
  assert.match(loaded.rebuiltBecause ?? '', /^model column \w+: section checksum mismatch/);
  // Written back: the same columns, under a header whose seals (a fresh GCM nonce each) are new.
  const SEAL_BYTES = 12 + 16;
  const bodyStart = (16 + pristine.readUInt32LE(12) + 7) & ~7;
  const rewritten = fs.readFileSync(file);
  assert.equal(rewritten.length, pristine.length);
  assert.deepEqual(
    rewritten.subarray(bodyStart, -SEAL_BYTES),
    pristine.subarray(bodyStart, -SEAL_BYTES),
    'the rebuilt model was written back',
  );
  assert.notDeepEqual(rewritten.subarray(0, bodyStart), pristine.subarray(0, bodyStart), 'a nonce was used twice');

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

test('a column is read, and its seal checked, only when first used: a tampered column is found then', (t) => {
  const { sandbox, pack } = makePack(t);
  const cacheDir = path.join(sandbox.root, 'cache');
  const reference = columnsOf(new ModelStore(cacheDir).load(packFilesFor(pack)).model);
  const file = path.join(
    cacheDir,
    fs.readdirSync(cacheDir).find((f) => f.endsWith('.psmodel'))!,
  );
  const bytes = fs.readFileSync(file);
  // The base column: 4 bytes per object, its own seal in the header. Changed as someone without the
  // key would: the header (and every other column) left as it was.
  const base = Buffer.from(Int32Array.from((reference as { base: number[] }).base).buffer);
  const at = bytes.indexOf(base);
  assert.ok(at > 0 && bytes.indexOf(base, at + 1) < 0, 'the base column is found once in the file');
  const delta = (reference as { base: number[] }).base.findIndex((b) => b >= 0);
  bytes.writeInt32LE(-1, at + 4 * delta);
  fs.writeFileSync(file, bytes);

  const loaded = new ModelStore(cacheDir).load(packFilesFor(pack));
  const { type, depth, resultSize } = loaded.model.columns;
  assert.ok(type.length > 0 && depth.length > 0 && resultSize.low.length > 0);
  assert.equal(loaded.source, 'persisted', 'columns other than base are read and used as stored');
  assert.equal(loaded.model.columns.base[delta], (reference as { base: number[] }).base[delta]);
  assert.equal(loaded.source, 'built', 'the tampered base column was found when first read');
  assert.match(loaded.rebuiltBecause ?? '', /^model column base: section checksum mismatch/);
  assert.deepEqual(columnsOf(loaded.model), reference);
  assert.equal(new ModelStore(cacheDir).load(packFilesFor(pack)).source, 'persisted', 'the file was replaced');

  // What the server's model worker does with a stored model: every column read at once.
  fs.writeFileSync(file, bytes);
  const whole = new ModelStore(cacheDir).load(packFilesFor(pack));
  assert.equal(whole.source, 'persisted');
  readEveryColumn(whole.model);
  assert.equal(whole.source, 'built', 'readEveryColumn checks every seal');
  assert.deepEqual(columnsOf(whole.model), reference);
});

test("a reopen reads the idx's tables only when first used, from the very file it opened", (t) => {
  // An idx over READ_WHOLE_MAX_BYTES (64 KiB): its tables are read from the file when first used.
  const { sandbox, pack } = makePack(t, 900);
  const cacheDir = path.join(sandbox.root, 'cache');
  const files = packFilesFor(pack);
  assert.ok(fs.statSync(files.idx).size > READ_WHOLE_MAX_BYTES, 'an idx read in parts');
  const fresh = new ModelStore(cacheDir).load(files).model;
  const reopened = new ModelStore(cacheDir).load(files);
  assert.equal(reopened.source, 'persisted');
  // A name alone, read from the file: what stats lists.
  assert.equal(reopened.model.oidHex(7), fresh.oidHex(7));
  // The idx replaced by a copy (another inode) before its tables are read: refused, not read.
  const copy = `${files.idx}.copy`;
  fs.copyFileSync(files.idx, copy);
  fs.renameSync(copy, files.idx);
  assert.throws(() => reopened.model.findHex(fresh.oidHex(3)), /idx changed since it was opened/);
  const again = new ModelStore(cacheDir).load(files);
  assert.equal(again.source, 'built', 'the replaced idx has another modification time');
  const third = new ModelStore(cacheDir).load(files).model;
  assert.equal(third.findHex(fresh.oidHex(3)), 3);
  assert.deepEqual(columnsOf(third), columnsOf(fresh));
});

test('a small idx (read whole at open) and a small model file: read once, later reads come from those bytes', (t) => {
  const { sandbox, pack } = makePack(t);
  const cacheDir = path.join(sandbox.root, 'cache');
  const files = packFilesFor(pack);
  assert.ok(fs.statSync(files.idx).size <= READ_WHOLE_MAX_BYTES);
  const fresh = new ModelStore(cacheDir).load(files).model;
  const reopened = new ModelStore(cacheDir).load(files);
  assert.equal(reopened.source, 'persisted');
  // Both files replaced by other bytes after the open: the tables and columns are still the ones
  // the open read and the seals vouched for, never a mix of two files.
  const modelFile = fs.readdirSync(cacheDir).find((name) => name.endsWith('.psmodel'))!;
  fs.rmSync(path.join(cacheDir, modelFile));
  fs.rmSync(files.idx);
  assert.equal(reopened.model.findHex(fresh.oidHex(3)), 3);
  assert.deepEqual(columnsOf(reopened.model), columnsOf(fresh));
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
