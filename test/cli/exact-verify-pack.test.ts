/**
 * `packscope verify-pack` against `git verify-pack`, byte for byte: -v, -s and no flag; the .idx,
 * the .pack and the bare stem; relative paths echoed as given; idx v1; an idx with a large-offset
 * table; with and without .rev; an empty pack; several packs in one call, and bad ones among them;
 * --full; and sound packs whose idx disagrees with them (git still prints the listing).
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { assertMatchesGit, assertSameStdout } from '../support/assert-output.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { assemble, readPack, writePackSet, zlib } from '../support/pack-surgery.ts';
import {
  catFileBatchCheck,
  edgeCaseStream,
  historyRepository,
  onlyPackStem,
  packscope,
  parseVerifyPack,
  runGit,
} from '../support/git-oracle.ts';

let sandbox: GitSandbox;
let cacheDir: string;
let repo: string;
/** The repository's only pack, without extension (absolute). */
let stem: string;
/** A directory outside any repository holding copies of that pack with other indexes. */
let loose: string;

let root: string;
after(() => fs.rmSync(root, { recursive: true, force: true }));

before(() => {
  root = tempDir(undefined, 'packscope-exact-verify-');
  sandbox = new GitSandbox(root);
  cacheDir = path.join(root, 'cache');
  repo = historyRepository(sandbox, 'repo', { commits: 300, seed: 7 });
  // Plus the empty blob, a 192 KiB blob and its delta, and a tag of a tag.
  sandbox.fastImport(repo, edgeCaseStream('edge', { emptyTree: false }));
  sandbox.git(repo, ['repack', '-q', '-adf', '--depth=50', '--window=10']);
  stem = onlyPackStem(path.join(repo, '.git', 'objects', 'pack'));
  loose = path.join(root, 'loose');
  fs.mkdirSync(loose);
  fs.copyFileSync(`${stem}.pack`, path.join(loose, 'v1.pack'));
  fs.copyFileSync(`${stem}.pack`, path.join(loose, 'big.pack'));
  fs.copyFileSync(`${stem}.pack`, path.join(loose, 'plain.pack'));
  sandbox.git(loose, ['index-pack', '--index-version=1', '-o', 'v1.idx', 'v1.pack']);
  sandbox.git(loose, ['index-pack', '--index-version=2,0x1000', '-o', 'big.idx', 'big.pack']);
  sandbox.git(loose, ['index-pack', '-o', 'plain.idx', 'plain.pack']);
});

/** git verify-pack and packscope verify-pack with the same arguments in the same directory (plus PackScope-only `extra` ones). */
function compareVerifyPack(args: string[], cwd: string, extra: string[] = []): void {
  const git = runGit(sandbox, cwd, ['verify-pack', ...args]);
  assert.equal(git.status, 0, `git verify-pack ${args.join(' ')} failed: ${git.stderr}`);
  assertMatchesGit(
    packscope(['verify-pack', ...extra, ...args], cwd, cacheDir),
    git.stdout,
    `verify-pack ${[...extra, ...args].join(' ')} (in ${cwd})`,
  );
}

const forms = (s: string): Array<[string, string]> => [
  ['.idx', `${s}.idx`],
  ['.pack', `${s}.pack`],
  ['stem', s],
];

test('verify-pack -v matches git for the .idx, the .pack and the bare stem', () => {
  for (const [, arg] of forms(stem)) compareVerifyPack(['-v', arg], repo);
  // The pack is deep enough to exercise the histogram: long chains and more than one line per depth.
  const entries = parseVerifyPack(runGit(sandbox, repo, ['verify-pack', '-v', stem]).stdout);
  assert.ok(entries.length > 2000, `${entries.length} objects`);
  assert.ok(Math.max(...entries.map((e) => e.depth)) >= 10, 'a chain of depth 10 or more');
});

test('verify-pack -s matches git for the .idx and the bare stem', () => {
  compareVerifyPack(['-s', `${stem}.idx`], repo);
  compareVerifyPack(['-s', stem], repo);
});

test('verify-pack without -v or -s matches git (prints nothing)', () => compareVerifyPack([`${stem}.pack`], repo));

test('relative paths are echoed as given', async (t) => {
  const relative = path.relative(repo, stem);
  // fast-import checks nothing out: make a subdirectory to run from.
  const sub = path.join(repo, 'sub', 'dir');
  fs.mkdirSync(sub, { recursive: true });
  await t.test('-v from the repository', () => {
    compareVerifyPack(['-v', `${relative}.idx`], repo);
    compareVerifyPack(['-v', `./${relative}`], repo);
  });
  await t.test('-v from a subdirectory', () => compareVerifyPack(['-v', `${path.relative(sub, stem)}.pack`], sub));
  await t.test('-s from the repository', () => compareVerifyPack(['-s', relative], repo));
});

test('idx v1 (git index-pack --index-version=1)', async (t) => {
  const v1 = path.join(loose, 'v1');
  // v1 has no "\377tOc" magic: it starts with the fan-out table.
  assert.notDeepEqual(fs.readFileSync(`${v1}.idx`).subarray(0, 4), Buffer.from([0xff, 0x74, 0x4f, 0x63]));
  await t.test('verify-pack -v', () => {
    compareVerifyPack(['-v', `${v1}.idx`], loose);
    compareVerifyPack(['-v', 'v1'], loose);
  });
  await t.test('verify-pack -s', () => compareVerifyPack(['-s', `${v1}.pack`], loose));
  await t.test('objects', () =>
    assertMatchesGit(
      packscope(['objects', `${v1}.idx`], loose, cacheDir),
      catFileBatchCheck(sandbox, repo),
      'objects v1.idx',
    ),
  );
});

test('large-offset table forced by git index-pack --index-version=2,0x1000', async (t) => {
  const big = path.join(loose, 'big');
  const entries = parseVerifyPack(runGit(sandbox, loose, ['verify-pack', '-v', 'plain.idx']).stdout);
  const large = entries.filter((e) => e.offset > 0x1000).length;
  assert.ok(large > 1000, `${large} objects past 0x1000`);
  // The table exists: one u64 per object past the threshold.
  assert.equal(fs.statSync(`${big}.idx`).size - fs.statSync(path.join(loose, 'plain.idx')).size, 8 * large);
  await t.test('verify-pack -v', () => {
    compareVerifyPack(['-v', `${big}.idx`], loose);
    compareVerifyPack(['-v', 'big.pack'], loose);
  });
  await t.test('verify-pack -s', () => compareVerifyPack(['-s', big], loose));
  await t.test('objects', () =>
    assertMatchesGit(
      packscope(['objects', `${big}.pack`], loose, cacheDir),
      catFileBatchCheck(sandbox, repo),
      'objects big.pack',
    ),
  );
});

test('with a .rev (pack.writeReverseIndex=true) and without one (git 2.39 default)', async (t) => {
  assert.equal(fs.existsSync(`${stem}.rev`), false, 'git 2.39 writes no .rev by default');
  const withRev = path.join(sandbox.root, 'with-rev');
  sandbox.git(sandbox.root, ['clone', '-q', '--no-local', repo, withRev]);
  sandbox.git(withRev, ['-c', 'pack.writeReverseIndex=true', 'repack', '-q', '-adf', '--depth=30', '--window=20']);
  const revStem = onlyPackStem(path.join(withRev, '.git', 'objects', 'pack'));
  assert.ok(fs.existsSync(`${revStem}.rev`), 'the .rev was written');
  await t.test('verify-pack -v', () => compareVerifyPack(['-v', `${revStem}.pack`], withRev));
  await t.test('verify-pack -s', () => compareVerifyPack(['-s', `${revStem}.idx`], withRev));
  await t.test('objects', () => {
    assertMatchesGit(
      packscope(['objects'], withRev, cacheDir),
      catFileBatchCheck(sandbox, withRev),
      'objects with .rev',
    );
    assertMatchesGit(packscope(['objects'], repo, cacheDir), catFileBatchCheck(sandbox, repo), 'objects without .rev');
  });
});

/** An empty pack made as the brief says: pack-objects --stdout </dev/null, then index-pack. */
function emptyPack(): string {
  const dir = path.join(sandbox.root, 'empty');
  if (!fs.existsSync(path.join(dir, 'empty.idx'))) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'empty.pack'),
      sandbox.git(repo, ['pack-objects', '-q', '--stdout'], { input: '' }),
    );
    sandbox.git(dir, ['index-pack', 'empty.pack']);
  }
  return path.join(dir, 'empty');
}

test('an empty pack (pack-objects --stdout </dev/null; index-pack)', async (t) => {
  const empty = emptyPack();
  const dir = path.dirname(empty);
  assert.equal(fs.statSync(`${empty}.pack`).size, 32, 'header and trailer only');
  await t.test('verify-pack -v', () => {
    for (const [, arg] of forms('empty')) compareVerifyPack(['-v', arg], dir);
  });
  await t.test('verify-pack -s', () => {
    for (const [, arg] of forms('empty')) compareVerifyPack(['-s', arg], dir);
  });
  await t.test('verify-pack', () => compareVerifyPack(['empty.idx'], dir));
});

test('several packs in one call', async (t) => {
  const packs = [
    `${stem}.idx`,
    path.join(loose, 'v1.pack'),
    path.join(loose, 'big'),
    `${emptyPack()}.idx`,
    path.join(loose, 'plain.idx'),
  ];
  await t.test('verify-pack -v', () => compareVerifyPack(['-v', ...packs], repo));
  await t.test('verify-pack -s', () => compareVerifyPack(['-s', ...packs], repo));
  await t.test('verify-pack', () => compareVerifyPack(packs, repo));
});

test('a missing and a corrupt pack among good ones: same stdout and exit status as git', async (t) => {
  const corrupt = path.join(sandbox.root, 'corrupt');
  fs.mkdirSync(corrupt, { recursive: true });
  const bytes = fs.readFileSync(`${stem}.pack`);
  // Flip one bit in the middle of some object's deflated data: the pack checksum no longer matches.
  bytes[Math.floor(bytes.length / 2)]! ^= 0x10;
  fs.writeFileSync(path.join(corrupt, 'x.pack'), bytes);
  fs.copyFileSync(`${stem}.idx`, path.join(corrupt, 'x.idx'));
  const cases: Array<[string, string[]]> = [
    ['missing', [`${stem}.idx`, path.join(sandbox.root, 'missing.idx'), path.join(loose, 'v1')]],
    ['corrupt', [path.join(loose, 'big.pack'), path.join(corrupt, 'x.idx'), `${stem}.pack`]],
    ['only a missing one', [path.join(sandbox.root, 'missing')]],
  ];
  for (const [name, packs] of cases) {
    for (const flags of name === 'corrupt' ? [['-v'], ['-s']] : [['-v'], ['-s'], []]) {
      await t.test(`${name}, verify-pack ${flags.join(' ')}`, () => {
        const args = [...flags, ...packs];
        const git = runGit(sandbox, repo, ['verify-pack', ...args]);
        assert.equal(git.status, 1, `git verify-pack ${args.join(' ')} fails`);
        const ours = packscope(['verify-pack', ...args], repo, cacheDir);
        assertSameStdout(ours, git.stdout, `verify-pack ${args.join(' ')}`);
        assert.equal(ours.status, git.status, `verify-pack ${args.join(' ')}: exit status`);
        assert.notEqual(ours.stderr, '', `verify-pack ${args.join(' ')}: says what is wrong on stderr`);
        assert.doesNotMatch(ours.stderr, /internal error|\n\s+at /, `verify-pack ${args.join(' ')}: no crash`);
      });
    }
  }
});

test('verify-pack --full on a sound pack matches git', async (t) => {
  await t.test('-v', () => compareVerifyPack(['-v', `${stem}.idx`], repo, ['--full']));
  await t.test('-s', () => compareVerifyPack(['-s', stem], repo, ['--full']));
});

/**
 * git verify-pack runs index-pack --verify-stat, which parses and resolves the whole pack, prints the
 * object lines and histogram, and only then compares the idx it would write with the one on disk:
 * so for a sound pack with a disagreeing idx git prints everything and then "<pack>: bad".
 */
test('a sound pack whose idx disagrees with it: git prints the listing, then bad', async (t) => {
  const dir = path.join(sandbox.root, 'disagree');
  fs.mkdirSync(dir, { recursive: true });
  // (1) One CRC32 in the idx flipped, the idx checksum recomputed.
  const idx = fs.readFileSync(`${stem}.idx`);
  const count = idx.readUInt32BE(8 + 255 * 4);
  idx[8 + 1024 + count * 20 + 5 * 4]! ^= 1;
  createHash('sha1')
    .update(idx.subarray(0, idx.length - 20))
    .digest()
    .copy(idx, idx.length - 20);
  fs.writeFileSync(path.join(dir, 'crc.idx'), idx);
  fs.copyFileSync(`${stem}.pack`, path.join(dir, 'crc.pack'));
  // (2) One blob's content changed (same size) and everything resealed: its id no longer matches.
  const parts = readPack(fs.readFileSync(`${stem}.pack`), fs.readFileSync(`${stem}.idx`));
  const victim = parts.entries.find((e) => e.type === 3 && e.size > 100)!;
  const content = inflateSync(victim.data);
  content[10]! ^= 1;
  victim.data = zlib(content);
  writePackSet(dir, 'content', assemble(parts));

  const compareFailure = (args: string[]): void => {
    const git = runGit(sandbox, dir, ['verify-pack', ...args.filter((a) => a !== '--full')]);
    assert.equal(git.status, 1, `git verify-pack fails: ${git.stderr}`);
    const ours = packscope(['verify-pack', ...args], dir, cacheDir);
    assertSameStdout(ours, git.stdout, `verify-pack ${args.join(' ')}`);
    assert.equal(ours.status, 1, `verify-pack ${args.join(' ')}: exit status`);
  };
  await t.test('wrong CRC32, verify-pack -v', () => compareFailure(['-v', 'crc.idx']));
  await t.test('wrong CRC32, verify-pack -s', () => compareFailure(['-s', 'crc.idx']));
  await t.test('wrong CRC32, verify-pack', () => compareFailure(['crc.idx']));
  await t.test('content changed, verify-pack -v --full', () => compareFailure(['-v', '--full', 'content.idx']));
  await t.test('content changed, verify-pack -s --full', () => compareFailure(['-s', '--full', 'content.idx']));
});
