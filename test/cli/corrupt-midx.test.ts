/**
 * A real multi-pack-index (git multi-pack-index write over three packs) with bytes flipped in its
 * object list and in its offsets: `objects` prints what `git cat-file --batch-check` prints on the
 * same repository (the object git cannot reach is "missing", not left out) with a warning naming
 * the MIDX and the offset at fault, and `object` fails with that error instead of "not in any pack".
 * The warning's words about git are checked against git on the same file: its listing of every
 * object says missing, while a lookup by id follows the MIDX's entry (`cat-file -e`, `rev-list
 * --objects` find the object whose offset alone is wrong, not the one whose id is).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { catFileBatchCheck, packscope } from '../support/git-oracle.ts';

let root: string;
let sandbox: GitSandbox;
let base: string;

before(() => {
  root = tempDir(undefined, 'packscope-corrupt-midx-');
  sandbox = new GitSandbox(root);
  base = sandbox.init('base');
  for (let commit = 1; commit <= 3; commit++) {
    for (let file = 1; file <= 5; file++) fs.writeFileSync(path.join(base, `f${commit}${file}`), `f${commit}${file}\n`);
    sandbox.git(base, ['add', '.']);
    sandbox.git(base, ['commit', '-q', '-m', `c${commit}`]);
    sandbox.git(base, ['repack', '-q', '-d']);
  }
  sandbox.git(base, ['multi-pack-index', 'write']);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

/** A copy of the repository whose MIDX has `value` written at the byte `at(header)` names. */
function corrupted(
  name: string,
  at: (chunkStart: (id: string) => number) => number,
  value: number,
  entry: (chunkStart: (id: string) => number) => number,
): { repo: string; midx: string; entryAt: number } {
  const repo = path.join(root, name);
  fs.cpSync(base, repo, { recursive: true });
  const midx = path.join(repo, '.git', 'objects', 'pack', 'multi-pack-index');
  const bytes = fs.readFileSync(midx);
  const chunkStart = (id: string): number => {
    for (let i = 0; i < bytes[6]!; i++) {
      if (bytes.toString('latin1', 12 + i * 12, 16 + i * 12) === id) return Number(bytes.readBigUInt64BE(16 + i * 12));
    }
    throw new Error(`no ${id} chunk`);
  };
  const where = at(chunkStart);
  bytes[where] = value;
  fs.chmodSync(midx, 0o644);
  fs.writeFileSync(midx, bytes);
  return { repo, midx, entryAt: entry(chunkStart) };
}

// The sixth entry's id (20 bytes each) or offset (8 bytes each: pack id, offset), and where the fault is named.
// And whether git, asked for the object by id, finds it.
for (const [what, at, value, entry, foundById] of [
  [
    'an id in its object list',
    (chunk: (id: string) => number) => chunk('OIDL') + 20 * 5 + 3,
    0xff,
    (chunk: (id: string) => number) => chunk('OIDL') + 20 * 5,
    false,
  ],
  [
    'an offset in its OOFF chunk',
    (chunk: (id: string) => number) => chunk('OOFF') + 8 * 5 + 7,
    0x05,
    (chunk: (id: string) => number) => chunk('OOFF') + 8 * 5,
    true,
  ],
] as const) {
  test(`a multi-pack-index with ${what} flipped: objects equals git cat-file and names the fault`, () => {
    const { repo, midx, entryAt } = corrupted(what.replace(/\W+/g, '-'), at, value, entry);
    const expected = catFileBatchCheck(sandbox, repo);
    const missing = expected.split('\n').filter((line) => line.endsWith(' missing'));
    assert.equal(missing.length, 1, `git reports one object missing:\n${expected}`);
    const result = packscope(['objects', '.'], repo, path.join(root, 'cache'));
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, expected);
    assert.match(
      result.stderr,
      new RegExp(`warning: ${midx.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: offset ${entryAt}: `),
    );

    assert.match(
      result.stderr,
      /\(git multi-pack-index verify reports it; git cat-file --batch-all-objects --batch-check prints such an object as missing, and so does this list; git commands that look it up by id follow the multi-pack-index's entry and may still find it, as git cat-file -e and git rev-list --objects do when only its offset is wrong\)\n$/,
    );

    const oid = missing[0]!.split(' ')[0]!;
    // The warning's second claim, against git on this very file.
    const exists = spawnSync('git', ['cat-file', '-e', oid], { cwd: repo, env: gitEnv(sandbox.home) });
    assert.equal(exists.status === 0, foundById, `git cat-file -e ${oid}: ${exists.stderr.toString()}`);
    const listed = spawnSync('git', ['rev-list', '--objects', '--all'], { cwd: repo, env: gitEnv(sandbox.home) });
    assert.equal(
      listed.stdout
        .toString('utf8')
        .split('\n')
        .some((line) => line.startsWith(`${oid} `)),
      foundById,
      `git rev-list --objects --all names ${oid}: ${listed.stderr.toString()}`,
    );
    const single = packscope(['object', oid, '.'], repo, path.join(root, 'cache'));
    assert.notEqual(single.status, 0);
    assert.match(single.stderr, new RegExp(`multi-pack-index: offset ${entryAt}: `));
    assert.doesNotMatch(single.stderr, /not in any pack/);
  });
}
