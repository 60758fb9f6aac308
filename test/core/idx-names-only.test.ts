/**
 * A model keeps its idx as names only (PackIndex.namesOnly, for the heap budget of bench/README.md): the CRC32 and
 * 32-bit offset tables are dropped. Checked on real packs written by git (idx v2 with .rev, v1,
 * SHA-256): every name, offset and lookup still agrees with `git show-index`, error positions still
 * name the idx file's bytes, the CRC32s are refused by name rather than read from the wrong bytes,
 * and the checksum pass given a names-only index re-reads the file and still finds a damaged CRC.
 * A reopen reads the names straight from the file (readIdxFileWithStat, namesOnly): the same index.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { SHA256 } from '../../src/core/format/hash-algorithm.ts';
import { readIdxFile, readIdxFileWithStat } from '../../src/core/format/idx.ts';
import { buildPackModel, packFilesFor, packOrder } from '../../src/core/model/build-pack-model.ts';
import { verifyChecksums } from '../../src/core/verify/checksums.ts';
import { PackFormatError } from '../../src/core/errors.ts';
import { buildFixturePacks, buildSha256Pack } from '../support/fixture-packs.ts';
import { tempDir } from '../support/git.ts';

/** `git show-index` of an idx: offset, id and (v2) CRC32 per object, in idx order. */
function showIndex(idxFile: string, objectFormat: 'sha1' | 'sha256'): { offset: number; oid: string; crc?: number }[] {
  const text = execFileSync('git', ['show-index', `--object-format=${objectFormat}`], {
    input: fs.readFileSync(idxFile),
  }).toString();
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [offset, oid, crc] = line.split(' ');
      return {
        offset: Number(offset),
        oid: oid!,
        ...(crc ? { crc: Number.parseInt(crc.replace(/[()]/g, ''), 16) } : {}),
      };
    });
}

test('a model keeps names only, and they agree with git show-index (v2, v1, SHA-256)', (t) => {
  const root = tempDir(t, 'packscope-names-only-');
  const fixtures = buildFixturePacks(root, { commits: 40 });
  const sha256 = buildSha256Pack(root, { commits: 12 });
  for (const [stem, format] of [
    [fixtures.ofs, 'sha1'],
    [fixtures.v1, 'sha1'],
    [sha256, 'sha256'],
  ] as const) {
    const files = packFilesFor(`${stem}.pack`);
    const whole = readIdxFile(files.idx, format === 'sha256' ? { hash: SHA256 } : {});
    const model = buildPackModel(files, { hash: whole.hash });
    const index = model.index;
    const git = showIndex(files.idx, format);
    assert.equal(index.count, git.length);
    assert.equal(whole.whole, true);
    assert.equal(index.whole, false, `${stem}: the model's index is names only`);
    assert.equal(
      index.bytes.length,
      (index.count + 2) * index.hash.size,
      'names and the two trailing checksums, nothing else',
    );
    assert.ok(index.packChecksum.equals(whole.packChecksum) && index.idxChecksum.equals(whole.idxChecksum));
    for (let n = 0; n < index.count; n++) {
      assert.equal(index.oidHex(n), git[n]!.oid);
      assert.equal(index.offsets[n], git[n]!.offset);
      assert.equal(index.find(Buffer.from(git[n]!.oid, 'hex')), n);
      // Positions in errors still name the file's own bytes.
      assert.equal(index.offsetPosition(n), whole.offsetPosition(n));
      assert.equal(index.nameFilePosition(n), whole.namePosition(n));
      if (whole.hasCrc()) {
        assert.equal(whole.crc32(n), git[n]!.crc);
        assert.equal(index.crcPosition(n), whole.crcPosition(n));
      }
    }
    assert.deepEqual(index.prefixRange(git[0]!.oid.slice(0, 5)), whole.prefixRange(git[0]!.oid.slice(0, 5)));
    assert.equal(index.hasCrc(), whole.hasCrc());
    if (whole.hasCrc()) assert.throws(() => index.crc32(0), /kept only its names/);
    assert.equal(index.namesOnly(), index, 'compacting twice keeps the same index');
  }
});

test('the checksum pass given a names-only index reads the whole idx again', (t) => {
  const root = tempDir(t, 'packscope-names-only-crc-');
  const { ofs } = buildFixturePacks(root, { commits: 20 });
  const files = packFilesFor(`${ofs}.pack`);
  const model = buildPackModel(files);
  const report = verifyChecksums(files, model.index, model.columns.byOffset);
  assert.equal(report.crcChecked, model.count);
  assert.equal(report.idxChecksum, model.index.idxChecksum.toString('hex'));

  // A damaged CRC32 in the file is still found from a names-only index (the pass re-reads the idx;
  // its own checksum is then recomputed by the test so that only the CRC is wrong).
  const whole = readIdxFile(files.idx);
  const damaged = Buffer.from(whole.bytes);
  const at = whole.crcPosition(3);
  damaged[at] ^= 0xff;
  const hash = whole.hash;
  hash
    .create()
    .update(damaged.subarray(0, damaged.length - hash.size))
    .digest()
    .copy(damaged, damaged.length - hash.size);
  fs.writeFileSync(files.idx, damaged);
  const reread = buildPackModel(files);
  assert.throws(
    () => verifyChecksums(files, reread.index, packOrder(files, reread.index, false)),
    (error: unknown) =>
      error instanceof PackFormatError && error.code === 'crc' && error.file === files.idx && error.offset === at,
  );
});

test('an idx read names-only from the file is the index a model keeps, and its bounds are still checked', (t) => {
  const root = tempDir(t, 'packscope-names-only-read-');
  const fixtures = buildFixturePacks(root, { commits: 30 });
  const sha256 = buildSha256Pack(root, { commits: 10 });
  for (const [stem, hash] of [
    [fixtures.ofs, undefined],
    [fixtures.v1, undefined],
    [sha256, SHA256],
  ] as const) {
    const files = packFilesFor(`${stem}.pack`);
    const kept = readIdxFile(files.idx, hash ? { hash } : {}).namesOnly();
    const read = readIdxFileWithStat(files.idx, { ...(hash ? { hash } : {}), namesOnly: true });
    const stat = fs.statSync(files.idx);
    assert.equal(read.size, stat.size);
    assert.equal(read.mtimeMs, stat.mtimeMs);
    // A v1 idx interleaves names and offsets: it is read whole, and the model compacts it as before.
    assert.equal(read.index.whole, stem === fixtures.v1, `${stem}: read names only unless v1`);
    const index = read.index.namesOnly();
    assert.ok(index.bytes.equals(kept.bytes), `${stem}: names and checksums as namesOnly() keeps them`);
    assert.deepEqual(Array.from(index.offsets), Array.from(kept.offsets));
    assert.deepEqual(index.fileLayout, kept.fileLayout);
    assert.deepEqual(Array.from(index.fanout), Array.from(kept.fanout));
    for (let n = 0; n < index.count; n++) assert.equal(index.find(index.oidBytes(n)), n);
  }

  // Bounds and order are checked read this way too: a cut idx, and two names swapped.
  const files = packFilesFor(`${fixtures.ofs}.pack`);
  const whole = readIdxFile(files.idx);
  fs.writeFileSync(files.idx, whole.bytes.subarray(0, whole.bytes.length - 7));
  assert.throws(() => readIdxFileWithStat(files.idx, { namesOnly: true }), /cannot be \d+ bytes long/);
  const swapped = Buffer.from(whole.bytes);
  const size = whole.hash.size;
  const last = whole.namePosition(whole.count - 1);
  const before = whole.namePosition(whole.count - 2);
  const a = Buffer.from(swapped.subarray(before, before + size));
  swapped.copy(swapped, before, last, last + size);
  a.copy(swapped, last);
  fs.writeFileSync(files.idx, swapped);
  assert.throws(
    () => readIdxFileWithStat(files.idx, { namesOnly: true }),
    /not sorted and distinct|fan-out table puts it/,
  );
  // Deferred, the order is the caller's to check (a model built from this very idx vouches for it).
  const deferred = readIdxFileWithStat(files.idx, { namesOnly: true, deferNameOrder: true }).index;
  assert.throws(() => deferred.checkNameOrder(), /not sorted and distinct|fan-out table puts it/);
});
