/**
 * A scale edge: a pack of more than 2^24 objects (a 10-million-object kernel pack is under
 * it; a monorepo's is not). Written here without git in a few seconds: 2^24 + 6 entries of 9 to 21
 * bytes, an empty blob and an OFS_DELTA on it (a one-byte result) in turn, and an idx v2 whose names
 * are made up, sorted and spread over the fan-out (nothing here hashes contents; git's lookups do
 * not either). The model's count, offsets, sizes, types, bases and depths are checked against what
 * was written, the header-only and full builds and the parallel scan agree, lookups find the last
 * names, and git cat-file --batch-check reads the same ids with the same types and sizes.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { buildPackModel } from '../../src/core/model/build-pack-model.ts';
import { OBJ_BLOB, OBJ_OFS_DELTA } from '../../src/core/format/pack-file.ts';
import { projectRoot, tempDir } from '../support/git.ts';
import {
  deltaPayload,
  encodeEntryHeader,
  encodeOfsDistance,
  insertInstruction,
  zlib,
} from '../support/pack-surgery.ts';

const COUNT = 2 ** 24 + 6;

/** Object n's made-up name: n × 255 big-endian in its first four bytes (increasing, every first byte used), then 0x5a. */
function nameOf(n: number, into: Buffer, at: number): void {
  into.writeUInt32BE(n * 255, at);
  into.fill(0x5a, at + 4, at + 20);
}

test(`a pack of 2^24 + 6 objects: the model, its lookups and git agree`, { timeout: 600_000 }, (t) => {
  const dir = tempDir(t, 'packscope-many-objects-');
  const repo = path.join(dir, 'repo.git');
  execFileSync('git', ['init', '--quiet', '--bare', repo]);
  const packDir = path.join(repo, 'objects', 'pack');
  const stem = path.join(packDir, 'pack-' + 'ab'.repeat(20));

  const blob = Buffer.concat([encodeEntryHeader(OBJ_BLOB, 0), zlib(Buffer.alloc(0))]);
  const payload = deltaPayload(0, 1, insertInstruction(Buffer.from('x')));
  const deltaEntry = Buffer.concat([
    encodeEntryHeader(OBJ_OFS_DELTA, payload.length),
    encodeOfsDistance(blob.length),
    zlib(payload),
  ]);
  const pair = Buffer.concat([blob, deltaEntry]);
  const pairs = COUNT / 2;
  const checksum = Buffer.alloc(20, 0xab);
  const pack = Buffer.allocUnsafe(12 + pairs * pair.length + 20);
  pack.write('PACK', 0, 'latin1');
  pack.writeUInt32BE(2, 4);
  pack.writeUInt32BE(COUNT, 8);
  for (let i = 0; i < pairs; i++) pair.copy(pack, 12 + i * pair.length);
  checksum.copy(pack, 12 + pairs * pair.length);
  fs.writeFileSync(`${stem}.pack`, pack);
  const offsetOf = (n: number): number => 12 + (n >> 1) * pair.length + (n & 1) * blob.length;

  // idx v2 (§6.2): header, fan-out, names, CRC32s (not checked by a model build), offsets, checksums.
  const namesAt = 8 + 1024;
  const crcAt = namesAt + COUNT * 20;
  const offsetsAt = crcAt + COUNT * 4;
  const idx = Buffer.alloc(offsetsAt + COUNT * 4 + 40);
  idx.writeUInt32BE(0xff744f63, 0);
  idx.writeUInt32BE(2, 4);
  const fanout = new Uint32Array(256);
  for (let n = 0; n < COUNT; n++) {
    nameOf(n, idx, namesAt + n * 20);
    fanout[idx[namesAt + n * 20]!]!++;
    idx.writeUInt32BE(offsetOf(n), offsetsAt + n * 4);
  }
  let total = 0;
  for (let b = 0; b < 256; b++) idx.writeUInt32BE((total += fanout[b]!), 8 + b * 4);
  checksum.copy(idx, offsetsAt + COUNT * 4);
  fs.writeFileSync(`${stem}.idx`, idx);
  const files = { pack: `${stem}.pack`, idx: `${stem}.idx` };

  const model = buildPackModel(files);
  const c = model.columns;
  assert.equal(model.count, COUNT);
  for (const n of [0, 1, 2, 2 ** 24 - 1, 2 ** 24, 2 ** 24 + 1, COUNT - 2, COUNT - 1]) {
    const name = Buffer.alloc(20);
    nameOf(n, name, 0);
    assert.equal(model.index.find(name), n, `lookup of object ${n}`);
    assert.equal(c.offset[n], offsetOf(n));
    assert.equal(c.byOffset[n], n, 'names and offsets both increase: pack order is idx order');
    assert.equal(c.type[n], OBJ_BLOB);
    assert.equal(c.inPackType[n], n & 1 ? OBJ_OFS_DELTA : OBJ_BLOB);
    assert.equal(c.resultSize.get(n), n & 1 ? 1 : 0);
    assert.equal(c.base[n], n & 1 ? n - 1 : -1);
    assert.equal(c.depth[n], n & 1);
    assert.equal(c.diskSize.get(n), n & 1 ? deltaEntry.length : blob.length);
  }
  let deltas = 0;
  for (let n = 0; n < COUNT; n++) if (c.depth[n] === 1) deltas++;
  assert.equal(deltas, COUNT / 2);

  // The header-only scan and the parallel scan see the same entries (one model more at a time).
  assert.deepEqual(buildPackModel(files, { resultSizes: false }).columns.base, c.base);
  const split = buildPackModel(files, {
    parallel: { workerScript: path.join(projectRoot, 'dist', 'scan-worker.js'), workers: 1 },
  }).columns;
  assert.deepEqual(split.resultSize.low, c.resultSize.low);
  assert.deepEqual(split.depth, c.depth);
  assert.deepEqual(split.base, c.base);

  // git reads the same ids from this idx and pack, with the same types and sizes.
  const asked = [0, 1, 2 ** 24, 2 ** 24 + 1, COUNT - 1];
  const ids = asked.map((n) => {
    const name = Buffer.alloc(20);
    nameOf(n, name, 0);
    return name.toString('hex');
  });
  const git = execFileSync(
    'git',
    ['--git-dir', repo, 'cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize) %(objectsize:disk)'],
    { input: `${ids.join('\n')}\n` },
  )
    .toString()
    .trim()
    .split('\n');
  assert.deepEqual(
    git,
    asked.map((n, i) => `${ids[i]} ${model.typeName(n)} ${c.resultSize.get(n)} ${c.diskSize.get(n)}`),
  );
});
