/**
 * Fuzzing the model cache with fast-check: the model files PackScope wrote for
 * real packs (OFS and REF deltas, idx v1, SHA-256), damaged at random, then loaded the way every
 * command loads them. Every case must give a model equal to a fresh build of the pack, persisted or
 * rebuilt, never wrong columns, never an exception, within a time bound. Three kinds of damage:
 *
 * - bytes changed, cut or added, the file's own trailer kept (disk errors, a truncated write);
 * - any column or header field changed and the file sealed by someone without the cache's key:
 *   the seal refuses every one;
 * - columns or header fields changed and the file sealed WITH the key (a writer that has it, or a
 *   bug in ours). The key holder runs code as the user already, so a sealed file's values are not
 *   re-checked column by column (docs/security.md, "The model cache's threat model"): such a file
 *   is read as written, and must not crash or hang what reads it; what a reopen still checks (the
 *   header, the shape, the pack's and idx's identity) must refuse the rest.
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
import type { PackFiles, PackModel } from '../../src/core/model/pack-model.ts';
import { objectSummary, packStats } from '../../src/core/model/pack-stats.ts';
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

const HEADER_FIELDS = [
  'count',
  'packSize',
  'packMtimeMs',
  'idxSize',
  'idxMtimeMs',
  'summary',
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

  test('any column changed and sealed with the key: read as written, never a crash or a hang', () => {
    fc.assert(
      fc.property(sourceIndex, columnDamage, (k, damage) => {
        const source = sources[k % sources.length]!;
        const damaged = damageColumn(source.pristine, damage);
        const bytes = writeModelFile(damaged, sealWithCacheKey(source.cacheDir, damaged.version));
        // Depths 4 bytes wide when the deepest fits in 2 is a shape no build writes: refused.
        if (damaged.header.depthBytes !== source.pristine.header.depthBytes) {
          loadAndCheck(source, bytes, true);
          return;
        }
        fs.writeFileSync(modelFileIn(source.cacheDir), bytes);
        const started = performance.now();
        const loaded = new ModelStore(source.cacheDir).load(source.files);
        assert.equal(loaded.source, 'persisted', `${source.name}: ${loaded.rebuiltBecause ?? ''}`);
        const n = damage.object % damaged.header.count;
        const column = loaded.model.columns[damage.column];
        const read = 'low' in column ? column.low[n] : column[n];
        assert.equal(read, damaged[damage.column][n], `${source.name}: ${damage.column} not read as written`);
        readEverything(loaded.model, n);
        const elapsed = performance.now() - started;
        assert.ok(elapsed < CASE_TIME_LIMIT_MS, `${source.name}: load and reads took ${elapsed.toFixed(0)} ms`);
        tally.persisted++;
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

describe('model-cache files (format 4 and later): the stored derived columns, damaged and sealed with the key', () => {
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

  test('child lists or roots changed: read as written when their lengths hold, else refused; never a crash or a hang', () => {
    fc.assert(
      fc.property(sourceIndex, derivedDamage, (k, damage) => {
        const source = sources[k % sources.length]!;
        const damaged = damageDerived(source.pristine, damage);
        // The child list's length, and its end in childStart, must be the deltas the summary counts.
        const count = source.pristine.header.count;
        const lengthChanged =
          damaged.childList!.length !== source.pristine.childList!.length ||
          damaged.childStart![count] !== source.pristine.childStart![count];
        fs.writeFileSync(
          modelFileIn(source.cacheDir),
          writeModelFile(damaged, sealWithCacheKey(source.cacheDir, damaged.version)),
        );
        const started = performance.now();
        const loaded = new ModelStore(source.cacheDir).load(source.files);
        if (lengthChanged) {
          // Refused on open (the file's length), or when the derived columns are first read (their end).
          const snapshot = modelSnapshot(loaded.model);
          assert.equal(loaded.source, 'built', `${source.name}: a child list of another length was used`);
          assert.deepEqual(snapshot, source.reference, source.name);
          tally.rebuilt++;
        } else {
          assert.equal(loaded.source, 'persisted', `${source.name}: ${loaded.rebuiltBecause ?? ''}`);
          assert.equal(loaded.model.derivedSource, 'stored', source.name);
          for (let n = 0; n < loaded.model.count; n++) readEverything(loaded.model, n);
          tally.persisted++;
        }
        const elapsed = performance.now() - started;
        assert.ok(elapsed < CASE_TIME_LIMIT_MS, `${source.name}: load and reads took ${elapsed.toFixed(0)} ms`);
      }),
      { seed: SEED, numRuns: RUNS * sources.length },
    );
  });
});

/** What the CLI and the server read of a model and one object: none of it may throw or loop. */
function readEverything(model: PackModel, n: number): void {
  packStats(model, 10);
  objectSummary(model, n);
  assert.ok(model.chain(n).length <= model.count, 'a chain longer than the objects');
  model.children(n);
  model.rootOf(n);
  model.familySize(n);
}

function laidOut(file: ModelFile, seal: (body: Buffer) => Buffer): Buffer {
  const width = file.header.depthBytes;
  return writeModelFile(file, seal, width === 2 || width === 4 ? width : 2);
}
