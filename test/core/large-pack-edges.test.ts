/**
 * The model at the edges of the formats, without writing 4 GiB: a sparse pack in the temporary
 * directory whose second and third objects start past 2^32 (so its idx needs the large-offset
 * table, §6.2), whose second object declares a size of 5 GiB in its entry header and whose third,
 * an OFS_DELTA on it, declares a 6 GiB result in its delta header. The bytes between the first
 * object and the second are a hole (zeros on read, no blocks on disk). Checked: the offsets, the
 * sizes past 2^32 (SizeColumn's overflow), the first object's 4 GiB-plus entry, the delta chain
 * across the hole, and the idx's large offsets as `git show-index` reads them.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { buildPackModel } from '../../src/core/model/build-pack-model.ts';
import { readIdxFile } from '../../src/core/format/idx.ts';
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

test('a sparse pack past 4 GiB: large offsets, sizes over 4 GiB, a delta across the hole', (t) => {
  const dir = tempDir(t, 'packscope-large-pack-');
  const packFile = path.join(dir, 'pack-big.pack');
  const idxFile = path.join(dir, 'pack-big.idx');
  const first = Buffer.concat([encodeEntryHeader(OBJ_BLOB, 6), zlib(Buffer.from('hello\n'))]);
  const secondAt = 2 ** 32 + 1000;
  // A 5 GiB blob's header; its data is a short zlib stream: the model reads headers, not contents.
  const second = Buffer.concat([encodeEntryHeader(OBJ_BLOB, 5 * GIB), zlib(Buffer.from('not five gigabytes'))]);
  const thirdAt = secondAt + second.length;
  const third = Buffer.concat([
    encodeEntryHeader(OBJ_OFS_DELTA, 40),
    encodeOfsDistance(thirdAt - secondAt),
    zlib(deltaPayload(5 * GIB, 6 * GIB, insertInstruction(Buffer.from('x')))),
  ]);
  const checksum = Buffer.alloc(20, 0xab);
  const fd = fs.openSync(packFile, 'w');
  try {
    fs.writeSync(fd, Buffer.concat([Buffer.from('PACK'), u32(2), u32(3), first]), 0, undefined, 0);
    fs.writeSync(fd, second, 0, second.length, secondAt);
    fs.writeSync(fd, Buffer.concat([third, checksum]), 0, undefined, thirdAt);
  } finally {
    fs.closeSync(fd);
  }
  const stat = fs.statSync(packFile);
  assert.equal(stat.size, thirdAt + third.length + 20);
  assert.ok(stat.blocks * 512 < 64 * 1024 * 1024, `the pack is sparse (${stat.blocks * 512} bytes allocated)`);
  // Ids out of offset order: the first object sorts last, so the model's pack order (a sort of offsets past 2^32) matters.
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

  // git's own reader of the idx agrees on the offsets past 2^32.
  const shown = execFileSync('git', ['show-index'], { input: fs.readFileSync(idxFile) })
    .toString()
    .trim()
    .split('\n')
    .map((l) => l.split(' ').slice(0, 2).join(' '));
  assert.deepEqual(shown, [
    `${secondAt} ${ids[1]!.toString('hex')}`,
    `${thirdAt} ${ids[2]!.toString('hex')}`,
    `12 ${ids[0]!.toString('hex')}`,
  ]);
  const index = readIdxFile(idxFile);
  assert.equal(index.largeOffsetCount, 2);
  assert.deepEqual([...index.offsets], [secondAt, thirdAt, 12]);

  const model = buildPackModel({ pack: packFile, idx: idxFile });
  const c = model.columns;
  // Object numbers are idx (id) order: 0x11…, 0x22…, 0x33….
  const [b, d, a] = [0, 1, 2];
  assert.deepEqual([...c.byOffset], [a, b, d]);
  assert.deepEqual([c.offset[a], c.offset[b], c.offset[d]], [12, secondAt, thirdAt]);
  assert.equal(c.diskSize.get(a), secondAt - 12, 'the first entry runs to the second: over 4 GiB');
  assert.equal(c.size.get(b), 5 * GIB);
  assert.equal(c.resultSize.get(b), 5 * GIB);
  assert.equal(c.diskSize.get(b), second.length);
  assert.equal(c.inPackType[d], OBJ_OFS_DELTA);
  assert.equal(c.base[d], b);
  assert.equal(c.depth[d], 1);
  assert.equal(c.size.get(d), 40);
  assert.equal(c.resultSize.get(d), 6 * GIB, "the delta header's result size, past 2^32");
  assert.equal(model.typeName(d), 'blob');
  assert.equal(model.objectAt(thirdAt), d);
  assert.deepEqual(model.byteTotals(), { inflated: 6 + 5 * GIB + 6 * GIB, onDisk: thirdAt + third.length - 12 });
});
