/**
 * The scale bench's generators (bench/scale.ts) at a small size: the layouts they make are what
 * bench/README.md names ("Scale repositories"), as git itself reports them (count-objects -v,
 * verify-pack, multi-pack-index verify, the pack directory's files), so the bench at full size measures those layouts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { monorepo, scaleRepository } from '../../bench/scale.ts';
import { gitEnv } from '../../bench/generate.ts';
import { tempDir } from '../support/git.ts';

function git(gitDir: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { env: gitEnv(), maxBuffer: 1 << 30, encoding: 'utf8' });
}

function countObjects(gitDir: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of git(gitDir, ['count-objects', '-v']).trim().split('\n')) {
    const at = line.indexOf(': ');
    const key = line.slice(0, at);
    fields.set(key, fields.has(key) ? `${fields.get(key)}\n${line.slice(at + 2)}` : line.slice(at + 2));
  }
  return fields;
}

test('monorepo generator: 200+ packs of mixed ages (cruft and geometric repacks), .keep, .promisor, 10,000+ loose objects, an alternate, a multi-pack-index with a bitmap', (t) => {
  const cacheDir = tempDir(t, 'packscope-scale-gen-');
  const lines: string[] = [];
  const repo = monorepo({ size: 3000, cacheDir, log: (line) => lines.push(line) });
  assert.equal(repo.generated, true);
  const packDir = path.join(repo.gitDir, 'objects', 'pack');
  const names = fs.readdirSync(packDir);
  const packs = names.filter((name) => name.endsWith('.pack'));
  const withExt = (ext: string): string[] => packs.filter((pack) => names.includes(pack.replace(/\.pack$/, ext)));

  const fields = countObjects(repo.gitDir);
  assert.ok(Number(fields.get('packs')) >= 200, `count-objects -v packs: ${fields.get('packs')}`);
  assert.equal(Number(fields.get('packs')), packs.length);
  assert.ok(Number(fields.get('count')) >= 10_000, `count-objects -v loose count: ${fields.get('count')}`);
  assert.equal(fields.get('alternate'), path.join(repo.gitDir, 'alternate.git', 'objects'));

  assert.equal(withExt('.mtimes').length, 1, 'one cruft pack (with its .mtimes)');
  assert.equal(withExt('.keep').length, 1, 'one kept pack');
  assert.equal(withExt('.promisor').length, 1, 'one promisor pack');
  assert.ok(names.includes('multi-pack-index'), 'a multi-pack-index');
  assert.equal(
    names.filter((name) => /^multi-pack-index-[0-9a-f]+\.bitmap$/.test(name)).length,
    1,
    'a multi-pack-index bitmap',
  );
  git(repo.gitDir, ['multi-pack-index', 'verify']);
  // The cruft pack holds the dropped branch's objects only: none is reachable.
  const cruft = withExt('.mtimes')[0]!;
  const reachable = new Set(
    git(repo.gitDir, ['rev-list', '--objects', '--all'])
      .split('\n')
      .map((line) => line.slice(0, 40)),
  );
  const cruftIdx = fs.readFileSync(path.join(packDir, cruft.replace(/\.pack$/, '.idx')));
  const inCruft = execFileSync('git', ['show-index'], { input: cruftIdx, env: gitEnv(), encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.split(' ')[1]!);
  assert.ok(inCruft.length > 0);
  assert.deepEqual(
    inCruft.filter((oid) => reachable.has(oid)),
    [],
    'no cruft object is reachable',
  );

  // Mixed ages: the packs' mtimes span most of a year.
  const times = packs.map((pack) => fs.statSync(path.join(packDir, pack)).mtimeMs / 1000);
  assert.ok(Math.max(...times) - Math.min(...times) > 250 * 86400, 'packs of mixed ages');
  // The geometric repack rolled the middle packs up: fewer packs than old + middle + new imports made.
  assert.ok(lines.some((line) => /geometric=2 left \d+ packs/.test(line)));

  // Every pack is sound by git's own check.
  const idxs = packs.map((pack) => path.join(packDir, pack.replace(/\.pack$/, '.idx')));
  const verified = execFileSync('git', ['verify-pack', ...idxs], { env: gitEnv(), encoding: 'utf8' });
  assert.equal(verified, '');

  // Cached: a second call reuses it.
  assert.equal(monorepo({ size: 3000, cacheDir, log: () => {} }).generated, false);
});

test('scale generator: one pack after repack -adf --depth=50 --window=10, with deep chains, renames and large binaries', (t) => {
  const cacheDir = tempDir(t, 'packscope-scale-gen-');
  const repo = scaleRepository({ objects: 3000, cacheDir, log: () => {} });
  const packDir = path.join(repo.gitDir, 'objects', 'pack');
  const packs = fs.readdirSync(packDir).filter((name) => name.endsWith('.pack'));
  assert.equal(packs.length, 1);
  const fields = countObjects(repo.gitDir);
  assert.equal(fields.get('count'), '0', 'no loose objects left');
  const inPack = Number(fields.get('in-pack'));
  assert.ok(inPack > 2000 && inPack < 5000, `about 3000 objects: ${inPack}`);

  const listing = execFileSync('git', ['verify-pack', '-v', path.join(packDir, packs[0]!.replace(/\.pack$/, '.idx'))], {
    env: gitEnv(),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const rows = listing
    .split('\n')
    .filter((line) => /^[0-9a-f]{40} /.test(line))
    .map((line) => line.split(/\s+/));
  assert.equal(rows.length, inPack);
  const depths = rows.map((row) => Number(row[5] ?? 0));
  assert.ok(
    Math.max(...depths) > 10 && Math.max(...depths) <= 50,
    `delta chains up to --depth=50: ${Math.max(...depths)}`,
  );
  const types = new Map<string, number>();
  for (const row of rows) types.set(row[1]!, (types.get(row[1]!) ?? 0) + 1);
  assert.ok((types.get('tree') ?? 0) > (types.get('commit') ?? 0) * 2, 'several trees per commit');
  // Large binaries: blobs of megabytes.
  const large = git(repo.gitDir, ['cat-file', '--batch-all-objects', '--batch-check=%(objecttype) %(objectsize)'])
    .split('\n')
    .filter((line) => line.startsWith('blob ') && Number(line.slice(5)) >= 1 << 20);
  assert.ok(large.length >= 6, `large binaries: ${large.length}`);
  // Renames: git log finds them.
  assert.match(git(repo.gitDir, ['log', '--diff-filter=R', '--name-status', '-M', '--format=', 'main']), /^R\d+\t/m);
});
