// index-pack-sim on a bare .pack (what a fetch or `pack-objects --stdout` gives index-pack): the
// pack is indexed from its bytes alone, and the index must be the one git index-pack writes.
import { test, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PackFormatError } from '../../src/core/errors.ts';
import { SHA1, SHA256, type HashAlgorithm } from '../../src/core/format/hash-algorithm.ts';
import { indexPackWithoutIdx } from '../../src/core/format/pack-stream-index.ts';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { indexPackVariantFor, simulateIndexPack } from '../../src/core/sim/index-pack-sim.ts';
import { INDEX_PACK_VARIANTS } from '../../src/core/report/index-pack-sim.ts';
import { GitSandbox, runCli, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';

const MIB = 1024 * 1024;

interface Bench {
  sandbox: GitSandbox;
  repo: string;
  outside: string;
}

/** A history repository, and a directory with no repository above it for the bare packs. */
function bench(t: TestContext, objectFormat: 'sha1' | 'sha256' = 'sha1'): Bench {
  const sandbox = new GitSandbox(tempDir(t, 'packscope-no-idx-'));
  const repo = sandbox.init('repo', { bare: true, objectFormat });
  sandbox.fastImport(repo, historyStream({ commits: 250, seed: 17, binaryRate: 0.2 }));
  const outside = path.join(sandbox.root, 'outside');
  fs.mkdirSync(outside);
  return { sandbox, repo, outside };
}

/** `git pack-objects --stdout` of `revs` to `name`.pack outside the repository: no .idx. */
function stdoutPack(b: Bench, name: string, args: string[], revs?: string): string {
  const pack = b.sandbox.git(
    b.repo,
    [
      '-c',
      'pack.threads=1',
      'pack-objects',
      '-q',
      ...(revs === undefined ? ['--all'] : []),
      '--revs',
      '--stdout',
      ...args,
    ],
    { input: revs ?? '' },
  );
  const packPath = path.join(b.outside, `${name}.pack`);
  fs.writeFileSync(packPath, pack);
  assert.equal(fs.existsSync(path.join(b.outside, `${name}.idx`)), false);
  return packPath;
}

/** The .idx git index-pack writes for the pack (into a copy's directory, so the bare pack stays bare). */
function gitIdx(b: Bench, packPath: string, hash: HashAlgorithm): Buffer {
  const dir = fs.mkdtempSync(path.join(b.sandbox.root, 'git-index-'));
  const copy = path.join(dir, path.basename(packPath));
  fs.copyFileSync(packPath, copy);
  b.sandbox.git(dir, ['index-pack', `--object-format=${hash.name}`, copy], {
    env: { GIT_CEILING_DIRECTORIES: b.sandbox.root },
  });
  return fs.readFileSync(copy.replace(/\.pack$/, '.idx'));
}

function assertIndexedLikeGit(b: Bench, packPath: string, hash: HashAlgorithm, maxHeldBaseBytes?: number): void {
  const index = indexPackWithoutIdx(packPath, maxHeldBaseBytes === undefined ? { hash } : { hash, maxHeldBaseBytes });
  assert.ok(
    index.bytes.equals(gitIdx(b, packPath, hash)),
    `${path.basename(packPath)}: the computed index is byte for byte git index-pack's .idx`,
  );
}

test('a bare pack of OFS deltas and one of REF deltas are indexed byte for byte as git index-pack does', (t) => {
  const b = bench(t);
  const ofs = stdoutPack(b, 'ofs', ['--delta-base-offset']);
  const ref = stdoutPack(b, 'ref', []);
  for (const packPath of [ofs, ref]) assertIndexedLikeGit(b, packPath, SHA1);
  // Without --delta-base-offset pack-objects writes REF_DELTA (git-internals §6.1): check the packs are what they claim.
  const counts = (packPath: string) =>
    buildPackModel(packFilesFor(packPath), {
      index: indexPackWithoutIdx(packPath, { hash: SHA1 }),
      hash: SHA1,
    }).counts();
  assert.ok(counts(ofs).ofsDeltas > 0 && counts(ofs).refDeltas === 0);
  assert.ok(counts(ref).refDeltas > 0 && counts(ref).ofsDeltas === 0);
});

test("resolving within a 1-byte base budget rebuilds dropped bases and still gives git's index; progress reaches 2N of 2N", (t) => {
  const b = bench(t);
  const packPath = stdoutPack(b, 'deep', ['--delta-base-offset', '--depth=50']);
  assertIndexedLikeGit(b, packPath, SHA1, 1);
  const seen: [number, number][] = [];
  const index = indexPackWithoutIdx(packPath, { hash: SHA1, onProgress: (done, total) => seen.push([done, total]) });
  assert.ok(seen.length > 0);
  assert.deepEqual(seen.at(-1), [2 * index.count, 2 * index.count]);
  assert.ok(seen.every(([done, total], i) => total === 2 * index.count && (i === 0 || done >= seen[i - 1]![0])));
});

test('a SHA-256 bare pack is indexed like git index-pack --object-format=sha256', (t) => {
  const b = bench(t, 'sha256');
  assertIndexedLikeGit(b, stdoutPack(b, 'sha256', ['--delta-base-offset']), SHA256);
});

test('index-pack-sim of a bare pack equals the same pack with its idx, and real index-pack --threads=1', (t) => {
  const b = bench(t);
  const shim = buildInflateCounter(b.sandbox.root);
  const version = b.sandbox.gitText(b.sandbox.root, ['--version']);
  const variant = indexPackVariantFor(version);
  assert.ok(variant !== undefined, `an index-pack model for ${version.trim()}`);
  for (const [name, args] of [
    ['ofs', ['--delta-base-offset']],
    ['ref', []],
  ] as const) {
    const packPath = stdoutPack(b, name, [...args]);
    const bare = buildPackModel(packFilesFor(packPath), {
      index: indexPackWithoutIdx(packPath, { hash: SHA1 }),
      hash: SHA1,
    });
    // The same pack with git's idx next to it, in another directory.
    const withIdxDir = fs.mkdtempSync(path.join(b.sandbox.root, 'with-idx-'));
    const withIdxPack = path.join(withIdxDir, `${name}.pack`);
    fs.copyFileSync(packPath, withIdxPack);
    fs.writeFileSync(withIdxPack.replace(/\.pack$/, '.idx'), gitIdx(b, packPath, SHA1));
    const indexed = buildPackModel(packFilesFor(withIdxPack));
    for (const limit of [0, 16 * 1024, 96 * MIB]) {
      for (const v of INDEX_PACK_VARIANTS)
        assert.deepEqual(
          simulateIndexPack(bare, { limit, variant: v }),
          simulateIndexPack(indexed, { limit, variant: v }),
          `${name} ${v} at ${limit}`,
        );
      const counts = path.join(b.sandbox.root, `count-${name}-${limit}`);
      const realDir = fs.mkdtempSync(path.join(b.sandbox.root, 'real-'));
      b.sandbox.git(
        realDir,
        [
          '-c',
          `core.deltaBaseCacheLimit=${limit}`,
          'index-pack',
          '--threads=1',
          '-o',
          path.join(realDir, 'x.idx'),
          packPath,
        ],
        {
          env: { GIT_CEILING_DIRECTORIES: b.sandbox.root, ...countingEnv(shim, counts) },
        },
      );
      assert.equal(
        simulateIndexPack(bare, { limit, variant }).inflations,
        readInflateCount(counts),
        `${name} at ${limit}: simulated vs real index-pack`,
      );
    }
  }
});

test('packscope index-pack-sim takes a bare pack: the same --json as with its idx, and says it indexed it', (t) => {
  const b = bench(t);
  const packPath = stdoutPack(b, 'cli', []);
  const bare = runCli(['index-pack-sim', '--json', '--limit', '16k', packPath]);
  assert.equal(bare.status, 0, bare.stderr);
  const withIdxDir = fs.mkdtempSync(path.join(b.sandbox.root, 'with-idx-'));
  const withIdxPack = path.join(withIdxDir, 'cli.pack');
  fs.copyFileSync(packPath, withIdxPack);
  fs.writeFileSync(path.join(withIdxDir, 'cli.idx'), gitIdx(b, packPath, SHA1));
  const indexed = runCli(['index-pack-sim', '--json', '--limit', '16k', withIdxPack]);
  assert.equal(indexed.status, 0, indexed.stderr);
  const strip = (stdout: Buffer) => ({ ...JSON.parse(stdout.toString('utf8')), pack: undefined });
  assert.deepEqual(strip(bare.stdout), strip(indexed.stdout));
  const text = runCli(['index-pack-sim', packPath]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout.toString('utf8'), /cli\.pack \(no \.idx: indexed from the pack\): \d+ objects/);
  assert.deepEqual(fs.readdirSync(b.outside), ['cli.pack'], 'nothing is written next to the bare pack');
  const wrongFormat = runCli(['index-pack-sim', '--object-format', 'md5', packPath]);
  assert.equal(wrongFormat.status, 1);
  assert.match(wrongFormat.stderr, /unknown object format "md5"/);
});

function refused(packPath: string): PackFormatError {
  try {
    indexPackWithoutIdx(packPath, { hash: SHA1 });
  } catch (error) {
    if (error instanceof PackFormatError) return error;
    throw error;
  }
  assert.fail(`${packPath} was indexed`);
}

test('a thin pack (REF_DELTA bases outside it) is refused naming the delta and its missing base', (t) => {
  const b = bench(t);
  const tip = b.sandbox.gitText(b.repo, ['rev-parse', 'main']).trim();
  const thin = stdoutPack(b, 'thin', ['--thin'], `${tip}\n^${tip}~5\n`);
  const error = refused(thin);
  assert.equal(error.code, 'missing-base');
  assert.equal(error.file, thin);
  assert.match(error.message, /REF_DELTA base [0-9a-f]{40} is not in this pack \(a thin pack/);
  assert.ok(error.offset !== undefined && error.offset >= 12);
});

test('a truncated bare pack is refused with the offset where it ends; a damaged trailer as a checksum error', (t) => {
  const b = bench(t);
  const packPath = stdoutPack(b, 'whole', ['--delta-base-offset']);
  const bytes = fs.readFileSync(packPath);
  const index = indexPackWithoutIdx(packPath, { hash: SHA1 });
  const offsets = [...index.offsets].sort((x, y) => x - y);
  // An entry of 100+ bytes in the second half: a cut in its middle lies inside its zlib stream.
  const k = offsets.findIndex(
    (offset, i) => i > offsets.length / 2 && i + 1 < offsets.length && offsets[i + 1]! - offset > 100,
  );
  assert.ok(k > 0);
  const [start, end] = [offsets[k]!, offsets[k + 1]!];

  // The reader takes a file's last 20 bytes as its trailer, so a file cut at c has objects up to c − 20.
  const inside = path.join(b.outside, 'inside.pack');
  fs.writeFileSync(inside, bytes.subarray(0, Math.floor((start + end) / 2) + 20));
  const cutInside = refused(inside);
  assert.equal(cutInside.code, 'truncated');
  assert.equal(cutInside.file, inside);
  assert.equal(cutInside.offset, start, 'the object whose stream is cut');
  assert.match(cutInside.message, /zlib stream runs past the end .* truncated/);

  // Cut at an object boundary: the count the header announced is not there.
  const boundary = path.join(b.outside, 'boundary.pack');
  fs.writeFileSync(boundary, bytes.subarray(0, start + 20));
  const cutBoundary = refused(boundary);
  assert.equal(cutBoundary.code, 'truncated');
  assert.equal(cutBoundary.offset, start);
  assert.match(
    cutBoundary.message,
    new RegExp(
      `the pack ends after ${k} of the ${offsets.length} objects its header announces \\(is it truncated\\?\\)`,
    ),
  );

  const damaged = Buffer.from(bytes);
  damaged[damaged.length - 1]! ^= 0xff;
  const trailer = path.join(b.outside, 'trailer.pack');
  fs.writeFileSync(trailer, damaged);
  const badTrailer = refused(trailer);
  assert.equal(badTrailer.code, 'checksum');
  assert.equal(badTrailer.offset, bytes.length - 20);
});
