/**
 * Fuzzing the model cache with fast-check: the model files PackScope wrote for
 * real packs (OFS and REF deltas, idx v1, SHA-256), damaged at random, then loaded the way every
 * command loads them. Every case must give a model equal to a fresh build of the pack, persisted or
 * rebuilt, never wrong columns, never an exception, within a time bound. Three kinds of damage:
 *
 * - bytes changed, cut or added, the file's own trailer kept (disk errors, a truncated write);
 * - any column or header field changed and the file sealed by someone without the cache's key;
 * - columns changed and the file sealed WITH the key (a writer that has it, or a bug in ours): then
 *   only the checks against the idx and pack stand, so these are the damages those checks promise
 *   to catch (depths, types, bases out of range or in a cycle, pack order, disk sizes, overflow
 *   maps, header fields); a delta's header size, or OFS for REF, no cheap check can see.
 *
 * Reproduce a failure with the seed it prints: PACKSCOPE_FUZZ_SEED=<seed> (and
 * PACKSCOPE_FUZZ_RUNS=<n> to run more or fewer cases per property).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { ModelStore } from '../../src/core/model/model-store.ts';
import type { PackFiles } from '../../src/core/model/pack-model.ts';
import { buildFixturePacks, buildSha256Pack } from '../support/fixture-packs.ts';
import { tempDir } from '../support/git.ts';
import {
  modelFileIn,
  modelSnapshot,
  readModelFile,
  sealWithCacheKey,
  sealWithoutKey,
  writeModelFile,
  type ColumnName,
  type ModelFile,
} from '../support/model-file.ts';

const SEED = Number(process.env.PACKSCOPE_FUZZ_SEED ?? 20261202);
const RUNS = Number(process.env.PACKSCOPE_FUZZ_RUNS ?? 150);
const CASE_TIME_LIMIT_MS = 2000;
const OBJ_OFS_DELTA = 6;
const OBJ_REF_DELTA = 7;

interface Source {
  name: string;
  files: PackFiles;
  cacheDir: string;
  pristineBytes: Buffer;
  pristine: ModelFile;
  reference: unknown;
}

let root: string;
let sources: Source[];
const tally = { persisted: 0, rebuilt: 0 };

before(() => {
  root = tempDir(undefined, 'packscope-fuzz-model-cache-');
  const fixtures = buildFixturePacks(path.join(root, 'sha1'), { commits: 30, seed: 11 });
  const stems: [string, string][] = [
    ['ofs', fixtures.ofs],
    ['ref', fixtures.ref],
    ['idx-v1', fixtures.v1],
    ['sha256', buildSha256Pack(path.join(root, 'sha256'), { commits: 20, seed: 5 })],
  ];
  sources = stems.map(([name, stem]) => {
    const files = packFilesFor(`${stem}.pack`);
    const cacheDir = path.join(root, `cache-${name}`);
    new ModelStore(cacheDir).load(files);
    const pristineBytes = fs.readFileSync(modelFileIn(cacheDir));
    return {
      name,
      files,
      cacheDir,
      pristineBytes,
      pristine: readModelFile(pristineBytes),
      reference: modelSnapshot(buildPackModel(files)),
    };
  });
});

after(() => {
  console.log(
    `fuzz-model-cache: ${tally.persisted} cases loaded the persisted file, ${tally.rebuilt} rebuilt (seed ${SEED}, ${RUNS} runs per property and pack)`,
  );
  fs.rmSync(root, { recursive: true, force: true });
});

/** Writes `bytes` as the source's model file, loads it, and checks the one allowed outcome. */
function loadAndCheck(source: Source, bytes: Buffer, mustRebuild: boolean): void {
  fs.writeFileSync(modelFileIn(source.cacheDir), bytes);
  const started = performance.now();
  const loaded = new ModelStore(source.cacheDir).load(source.files);
  const elapsed = performance.now() - started;
  assert.ok(elapsed < CASE_TIME_LIMIT_MS, `${source.name}: load took ${elapsed.toFixed(0)} ms`);
  assert.deepEqual(
    modelSnapshot(loaded.model),
    source.reference,
    `${source.name}: the loaded model is not the pack's (${loaded.source}${loaded.rebuiltBecause ? `: ${loaded.rebuiltBecause}` : ''})`,
  );
  if (loaded.source === 'built') {
    assert.ok(loaded.rebuiltBecause, `${source.name}: rebuilt without saying why`);
    tally.rebuilt++;
  } else {
    assert.equal(mustRebuild, false, `${source.name}: a damaged file was used`);
    tally.persisted++;
  }
}

const sourceIndex = fc.nat();

type ByteDamage =
  | { op: 'flip'; at: number; bit: number }
  | { op: 'set'; at: number; value: number }
  | { op: 'truncate'; at: number }
  | { op: 'append'; bytes: Uint8Array }
  | { op: 'delete'; at: number; length: number };

const byteDamage: fc.Arbitrary<ByteDamage> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: fc.constantFrom(0, 0xff, 0x7f, 0x80, 1) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 64 }) }),
);

function damageBytes(pristine: Buffer, damage: ByteDamage): Buffer {
  const bytes = Buffer.from(pristine);
  switch (damage.op) {
    case 'flip':
      bytes[damage.at % bytes.length]! ^= 1 << damage.bit;
      return bytes;
    case 'set': {
      const at = damage.at % bytes.length;
      bytes[at] = bytes[at] === damage.value ? damage.value ^ 0x55 : damage.value;
      return bytes;
    }
    case 'truncate':
      return bytes.subarray(0, damage.at % bytes.length);
    case 'append':
      return Buffer.concat([bytes, damage.bytes]);
    case 'delete': {
      const at = damage.at % bytes.length;
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + damage.length)]);
    }
  }
}

const COLUMNS: ColumnName[] = ['size', 'resultSize', 'diskSize', 'base', 'byOffset', 'depth', 'inPackType', 'type'];
/** Values that sit on the edges the readers care about, plus any 32-bit one. */
const columnValue = fc.oneof(
  fc.constantFrom(0, 1, -1, -2, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xffff, 0x10000, 0x7fffffff, 0xffffffff),
  fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }),
);

interface ColumnDamage {
  column: ColumnName;
  object: number;
  value: number;
  /** Also: the depth column widened to 4 bytes. */
  widenDepth: boolean;
}

const columnDamage: fc.Arbitrary<ColumnDamage> = fc.record({
  column: fc.constantFrom(...COLUMNS),
  object: fc.nat(),
  value: columnValue,
  widenDepth: fc.boolean(),
});

/** A value as the column's type stores it (what reading the file back gives). */
function stored(column: ColumnName, value: number, depthBytes: 2 | 4): number {
  if (column === 'base') return value | 0;
  if (column === 'inPackType' || column === 'type') return value & 0xff;
  if (column === 'depth') return depthBytes === 2 ? value & 0xffff : value >>> 0;
  return value >>> 0;
}

function damageColumn(file: ModelFile, damage: ColumnDamage): ModelFile {
  const copy = structuredClone(file);
  if (damage.widenDepth) copy.header.depthBytes = 4;
  const n = damage.object % copy.header.count;
  copy[damage.column][n] = stored(damage.column, damage.value, copy.header.depthBytes);
  return copy;
}

/** Whether `damage` changed nothing a fresh build has (then the file may be used). */
function unchanged(source: Source, damaged: ModelFile): boolean {
  const { pristine } = source;
  return (
    damaged.header.depthBytes === pristine.header.depthBytes &&
    COLUMNS.every((c) => damaged[c].every((v, n) => v === pristine[c][n]))
  );
}

const HEADER_FIELDS = [
  'count',
  'packSize',
  'packVersion',
  'hash',
  'packChecksum',
  'idxChecksum',
  'depthBytes',
  'overflow',
] as const;
const headerValue = fc.oneof(
  fc.constantFrom<unknown>(0, -1, 1, 2, 3, 4, 2 ** 53, 'sha1', 'sha256', '', null, true, [], {}, [[0, 2 ** 40]]),
  fc.integer(),
);

describe('model-cache files, damaged at random', () => {
  test('bytes changed, cut or added, trailer kept: rebuilt, equal to a fresh build', () => {
    fc.assert(
      fc.property(sourceIndex, byteDamage, (k, damage) => {
        const source = sources[k % sources.length]!;
        loadAndCheck(source, damageBytes(source.pristineBytes, damage), true);
      }),
      { seed: SEED, numRuns: RUNS * sources.length },
    );
  });

  test('any column or header field changed, sealed without the key: rebuilt, equal to a fresh build', () => {
    fc.assert(
      fc.property(
        sourceIndex,
        fc.option(columnDamage, { nil: undefined }),
        fc.constantFrom(...HEADER_FIELDS),
        headerValue,
        (k, column, field, value) => {
          const source = sources[k % sources.length]!;
          let damaged = structuredClone(source.pristine);
          if (column) damaged = damageColumn(damaged, column);
          else (damaged.header as Record<string, unknown>)[field] = value;
          loadAndCheck(source, laidOut(damaged, sealWithoutKey(damaged.version)), true);
        },
      ),
      { seed: SEED, numRuns: RUNS * sources.length },
    );
  });

  test('columns the checks cover, changed and sealed with the key: rebuilt unless nothing changed', () => {
    fc.assert(
      fc.property(sourceIndex, columnDamage, (k, damage) => {
        const source = sources[k % sources.length]!;
        const { pristine } = source;
        const n = damage.object % pristine.header.count;
        const isDelta = (t: number): boolean => t === OBJ_OFS_DELTA || t === OBJ_REF_DELTA;
        // Out of what the checks promise: a delta's header size, a delta's result size, OFS for
        // REF, or a delta moved onto another base at the same depth (only the key tells those).
        if (damage.column === 'size' || (damage.column === 'resultSize' && isDelta(pristine.inPackType[n]!))) return;
        if (damage.column === 'inPackType' && isDelta(pristine.inPackType[n]!) && isDelta(damage.value & 0xff)) return;
        if (
          damage.column === 'base' &&
          (damage.value | 0) >= 0 &&
          (damage.value | 0) < pristine.header.count &&
          (damage.value | 0) !== n &&
          !isDescendant(pristine, damage.value | 0, n)
        )
          return;
        const damaged = damageColumn(pristine, damage);
        loadAndCheck(
          source,
          writeModelFile(damaged, sealWithCacheKey(source.cacheDir, damaged.version)),
          !unchanged(source, damaged),
        );
      }),
      { seed: SEED, numRuns: RUNS * sources.length },
    );
  });

  test('header fields changed and sealed with the key: rebuilt unless nothing changed', () => {
    fc.assert(
      fc.property(sourceIndex, fc.constantFrom(...HEADER_FIELDS), headerValue, (k, field, value) => {
        const source = sources[k % sources.length]!;
        const damaged = structuredClone(source.pristine);
        const header = damaged.header as Record<string, unknown>;
        const same = JSON.stringify(header[field]) === JSON.stringify(value);
        header[field] = value;
        loadAndCheck(source, laidOut(damaged, sealWithCacheKey(source.cacheDir, damaged.version)), !same);
      }),
      { seed: SEED, numRuns: RUNS * sources.length },
    );
  });
});

type DerivedName = 'childStart' | 'roots' | 'childList';

type DerivedDamage =
  | { op: 'set'; column: DerivedName; at: number; value: number }
  | { op: 'swap'; column: DerivedName; at: number; other: number }
  | { op: 'shift'; at: number; by: number }
  | { op: 'drop'; at: number }
  | { op: 'add'; value: number };

const derivedDamage: fc.Arbitrary<DerivedDamage> = fc.oneof(
  fc.record({
    op: fc.constant('set' as const),
    column: fc.constantFrom<DerivedName>('childStart', 'roots', 'childList'),
    at: fc.nat(),
    value: columnValue,
  }),
  fc.record({
    op: fc.constant('swap' as const),
    column: fc.constantFrom<DerivedName>('childStart', 'roots', 'childList'),
    at: fc.nat(),
    other: fc.nat(),
  }),
  // A segment boundary moved: a child handed to the neighbouring object.
  fc.record({ op: fc.constant('shift' as const), at: fc.nat(), by: fc.constantFrom(-2, -1, 1, 2) }),
  // One child-list entry removed or one added (the list's length is the file's remainder).
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('add' as const), value: columnValue }),
);

function damageDerived(file: ModelFile, damage: DerivedDamage): ModelFile {
  const copy = structuredClone(file);
  const list = (name: DerivedName): number[] => copy[name]!;
  switch (damage.op) {
    case 'set': {
      const column = list(damage.column);
      if (column.length > 0) column[damage.at % column.length] = damage.value >>> 0;
      break;
    }
    case 'swap': {
      const column = list(damage.column);
      if (column.length > 0) {
        const a = damage.at % column.length;
        const b = damage.other % column.length;
        [column[a], column[b]] = [column[b]!, column[a]!];
      }
      break;
    }
    case 'shift': {
      const column = list('childStart');
      const at = damage.at % column.length;
      column[at] = Math.max(0, column[at]! + damage.by);
      break;
    }
    case 'drop': {
      const column = list('childList');
      if (column.length > 0) column.splice(damage.at % column.length, 1);
      break;
    }
    case 'add':
      list('childList').push(damage.value >>> 0);
      break;
  }
  return copy;
}

describe('model-cache files (format 3): the stored derived columns, damaged and sealed with the key', () => {
  test("the pristine file's derived columns are used as stored", () => {
    for (const source of sources) {
      fs.writeFileSync(modelFileIn(source.cacheDir), source.pristineBytes);
      const loaded = new ModelStore(source.cacheDir).load(source.files);
      assert.equal(loaded.source, 'persisted', source.name);
      assert.deepEqual(modelSnapshot(loaded.model), source.reference, source.name);
      assert.equal(loaded.model.derivedSource, 'stored', source.name);
      assert.ok(source.pristine.childList!.length > 0, `${source.name} has deltas, so child lists to damage`);
    }
  });

  test('child lists or roots changed: never a model other than a fresh build; refused unless nothing changed', () => {
    fc.assert(
      fc.property(sourceIndex, derivedDamage, (k, damage) => {
        const source = sources[k % sources.length]!;
        const damaged = damageDerived(source.pristine, damage);
        const same = (['childStart', 'roots', 'childList'] as const).every(
          (c) => JSON.stringify(damaged[c]) === JSON.stringify(source.pristine[c]),
        );
        fs.writeFileSync(
          modelFileIn(source.cacheDir),
          writeModelFile(damaged, sealWithCacheKey(source.cacheDir, damaged.version)),
        );
        const started = performance.now();
        const loaded = new ModelStore(source.cacheDir).load(source.files);
        // The snapshot asks for the derived columns: they are checked (and refused or used) here.
        const snapshot = modelSnapshot(loaded.model);
        const elapsed = performance.now() - started;
        assert.ok(elapsed < CASE_TIME_LIMIT_MS, `${source.name}: load took ${elapsed.toFixed(0)} ms`);
        assert.deepEqual(
          snapshot,
          source.reference,
          `${source.name}: derived columns differ from a fresh build (${JSON.stringify(loaded.model.derivedSource)})`,
        );
        const verdict = loaded.model.derivedSource;
        if (same) assert.equal(verdict, 'stored', source.name);
        else
          assert.ok(
            typeof verdict === 'object' || loaded.source === 'built',
            `${source.name}: damaged derived columns were used (${JSON.stringify(damage)})`,
          );
        if (loaded.source === 'built') tally.rebuilt++;
        else tally.persisted++;
      }),
      { seed: SEED, numRuns: RUNS * sources.length },
    );
  });
});

/** The file's bytes; a depth width no layout has is written over depths laid out as before. */
function laidOut(file: ModelFile, seal: (body: Buffer) => Buffer): Buffer {
  const width = file.header.depthBytes;
  return writeModelFile(file, seal, width === 2 || width === 4 ? width : 2);
}

/** Whether `candidate`'s chain passes through `object` (so making it `object`'s base closes a cycle). */
function isDescendant(file: ModelFile, candidate: number, object: number): boolean {
  for (let at = candidate, steps = 0; at >= 0 && steps <= file.header.count; at = file.base[at]!, steps++)
    if (at === object) return true;
  return false;
}
