/**
 * "Every byte is untrusted": real packs written by git, damaged one way at a time, must each end in
 * a PackFormatError with the right code, file and offset — from the engine directly (model build,
 * checksum pass, --full family resolution) and from the CLI (one stderr line, exit 1, never an
 * internal error). test/support/pack-surgery.ts recomputes every checksum the damage does not aim
 * at, so that each case reaches the check it is about.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { InputOutputError, PackFormatError, PackScopeError, type PackErrorCode } from '../../src/core/errors.ts';
import { loadMultiPackIndex } from '../../src/core/format/midx.ts';
import { buildPackModel, packFilesFor, packOrder, loadIdx } from '../../src/core/model/build-pack-model.ts';
import type { PackFiles, PackModel } from '../../src/core/model/pack-model.ts';
import { verifyChecksums } from '../../src/core/verify/checksums.ts';
import { checksumsInWorker, verifyFull } from '../../src/core/verify/full-verify.ts';
import { FamilyResolver } from '../../src/core/verify/resolve-family.ts';
import { familyTask, resolveFamilies } from '../support/family-task.ts';
import { buildFixturePacks, buildMidxPackDir, type FixturePacks } from '../support/fixture-packs.ts';
import { cliPath, projectRoot, tempDir } from '../support/git.ts';
import {
  assemble,
  copyInstruction,
  deltaPayload,
  encodeEntryHeader,
  idxCrcPosition,
  idxObjectCount,
  idxOffsetPosition,
  insertInstruction,
  OBJ_BLOB,
  OBJ_COMMIT,
  OBJ_OFS_DELTA,
  OBJ_REF_DELTA,
  OBJ_TAG,
  OBJ_TREE,
  objectId,
  readIdxEntries,
  readPack,
  readPackSet,
  reseal,
  resealIdx,
  writePack,
  writePackSet,
  zlib,
  type PackEntry,
  type PackParts,
  type PackPaths,
  type PackSet,
} from '../support/pack-surgery.ts';

const verifyWorkerPath = path.join(projectRoot, 'dist', 'verify-worker.js');

let root: string;
let fixtures: FixturePacks;

before(() => {
  root = tempDir(undefined, 'packscope-bad-input-');
  fixtures = buildFixturePacks(root);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

type Stage = 'model' | 'checksums' | 'full';

interface Outcome {
  stage: Stage | 'ok';
  error?: unknown;
  model?: PackModel;
}

/** What `verify-pack --full` runs, in its order, stopping at the first error. */
function runStages(files: PackFiles): Outcome {
  let model: PackModel;
  try {
    model = buildPackModel(files);
  } catch (error) {
    return { stage: 'model', error };
  }
  try {
    verifyChecksums(files, model.index, model.columns.byOffset);
  } catch (error) {
    return { stage: 'checksums', error, model };
  }
  try {
    resolveFamilies(model);
  } catch (error) {
    return { stage: 'full', error, model };
  }
  return { stage: 'ok', model };
}

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

interface Expected {
  code: PackErrorCode;
  file: string;
  /** The byte offset the error must name; an array allows any of them; null: none applies. */
  offset: number | number[] | null;
}

function assertPackError(error: unknown, expected: Expected): asserts error is PackScopeError {
  assert.ok(error instanceof PackScopeError, `expected a PackScopeError, got: ${describeError(error)}`);
  assert.equal(error.code, expected.code, `code of: ${error.message}`);
  assert.equal(error.file, expected.file, `file of: ${error.message}`);
  if (expected.offset === null) assert.equal(error.offset, undefined, `offset of: ${error.message}`);
  else if (Array.isArray(expected.offset))
    assert.ok(
      error.offset !== undefined && expected.offset.includes(error.offset),
      `offset of: ${error.message} (expected one of ${expected.offset.join(', ')})`,
    );
  else assert.equal(error.offset, expected.offset, `offset of: ${error.message}`);
}

interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** runCli, but asynchronous so that a case's commands run side by side. */
function runCliAsync(args: string[], timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: projectRoot,
      env: { ...process.env, PACKSCOPE_NO_PROGRESS: '1' },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

function assertCliReports(run: CliRun, error: PackScopeError, what: string): void {
  assert.doesNotMatch(run.stderr, /internal error/, `${what}: ${run.stderr}`);
  assert.doesNotMatch(run.stderr, /\n\s+at /, `${what} printed a stack trace: ${run.stderr}`);
  assert.equal(run.stderr, `packscope: ${error.message}\n`, `${what}: stderr`);
  assert.equal(run.status, 1, `${what}: exit status`);
}

/**
 * The CLI must report exactly what the engine reported, on one line. Every case runs
 * `verify-pack -v --full`; damage that only --full finds must leave plain `verify-pack -v` ok; damage
 * the model build finds must stop `stats` and `objects` too (one of the two per case, in turn: they
 * share the model build, and every process costs the suite a quarter of a second).
 */
async function assertCli(paths: PackPaths, stage: Stage, error: PackScopeError, turn: number): Promise<void> {
  const reader = turn % 2 === 0 ? 'stats' : 'objects';
  const [full, second] = await Promise.all([
    runCliAsync(['verify-pack', '-v', '--full', paths.pack]),
    stage === 'full'
      ? runCliAsync(['verify-pack', '-v', paths.pack])
      : stage === 'model'
        ? runCliAsync([reader, '--no-cache', paths.pack])
        : undefined,
  ]);
  assertCliReports(full, error, 'verify-pack -v --full');
  if (stage !== 'model' && error.file === paths.idx) {
    // Like index-pack --verify-stat: a sound pack whose idx disagrees still gets its listing.
    const lines = full.stdout.split('\n');
    assert.match(lines[0]!, /^[0-9a-f]{40} /, 'verify-pack -v: the listing comes first');
    assert.ok(
      lines.some((line) => line.startsWith('non delta: ')),
      'verify-pack -v: the histogram is printed',
    );
    assert.ok(full.stdout.endsWith(`\n${paths.pack}: bad\n`), 'verify-pack -v: then "bad"');
  } else {
    assert.equal(full.stdout, `${paths.pack}: bad\n`, 'verify-pack -v --full: stdout');
  }
  if (stage === 'full') {
    assert.equal(second!.stderr, '', 'verify-pack -v (no --full) should not see this');
    assert.equal(second!.status, 0, 'verify-pack -v: exit status');
    assert.ok(second!.stdout.endsWith(`\n${paths.pack}: ok\n`), 'verify-pack -v: ok');
  } else if (stage === 'model') {
    assertCliReports(second!, error, reader);
    assert.equal(second!.stdout, '', `${reader}: stdout`);
  }
}

interface Damage {
  set: PackSet;
  expect: { code: PackErrorCode; file: 'pack' | 'idx' | 'rev'; offset: number | number[] | null };
}

let caseNumber = 0;

/** Writes the damaged files, then checks the engine stage by stage and the CLI. */
async function check(name: string, stage: Stage, damage: Damage): Promise<PackScopeError> {
  const dir = path.join(root, 'cases', `${String(++caseNumber).padStart(2, '0')}-${name}`);
  const paths = writePackSet(dir, 'pack-damaged', damage.set);
  const files = packFilesFor(paths.pack);
  assert.equal(files.rev, paths.rev);
  const outcome = runStages(files);
  assert.equal(
    outcome.stage,
    stage,
    `expected the ${stage} stage to fail; ${outcome.stage === 'ok' ? 'nothing failed' : `${outcome.stage} failed with ${describeError(outcome.error)}`}`,
  );
  const file = damage.expect.file === 'rev' ? paths.rev! : paths[damage.expect.file];
  assertPackError(outcome.error, { code: damage.expect.code, file, offset: damage.expect.offset });
  await assertCli(paths, stage, outcome.error, caseNumber);
  return outcome.error;
}

/** Fresh copies of a fixture's bytes. */
function ofs(): PackSet {
  return readPackSet(fixtures.ofs);
}
function ref(): PackSet {
  return readPackSet(fixtures.ref);
}
function v1(): PackSet {
  return readPackSet(fixtures.v1);
}

function withoutRev(set: PackSet): PackSet {
  return { pack: set.pack, idx: set.idx };
}

/** Entry offsets in pack order (the layout git wrote, which assemble reproduces byte for byte). */
function layout(parts: PackParts): number[] {
  return writePack(parts).offsets;
}

/** Object number (idx position) of the entry with this id. */
function objectNumber(idx: Buffer, oid: Buffer): number {
  const n = readIdxEntries(idx).findIndex((e) => e.oid.equals(oid));
  assert.ok(n >= 0);
  return n;
}

function firstOfType(parts: PackParts, type: number, from = 0): number {
  const i = parts.entries.findIndex((e, k) => k >= from && e.type === type);
  assert.ok(i >= 0, `the fixture has an entry of type ${type}`);
  return i;
}

const HELLO = Buffer.from('hello, world\n');

/** A pack of hand-built entries (indices in `entries`, as OFS bases name them, are pack order). */
function handmade(entries: PackEntry[]): PackParts {
  return { hash: 'sha1', version: 2, entries };
}

function blobEntry(content: Buffer): PackEntry {
  return { oid: objectId(OBJ_BLOB, content), type: OBJ_BLOB, size: content.length, data: zlib(content) };
}

function deltaEntry(
  oidSeed: string,
  payload: Buffer,
  base: { base?: number; baseOid?: Buffer; distance?: number },
): PackEntry {
  const entry: PackEntry = {
    oid: objectId(OBJ_BLOB, Buffer.from(oidSeed)),
    type: base.baseOid ? OBJ_REF_DELTA : OBJ_OFS_DELTA,
    size: payload.length,
    data: zlib(payload),
  };
  if (base.baseOid) entry.baseOid = base.baseOid;
  if (base.base !== undefined) entry.base = base.base;
  if (base.distance !== undefined) entry.distance = base.distance;
  return entry;
}

describe('bad input: idx', () => {
  test('truncated inside the tables', async () => {
    const set = ofs();
    await check('idx-truncated', 'model', {
      set: { ...set, idx: set.idx.subarray(0, 5000) },
      expect: { code: 'truncated', file: 'idx', offset: 5000 },
    });
  });

  test('truncated inside the fan-out table', async () => {
    const set = ofs();
    await check('idx-truncated-fanout', 'model', {
      set: { ...set, idx: set.idx.subarray(0, 500) },
      expect: { code: 'truncated', file: 'idx', offset: 500 },
    });
  });

  test('shorter than a header', async () => {
    const set = ofs();
    await check('idx-tiny', 'model', {
      set: { ...set, idx: set.idx.subarray(0, 5) },
      expect: { code: 'truncated', file: 'idx', offset: 5 },
    });
  });

  test('empty', async () => {
    const set = ofs();
    await check('idx-empty', 'model', {
      set: { ...set, idx: Buffer.alloc(0) },
      expect: { code: 'truncated', file: 'idx', offset: 0 },
    });
  });

  test('v1 truncated', async () => {
    const set = v1();
    await check('idx-v1-truncated', 'model', {
      set: { ...set, idx: set.idx.subarray(0, set.idx.length - 7) },
      expect: { code: 'truncated', file: 'idx', offset: set.idx.length - 7 },
    });
  });

  test('wrong magic', async () => {
    const set = ofs();
    const idx = Buffer.from(set.idx);
    idx.write('XIDX', 0, 'latin1');
    await check('idx-magic', 'model', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'bad-magic', file: 'idx', offset: 0 },
    });
  });

  test('a flipped bit in the magic', async () => {
    const set = ofs();
    const idx = Buffer.from(set.idx);
    idx[1] ^= 0x01;
    await check('idx-magic-bit', 'model', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'bad-magic', file: 'idx', offset: 0 },
    });
  });

  test('wrong version', async () => {
    const set = ofs();
    const idx = Buffer.from(set.idx);
    idx.writeUInt32BE(3, 4);
    await check('idx-version', 'model', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'bad-version', file: 'idx', offset: 4 },
    });
  });

  test('non-monotonic fan-out', async () => {
    const set = ofs();
    const idx = Buffer.from(set.idx);
    const k = 0x80;
    const previous = idx.readUInt32BE(8 + (k - 1) * 4);
    assert.ok(previous > 0);
    idx.writeUInt32BE(previous - 1, 8 + k * 4);
    await check('idx-fanout', 'model', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'bad-fanout', file: 'idx', offset: 8 + k * 4 },
    });
  });

  test('fan-out that disagrees with the names', async () => {
    const set = ofs();
    const idx = Buffer.from(set.idx);
    // Find a bucket k whose next bucket is not empty and move one name from k+1 into k.
    let k = 0;
    while (idx.readUInt32BE(8 + (k + 1) * 4) === idx.readUInt32BE(8 + k * 4)) k++;
    const moved = idx.readUInt32BE(8 + k * 4);
    idx.writeUInt32BE(moved + 1, 8 + k * 4);
    await check('idx-fanout-names', 'model', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'bad-fanout', file: 'idx', offset: 8 + 1024 + moved * 20 },
    });
  });

  test('names out of order', async () => {
    const set = ofs();
    const idx = Buffer.from(set.idx);
    // Two names in the same bucket, swapped.
    let n = 0;
    while (idx[8 + 1024 + n * 20] !== idx[8 + 1024 + (n + 1) * 20]) n++;
    const a = Buffer.from(idx.subarray(8 + 1024 + n * 20, 8 + 1024 + (n + 1) * 20));
    idx.copy(idx, 8 + 1024 + n * 20, 8 + 1024 + (n + 1) * 20, 8 + 1024 + (n + 2) * 20);
    a.copy(idx, 8 + 1024 + (n + 1) * 20);
    await check('idx-names-order', 'model', {
      set: withoutRev({ ...set, idx: resealIdx(idx) }),
      expect: { code: 'bad-header', file: 'idx', offset: 8 + 1024 + (n + 1) * 20 },
    });
  });

  test('an object count the file cannot hold', async () => {
    const set = ofs();
    const idx = Buffer.from(set.idx);
    idx.writeUInt32BE(0xffffffff, 8 + 255 * 4);
    await check('idx-count', 'model', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'truncated', file: 'idx', offset: idx.length },
    });
  });

  for (const [name, where] of [
    ['past the end of the pack', (pack: Buffer) => pack.length + 100],
    ['inside the pack trailer', (pack: Buffer) => pack.length - 10],
    ['inside the pack header', () => 5],
  ] as const) {
    test(`an offset ${name}`, async () => {
      const set = withoutRev(ofs());
      const idx = Buffer.from(set.idx);
      const n = 17;
      idx.writeUInt32BE(where(set.pack), idxOffsetPosition(idx, n));
      await check(`idx-offset-${name.replace(/ /g, '-')}`, 'model', {
        set: { ...set, idx: resealIdx(idx) },
        expect: { code: 'bad-offset', file: 'idx', offset: idxOffsetPosition(idx, n) },
      });
    });
  }

  test('an offset past the end of the pack (idx v1)', async () => {
    const set = v1();
    const idx = Buffer.from(set.idx);
    const n = 3;
    idx.writeUInt32BE(set.pack.length * 2, idxOffsetPosition(idx, n));
    await check('idx-v1-offset', 'model', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'bad-offset', file: 'idx', offset: idxOffsetPosition(idx, n) },
    });
  });

  test('the checksum pass alone (as its worker runs it) also rejects an offset past the end', () => {
    const set = withoutRev(ofs());
    const entries = readIdxEntries(set.idx);
    // The last object in the pack: nothing after it would notice its CRC was never checked.
    const last = entries.reduce((best, e, n) => (e.offset > entries[best]!.offset ? n : best), 0);
    const idx = Buffer.from(set.idx);
    idx.writeUInt32BE(set.pack.length + 100, idxOffsetPosition(idx, last));
    const paths = writePackSet(path.join(root, 'cases', 'checksums-offset-past-end'), 'pack-damaged', {
      ...set,
      idx: resealIdx(idx),
    });
    const files = packFilesFor(paths.pack);
    const index = loadIdx(files);
    assert.throws(
      () => verifyChecksums(files, index, packOrder(files, index, false)),
      (error) => (
        assertPackError(error, { code: 'bad-offset', file: paths.idx, offset: idxOffsetPosition(idx, last) }),
        true
      ),
    );
  });

  test('two objects at the same offset', async () => {
    const set = withoutRev(ofs());
    const idx = Buffer.from(set.idx);
    idx.writeUInt32BE(idx.readUInt32BE(idxOffsetPosition(idx, 40)), idxOffsetPosition(idx, 41));
    await check('idx-offset-duplicate', 'model', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'bad-offset', file: 'idx', offset: idxOffsetPosition(idx, 41) },
    });
  });

  test('a large offset that is not in the table', async () => {
    const set = ofs();
    const idx = Buffer.from(set.idx);
    idx.writeUInt32BE(0x80000002, idxOffsetPosition(idx, 9));
    await check('idx-large-offset', 'model', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'bad-offset', file: 'idx', offset: idxOffsetPosition(idx, 9) },
    });
  });

  test('missing', async () => {
    const dir = path.join(root, 'cases', 'idx-missing');
    const paths = writePackSet(dir, 'pack-alone', withoutRev(ofs()));
    fs.rmSync(paths.idx);
    const outcome = runStages(packFilesFor(paths.pack));
    assert.equal(outcome.stage, 'model');
    assertPackError(outcome.error, { code: 'io', file: paths.idx, offset: null });
    await assertCli(paths, 'model', outcome.error, 0);
  });
});

describe('bad input: pack', () => {
  test('truncated in the middle', async () => {
    const set = ofs();
    const half = Math.floor(set.pack.length / 2);
    // git says "packfile ... does not match index"; the trailer is all that can be compared.
    const error = await check('pack-truncated', 'model', {
      set: { ...set, pack: set.pack.subarray(0, half) },
      expect: { code: 'mismatch', file: 'pack', offset: half - 20 },
    });
    assert.match(error.detail, /truncated/);
  });

  test('truncated inside the header', async () => {
    const set = ofs();
    await check('pack-truncated-header', 'model', {
      set: { ...set, pack: set.pack.subarray(0, 10) },
      expect: { code: 'truncated', file: 'pack', offset: 10 },
    });
  });

  test('empty file', async () => {
    const set = ofs();
    await check('pack-empty-file', 'model', {
      set: { ...set, pack: Buffer.alloc(0) },
      expect: { code: 'truncated', file: 'pack', offset: 0 },
    });
  });

  test('wrong magic', async () => {
    const set = ofs();
    const pack = Buffer.from(set.pack);
    pack.write('PACX', 0, 'latin1');
    await check('pack-magic', 'model', {
      set: reseal({ ...set, pack }),
      expect: { code: 'bad-magic', file: 'pack', offset: 0 },
    });
  });

  test('wrong version', async () => {
    const set = ofs();
    const pack = Buffer.from(set.pack);
    pack.writeUInt32BE(4, 4);
    await check('pack-version', 'model', {
      set: reseal({ ...set, pack }),
      expect: { code: 'bad-version', file: 'pack', offset: 4 },
    });
  });

  test('an object count that differs from the idx', async () => {
    const set = ofs();
    const pack = Buffer.from(set.pack);
    pack.writeUInt32BE(pack.readUInt32BE(8) + 1, 8);
    await check('pack-count', 'model', {
      set: reseal({ ...set, pack }),
      expect: { code: 'mismatch', file: 'pack', offset: 8 },
    });
  });

  for (const type of [0, 5]) {
    test(`an object of invalid type ${type}`, async () => {
      const set = ofs();
      const parts = readPack(set.pack, set.idx);
      const i = firstOfType(parts, OBJ_COMMIT);
      parts.entries[i]!.type = type;
      await check(`pack-type-${type}`, 'model', {
        set: assemble(parts, { rev: true }),
        expect: { code: 'bad-header', file: 'pack', offset: layout(parts)[i]! },
      });
    });
  }

  test('an object header that runs past its entry', async () => {
    const parts = handmade([blobEntry(HELLO), blobEntry(Buffer.from('second\n'))]);
    // An entry that is nothing but its header, whose size varint then claims to go on.
    parts.entries[0]!.size = 2 ** 40;
    parts.entries[0]!.data = Buffer.alloc(0);
    const set = assemble(parts);
    const pack = Buffer.from(set.pack);
    pack[12 + encodeEntryHeader(OBJ_BLOB, 2 ** 40).length - 1] |= 0x80;
    await check('pack-header-runs-on', 'model', {
      set: reseal({ ...set, pack }),
      expect: { code: 'truncated', file: 'pack', offset: 12 },
    });
  });
});

describe('bad input: deltas', () => {
  test('an OFS base at its own offset', async () => {
    const set = ofs();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_OFS_DELTA);
    parts.entries[i]!.distance = 0;
    await check('ofs-self', 'model', {
      set: assemble(parts, { rev: true }),
      expect: { code: 'bad-delta-base', file: 'pack', offset: layout(parts)[i]! },
    });
  });

  test('an OFS base before the start of the pack', async () => {
    const set = ofs();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_OFS_DELTA);
    const offset = layout(parts)[i]!;
    parts.entries[i]!.distance = offset + 1000;
    const written = assemble(parts, { rev: true });
    await check('ofs-before-pack', 'model', { set: written, expect: { code: 'bad-delta-base', file: 'pack', offset } });
  });

  test('an OFS base inside the pack header', async () => {
    const set = ofs();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_OFS_DELTA);
    const offset = layout(parts)[i]!;
    parts.entries[i]!.distance = offset - 4;
    await check('ofs-in-header', 'model', {
      set: assemble(parts, { rev: true }),
      expect: { code: 'bad-delta-base', file: 'pack', offset },
    });
  });

  test('an OFS base in the middle of an entry', async () => {
    const set = ofs();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_OFS_DELTA);
    const offsets = layout(parts);
    parts.entries[i]!.distance = offsets[i]! - (offsets[parts.entries[i]!.base!]! + 3);
    delete parts.entries[i]!.base;
    await check('ofs-mid-entry', 'model', {
      set: assemble(parts, { rev: true }),
      expect: { code: 'bad-delta-base', file: 'pack', offset: offsets[i]! },
    });
  });

  test('a missing REF base', async () => {
    const set = ref();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_REF_DELTA);
    parts.entries[i]!.baseOid = Buffer.alloc(20, 0xab);
    await check('ref-missing', 'model', {
      set: assemble(parts),
      expect: { code: 'missing-base', file: 'pack', offset: layout(parts)[i]! },
    });
  });

  test('a REF delta naming itself', async () => {
    const set = ref();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_REF_DELTA);
    parts.entries[i]!.baseOid = parts.entries[i]!.oid;
    await check('ref-self', 'model', {
      set: assemble(parts),
      expect: { code: 'delta-cycle', file: 'pack', offset: layout(parts)[i]! },
    });
  });

  test('two REF deltas naming each other', async () => {
    const payload = deltaPayload(HELLO.length, HELLO.length, copyInstruction(0, HELLO.length));
    const a = objectId(OBJ_BLOB, Buffer.from('a'));
    const b = objectId(OBJ_BLOB, Buffer.from('b'));
    const parts = handmade([
      blobEntry(HELLO),
      { ...deltaEntry('a', payload, { baseOid: b }), oid: a },
      { ...deltaEntry('b', payload, { baseOid: a }), oid: b },
    ]);
    const offsets = layout(parts);
    await check('ref-cycle', 'model', {
      set: assemble(parts),
      expect: { code: 'delta-cycle', file: 'pack', offset: [offsets[1]!, offsets[2]!] },
    });
  });

  test('a REF cycle of three inside the git pack', async () => {
    const set = ref();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_REF_DELTA);
    const j = firstOfType(parts, OBJ_REF_DELTA, i + 1);
    const k = firstOfType(parts, OBJ_REF_DELTA, j + 1);
    parts.entries[i]!.baseOid = parts.entries[j]!.oid;
    parts.entries[j]!.baseOid = parts.entries[k]!.oid;
    parts.entries[k]!.baseOid = parts.entries[i]!.oid;
    const offsets = layout(parts);
    await check('ref-cycle-3', 'model', {
      set: assemble(parts),
      expect: { code: 'delta-cycle', file: 'pack', offset: [offsets[i]!, offsets[j]!, offsets[k]!] },
    });
  });

  test('corrupt zlib data in a delta (found by the model build)', async () => {
    const set = ofs();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_OFS_DELTA);
    parts.entries[i]!.data[0] = 0x00; // not a deflate zlib header (RFC 1950 CMF)
    await check('delta-zlib-header', 'model', {
      set: assemble(parts, { rev: true }),
      expect: { code: 'bad-zlib', file: 'pack', offset: layout(parts)[i]! },
    });
  });

  test('a delta whose zlib stream ends before the delta header', async () => {
    const set = ofs();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_OFS_DELTA);
    parts.entries[i]!.data = parts.entries[i]!.data.subarray(0, 3);
    await check('delta-zlib-short', 'model', {
      set: assemble(parts, { rev: true }),
      expect: { code: 'bad-zlib', file: 'pack', offset: layout(parts)[i]! },
    });
  });

  test('a delta header whose size varint never ends', async () => {
    const payload = Buffer.concat([
      Buffer.from([HELLO.length]),
      Buffer.alloc(12, 0xff),
      Buffer.from([0x01]),
      copyInstruction(0, HELLO.length),
    ]);
    const parts = handmade([blobEntry(HELLO), deltaEntry('d', payload, { base: 0 })]);
    await check('delta-varint', 'model', {
      set: assemble(parts),
      expect: { code: 'bad-delta', file: 'pack', offset: layout(parts)[1]! },
    });
  });

  test('a delta declaring a result of 2^50 bytes: recorded, never allocated', async () => {
    const payload = deltaPayload(HELLO.length, 2 ** 50, copyInstruction(0, HELLO.length));
    const parts = handmade([blobEntry(HELLO), deltaEntry('d', payload, { base: 0 })]);
    const error = await check('delta-huge-result', 'full', {
      set: assemble(parts),
      expect: { code: 'bad-delta', file: 'pack', offset: layout(parts)[1]! },
    });
    assert.match(error.detail, /limit/);
    const model = buildPackModel(packFilesFor(error.file!));
    assert.equal(model.columns.resultSize.get(model.findHex(parts.entries[1]!.oid.toString('hex'))), 2 ** 50);
  });

  test('a delta declaring a result just under the Buffer limit is refused before allocating it', async () => {
    const payload = deltaPayload(HELLO.length, 2 ** 32 - 1, copyInstruction(0, HELLO.length));
    const parts = handmade([blobEntry(HELLO), deltaEntry('d', payload, { base: 0 })]);
    const paths = writePackSet(path.join(root, 'cases', 'delta-4g-result'), 'pack-damaged', assemble(parts));
    const model = buildPackModel(packFilesFor(paths.pack));
    const allocUnsafe = Buffer.allocUnsafe;
    let largest = 0;
    Buffer.allocUnsafe = (size: number) => {
      largest = Math.max(largest, size);
      return allocUnsafe(size);
    };
    try {
      assert.throws(
        () => resolveFamilies(model),
        (error) => {
          assertPackError(error, { code: 'bad-delta', file: paths.pack, offset: layout(parts)[1]! });
          return true;
        },
      );
    } finally {
      Buffer.allocUnsafe = allocUnsafe;
    }
    assert.ok(largest < 1 << 20, `allocated ${largest} bytes for a 4-byte delta`);
  });

  test('a delta whose base size does not match its base', async () => {
    const payload = deltaPayload(HELLO.length + 1, HELLO.length, copyInstruction(0, HELLO.length));
    const parts = handmade([blobEntry(HELLO), deltaEntry('d', payload, { base: 0 })]);
    await check('delta-base-size', 'full', {
      set: assemble(parts),
      expect: { code: 'bad-delta', file: 'pack', offset: layout(parts)[1]! },
    });
  });

  test('a delta copying past the end of its base', async () => {
    const payload = deltaPayload(HELLO.length, 20, Buffer.concat([copyInstruction(4, 20)]));
    const parts = handmade([blobEntry(HELLO), deltaEntry('d', payload, { base: 0 })]);
    await check('delta-copy-past-base', 'full', {
      set: assemble(parts),
      expect: { code: 'bad-delta', file: 'pack', offset: layout(parts)[1]! },
    });
  });

  test('a delta with the reserved instruction 0', async () => {
    const payload = deltaPayload(
      HELLO.length,
      4,
      Buffer.concat([insertInstruction(Buffer.from('ab')), Buffer.from([0]), insertInstruction(Buffer.from('cd'))]),
    );
    const parts = handmade([blobEntry(HELLO), deltaEntry('d', payload, { base: 0 })]);
    await check('delta-reserved-op', 'full', {
      set: assemble(parts),
      expect: { code: 'bad-delta', file: 'pack', offset: layout(parts)[1]! },
    });
  });
});

describe('bad input: object data (found by --full)', () => {
  for (const [name, type] of [
    ['commit', OBJ_COMMIT],
    ['tree', OBJ_TREE],
    ['blob', OBJ_BLOB],
    ['tag', OBJ_TAG],
  ] as const) {
    test(`corrupt zlib data in a ${name}`, async () => {
      const set = ofs();
      const parts = readPack(set.pack, set.idx);
      const i = firstOfType(parts, type);
      const data = parts.entries[i]!.data;
      data[data.length - 1] ^= 0xff; // the Adler-32 of the stream
      await check(`${name}-zlib`, 'full', {
        set: assemble(parts, { rev: true }),
        expect: { code: 'bad-zlib', file: 'pack', offset: layout(parts)[i]! },
      });
    });
  }

  test('corrupt zlib data in a REF delta, past its header', async () => {
    const set = ref();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_REF_DELTA);
    const data = parts.entries[i]!.data;
    data[data.length - 1] ^= 0xff;
    await check('ref-delta-zlib-tail', 'full', {
      set: assemble(parts),
      expect: { code: 'bad-zlib', file: 'pack', offset: layout(parts)[i]! },
    });
  });

  test('corrupt zlib data in a delta, past its header', async () => {
    const set = ofs();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_OFS_DELTA);
    const data = parts.entries[i]!.data;
    data[data.length - 2] ^= 0xff;
    await check('delta-zlib-tail', 'full', {
      set: assemble(parts, { rev: true }),
      expect: { code: 'bad-zlib', file: 'pack', offset: layout(parts)[i]! },
    });
  });

  test('a zlib stream followed by stray bytes inside its entry', async () => {
    const set = ofs();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_COMMIT);
    parts.entries[i]!.data = Buffer.concat([parts.entries[i]!.data, Buffer.from('junk')]);
    await check('commit-zlib-trailing', 'full', {
      set: assemble(parts, { rev: true }),
      expect: { code: 'bad-zlib', file: 'pack', offset: layout(parts)[i]! },
    });
  });

  test('an object that inflates to a size other than its header says', async () => {
    const set = ofs();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_COMMIT);
    parts.entries[i]!.size += 1;
    await check('commit-size', 'full', {
      set: assemble(parts, { rev: true }),
      expect: { code: 'bad-zlib', file: 'pack', offset: layout(parts)[i]! },
    });
  });

  test('a blob whose header declares 2^52 bytes', async () => {
    const parts = handmade([blobEntry(HELLO)]);
    parts.entries[0]!.size = 2 ** 52;
    await check('blob-huge', 'full', { set: assemble(parts), expect: { code: 'too-large', file: 'pack', offset: 12 } });
  });

  test('content that does not hash to its name', async () => {
    const parts = handmade([blobEntry(HELLO)]);
    parts.entries[0]!.data = zlib(Buffer.from('hello, World\n'));
    // A sound pack whose idx names the object otherwise: the idx's name is what is wrong (as git says).
    await check('blob-hash', 'full', { set: assemble(parts), expect: { code: 'hash', file: 'idx', offset: 8 + 1024 } });
  });
});

describe('bad input: files that do not belong together', () => {
  test('the idx of another pack with the same object count', async () => {
    await check('foreign-idx', 'model', {
      set: { pack: ofs().pack, idx: ref().idx },
      expect: { code: 'mismatch', file: 'pack', offset: ofs().pack.length - 20 },
    });
  });

  test('the idx of another pack with a different object count', async () => {
    const other = assemble(handmade([blobEntry(HELLO)]));
    await check('foreign-idx-count', 'model', {
      set: { pack: ofs().pack, idx: other.idx },
      expect: { code: 'mismatch', file: 'pack', offset: 8 },
    });
  });

  test('the .rev of another pack', async () => {
    const set = ref();
    await check('foreign-rev', 'model', {
      set: { ...set, rev: ofs().rev },
      expect: { code: 'mismatch', file: 'rev', offset: 12 + idxObjectCount(set.idx) * 4 },
    });
  });
});

describe('bad input: checksums', () => {
  /** Damages a commit's compressed bytes (the model build never inflates a commit). */
  function damagedCommit(): { set: PackSet; n: number; offset: number } {
    const set = ofs();
    const parts = readPack(set.pack, set.idx);
    const i = firstOfType(parts, OBJ_COMMIT);
    const offset = layout(parts)[i]!;
    const pack = Buffer.from(set.pack);
    pack[offset + 5] ^= 0x40;
    return { set: { ...set, pack }, n: objectNumber(set.idx, parts.entries[i]!.oid), offset };
  }

  test('the pack trailer does not match the contents', async () => {
    const { set, n } = damagedCommit();
    // Fix the entry's CRC so that the hash of the whole pack is what fails.
    const fixed = reseal(set);
    const idx = Buffer.from(set.idx);
    fixed.idx.copy(idx, idxCrcPosition(idx, n), idxCrcPosition(idx, n), idxCrcPosition(idx, n) + 4);
    await check('pack-checksum', 'checksums', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'checksum', file: 'pack', offset: set.pack.length - 20 },
    });
  });

  test('the idx trailer does not match the contents', async () => {
    const set = ofs();
    const idx = Buffer.from(set.idx);
    idx[idx.length - 1] ^= 0x01;
    await check('idx-checksum', 'checksums', {
      set: { ...set, idx },
      expect: { code: 'checksum', file: 'idx', offset: idx.length - 20 },
    });
  });

  test('a CRC32 in the idx that does not match the entry', async () => {
    const set = ofs();
    const idx = Buffer.from(set.idx);
    const n = 100;
    idx.writeUInt32BE((idx.readUInt32BE(idxCrcPosition(idx, n)) ^ 1) >>> 0, idxCrcPosition(idx, n));
    // The pack's own checksum shows the pack is sound, so the idx is to blame.
    await check('crc-idx', 'checksums', {
      set: { ...set, idx: resealIdx(idx) },
      expect: { code: 'crc', file: 'idx', offset: idxCrcPosition(idx, n) },
    });
  });

  test('an entry changed after its CRC32 was written', async () => {
    const { set, n } = damagedCommit();
    const sealed = reseal(set);
    // Keep the old CRC of the damaged entry: the pack (checksum recomputed) is consistent, its idx is not.
    set.idx.copy(sealed.idx, idxCrcPosition(set.idx, n), idxCrcPosition(set.idx, n), idxCrcPosition(set.idx, n) + 4);
    await check('crc-pack', 'checksums', {
      set: { ...sealed, idx: resealIdx(sealed.idx) },
      expect: { code: 'crc', file: 'idx', offset: idxCrcPosition(set.idx, n) },
    });
  });
});

describe('bad input: .rev', () => {
  test('wrong magic', async () => {
    const set = ofs();
    const rev = Buffer.from(set.rev!);
    rev.write('XRDI', 0, 'latin1');
    await check('rev-magic', 'model', { set: { ...set, rev }, expect: { code: 'bad-magic', file: 'rev', offset: 0 } });
  });

  test('wrong version', async () => {
    const set = ofs();
    const rev = Buffer.from(set.rev!);
    rev.writeUInt32BE(2, 4);
    await check('rev-version', 'model', {
      set: { ...set, rev },
      expect: { code: 'bad-version', file: 'rev', offset: 4 },
    });
  });

  test('another hash algorithm', async () => {
    const set = ofs();
    const rev = Buffer.from(set.rev!);
    rev.writeUInt32BE(2, 8);
    await check('rev-hash', 'model', { set: { ...set, rev }, expect: { code: 'mismatch', file: 'rev', offset: 8 } });
  });

  test('truncated', async () => {
    const set = ofs();
    await check('rev-truncated', 'model', {
      set: { ...set, rev: set.rev!.subarray(0, 100) },
      expect: { code: 'truncated', file: 'rev', offset: 100 },
    });
  });

  test('positions out of order', async () => {
    const set = ofs();
    const rev = Buffer.from(set.rev!);
    const i = 30;
    const j = 90;
    const a = rev.readUInt32BE(12 + i * 4);
    rev.writeUInt32BE(rev.readUInt32BE(12 + j * 4), 12 + i * 4);
    rev.writeUInt32BE(a, 12 + j * 4);
    await check('rev-order', 'model', {
      set: { ...set, rev },
      expect: { code: 'bad-offset', file: 'rev', offset: 12 + (i + 1) * 4 },
    });
  });

  test('a position listed twice', async () => {
    const set = ofs();
    const rev = Buffer.from(set.rev!);
    const i = 200;
    rev.writeUInt32BE(rev.readUInt32BE(12 + (i - 1) * 4), 12 + i * 4);
    await check('rev-duplicate', 'model', {
      set: { ...set, rev },
      expect: { code: 'bad-offset', file: 'rev', offset: 12 + i * 4 },
    });
  });

  test('a position past the object count', async () => {
    const set = ofs();
    const rev = Buffer.from(set.rev!);
    rev.writeUInt32BE(idxObjectCount(set.idx), 12 + 7 * 4);
    await check('rev-range', 'model', {
      set: { ...set, rev },
      expect: { code: 'bad-offset', file: 'rev', offset: 12 + 7 * 4 },
    });
  });
});

describe('bad input: families whose bases would need gigabytes', () => {
  /**
   * X0 is SIZE zero bytes; each X(i) is a delta on X(i-1) that inserts an 8-byte tag and copies the
   * rest: a few bytes each in the pack, SIZE bytes each in memory. With `leaves`, every X(i) also
   * gets a delta child L(i) written after the whole chain, so that X(i) is still needed after X(i+1).
   */
  function chainPack(count: number, size: number, leaves: boolean): PackParts {
    const zeros = Buffer.alloc(size);
    const entries: PackEntry[] = [{ oid: objectId(OBJ_BLOB, zeros), type: OBJ_BLOB, size, data: zlib(zeros) }];
    const tagged = (tag: string, base: number): PackEntry => {
      const payload = deltaPayload(
        size,
        size,
        Buffer.concat([insertInstruction(Buffer.from(tag)), copyInstruction(8, size - 8)]),
      );
      return {
        oid: objectId(OBJ_BLOB, Buffer.concat([Buffer.from(tag), zeros.subarray(8)])),
        type: OBJ_OFS_DELTA,
        size: payload.length,
        base,
        data: zlib(payload),
      };
    };
    for (let i = 1; i <= count; i++) entries.push(tagged(`X${String(i).padStart(7, '0')}`, i - 1));
    if (leaves) for (let i = 0; i < count; i++) entries.push(tagged(`L${String(i).padStart(7, '0')}`, i));
    return handmade(entries);
  }

  function resolveAll(paths: PackPaths): { objects: number; peakHeldBytes: number } {
    const model = buildPackModel(packFilesFor(paths.pack));
    const task = familyTask(model);
    const resolver = new FamilyResolver(task);
    try {
      for (const root of task.roots) resolver.resolveFamily(root);
      assert.deepEqual(resolver.mismatches, []);
      return { objects: resolver.objects, peakHeldBytes: resolver.peakHeldBytes };
    } finally {
      resolver.close();
    }
  }

  test('a chain of 300 one-MiB deltas holds one base at a time', () => {
    const parts = chainPack(300, 1 << 20, false);
    const paths = writePackSet(path.join(root, 'cases', 'chain-bomb'), 'pack-chain', assemble(parts));
    assert.ok(fs.statSync(paths.pack).size < 20_000);
    const { objects, peakHeldBytes } = resolveAll(paths);
    assert.equal(objects, 301);
    assert.ok(peakHeldBytes <= 2 << 20, `held ${peakHeldBytes} bytes of bases at once`);
  });

  test('a comb of 40 four-MiB deltas, each base still needed later, stays within the base budget and verifies', async () => {
    const parts = chainPack(40, 4 << 20, true);
    const paths = writePackSet(path.join(root, 'cases', 'comb-bomb'), 'pack-comb', assemble(parts));
    const { objects, peakHeldBytes } = resolveAll(paths);
    assert.equal(objects, 81);
    // 160 MiB of bases would be pending at the deepest point; the budget is git's 96 MiB, plus the newest.
    assert.ok(peakHeldBytes <= (96 << 20) + (4 << 20), `held ${peakHeldBytes} bytes of bases at once`);
    const run = await runCliAsync(['verify-pack', '--full', '--threads', '1', paths.pack]);
    assert.deepEqual(run, { status: 0, stdout: '', stderr: '' });
  });
});

describe('bad input: multi-pack-index', () => {
  /** A MIDX git wrote, damaged by `damage`, in a repository of its own; returns its pack directory. */
  function damagedMidx(name: string, damage: (midx: Buffer) => void): string {
    const { packDir } = buildMidxPackDir(path.join(root, 'cases', name));
    const file = path.join(packDir, 'multi-pack-index');
    const bytes = fs.readFileSync(file);
    damage(bytes);
    fs.writeFileSync(file, bytes);
    return packDir;
  }

  /** Offset of a chunk (by its four-letter id) in a MIDX's chunk table (§6.4). */
  function chunkStart(midx: Buffer, id: string): number {
    for (let at = 12; at < 12 + midx[6]! * 12; at += 12)
      if (midx.toString('latin1', at, at + 4) === id) return Number(midx.readBigUInt64BE(at + 4));
    throw new Error(`no ${id} chunk`);
  }

  test('a chunk id made of control characters is named in hex, on one line', async () => {
    const packDir = damagedMidx('midx-chunk-id', (midx) => {
      midx.writeUInt32BE(0x00000a00, 12);
      midx.writeUInt32BE(0x00000a00, 16);
    });
    const file = path.join(packDir, 'multi-pack-index');
    assert.throws(
      () => loadMultiPackIndex(packDir),
      (error) => {
        assertPackError(error, { code: 'bad-offset', file, offset: 12 });
        assert.match(error.detail, /^chunk 0x00000a00 spans /);
        return true;
      },
    );
    const run = await runCliAsync(['objects', '--no-cache', path.dirname(path.dirname(packDir))]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^packscope: [^\n]*: offset 12: chunk 0x00000a00 spans [^\n]*\n$/);
  });

  test('a pack name with a slash and a newline is quoted with escapes', () => {
    let pnam = 0;
    const packDir = damagedMidx('midx-pack-name', (midx) => {
      pnam = chunkStart(midx, 'PNAM');
      midx.write('a/\nb', pnam, 'latin1');
    });
    assert.throws(
      () => loadMultiPackIndex(packDir),
      (error) => {
        assertPackError(error, { code: 'bad-header', file: path.join(packDir, 'multi-pack-index'), offset: pnam });
        assert.match(error.detail, /^pack name "a\/\\x0ab[^"]*" is not a plain file name$/);
        return true;
      },
    );
  });
});

describe('bad input: not regular files', () => {
  for (const [what, make] of [
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file])],
    ['a directory', (file: string) => fs.mkdirSync(file)],
  ] as const) {
    for (const victim of ['pack', 'idx'] as const) {
      test(`${what} where the ${victim} should be`, async () => {
        const paths = writePackSet(
          path.join(root, 'cases', `special-${victim}-${what.replace(/ /g, '-')}`),
          'pack-special',
          withoutRev(ofs()),
        );
        fs.rmSync(paths[victim]);
        make(paths[victim]);
        const expected = new InputOutputError('io', paths[victim], undefined, 'not a regular file');
        // A FIFO must not make the reader wait for a writer that never comes. Were that to regress,
        // a direct call would block this test process for good, so FIFOs go through the CLI only,
        // whose runs are killed after a few seconds.
        if (what !== 'a FIFO')
          assertPackError(runStages(packFilesFor(paths.pack)).error, { code: 'io', file: paths[victim], offset: null });
        // stats and objects are pointed at the other, regular, file of the pair.
        const other = victim === 'pack' ? paths.idx : paths.pack;
        const commands = [
          ['verify-pack', '-v', '--full', paths.pack],
          ['stats', '--no-cache', other],
          ['objects', '--no-cache', other],
        ];
        const runs = await Promise.all(commands.map((args) => runCliAsync(args, 10_000)));
        runs.forEach((run, i) => assertCliReports(run, expected, commands[i]![0]!));
      });
    }
  }
});

describe('bad input: a bug in a verify worker is not blamed on the pack', () => {
  test('a worker that fails with something other than a PackFormatError rejects with a plain Error', async () => {
    const script = path.join(root, 'crashing-worker.js');
    fs.writeFileSync(
      script,
      "require('node:worker_threads').parentPort.postMessage({ kind: 'failed', error: { message: 'boom', stack: 'Error: boom' } });\n",
    );
    const files = packFilesFor(`${fixtures.ofs}.pack`);
    const model = buildPackModel(files);
    for (const run of [
      () => verifyFull(model, { workerScript: script, threads: 1 }),
      () => checksumsInWorker(script, files, 'sha1').result,
    ]) {
      await assert.rejects(run(), (error) => {
        assert.ok(error instanceof Error && !(error instanceof PackScopeError), describeError(error));
        assert.match(error.message, /boom/);
        return true;
      });
    }
  });
});

describe('bad input: an empty pack is valid', () => {
  test('0 objects: verify-pack -v prints what git prints', async () => {
    const files = packFilesFor(`${fixtures.empty}.pack`);
    const model = buildPackModel(files);
    assert.equal(model.count, 0);
    const report = verifyChecksums(files, model.index, model.columns.byOffset);
    assert.equal(report.crcChecked, 0);
    assert.equal(resolveFamilies(model), 0);
    const git = fixtures.sandbox.gitText(path.dirname(fixtures.empty), ['verify-pack', '-v', files.pack]);
    const [verbose, full, stats, objects] = await Promise.all([
      runCliAsync(['verify-pack', '-v', files.pack]),
      runCliAsync(['verify-pack', '-v', '--full', files.pack]),
      runCliAsync(['stats', '--no-cache', '--json', files.pack]),
      runCliAsync(['objects', '--no-cache', files.pack]),
    ]);
    assert.equal(git, `${files.pack}: ok\n`);
    for (const run of [verbose, full]) {
      assert.equal(run.stdout, git);
      assert.equal(run.stderr, '');
      assert.equal(run.status, 0);
    }
    assert.equal(stats.status, 0, stats.stderr);
    assert.equal(JSON.parse(stats.stdout).total.objects, 0);
    assert.equal(objects.status, 0, objects.stderr);
    assert.equal(objects.stdout, '');
  });
});

describe('bad input: files that change while they are read', () => {
  function copyOf(name: string, set: PackSet): PackFiles {
    const paths = writePackSet(path.join(root, 'cases', name), 'pack-live', set);
    return packFilesFor(paths.pack);
  }

  test('pack deleted during the model build', () => {
    const files = copyOf('deleted-during-build', ofs());
    assert.throws(
      () => buildPackModel(files, { onProgress: (done) => done === 0 && fs.rmSync(files.pack) }),
      (error) => (assertPackError(error, { code: 'changed', file: files.pack, offset: null }), true),
    );
  });

  test('pack truncated during the model build', () => {
    const files = copyOf('truncated-during-build', ofs());
    assert.throws(
      () => buildPackModel(files, { onProgress: (done) => done === 0 && fs.truncateSync(files.pack, 1000) }),
      (error) => (
        assert.ok(
          error instanceof PackFormatError && error.code === 'changed' && error.file === files.pack,
          describeError(error),
        ),
        true
      ),
    );
  });

  test('pack rewritten in place (same size, other bytes) during the model build', () => {
    const files = copyOf('rewritten-during-build', ofs());
    const size = fs.statSync(files.pack).size;
    assert.throws(
      () =>
        buildPackModel(files, { onProgress: (done) => done === 0 && fs.writeFileSync(files.pack, Buffer.alloc(size)) }),
      (error) => (
        assert.ok(
          error instanceof PackFormatError && error.code === 'changed' && error.file === files.pack,
          describeError(error),
        ),
        true
      ),
    );
  });

  test('pack replaced by another file during the model build', () => {
    const files = copyOf('replaced-during-build', ofs());
    const other = `${files.pack}.new`;
    fs.copyFileSync(files.pack, other);
    assert.throws(
      () => buildPackModel(files, { onProgress: (done) => done === 0 && fs.renameSync(other, files.pack) }),
      (error) => (assertPackError(error, { code: 'changed', file: files.pack, offset: null }), true),
    );
  });

  test('pack deleted, truncated or rewritten during the checksum pass', () => {
    for (const [name, damage] of [
      ['deleted', (pack: string) => fs.rmSync(pack)],
      ['truncated', (pack: string) => fs.truncateSync(pack, 1000)],
      ['rewritten', (pack: string) => fs.writeFileSync(pack, Buffer.alloc(fs.statSync(pack).size))],
    ] as const) {
      const files = copyOf(`${name}-during-checksums`, ofs());
      const index = loadIdx(files);
      assert.throws(
        () => verifyChecksums(files, index, packOrder(files, index, false), () => damage(files.pack)),
        (error) => (
          assert.ok(
            error instanceof PackFormatError && error.code === 'changed' && error.file === files.pack,
            describeError(error),
          ),
          true
        ),
      );
    }
  });

  test('pack truncated or deleted before --full resolves it', () => {
    for (const [name, damage] of [
      ['truncated', (pack: string) => fs.truncateSync(pack, 1000)],
      ['deleted', (pack: string) => fs.rmSync(pack)],
    ] as const) {
      const files = copyOf(`${name}-before-full`, ofs());
      const model = buildPackModel(files);
      damage(files.pack);
      assert.throws(
        () => resolveFamilies(model),
        (error) => (
          assert.ok(
            error instanceof PackScopeError &&
              (error.code === 'changed' || error.code === 'io') &&
              error.file === files.pack,
            describeError(error),
          ),
          true
        ),
      );
    }
  });

  test('pack deleted before the --full workers open it', async () => {
    const files = copyOf('deleted-before-full-workers', ofs());
    const model = buildPackModel(files);
    fs.rmSync(files.pack);
    await assert.rejects(
      verifyFull(model, { workerScript: verifyWorkerPath, threads: 2 }),
      (error) => (assertPackError(error, { code: 'io', file: files.pack, offset: null }), true),
    );
  });

  test('pack truncated while --full resolves it', () => {
    const files = copyOf('truncated-during-full', ofs());
    const model = buildPackModel(files);
    const task = familyTask(model);
    const resolver = new FamilyResolver(task);
    try {
      resolver.resolveFamily(task.roots[0]!);
      fs.truncateSync(files.pack, 1000);
      assert.throws(
        () => {
          for (const root of task.roots) resolver.resolveFamily(root);
        },
        (error) => (
          assert.ok(
            error instanceof PackFormatError && error.code === 'changed' && error.file === files.pack,
            describeError(error),
          ),
          true
        ),
      );
    } finally {
      resolver.close();
    }
  });
});
