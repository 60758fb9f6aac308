/**
 * A model build whose scan is split across threads (parallel-scan.ts, dist/scan-worker.js) gives the
 * same model as the one-thread build, column by column, on real packs written by git (OFS deltas
 * with a .rev, REF deltas, idx v1, SHA-256), and the objects git's cat-file lists; sizes past 2^32
 * found by a worker reach the model; a damaged pack fails with the one-thread build's error (the
 * first bad entry in pack order) whichever thread met it; a worker that cannot start only leaves its
 * share to the others; a cancellation from onProgress ends the build. Small chunks (`chunkEntries`)
 * give these small packs many chunks, so that both threads take some.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { PackFormatError } from '../../src/core/errors.ts';
import { SHA256 } from '../../src/core/format/hash-algorithm.ts';
import {
  buildPackModel,
  packFilesFor,
  type BuildOptions,
  type ParallelBuild,
} from '../../src/core/model/build-pack-model.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { buildFixturePacks, buildSha256Pack } from '../support/fixture-packs.ts';
import { projectRoot, tempDir } from '../support/git.ts';
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

const workerScript = path.join(projectRoot, 'dist', 'scan-worker.js');
/** Small chunks, so that a small pack has many; `workersOnly`: this thread only waits, the workers scan. */
const parallel = (chunkEntries: number, workersOnly = false): ParallelBuild => ({
  workerScript,
  workers: 2,
  minObjects: 0,
  chunkEntries,
  ...(workersOnly ? { thisThreadScans: false } : {}),
});

function assertSameModel(actual: PackModel, expected: PackModel, label: string): void {
  const a = actual.columns;
  const e = expected.columns;
  assert.equal(actual.count, expected.count, label);
  for (const name of ['offset', 'inPackType', 'type', 'base', 'depth', 'byOffset'] as const) {
    assert.deepEqual([...a[name]], [...e[name]], `${label}: column ${name}`);
  }
  for (const name of ['size', 'resultSize', 'diskSize'] as const) {
    assert.deepEqual([...a[name].low], [...e[name].low], `${label}: column ${name}`);
    assert.deepEqual([...a[name].overflow].sort(), [...e[name].overflow].sort(), `${label}: ${name} past 2^32`);
  }
  for (let n = 0; n < actual.count; n++) assert.equal(actual.oidHex(n), expected.oidHex(n));
}

test('the parallel scan builds the same model as one thread (OFS + .rev, REF, idx v1, SHA-256)', (t) => {
  assert.ok(fs.existsSync(workerScript), `${workerScript} is built (node scripts/build.mjs)`);
  const root = tempDir(t, 'packscope-parallel-scan-');
  const fixtures = buildFixturePacks(root, { commits: 60 });
  const sha256 = buildSha256Pack(root, { commits: 20 });
  for (const [stem, options] of [
    [fixtures.ofs, {}],
    [fixtures.ref, {}],
    [fixtures.v1, {}],
    [sha256, { hash: SHA256 }],
  ] as const) {
    const files = packFilesFor(`${stem}.pack`);
    for (const resultSizes of [true, false]) {
      const one: BuildOptions = { ...options, resultSizes };
      const serial = buildPackModel(files, one);
      for (const [chunkEntries, workersOnly] of [
        [1, false],
        [7, false],
        [100, false],
        [7, true],
      ] as const) {
        const split = buildPackModel(files, { ...one, parallel: parallel(chunkEntries, workersOnly) });
        assertSameModel(
          split,
          serial,
          `${path.basename(stem)}, resultSizes ${resultSizes}, chunks of ${chunkEntries}${workersOnly ? ', workers only' : ''}`,
        );
      }
    }
  }
});

test('the parallel model of a pack lists what git cat-file lists', (t) => {
  const root = tempDir(t, 'packscope-parallel-git-');
  const fixtures = buildFixturePacks(root, { commits: 80 });
  const [stem] = fs.readdirSync(path.join(fixtures.repo, 'objects', 'pack')).filter((f) => f.endsWith('.pack'));
  const files = packFilesFor(path.join(fixtures.repo, 'objects', 'pack', stem!));
  const model = buildPackModel(files, { parallel: parallel(16) });
  const git = fixtures.sandbox
    .git(fixtures.repo, [
      'cat-file',
      '--batch-all-objects',
      '--batch-check=%(objectname) %(objecttype) %(objectsize) %(objectsize:disk) %(deltabase)',
    ])
    .toString()
    .trim()
    .split('\n');
  const ours = Array.from({ length: model.count }, (_, n) => {
    const c = model.columns;
    const base = c.base[n]!;
    return `${model.oidHex(n)} ${model.typeName(n)} ${c.resultSize.get(n)} ${c.diskSize.get(n)} ${base < 0 ? '0'.repeat(40) : model.oidHex(base)}`;
  });
  assert.equal(ours.length, git.length);
  assert.deepEqual(ours, git);
});

test('sizes past 2^32 met by a worker reach the model', (t) => {
  const dir = tempDir(t, 'packscope-parallel-large-');
  const packFile = path.join(dir, 'pack-big.pack');
  const idxFile = path.join(dir, 'pack-big.idx');
  const GIB = 2 ** 30;
  // Four objects: small, a blob declaring 5 GiB, a delta on it declaring a 6 GiB result, small.
  const entries: Buffer[] = [
    Buffer.concat([encodeEntryHeader(OBJ_BLOB, 6), zlib(Buffer.from('hello\n'))]),
    Buffer.concat([encodeEntryHeader(OBJ_BLOB, 5 * GIB), zlib(Buffer.from('not five gigabytes'))]),
  ];
  const thirdAt = 12 + entries[0]!.length + entries[1]!.length;
  entries.push(
    Buffer.concat([
      encodeEntryHeader(OBJ_OFS_DELTA, 40),
      encodeOfsDistance(entries[1]!.length),
      zlib(deltaPayload(5 * GIB, 6 * GIB, insertInstruction(Buffer.from('x')))),
    ]),
  );
  entries.push(Buffer.concat([encodeEntryHeader(OBJ_BLOB, 3), zlib(Buffer.from('end'))]));
  const checksum = Buffer.alloc(20, 0xcd);
  fs.writeFileSync(packFile, Buffer.concat([Buffer.from('PACK'), u32(2), u32(entries.length), ...entries, checksum]));
  let at = 12;
  const idxEntries = entries.map((entry, i) => {
    const offset = at;
    at += entry.length;
    return { oid: Buffer.alloc(20, 0x10 * (i + 1)), offset };
  });
  fs.writeFileSync(idxFile, sparseIdxV2(idxEntries, checksum));
  const files = { pack: packFile, idx: idxFile };
  const serial = buildPackModel(files);
  assert.equal(serial.columns.resultSize.get(2), 6 * GIB);
  assert.equal(serial.columns.size.get(1), 5 * GIB);
  assert.equal(thirdAt, serial.columns.offset[2]);
  // One entry per chunk; with this thread waiting, the workers meet every size past 2^32.
  assertSameModel(buildPackModel(files, { parallel: parallel(1) }), serial, 'both threads');
  assertSameModel(buildPackModel(files, { parallel: parallel(1, true) }), serial, 'workers only');
});

test('a damaged pack fails with the first bad entry in pack order, whichever thread met it', (t) => {
  const root = tempDir(t, 'packscope-parallel-damage-');
  const { ofs } = buildFixturePacks(root, { commits: 60 });
  const files = packFilesFor(`${ofs}.pack`);
  const model = buildPackModel(files);
  const c = model.columns;
  // Two deltas far apart in pack order: their zlib streams get a bad first byte.
  const deltas = [...c.byOffset].filter((n) => c.inPackType[n] === OBJ_OFS_DELTA);
  assert.ok(deltas.length > 20, 'the fixture has deltas');
  const damaged = [deltas[Math.floor(deltas.length / 3)]!, deltas[deltas.length - 2]!];
  const bytes = fs.readFileSync(files.pack);
  for (const n of damaged) {
    // The entry header and the OFS distance, then the zlib stream's first byte (CMF).
    let at = c.offset[n]!;
    while (bytes[at]! & 0x80) at++;
    at++;
    while (bytes[at]! & 0x80) at++;
    at++;
    bytes[at] = 0x00;
  }
  fs.writeFileSync(files.pack, bytes);
  const expectedOffset = c.offset[damaged[0]!]!;
  const serialError = captureError(() => buildPackModel(files));
  assert.ok(
    serialError instanceof PackFormatError && serialError.code === 'bad-zlib' && serialError.offset === expectedOffset,
    `one thread: ${String(serialError)}`,
  );
  for (const [chunkEntries, workersOnly] of [
    [1, false],
    [5, false],
    [50, false],
    [5, true],
  ] as const) {
    const error = captureError(() => buildPackModel(files, { parallel: parallel(chunkEntries, workersOnly) }));
    assert.ok(
      error instanceof PackFormatError,
      `chunks of ${chunkEntries}${workersOnly ? ', workers only' : ''}: ${String(error)}`,
    );
    assert.equal(error.code, serialError.code);
    assert.equal(error.file, serialError.file);
    assert.equal(error.offset, expectedOffset);
    assert.equal(error.message, serialError.message);
  }
});

test('a worker that cannot start leaves its share to this thread; a cancellation ends the build', (t) => {
  const root = tempDir(t, 'packscope-parallel-fallback-');
  const { ofs } = buildFixturePacks(root, { commits: 40 });
  const files = packFilesFor(`${ofs}.pack`);
  const serial = buildPackModel(files);
  const noWorker = path.join(root, 'no-such-worker.js');
  const missing = buildPackModel(files, {
    parallel: { workerScript: noWorker, workers: 2, minObjects: 0, chunkEntries: 3 },
  });
  assertSameModel(missing, serial, 'workers that never started');
  // This thread waiting for workers that never start: after the stall time it scans every chunk.
  const stalled = buildPackModel(files, {
    parallel: { workerScript: noWorker, workers: 1, minObjects: 0, chunkEntries: 3, thisThreadScans: false },
  });
  assertSameModel(stalled, serial, 'every chunk left to a worker that never started');

  const cancelled = new Error('cancelled by the caller');
  let calls = 0;
  const error = captureError(() =>
    buildPackModel(files, {
      parallel: { workerScript, workers: 1, minObjects: 0, chunkEntries: 1 },
      onProgress: (done) => {
        calls++;
        if (done > 0) throw cancelled;
      },
    }),
  );
  assert.equal(error, cancelled);
  assert.ok(calls >= 1);
});

function captureError(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  assert.fail('expected an error');
}
