/**
 * Packs with REF_DELTA entries, against git: one written by `git pack-objects` without
 * --delta-base-offset (every delta is REF), and one completed by `index-pack --fix-thin` (OFS deltas
 * plus REF deltas whose bases were appended at the end, after the deltas that need them).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { assertMatchesGit } from '../support/assert-output.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';
import {
  catFileBatchCheck,
  historyRepository,
  inPackTypeCode,
  packHashFromIndexPack,
  packscope,
  runGit,
  verifyPackEntries,
} from '../support/git-oracle.ts';

const OFS_DELTA = 6;
const REF_DELTA = 7;

let root: string;
let sandbox: GitSandbox;
let cacheDir: string;
/** A repository whose only pack has REF deltas and no OFS deltas. */
let refRepo: string;
let refStem: string;
/** A repository whose only pack is a thin pack completed by index-pack --fix-thin. */
let thinRepo: string;
let thinStem: string;

after(() => fs.rmSync(root, { recursive: true, force: true }));

before(() => {
  root = tempDir(undefined, 'packscope-exact-ref-');
  sandbox = new GitSandbox(root);
  cacheDir = path.join(root, 'cache');
  const source = historyRepository(sandbox, 'source', { commits: 300, seed: 21 });

  refRepo = sandbox.init('ref');
  const objects = sandbox.git(source, ['rev-list', '--objects', '--all']);
  sandbox.git(
    source,
    ['pack-objects', '-q', '--window=50', '--depth=20', path.join(refRepo, '.git', 'objects', 'pack', 'pack')],
    { input: objects },
  );
  [refStem] = packStems(path.join(refRepo, '.git', 'objects'));

  // A fetch of v149..main into a repository that has v149: the thin pack's deltas against objects
  // the receiver already has become REF deltas to bases that index-pack appends to the pack.
  const receiver = sandbox.init('receiver');
  const base = sandbox.git(source, ['pack-objects', '-q', '--revs', '--stdout'], { input: 'v149\n' });
  sandbox.git(receiver, ['index-pack', '--stdin'], { input: base });
  const thin = sandbox.git(source, ['pack-objects', '-q', '--revs', '--thin', '--stdout', '--delta-base-offset'], {
    input: 'main\n^v149\n',
  });
  const hash = packHashFromIndexPack(
    sandbox.gitText(receiver, ['index-pack', '--stdin', '--fix-thin'], { input: thin }),
  );
  // On its own in a repository, so that cat-file sees exactly this pack's objects.
  thinRepo = sandbox.init('thin');
  thinStem = path.join(thinRepo, '.git', 'objects', 'pack', `pack-${hash}`);
  for (const ext of ['.pack', '.idx'])
    fs.copyFileSync(path.join(receiver, '.git', 'objects', 'pack', `pack-${hash}${ext}`), thinStem + ext);
});

/** Counts of in-pack types, read from the pack bytes at the offsets git verify-pack reports. */
function inPackTypes(stem: string, cwd: string): Map<number, number> {
  const bytes = fs.readFileSync(`${stem}.pack`);
  const counts = new Map<number, number>();
  for (const entry of verifyPackEntries(sandbox, cwd, `${stem}.pack`)) {
    const code = inPackTypeCode(bytes, entry.offset);
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  return counts;
}

function compareVerifyPack(args: string[], cwd: string): void {
  const git = runGit(sandbox, cwd, ['verify-pack', ...args]);
  assert.equal(git.status, 0, `git verify-pack ${args.join(' ')} failed: ${git.stderr}`);
  assertMatchesGit(packscope(['verify-pack', ...args], cwd, cacheDir), git.stdout, `verify-pack ${args.join(' ')}`);
}

test('pack-objects without --delta-base-offset writes REF deltas only', async (t) => {
  const types = inPackTypes(refStem, refRepo);
  const deltas = verifyPackEntries(sandbox, refRepo, `${refStem}.pack`).filter((e) => e.depth > 0).length;
  assert.ok(deltas > 500, `${deltas} deltas`);
  assert.equal(types.get(REF_DELTA), deltas, 'every delta is a REF_DELTA');
  assert.equal(types.get(OFS_DELTA), undefined, 'no OFS_DELTA');

  await t.test('verify-pack -v', () => compareVerifyPack(['-v', `${refStem}.idx`], refRepo));
  await t.test('verify-pack -s', () => compareVerifyPack(['-s', refStem], refRepo));
  await t.test('objects', () =>
    assertMatchesGit(packscope(['objects'], refRepo, cacheDir), catFileBatchCheck(sandbox, refRepo), 'objects'),
  );
  await t.test('stats --json counts the REF deltas', () => {
    const result = packscope(['stats', '--json'], refRepo, cacheDir);
    assert.equal(result.status, 0, result.stderr);
    const stats = JSON.parse(result.stdout) as { total: { deltas: { ofs: number; ref: number } } };
    assert.deepEqual(stats.total.deltas, { ofs: 0, ref: deltas });
  });
});

test('a thin pack completed by index-pack --fix-thin: OFS and REF deltas, bases after their deltas', async (t) => {
  const types = inPackTypes(thinStem, thinRepo);
  const entries = verifyPackEntries(sandbox, thinRepo, `${thinStem}.pack`);
  const offsetOf = new Map(entries.map((e) => [e.oid, e.offset]));
  const refDeltas = types.get(REF_DELTA) ?? 0;
  const ofsDeltas = types.get(OFS_DELTA) ?? 0;
  assert.ok(refDeltas > 0 && ofsDeltas > 0, `${refDeltas} REF and ${ofsDeltas} OFS deltas`);
  assert.ok(
    entries.some((e) => e.base !== undefined && offsetOf.get(e.base)! > e.offset),
    'some delta comes before its base in the pack',
  );

  await t.test('verify-pack -v', () => compareVerifyPack(['-v', `${thinStem}.pack`], thinRepo));
  await t.test('verify-pack -s', () => compareVerifyPack(['-s', `${thinStem}.idx`], thinRepo));
  await t.test('objects', () =>
    assertMatchesGit(packscope(['objects'], thinRepo, cacheDir), catFileBatchCheck(sandbox, thinRepo), 'objects'),
  );
  await t.test('stats --json counts OFS and REF deltas apart', () => {
    const result = packscope(['stats', '--json'], thinRepo, cacheDir);
    assert.equal(result.status, 0, result.stderr);
    const stats = JSON.parse(result.stdout) as { total: { deltas: { ofs: number; ref: number } } };
    assert.deepEqual(stats.total.deltas, { ofs: ofsDeltas, ref: refDeltas });
  });
});
