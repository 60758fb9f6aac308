/**
 * Fuzzing the pack readers with fast-check: real packs, idx (v1, v2, large offsets), .rev and
 * multi-pack-index files written by git (SHA-1 and SHA-256), damaged at random — bits flipped, bytes
 * set to 0xff or 0, truncated, ranges spliced in from another pack, ranges duplicated or deleted,
 * entry headers hit on purpose, or entries rewritten (types, sizes, bases, inflated delta payloads)
 * with every checksum recomputed — then read the way the CLI reads them. Every case must end in a
 * result or a PackFormatError that names one of the case's files, an offset inside it and a one-line
 * detail, within a time bound, without allocating a buffer sized by the damage. And a share of
 * each property's cases must get past the signature and version checks, build models and resolve
 * families (Shares), so that the damage reaches the code behind the first checks.
 *
 * Reproduce a failure with the seed it prints: PACKSCOPE_FUZZ_SEED=<seed> (and
 * PACKSCOPE_FUZZ_RUNS=<n> to run more or fewer cases per property).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { PackScopeError } from '../../src/core/errors.ts';
import { loadMultiPackIndex } from '../../src/core/format/midx.ts';
import { buildPackModel, loadIdx, packFilesFor, packOrder } from '../../src/core/model/build-pack-model.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { packStats } from '../../src/core/model/pack-stats.ts';
import { verifyChecksums } from '../../src/core/verify/checksums.ts';
import { resolveFamilies } from '../support/family-task.ts';
import { buildFixturePacks, buildMidxPackDir, buildSha256Pack } from '../support/fixture-packs.ts';
import { tempDir } from '../support/git.ts';
import {
  assemble,
  copyInstruction,
  deltaPayload,
  encodeDeltaSize,
  hashSizeOf,
  insertInstruction,
  OBJ_BLOB,
  OBJ_OFS_DELTA,
  OBJ_REF_DELTA,
  objectId,
  readIdxEntries,
  readPack,
  readPackSet,
  reseal,
  resealIdx,
  zlib,
  type AssembleOptions,
  type HashName,
  type PackParts,
  type PackSet,
} from '../support/pack-surgery.ts';

const SEED = Number(process.env.PACKSCOPE_FUZZ_SEED ?? 20240611);
const RUNS = Number(process.env.PACKSCOPE_FUZZ_RUNS ?? 1200);
/** Per case, for everything it runs; the packs are a few dozen KiB, so this is generous. */
const CASE_TIME_LIMIT_MS = 2000;

interface Source {
  name: string;
  set: PackSet;
  hash: HashName;
  /** Entry offsets in pack order, for mutations aimed at entry headers. */
  entries: number[];
  /** The entries themselves, for mutations of headers, bases and inflated payloads. */
  parts: PackParts;
  /** How to write the entries again (idx version, .rev, large offsets). */
  layout: AssembleOptions;
}

/**
 * The engine's fixed buffers (pack window, checksum chunk) are 8 MiB; anything larger for packs of
 * a few dozen KiB was sized by a number read from the damaged bytes.
 */
const MAX_ALLOCATION_BYTES = 8 << 20;
const allocationWatch = { largest: 0 };
/** Every case of every property, for the closing log line. */
const totals = { cases: 0, properties: 0, started: 0 };

let root: string;
let sources: Source[];
let restoreBuffer = (): void => undefined;
/** A multi-pack-index git wrote over three packs, the ids it covers, and where cases are written. */
let midx: { bytes: Buffer; oids: Buffer[]; dir: string };
let caseDir: string;

/** A pack of every delta shape in a few entries: OFS and REF deltas, a REF base after its delta. */
function handmadeSet(): PackSet {
  const text = Buffer.from('the quick brown fox jumps over the lazy dog\n'.repeat(4));
  const changed = Buffer.concat([text.subarray(0, 40), Buffer.from('cat'), text.subarray(43)]);
  const payload = deltaPayload(
    text.length,
    changed.length,
    Buffer.concat([
      copyInstruction(0, 40),
      insertInstruction(Buffer.from('cat')),
      copyInstruction(43, text.length - 43),
    ]),
  );
  const base = objectId(OBJ_BLOB, text);
  const later = Buffer.from('a base that comes after its delta\n');
  const laterPayload = deltaPayload(later.length, 5, insertInstruction(Buffer.from('short')));
  const inserts = deltaPayload(
    text.length,
    300,
    Buffer.concat(Array.from({ length: 3 }, () => insertInstruction(Buffer.alloc(100, 'x')))),
  );
  return assemble(
    {
      hash: 'sha1',
      version: 2,
      entries: [
        { oid: base, type: OBJ_BLOB, size: text.length, data: zlib(text) },
        { oid: objectId(OBJ_BLOB, changed), type: OBJ_OFS_DELTA, size: payload.length, base: 0, data: zlib(payload) },
        {
          oid: objectId(OBJ_BLOB, Buffer.from('short')),
          type: OBJ_REF_DELTA,
          size: laterPayload.length,
          baseOid: objectId(OBJ_BLOB, later),
          data: zlib(laterPayload),
        },
        { oid: objectId(OBJ_BLOB, later), type: OBJ_BLOB, size: later.length, data: zlib(later) },
        {
          oid: objectId(OBJ_BLOB, Buffer.from('x'.repeat(300))),
          type: OBJ_REF_DELTA,
          size: inserts.length,
          baseOid: base,
          data: zlib(inserts),
        },
      ],
    },
    { rev: true },
  );
}

before(() => {
  totals.started = performance.now();
  root = tempDir(undefined, 'packscope-fuzz-');
  const fixtures = buildFixturePacks(root, { commits: 30, seed: 11 });
  const sha256 = buildSha256Pack(root, { commits: 15 });
  const ofs = readPackSet(fixtures.ofs);
  // The same objects with half of the offsets in the idx's large-offset table (§6.2).
  const largeOffsets: AssembleOptions = { rev: true, largeOffsetsFrom: Math.floor(ofs.pack.length / 2) };
  const sets: [string, PackSet, HashName, AssembleOptions][] = [
    ['ofs+rev', ofs, 'sha1', { rev: true }],
    ['ref', readPackSet(fixtures.ref), 'sha1', {}],
    ['idx-v1', readPackSet(fixtures.v1), 'sha1', { idxVersion: 1 }],
    ['empty', readPackSet(fixtures.empty), 'sha1', {}],
    ['handmade+rev', handmadeSet(), 'sha1', { rev: true }],
    ['sha256+rev', readPackSet(sha256), 'sha256', { rev: true }],
    ['large-offsets+rev', assemble(readPack(ofs.pack, ofs.idx), largeOffsets), 'sha1', largeOffsets],
  ];
  sources = sets.map(([name, set, hash, layout]) => ({
    name,
    set,
    hash,
    layout,
    entries: readIdxEntries(set.idx, hash)
      .map((e) => e.offset)
      .sort((a, b) => a - b),
    parts: readPack(set.pack, set.idx, hash),
  }));
  caseDir = path.join(root, 'case');
  fs.mkdirSync(caseDir);
  const midxFixture = buildMidxPackDir(root);
  midx = {
    bytes: fs.readFileSync(path.join(midxFixture.packDir, 'multi-pack-index')),
    oids: midxFixture.oids,
    dir: path.join(root, 'midx-case'),
  };
  fs.mkdirSync(midx.dir);
  // Every Buffer the engine sizes from input goes through these two.
  const { alloc, allocUnsafe } = Buffer;
  restoreBuffer = () => Object.assign(Buffer, { alloc, allocUnsafe });
  Buffer.allocUnsafe = (size: number) => {
    allocationWatch.largest = Math.max(allocationWatch.largest, size);
    return allocUnsafe(size);
  };
  Buffer.alloc = ((size: number, ...rest: Parameters<typeof Buffer.alloc> extends [number, ...infer R] ? R : never) => {
    allocationWatch.largest = Math.max(allocationWatch.largest, size);
    return alloc(size, ...rest);
  }) as typeof Buffer.alloc;
});

after(() => {
  console.log(
    `fuzz total: ${totals.cases} cases in ${totals.properties} properties (seed ${SEED}, ${RUNS} runs per unit), ${((performance.now() - totals.started) / 1000).toFixed(1)} s`,
  );
  restoreBuffer();
  fs.rmSync(root, { recursive: true, force: true });
});

type Target = 'pack' | 'idx' | 'rev';

/** Where a mutation lands: anywhere, near the start (headers, fan-out), or on an entry's header. */
type Position =
  { kind: 'any'; at: number } | { kind: 'head'; at: number } | { kind: 'entry'; entry: number; at: number };

type Mutation =
  | { op: 'flip'; target: Target; where: Position; mask: number }
  | { op: 'fill'; target: Target; where: Position; length: number; value: number }
  | { op: 'truncate'; target: Target; where: Position }
  | { op: 'splice'; target: Target; where: Position; length: number; from: number; source: number; insert: boolean }
  | { op: 'duplicate'; target: Target; where: Position; length: number; to: number }
  | { op: 'delete'; target: Target; where: Position; length: number };

const position: fc.Arbitrary<Position> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('any' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('head' as const), at: fc.nat({ max: 48 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('entry' as const), entry: fc.nat(), at: fc.nat({ max: 24 }) }),
  },
);

function mutation(targets: fc.Arbitrary<Target>): fc.Arbitrary<Mutation> {
  const length = fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 512 }));
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        op: fc.constant('flip' as const),
        target: targets,
        where: position,
        mask: fc.integer({ min: 1, max: 255 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('fill' as const),
        target: targets,
        where: position,
        length,
        value: fc.constantFrom(0xff, 0x00, 0x80, 0x7f),
      }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('truncate' as const), target: targets, where: position }) },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('splice' as const),
        target: targets,
        where: position,
        length,
        from: fc.nat(),
        source: fc.nat(),
        insert: fc.boolean(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('duplicate' as const),
        target: targets,
        where: position,
        length,
        to: fc.nat(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ op: fc.constant('delete' as const), target: targets, where: position, length }),
    },
  );
}

/** `entries`: offsets that 'entry' positions aim at (pack entries), or none. */
function locate(where: Position, bytes: Buffer, entries: number[]): number {
  const size = Math.max(1, bytes.length);
  if (where.kind === 'entry' && entries.length > 0) return (entries[where.entry % entries.length]! + where.at) % size;
  return where.at % size;
}

function apply(set: PackSet, m: Mutation, source: Source): PackSet {
  const original = m.target === 'rev' ? set.rev : set[m.target];
  if (!original) return set;
  const bytes = mutateBytes(original, m, m.target === 'pack' ? source.entries : []);
  return m.target === 'rev' ? { ...set, rev: bytes } : { ...set, [m.target]: bytes };
}

function mutateBytes(original: Buffer, m: Mutation, entries: number[]): Buffer {
  const at = locate(m.where, original, entries);
  let bytes: Buffer;
  switch (m.op) {
    case 'flip':
      bytes = Buffer.from(original);
      if (bytes.length > 0) bytes[at] ^= m.mask;
      break;
    case 'fill':
      bytes = Buffer.from(original);
      bytes.fill(m.value, at, Math.min(bytes.length, at + m.length));
      break;
    case 'truncate':
      bytes = original.subarray(0, at);
      break;
    case 'splice': {
      const donor = sources[m.source % sources.length]!.set.pack;
      const from = m.from % Math.max(1, donor.length);
      const piece = donor.subarray(from, from + m.length);
      bytes = Buffer.concat([original.subarray(0, at), piece, original.subarray(m.insert ? at : at + piece.length)]);
      break;
    }
    case 'duplicate': {
      const piece = original.subarray(at, at + m.length);
      const to = m.to % (original.length + 1);
      bytes = Buffer.concat([original.subarray(0, to), piece, original.subarray(to)]);
      break;
    }
    case 'delete':
      bytes = Buffer.concat([original.subarray(0, at), original.subarray(at + m.length)]);
      break;
  }
  return bytes;
}

interface FuzzCase {
  source: number;
  mutations: Mutation[];
  /** Recompute trailers and CRCs afterwards, so the damage gets past the checksums to --full. */
  reseal: 'none' | 'all' | 'idx';
}

function fuzzCase(targets: fc.Arbitrary<Target>, maxMutations: number): fc.Arbitrary<FuzzCase> {
  return fc.record({
    source: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(0, 1) },
      { weight: 4, arbitrary: fc.constantFrom(2, 4, 5, 6) },
      { weight: 1, arbitrary: fc.constant(3) },
    ),
    mutations: fc.array(mutation(targets), { minLength: 1, maxLength: maxMutations }),
    reseal: fc.constantFrom('none' as const, 'all' as const, 'all' as const, 'idx' as const),
  });
}

function damaged(c: FuzzCase): PackSet {
  const source = sources[c.source]!;
  let set: PackSet = { ...source.set };
  for (const m of c.mutations) set = apply(set, m, source);
  if (c.reseal === 'all') set = reseal(set, source.hash);
  else if (c.reseal === 'idx' && set.idx.length >= 2 * hashSizeOf(source.hash))
    set = { ...set, idx: resealIdx(set.idx, source.hash) };
  return set;
}

/**
 * Mutations of the entries themselves; the pack, idx and .rev are then written afresh with every
 * checksum right, so each case reaches the model's chain resolution and --full.
 */
type EntryMutation =
  | { op: 'type'; entry: number; type: number }
  | { op: 'size'; entry: number; size: number }
  | { op: 'distance'; entry: number; distance: number }
  | { op: 'ofs-base'; entry: number; base: number }
  | { op: 'ref-base'; entry: number; base: number }
  | { op: 'payload'; entry: number; at: number; value: number; keepSize: boolean }
  | { op: 'payload-cut'; entry: number; at: number; keepSize: boolean }
  | { op: 'delta-size'; entry: number; which: 0 | 1; value: number }
  | { op: 'drop'; entry: number }
  | { op: 'rename'; entry: number; seed: number };

/** Sizes around the limits: 32 bits, the Buffer limit, 53 bits, and varints too long for 53 bits. */
const HUGE_SIZES = [2 ** 20 + 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 50, 2 ** 53 - 1, 2 ** 56, 2 ** 63];

const entryMutation: fc.Arbitrary<EntryMutation> = fc.oneof(
  fc.record({ op: fc.constant('type' as const), entry: fc.nat(), type: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    op: fc.constant('size' as const),
    entry: fc.nat(),
    size: fc.oneof(fc.nat({ max: 5000 }), fc.constantFrom(...HUGE_SIZES)),
  }),
  fc.record({
    op: fc.constant('distance' as const),
    entry: fc.nat(),
    distance: fc.oneof(fc.nat({ max: 64 }), fc.nat()),
  }),
  fc.record({ op: fc.constant('ofs-base' as const), entry: fc.nat(), base: fc.nat() }),
  fc.record({ op: fc.constant('ref-base' as const), entry: fc.nat(), base: fc.nat() }),
  fc.record({
    op: fc.constant('payload' as const),
    entry: fc.nat(),
    at: fc.oneof(fc.nat({ max: 16 }), fc.nat()),
    value: fc.nat({ max: 255 }),
    keepSize: fc.boolean(),
  }),
  fc.record({ op: fc.constant('payload-cut' as const), entry: fc.nat(), at: fc.nat(), keepSize: fc.boolean() }),
  fc.record({
    op: fc.constant('delta-size' as const),
    entry: fc.nat(),
    which: fc.constantFrom(0 as const, 1 as const),
    value: fc.oneof(fc.nat({ max: 5000 }), fc.constantFrom(...HUGE_SIZES)),
  }),
  fc.record({ op: fc.constant('drop' as const), entry: fc.nat() }),
  fc.record({ op: fc.constant('rename' as const), entry: fc.nat(), seed: fc.nat() }),
);

/** The delta header's two varints and the rest of an inflated delta payload, or undefined. */
function splitDelta(payload: Buffer): { sizes: [number, number]; rest: Buffer } | undefined {
  const sizes: number[] = [];
  let pos = 0;
  for (let k = 0; k < 2; k++) {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (pos >= payload.length || scale > 2 ** 49) return undefined;
      const c = payload[pos++]!;
      value += (c & 0x7f) * scale;
      scale *= 128;
      if (!(c & 0x80)) break;
    }
    sizes.push(value);
  }
  return { sizes: [sizes[0]!, sizes[1]!], rest: payload.subarray(pos) };
}

function mutateEntries(source: Source, mutations: EntryMutation[]): PackParts {
  const entries = source.parts.entries.map((e) => ({ ...e }));
  for (const m of mutations) {
    if (entries.length === 0) break;
    const i = m.entry % entries.length;
    const e = entries[i]!;
    switch (m.op) {
      case 'type':
        e.type = m.type;
        break;
      case 'size':
        e.size = m.size;
        break;
      case 'distance':
        e.distance = m.distance;
        break;
      case 'ofs-base':
        // Only an earlier entry can be named by index; later ones become distances past the start.
        if (m.base % (i + 1) < i) {
          e.base = m.base % (i + 1);
          delete e.distance;
        } else {
          e.distance = m.base;
        }
        e.type = OBJ_OFS_DELTA;
        delete e.baseOid;
        break;
      case 'ref-base':
        e.type = OBJ_REF_DELTA;
        e.baseOid = entries[m.base % entries.length]!.oid;
        delete e.base;
        delete e.distance;
        break;
      case 'payload':
      case 'payload-cut': {
        let payload: Buffer;
        try {
          payload = inflateSync(e.data);
        } catch {
          break; // an earlier mutation already broke it
        }
        if (m.op === 'payload') {
          if (payload.length > 0) payload[m.at % payload.length] = m.value;
        } else {
          payload = payload.subarray(0, m.at % (payload.length + 1));
        }
        e.data = zlib(payload);
        if (!m.keepSize) e.size = payload.length;
        break;
      }
      case 'delta-size': {
        let payload: Buffer;
        try {
          payload = inflateSync(e.data);
        } catch {
          break;
        }
        const split = splitDelta(payload);
        if (!split) break;
        split.sizes[m.which] = m.value;
        payload = Buffer.concat([encodeDeltaSize(split.sizes[0]), encodeDeltaSize(split.sizes[1]), split.rest]);
        e.data = zlib(payload);
        e.size = payload.length;
        break;
      }
      case 'drop':
        entries.splice(i, 1);
        for (const other of entries) {
          if (other.base === undefined) continue;
          if (other.base === i) {
            delete other.base;
            other.distance = 1;
          } else if (other.base > i) {
            other.base--;
          }
        }
        break;
      case 'rename':
        e.oid = objectId(OBJ_BLOB, Buffer.from(`renamed ${m.seed}`), source.hash);
        break;
    }
  }
  return { ...source.parts, entries };
}

interface EntryCase {
  source: number;
  mutations: EntryMutation[];
}

/**
 * The least share of a property's cases that must get past the files' signature and version
 * checks, build a model (or load the MIDX) and resolve every family (or find every id): damage
 * that is always rejected at the first check would test nothing behind it. Each property's numbers
 * are about half of what the default seed gives (the fixtures git writes differ slightly per run).
 */
interface Shares {
  pastHeaders: number;
  built: number;
  resolved: number;
}

/** Below this many cases (PACKSCOPE_FUZZ_RUNS can make a property that small) a share says little. */
const MIN_CASES_FOR_SHARES = 200;

/** Counts per outcome, for the log: "ok", or the first failing step (model, checksums, --full) and its code. */
class Tally {
  readonly outcomes = new Map<string, number>();
  cases = 0;
  modelsBuilt = 0;
  familiesResolved = 0;
  slowestMs = 0;
  totalMs = 0;

  constructor(private readonly labels = { built: 'models built', resolved: 'fully resolved' }) {}

  /** Ends a case started at `started`: checks its time and allocations, counts its outcome. */
  finish(started: number, outcome: string, what: string): void {
    const elapsed = performance.now() - started;
    this.cases++;
    totals.cases++;
    this.totalMs += elapsed;
    this.slowestMs = Math.max(this.slowestMs, elapsed);
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    assert.ok(
      allocationWatch.largest <= MAX_ALLOCATION_BYTES,
      `allocated ${allocationWatch.largest} bytes reading ${what}`,
    );
    assert.ok(elapsed < CASE_TIME_LIMIT_MS, `case took ${elapsed.toFixed(0)} ms (limit ${CASE_TIME_LIMIT_MS} ms)`);
  }

  /** Cases whose first failure (if any) is not a file's signature or version. */
  get pastHeaders(): number {
    let rejected = 0;
    for (const [outcome, count] of this.outcomes) if (/:bad-(magic|version)$/.test(outcome)) rejected += count;
    return this.cases - rejected;
  }

  assertShares(least: Shares): void {
    if (this.cases < MIN_CASES_FOR_SHARES) return;
    const reached = (what: string, count: number, share: number): void =>
      assert.ok(
        count >= share * this.cases,
        `${what}: ${count} of ${this.cases} cases, fewer than ${share * 100}%: ${this.summary()}`,
      );
    reached('past the signature and version checks', this.pastHeaders, least.pastHeaders);
    reached(this.labels.built, this.modelsBuilt, least.built);
    reached(this.labels.resolved, this.familiesResolved, least.resolved);
  }

  summary(): string {
    const outcomes = [...this.outcomes]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    return `${this.cases} cases (seed ${SEED}), ${this.modelsBuilt} ${this.labels.built}, ${this.familiesResolved} ${this.labels.resolved}; slowest ${this.slowestMs.toFixed(1)} ms, mean ${(this.totalMs / Math.max(1, this.cases)).toFixed(2)} ms; outcomes: ${outcomes}`;
  }
}

/** Writes the case's files over the previous case's (a missing .rev is removed). */
function writeCase(set: PackSet): { pack: string; idx: string; rev: string } {
  const stem = path.join(caseDir, 'pack-fuzz');
  const files = { pack: `${stem}.pack`, idx: `${stem}.idx`, rev: `${stem}.rev` };
  fs.writeFileSync(files.pack, set.pack);
  fs.writeFileSync(files.idx, set.idx);
  if (set.rev) fs.writeFileSync(files.rev, set.rev);
  else fs.rmSync(files.rev, { force: true });
  return files;
}

/**
 * Runs one step; returns its result, or undefined after checking that what it threw is a
 * well-formed PackFormatError about one of the case's files.
 */
function step<T>(what: string, sizes: Map<string, number>, tally: { first?: string }, run: () => T): T | undefined {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof PackScopeError)) {
      throw new Error(
        `${what} threw something other than a PackScopeError: ${error instanceof Error ? error.stack : String(error)}`,
      );
    }
    const size = error.file === undefined ? undefined : sizes.get(error.file);
    assert.ok(size !== undefined, `${what}: error names ${error.file}, not one of the case's files: ${error.message}`);
    if (error.offset !== undefined) {
      assert.ok(
        Number.isSafeInteger(error.offset) && error.offset >= 0 && error.offset <= size,
        `${what}: offset ${error.offset} is outside ${error.file} (${size} bytes): ${error.message}`,
      );
    }
    // The CLI prints errors as one line on a terminal: no bytes from the input as control characters.
    assert.doesNotMatch(
      error.message,
      /[\x00-\x1f\x7f]/,
      `${what}: control character in ${JSON.stringify(error.message)}`,
    );
    assert.ok(error.detail.length > 0);
    tally.first ??= `${what}:${error.code}`;
    return undefined;
  }
}

/** Everything `verify-pack --full` and `stats` run on a pack, in their order. */
function readLikeTheCli(set: PackSet, tally: Tally, resolve: boolean): void {
  const paths = writeCase(set);
  const files = packFilesFor(paths.pack);
  const sizes = new Map([
    [paths.pack, set.pack.length],
    [paths.idx, set.idx.length],
  ]);
  if (set.rev) sizes.set(paths.rev, set.rev.length);
  const first: { first?: string } = {};
  allocationWatch.largest = 0;
  const started = performance.now();

  const model: PackModel | undefined = step('model', sizes, first, () => buildPackModel(files));
  step('header-only model', sizes, {}, () => buildPackModel(files, { resultSizes: false }));
  // The checksum worker runs on the idx and its own pack order, whatever the model build finds.
  step('checksums (worker)', sizes, model ? first : {}, () => {
    const index = loadIdx(files);
    return verifyChecksums(files, index, packOrder(files, index, false));
  });
  if (model) {
    tally.modelsBuilt++;
    packStats(model, 5);
    step('checksums', sizes, first, () => verifyChecksums(files, model.index, model.columns.byOffset));
    if (resolve && step('--full', sizes, first, () => resolveFamilies(model)) !== undefined) tally.familiesResolved++;
  }
  tally.finish(started, first.first ?? 'ok', `a ${set.pack.length}-byte pack`);
}

/** What the object store does with a MIDX: load it, then look ids up (present ones and absent ones). */
function readMidx(bytes: Buffer, tally: Tally): void {
  const file = path.join(midx.dir, 'multi-pack-index');
  fs.writeFileSync(file, bytes);
  const sizes = new Map([[file, bytes.length]]);
  const first: { first?: string } = {};
  allocationWatch.largest = 0;
  const started = performance.now();
  const loaded = step('midx', sizes, first, () => loadMultiPackIndex(midx.dir));
  if (loaded) {
    tally.modelsBuilt++;
    const absent = [Buffer.alloc(20), Buffer.alloc(20, 0xff), Buffer.alloc(20, 0x80)];
    let found = 0;
    for (const oid of [...midx.oids, ...absent]) {
      const hit = step('midx lookup', sizes, first, () => loaded.lookup(oid) ?? null);
      if (hit === undefined) break;
      if (hit !== null) found++;
    }
    if (found === midx.oids.length) tally.familiesResolved++;
  }
  tally.finish(started, first.first ?? 'ok', `a ${bytes.length}-byte MIDX`);
}

/** Runs `check` for each case of `arbitrary` under the fixed seed, and logs the tally either way. */
function runProperty<C>(
  t: TestContext,
  name: string,
  tally: Tally,
  arbitrary: fc.Arbitrary<C>,
  runs: number,
  check: (c: C) => void,
): void {
  const started = performance.now();
  totals.properties++;
  try {
    fc.assert(fc.property(arbitrary, check), { seed: SEED, numRuns: runs });
  } finally {
    const line = `${name}: ${tally.summary()}; ${((performance.now() - started) / 1000).toFixed(1)} s`;
    t.diagnostic(line);
    console.log(`fuzz ${line}`);
  }
}

function fuzzPacks<C>(
  t: TestContext,
  name: string,
  arbitrary: fc.Arbitrary<C>,
  runs: number,
  damage: (c: C) => PackSet,
  resolve: (c: C) => boolean,
  least: Shares,
): void {
  const tally = new Tally();
  runProperty(t, name, tally, arbitrary, runs, (c) => readLikeTheCli(damage(c), tally, resolve(c)));
  tally.assertShares(least);
}

describe('fuzz: damaged git packs end in a result or a PackFormatError', { timeout: 300_000 }, () => {
  test('the undamaged fixtures read cleanly', (t) => {
    const tally = new Tally();
    for (const source of sources) readLikeTheCli(source.set, tally, true);
    assert.deepEqual([...tally.outcomes], [['ok', sources.length]], tally.summary());
    t.diagnostic(tally.summary());
  });

  test('pack bytes', (t) => {
    // Resolving every family is the slow part; half of the cases do it (the resealed ones mostly).
    // Default seed: 91% past the headers, 25% models, 2.5% resolved.
    fuzzPacks(
      t,
      'pack bytes',
      fuzzCase(fc.constant('pack'), 3),
      RUNS * 2,
      damaged,
      (c) => c.reseal === 'all' || c.mutations.length === 1,
      { pastHeaders: 0.75, built: 0.12, resolved: 0.01 },
    );
  });

  test('idx bytes', (t) => {
    // Default seed: 75% past the headers, 5.3% models, 1.2% resolved.
    fuzzPacks(t, 'idx bytes', fuzzCase(fc.constant('idx'), 3), RUNS, damaged, () => true, {
      pastHeaders: 0.6,
      built: 0.025,
      resolved: 0.005,
    });
  });

  test('.rev bytes', (t) => {
    const withRev = fc.record({
      source: fc.constantFrom(0, 4, 5, 6),
      mutations: fc.array(mutation(fc.constant('rev')), { minLength: 1, maxLength: 3 }),
      reseal: fc.constantFrom('none' as const, 'all' as const),
    });
    // Default seed: 75% past the headers, 2% models, all of them resolved.
    fuzzPacks(t, '.rev bytes', withRev, Math.ceil(RUNS / 2), damaged, () => true, {
      pastHeaders: 0.6,
      built: 0.01,
      resolved: 0.01,
    });
  });

  test('entry headers, bases and inflated payloads (checksums all valid)', (t) => {
    const arbitrary: fc.Arbitrary<EntryCase> = fc.record({
      source: fc.constantFrom(0, 1, 2, 4, 4, 5, 6),
      mutations: fc.array(entryMutation, { minLength: 1, maxLength: 3 }),
    });
    const rewrite = (c: EntryCase): PackSet => {
      const source = sources[c.source]!;
      return assemble(mutateEntries(source, c.mutations), source.layout);
    };
    // Default seed: every case past the headers (they are written afresh), 70% models, 3.9% resolved.
    fuzzPacks(t, 'entries', arbitrary, RUNS, rewrite, () => true, { pastHeaders: 0.95, built: 0.5, resolved: 0.02 });
  });

  test('multi-pack-index bytes', (t) => {
    const tally = new Tally({ built: 'loaded', resolved: 'with every id found' });
    readMidx(midx.bytes, tally);
    assert.deepEqual([...tally.outcomes], [['ok', 1]], 'the undamaged MIDX reads cleanly');
    runProperty(
      t,
      'multi-pack-index',
      tally,
      fc.array(mutation(fc.constant('pack')), { minLength: 1, maxLength: 3 }),
      Math.ceil(RUNS / 2),
      (mutations) => {
        let bytes = midx.bytes;
        for (const m of mutations) bytes = mutateBytes(bytes, m, []);
        readMidx(bytes, tally);
      },
    );
    // Default seed: 85% past the headers, 16% loaded, 1.5% with every id found.
    tally.assertShares({ pastHeaders: 0.7, built: 0.08, resolved: 0.005 });
  });

  test('pack, idx and .rev together', (t) => {
    // Default seed: 85% past the headers, 14% models, 3.9% resolved.
    fuzzPacks(
      t,
      'all files',
      fuzzCase(fc.constantFrom('pack', 'idx', 'rev'), 4),
      RUNS,
      damaged,
      (c) => c.reseal === 'all',
      { pastHeaders: 0.7, built: 0.07, resolved: 0.02 },
    );
  });
});
