/**
 * `packscope sizes` against `git filter-repo --analyze` itself: on repositories these tests make
 * with the git CLI (renames and chains of them, a name renamed away and given new content, deletions
 * on one branch only, reverted contents, merges that take, drop and invent contents, one blob at
 * two paths, binaries, files without an extension, dotfiles, nested directories deleted and made
 * again, paths with tabs, newlines, quotes and bytes that are not UTF-8, symlinks, a gitlink, a file
 * that becomes a directory, loose objects beside two packs, and a seeded random history of
 * branches and merges), every report file filter-repo writes for paths, directories and extensions
 * is byte for byte the one `--filter-repo-report` writes, and `--json` holds the same rows. filter-repo
 * runs only here, on a clone each test makes (it writes its analysis into that clone's .git).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { SizesDocument, SizesRow } from '../../src/core/documents/sizes-document.ts';
import { GitSandbox, runCli, tempDir } from '../support/git.ts';
import { SeededRandom } from '../support/seeded-random.ts';

const FILTER_REPO = '/usr/bin/git-filter-repo';
const REPORT_FILES = [
  'path-all-sizes.txt',
  'path-deleted-sizes.txt',
  'directories-all-sizes.txt',
  'directories-deleted-sizes.txt',
  'extensions-all-sizes.txt',
  'extensions-deleted-sizes.txt',
];

let root: string;
let sandbox: GitSandbox;
let cache: string;
/** The repository of every case, and filter-repo's clone of it. */
let shapes: string;
let shapesClone: string;
let shapesExpected: Map<string, Buffer>;

/** A committer date for each step, a day apart, some in zones whose date differs from UTC's. */
function dated(step: number): Record<string, string> {
  const seconds = 1_600_000_000 + step * 86_400 + (step % 3) * 3_600 * 7;
  const zone = ['+0000', '-1100', '+1300'][step % 3]!;
  return { GIT_AUTHOR_DATE: `${seconds} ${zone}`, GIT_COMMITTER_DATE: `${seconds} ${zone}` };
}

class Work {
  private step = 0;
  constructor(readonly dir: string) {}
  git(args: string[], input?: string | Buffer): string {
    return sandbox.gitText(this.dir, args, { env: dated(this.step), ...(input === undefined ? {} : { input }) });
  }
  write(name: string, content: string | Buffer): void {
    const file = path.join(this.dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  remove(name: string): void {
    this.git(['rm', '-rqf', '--', name]);
  }
  commit(message: string): void {
    this.step++;
    this.git(['add', '-A']);
    this.git(['commit', '-q', '--allow-empty', '-m', message]);
  }
}

/** filter-repo's report files for a fresh clone of `source`, and the clone (PackScope reads the same objects). */
function analyze(
  source: string,
  name: string,
  prepare?: (clone: string) => void,
  cloneOptions: string[] = ['--no-local'],
): { clone: string; expected: Map<string, Buffer> } {
  const clone = path.join(root, name);
  sandbox.git(root, ['clone', '-q', ...cloneOptions, source, clone]);
  prepare?.(clone);
  sandbox.git(clone, ['filter-repo', '--analyze']);
  const analysis = path.join(clone, '.git', 'filter-repo', 'analysis');
  return { clone, expected: new Map(REPORT_FILES.map((f) => [f, fs.readFileSync(path.join(analysis, f))])) };
}

function packscope(args: string[]): { stdout: string; stderr: string } {
  const result = runCli(['sizes', '--cache-dir', cache, ...args]);
  assert.equal(result.status, 0, result.stderr);
  return { stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}

/** Runs `--filter-repo-report` and `--json` on the clone and compares both with filter-repo's files. */
function assertSameAsFilterRepo(clone: string, expected: Map<string, Buffer>, name: string): SizesDocument {
  const reportDir = path.join(root, `${name}-report`);
  packscope(['--filter-repo-report', reportDir, clone]);
  for (const file of REPORT_FILES) {
    const ours = fs.readFileSync(path.join(reportDir, file));
    const theirs = expected.get(file)!;
    assert.ok(theirs.length > 0, file);
    assert.equal(ours.toString('latin1'), theirs.toString('latin1'), `${name}: ${file}`);
    assert.ok(ours.equals(theirs), `${name}: ${file} byte for byte`);
  }
  const document = JSON.parse(packscope(['--json', clone]).stdout) as SizesDocument;
  assert.equal(document.schema, 'packscope.sizes/1');
  assert.equal(document.count, 'per-path');
  // A name may hold a newline, which filter-repo writes as it is: a row starts where two numbers do.
  const rows = (file: string, empty: string): string[] =>
    expected
      .get(file)!
      .toString('utf8')
      .split('\n')
      .slice(2)
      .join('\n')
      .replace(/\n$/, '')
      .split(/\n(?= +\d+ +\d+ )/)
      .filter(Boolean)
      .map((line) => {
        const m = /^ +(\d+) +(\d+) (.{10}) (.*)$/s.exec(line)!;
        return `${m[1]} ${m[2]} ${m[3]!.trim()} ${m[4] === empty ? '' : m[4]}`;
      });
  const ourRows = (list: SizesRow[]): string[] =>
    list.map((r) => `${r.inflated} ${r.disk} ${r.deleted ?? '<present>'} ${r.path}`);
  // Rows whose name is not UTF-8 read as U+FFFD on both sides here.
  assert.deepEqual(ourRows(document.paths), rows('path-all-sizes.txt', ''), `${name}: --json paths`);
  assert.deepEqual(
    ourRows(document.directories),
    rows('directories-all-sizes.txt', '<toplevel>'),
    `${name}: --json directories`,
  );
  assert.deepEqual(
    ourRows(document.extensions),
    rows('extensions-all-sizes.txt', '<no extension>'),
    `${name}: --json extensions`,
  );
  const readme = fs.readFileSync(path.join(clone, '.git', 'filter-repo', 'analysis', 'README'), 'utf8');
  assert.equal(document.history.commits, Number(/Number of commits: (\d+)/.exec(readme)![1]), 'commits');
  assert.equal(document.total.inflated, Number(/Total unpacked size \(bytes\): (\d+)/.exec(readme)![1]), 'unpacked');
  assert.equal(document.total.disk, Number(/Total packed size \(bytes\): (\d+)/.exec(readme)![1]), 'packed');
  return document;
}

/** A history with every case filter-repo's rules single out, made step by step with git. */
function shapesRepository(): string {
  const dir = sandbox.init('shapes');
  const w = new Work(dir);
  const lines = (n: number, salt: string): string =>
    Array.from({ length: n }, (_, i) => `${salt} line ${i} ${(i * 7919) % 1000}`).join('\n') + '\n';
  w.write('src/main.c', lines(400, 'main'));
  w.write('src/util/strings.h', lines(50, 'strings'));
  w.write('docs/guide.md', lines(120, 'guide'));
  w.write('README', 'read me\n');
  w.write('Makefile', 'all:\n');
  w.write('.bashrc', 'export A=1\n');
  w.write('.config.d/.env.local', 'X=1\n');
  w.write('odd/a.', 'dot at the end\n');
  w.write('odd/..double', 'dots only before\n');
  w.write('odd/.a.b', 'dotfile with an extension\n');
  w.write('archive.tar.gz', new SeededRandom(7).bytes(3000));
  w.write('img/logo.png', new SeededRandom(8).bytes(5000));
  w.write('same/one.txt', 'the same blob\n');
  w.write('same/two.txt', 'the same blob\n');
  w.write('deep/a/b/c/d/leaf.txt', lines(30, 'leaf'));
  fs.symlinkSync('src/main.c', path.join(dir, 'link-to-main'));
  w.commit('first');
  // A gitlink (a submodule's commit) is left out of every size.
  w.git(['update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/sub`]);
  w.commit('gitlink');
  // A rename with changes, then a second rename: one class of three names.
  w.git(['mv', 'src/main.c', 'src/core.c']);
  w.write('src/core.c', lines(400, 'main') + 'one more line\n');
  w.commit('rename main.c to core.c');
  w.git(['mv', 'src/core.c', 'src/engine.c']);
  w.commit('rename core.c to engine.c');
  // New content at a name renamed away: on this line of history that is another file.
  w.write('src/main.c', lines(10, 'a new main'));
  w.commit('a new main.c');
  // Reverted contents: the old blob comes back.
  w.write('README', 'changed\n');
  w.commit('change README');
  w.write('README', 'read me\n');
  w.commit('revert README');
  // A branch that deletes, while main keeps and changes.
  w.git(['checkout', '-q', '-b', 'side']);
  w.remove('docs');
  w.remove('img/logo.png');
  w.write('side-only.bin', new SeededRandom(9).bytes(2000));
  w.commit('side: delete docs and the logo');
  w.remove('side-only.bin');
  w.commit('side: delete side-only.bin');
  w.git(['checkout', '-q', 'main']);
  w.write('docs/guide.md', lines(130, 'guide'));
  w.remove('deep');
  w.commit('main: change the guide, delete deep/');
  w.write('deep/a/new.txt', 'deep again\n');
  w.commit('main: deep/a again');
  // A file that becomes a directory, and back.
  w.remove('Makefile');
  w.write('Makefile/inner.mk', 'x = 1\n');
  w.commit('Makefile becomes a directory');
  // A merge that drops one side's file and invents a content of its own.
  w.git(['merge', '-q', '--no-ff', '--no-commit', '-s', 'ours', 'side']);
  w.git(['rm', '-q', '--', 'img/logo.png']);
  w.write('src/util/strings.h', lines(55, 'merged strings'));
  w.commit('merge side, evilly');
  // Paths whose bytes git quotes.
  const weird = [
    Buffer.from('tab\there.txt'),
    Buffer.from('new\nline.c'),
    Buffer.from('quote"and\\backslash'),
    Buffer.concat([Buffer.from('latin1-'), Buffer.from([0xe9, 0xff]), Buffer.from('.dat')]),
    Buffer.from('naïve/ünïcode file.TXT'),
  ];
  fs.mkdirSync(path.join(dir, 'naïve'));
  for (const [i, name] of weird.entries())
    fs.writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), name]), `weird ${i}\n`);
  w.commit('quoted names');
  fs.unlinkSync(path.join(dir, 'tab\there.txt'));
  w.commit('delete one quoted name');
  w.remove('same/two.txt');
  w.commit('one of the twins goes');
  // A merge whose result differs from both parents at a name one of them renamed: a combined rename.
  w.git(['checkout', '-q', '-b', 'mover', 'HEAD~1']);
  w.git(['mv', 'docs/guide.md', 'docs/handbook.md']);
  w.commit('mover: rename the guide');
  w.git(['checkout', '-q', 'main']);
  w.write('docs/guide.md', lines(130, 'guide') + 'appended on main\n');
  w.commit('main: append to the guide');
  w.git(['merge', '-q', '--no-ff', '--no-edit', 'mover']);
  const combined = (): string => w.git(['diff-tree', '-c', '-M', '--raw', '--combined-all-paths', 'HEAD']);
  assert.match(
    combined(),
    / RM\tdocs\/guide.md\tdocs\/handbook.md\tdocs\/handbook.md\n/,
    'a rename from the first parent',
  );
  // The same from the other side: the rename is the second parent's.
  w.git(['checkout', '-q', '-b', 'mover2', 'HEAD']);
  w.git(['mv', 'src/util/strings.h', 'src/util/text.h']);
  w.commit('mover2: rename strings.h');
  w.git(['checkout', '-q', 'main']);
  w.write('src/util/strings.h', fs.readFileSync(path.join(dir, 'src/util/strings.h'), 'utf8') + 'appended\n');
  w.commit('main: append to strings.h');
  w.git(['checkout', '-q', 'mover2']);
  w.git(['merge', '-q', '--no-ff', '--no-edit', 'main']);
  assert.match(
    combined(),
    / MR\tsrc\/util\/text.h\tsrc\/util\/strings.h\tsrc\/util\/text.h\n/,
    'a rename from the second parent',
  );
  w.git(['checkout', '-q', 'main']);
  w.git(['merge', '-q', '--ff-only', 'mover2']);
  w.commit('after the merges');
  return dir;
}

/** A seeded random history: branches, merges that take some of the other side, renames, deletions. */
function randomRepository(seed: number): string {
  const dir = sandbox.init(`random-${seed}`);
  const w = new Work(dir);
  const random = new SeededRandom(seed);
  const folders = ['', 'a/', 'a/b/', 'c/', 'c/d/e/'];
  const suffixes = ['.c', '.h', '', '.txt', '.tar.gz', '.'];
  const files = (): string[] => w.git(['ls-files', '-z']).split('\0').filter(Boolean);
  const content = (): string =>
    Array.from({ length: 5 + random.int(200) }, () => `${random.int(50)}`).join('\n') + '\n';
  w.write('start.txt', content());
  w.commit('start');
  const branches = ['main'];
  for (let step = 0; step < 60; step++) {
    const choice = random.int(10);
    if (choice === 0 && branches.length < 4) {
      const name = `b${step}`;
      w.git(['checkout', '-q', '-b', name]);
      branches.push(name);
      continue;
    }
    if (choice === 1 && branches.length > 1) {
      const other = random.pick(branches.filter((b) => b !== w.git(['branch', '--show-current']).trim()));
      w.git(['merge', '-q', '--no-ff', '--no-commit', '-s', 'ours', other]);
      const theirs = w.git(['ls-tree', '-r', '--name-only', '-z', other]).split('\0').filter(Boolean);
      for (const file of theirs) if (random.int(2) === 0) w.git(['checkout', other, '--', file]);
      if (random.int(3) === 0) w.write(`merged${step}.txt`, content());
      w.commit(`merge ${other}`);
      continue;
    }
    if (choice === 2) {
      w.git(['checkout', '-q', random.pick(branches)]);
      continue;
    }
    for (let edits = 1 + random.int(3); edits > 0; edits--) {
      const present = files();
      const action = random.int(6);
      const some = random.pick(present);
      if (action <= 1 || present.length < 3) {
        const name = `${random.pick(folders)}f${random.int(12)}${random.pick(suffixes)}`;
        if (!present.some((p) => p.startsWith(`${name}/`) || name.startsWith(`${p}/`))) w.write(name, content());
      } else if (action === 2) w.write(some, content());
      else if (action === 3) {
        const to = `${random.pick(folders)}r${random.int(12)}${random.pick(suffixes)}`;
        if (!present.includes(to) && !present.some((p) => p.startsWith(`${to}/`) || to.startsWith(`${p}/`))) {
          fs.mkdirSync(path.dirname(path.join(dir, to)), { recursive: true });
          w.git(['mv', '--', some, to]);
        }
      } else w.remove(some);
    }
    w.commit(`step ${step}`);
  }
  return dir;
}

describe('packscope sizes against git filter-repo --analyze', () => {
  before(() => {
    assert.ok(
      fs.existsSync(FILTER_REPO),
      `${FILTER_REPO} is missing: node scripts/ensure-test-tools.mjs installs it (git-filter-repo)`,
    );
    root = tempDir(undefined, 'packscope-sizes-');
    sandbox = new GitSandbox(root);
    cache = path.join(root, 'cache');
    shapes = shapesRepository();
    ({ clone: shapesClone, expected: shapesExpected } = analyze(shapes, 'shapes-clone'));
  });

  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('every case of its rules, one pack: all six report files byte for byte, --json the same rows', () => {
    const document = assertSameAsFilterRepo(shapesClone, shapesExpected, 'shapes');
    // The report has each case in it (so that a missing case cannot pass unnoticed).
    const paths = new Map(document.paths.map((r) => [r.path, r]));
    for (const p of ['src/main.c', 'src/core.c', 'src/engine.c', '.bashrc', 'odd/a.', 'link-to-main', 'tab\there.txt'])
      assert.ok(paths.has(p), p);
    assert.ok(!paths.has('vendor/sub'), 'a gitlink has no size');
    assert.ok(document.paths.some((r) => r.deleted !== null));
    assert.ok(document.directories.some((r) => r.deleted !== null));
    assert.ok(document.extensions.some((r) => r.path === ''));
  });

  test("loose objects and a second pack beside the clone's pack", () => {
    const w = new Work(shapes);
    w.write('later/big.bin', new SeededRandom(11).bytes(4000));
    w.write('README', 'read me, later\n');
    w.commit('after the clone');
    const { clone, expected } = analyze(shapesClone, 'layered-clone', (dir) => {
      // The source's new commit arrives as a pack of its own; then loose objects on top.
      sandbox.git(dir, ['-c', 'fetch.unpackLimit=1', 'fetch', '-q', shapes, 'main:refs/heads/later']);
      const layered = new Work(dir);
      layered.write('loose/only.txt', 'only loose\n');
      layered.write('src/engine.c', 'rewritten while loose\n');
      layered.commit('loose commit');
      assert.equal(
        fs.readdirSync(path.join(dir, '.git', 'objects', 'pack')).filter((f) => f.endsWith('.pack')).length,
        2,
      );
    });
    assertSameAsFilterRepo(clone, expected, 'layered');
  });

  test('a shallow clone: commits whose parents are cut off start the history', () => {
    const { clone, expected } = analyze(`file://${shapes}`, 'shallow-clone', undefined, [
      '--depth',
      '4',
      '--no-single-branch',
    ]);
    assert.ok(fs.existsSync(path.join(clone, '.git', 'shallow')));
    assertSameAsFilterRepo(clone, expected, 'shallow');
  });

  for (const seed of [1, 2, 3]) {
    test(`a seeded random history of branches, merges, renames and deletions (seed ${seed})`, () => {
      const source = randomRepository(seed);
      const { clone, expected } = analyze(source, `random-${seed}-clone`);
      assertSameAsFilterRepo(clone, expected, `random ${seed}`);
    });
  }

  test("--count per-blob: each blob once, totals equal to cat-file's sizes of the blobs the history names", () => {
    const clone = shapesClone;
    const perPath = JSON.parse(packscope(['--json', clone]).stdout) as SizesDocument;
    const perBlob = JSON.parse(packscope(['--json', '--count', 'per-blob', clone]).stdout) as SizesDocument;
    assert.equal(perBlob.count, 'per-blob');
    assert.deepEqual(
      perBlob.paths.map((r) => r.path).sort(),
      perPath.paths.map((r) => r.path).sort(),
      'the same paths are listed',
    );
    // Every blob of every commit's tree is one the history's diffs show (gitlinks are no objects).
    const sizes = sandbox
      .gitText(clone, ['cat-file', '--batch-check=%(objecttype) %(objectsize) %(objectsize:disk)'], {
        input: sandbox.gitText(clone, ['rev-list', '--objects', '--all', '--no-object-names']),
      })
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('blob '))
      .map((line) => line.split(' ').slice(1).map(Number));
    assert.equal(perBlob.history.blobs, sizes.length);
    assert.equal(
      perBlob.total.inflated,
      sizes.reduce((sum, [i]) => sum + i!, 0),
    );
    assert.equal(
      perBlob.total.disk,
      sizes.reduce((sum, [, d]) => sum + d!, 0),
    );
    assert.ok(perBlob.total.disk < perPath.total.disk, 'the twins and the renamed blob count once');
  });

  test('the report directory is never inside a repository, and existing files need --force', () => {
    const clone = shapesClone;
    const inside = runCli(['sizes', '--cache-dir', cache, '--filter-repo-report', path.join(clone, 'report'), clone]);
    assert.equal(inside.status, 1);
    assert.match(inside.stderr, /inside the repository/);
    assert.ok(!fs.existsSync(path.join(clone, 'report')));
    const outside = path.join(root, 'twice-report');
    packscope(['--filter-repo-report', outside, clone]);
    const again = runCli(['sizes', '--cache-dir', cache, '--filter-repo-report', outside, clone]);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /exists; --force replaces it/);
    packscope(['--force', '--filter-repo-report', outside, clone]);
  });
});
