/**
 * The scale edges of the header-only scan and the persisted model, on a sparse pack past 4 GiB
 * (no 4 GiB written): objects declaring sizes of 5 GiB and 2^46 − 1 bytes (the longest size varint
 * the scan decodes inline: 6 continuation bytes), an OFS_DELTA across the hole, and their sizes
 * through the header-only scan (its inline decoding and its pack-order columns scattered to object
 * order, overflow map included) and through a persisted model's reopen. Expected values are the
 * headers written here, and git show-index agrees on the offsets.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { buildPackModel } from '../../src/core/model/build-pack-model.ts';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { tempDir } from '../support/git.ts';
import {
  deltaPayload,
  encodeEntryHeader,
  encodeOfsDistance,
  insertInstruction,
  OBJ_BLOB,
  OBJ_OFS_DELTA,
  sparseIdxV2,
  u32,
  zlib,
} from '../support/pack-surgery.ts';

const GIB = 2 ** 30;

test('header-only scan and persisted reopen of objects declaring over 4 GiB, up to 2^46 - 1 bytes, past 4 GiB of offsets', (t) => {
  const dir = tempDir(t, 'packscope-scale-edges-');
  const packFile = path.join(dir, 'pack-big.pack');
  const idxFile = path.join(dir, 'pack-big.idx');
  const huge = 2 ** 46 - 1;
  const first = Buffer.concat([encodeEntryHeader(OBJ_BLOB, huge), zlib(Buffer.from('not 64 TiB'))]);
  assert.equal(encodeEntryHeader(OBJ_BLOB, huge).length, 7, 'a size varint of 6 continuation bytes');
  const secondAt = 2 ** 32 + 4096;
  const second = Buffer.concat([encodeEntryHeader(OBJ_BLOB, 5 * GIB), zlib(Buffer.from('not five gigabytes'))]);
  const thirdAt = secondAt + second.length;
  const third = Buffer.concat([
    encodeEntryHeader(OBJ_OFS_DELTA, 40),
    encodeOfsDistance(thirdAt - secondAt),
    zlib(deltaPayload(5 * GIB, 6 * GIB, insertInstruction(Buffer.from('x')))),
  ]);
  const checksum = Buffer.alloc(20, 0xcd);
  const fd = fs.openSync(packFile, 'w');
  try {
    fs.writeSync(fd, Buffer.concat([Buffer.from('PACK'), u32(2), u32(3), first]), 0, undefined, 0);
    fs.writeSync(fd, second, 0, second.length, secondAt);
    fs.writeSync(fd, Buffer.concat([third, checksum]), 0, undefined, thirdAt);
  } finally {
    fs.closeSync(fd);
  }
  assert.ok(fs.statSync(packFile).blocks * 512 < 64 * 1024 * 1024, 'the pack is sparse');
  const ids = ['33', '11', '22'].map((b) => Buffer.alloc(20, Number.parseInt(b, 16)));
  fs.writeFileSync(
    idxFile,
    sparseIdxV2(
      [
        { oid: ids[0]!, offset: 12 },
        { oid: ids[1]!, offset: secondAt },
        { oid: ids[2]!, offset: thirdAt },
      ],
      checksum,
    ),
  );
  const shown = execFileSync('git', ['show-index'], { input: fs.readFileSync(idxFile) })
    .toString()
    .trim()
    .split('\n')
    .map((l) => Number(l.split(' ')[0]));
  assert.deepEqual(shown, [secondAt, thirdAt, 12]);

  const files = { pack: packFile, idx: idxFile };
  const [b, d, a] = [0, 1, 2];
  const expectColumns = (model: ReturnType<typeof buildPackModel>, resultSizes: boolean, label: string): void => {
    const c = model.columns;
    assert.deepEqual([...c.byOffset], [a, b, d], label);
    assert.equal(c.size.get(a), huge, `${label}: 2^46 - 1 declared`);
    assert.equal(c.diskSize.get(a), secondAt - 12, `${label}: an entry of over 4 GiB`);
    assert.equal(c.size.get(b), 5 * GIB, label);
    assert.equal(c.diskSize.get(b), second.length, label);
    assert.equal(c.base[d], b, label);
    assert.equal(c.depth[d], 1, label);
    assert.equal(c.size.get(d), 40, label);
    assert.equal(c.resultSize.get(a), huge, label);
    assert.equal(c.resultSize.get(b), 5 * GIB, label);
    assert.equal(
      c.resultSize.get(d),
      resultSizes ? 6 * GIB : 0,
      `${label}: a header-only scan reads no delta result size`,
    );
    // Values of 4 GiB and more live in the overflow maps, keyed by object number (not pack position).
    assert.deepEqual([...c.size.overflow.keys()].sort(), [a, b].sort(), label);
    assert.deepEqual([...c.diskSize.overflow.keys()], [a], label);
  };
  expectColumns(buildPackModel(files, { resultSizes: false }), false, 'header-only');
  expectColumns(buildPackModel(files, { resultSizes: false, ignoreRev: true }), false, 'header-only, sorted in memory');
  expectColumns(buildPackModel(files), true, 'full');

  const store = new ModelStore(path.join(dir, 'models'));
  assert.equal(store.load(files).source, 'built');
  const reopened = new ModelStore(path.join(dir, 'models')).load(files);
  assert.equal(reopened.source, 'persisted', reopened.rebuiltBecause);
  expectColumns(reopened.model, true, 'persisted');
});
