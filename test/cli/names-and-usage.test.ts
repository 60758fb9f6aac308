/**
 * Objects named as git names them, and the CLI's own usage errors, on real repositories with real
 * git: `packscope object HEAD:Makefile` (and `v1^{tree}`, `main~1`, `:/message`) is the object
 * `git rev-parse --verify` gives; a name git refuses is refused with git's reason after ours;
 * `verify-pack` given a repository checks each of its packs, byte for byte as `git verify-pack`
 * run on each; `--no-cache` and unknown options get packscope's own sentence, never Node's parser's.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { assertMatchesGit } from '../support/assert-output.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { packscope, runGit } from '../support/git-oracle.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let cacheDir: string;

before(() => {
  root = tempDir(undefined, 'packscope-names-usage-');
  sandbox = new GitSandbox(root);
  cacheDir = path.join(root, 'cache');
  repo = sandbox.init('repo');
  const commit = (message: string): void => {
    sandbox.git(repo, ['add', '-A']);
    sandbox.git(repo, ['commit', '-q', '-m', message]);
  };
  fs.writeFileSync(path.join(repo, 'Makefile'), 'all:\n\techo one\n');
  fs.mkdirSync(path.join(repo, 'src'));
  fs.writeFileSync(path.join(repo, 'src', 'main.c'), 'int main(void) { return 0; }\n');
  commit('first: a Makefile and main.c');
  sandbox.git(repo, ['tag', '-a', '-m', 'one', 'v1']);
  sandbox.git(repo, ['repack', '-adq']);
  // A second pack: two packs to verify in one call.
  fs.appendFileSync(path.join(repo, 'Makefile'), '\techo two\n');
  commit('second: the Makefile grows');
  sandbox.git(repo, ['repack', '-dq']);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

const gitRevParse = (name: string): string => sandbox.gitText(repo, ['rev-parse', '--verify', name]).trim();

test('object takes any name git rev-parse takes and shows the object git resolves it to', () => {
  for (const name of ['HEAD:Makefile', 'HEAD~1:Makefile', 'v1^{tree}', 'v1', 'main~1', ':/second', 'HEAD:src']) {
    const result = packscope(['object', '--json', name, repo], root, cacheDir);
    assert.equal(result.status, 0, `${name}: ${result.stderr}`);
    const document = JSON.parse(result.stdout) as { oid: string; type: string; path: string | null };
    assert.equal(document.oid, gitRevParse(name), name);
    assert.equal(document.type, sandbox.gitText(repo, ['cat-file', '-t', document.oid]).trim(), name);
  }
  const makefile = JSON.parse(packscope(['object', '--json', 'HEAD:Makefile', repo], root, cacheDir).stdout) as {
    path: string | null;
  };
  assert.equal(makefile.path, 'Makefile');
  // An id in upper case is still an id, as before.
  const oid = gitRevParse('HEAD');
  const upper = packscope(['object', '--json', oid.toUpperCase()], repo, cacheDir);
  assert.equal((JSON.parse(upper.stdout) as { oid: string }).oid, oid);
});

test('a name git cannot resolve is refused with what was asked and git’s own reason', () => {
  const missing = packscope(['object', 'HEAD:nope', repo], root, cacheDir);
  assert.equal(missing.status, 1);
  const gitSays = runGit(sandbox, repo, ['rev-parse', 'HEAD:nope']).stderr.split('\n')[0]!;
  assert.equal(gitSays, "fatal: path 'nope' does not exist in 'HEAD'");
  assert.equal(
    missing.stderr,
    `packscope: "HEAD:nope" names no object of ${path.join(repo, '.git')} (git rev-parse says: ${gitSays})\n`,
  );
  const range = packscope(['object', 'main~1..main', repo], root, cacheDir);
  assert.equal(range.status, 1);
  const ids = sandbox.gitText(repo, ['rev-parse', 'main~1..main']).trim().split('\n').join(' ');
  assert.equal(
    range.stderr,
    `packscope: "main~1..main" names no object of ${path.join(repo, '.git')} (git rev-parse gives "${ids}", not one object id)\n`,
  );
  const dash = packscope(['object', '--', '--git-dir=/', repo], root, cacheDir);
  assert.equal(dash.status, 1);
  assert.equal(dash.stderr, 'packscope: "--git-dir=/" is no object name (names do not start with "-")\n');
});

test('verify-pack given a repository checks each of its packs, as git verify-pack does one by one', () => {
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  const idxs = fs
    .readdirSync(packDir)
    .filter((name) => name.endsWith('.idx'))
    .sort();
  assert.equal(idxs.length, 2, 'two packs');
  for (const [flag, cwd, argument] of [
    ['-v', root, 'repo'],
    ['-s', root, 'repo'],
    ['-v', repo, '.'],
    ['-v', path.join(repo, 'src'), '..'],
  ] as const) {
    const relative = path.relative(path.resolve(cwd, argument), packDir);
    const expected = idxs
      .map((idx) => runGit(sandbox, cwd, ['verify-pack', flag, path.join(argument, relative, idx)]))
      .map((run) => {
        assert.equal(run.status, 0, run.stderr);
        return run.stdout;
      })
      .join('');
    assertMatchesGit(
      packscope(['verify-pack', flag, argument], cwd, cacheDir),
      expected,
      `verify-pack ${flag} ${argument}`,
    );
  }
  // A repository with no packs says so, not "repo.idx: cannot open".
  const empty = sandbox.init('empty');
  const none = packscope(['verify-pack', 'empty'], root, cacheDir);
  assert.equal(none.status, 1);
  assert.equal(
    none.stderr,
    `packscope: ${path.join(empty, '.git', 'objects', 'pack')}: the repository at empty has no packs to verify (its objects are loose; git gc packs them)\n`,
  );
});

test('unknown options and missing values get packscope’s own usage errors', () => {
  const cases: [string[], string][] = [
    [
      ['verify-pack', '--no-cache', 'repo'],
      'packscope: verify-pack has no option --no-cache: it keeps no pack model (every run reads the packs anew, as git does) (see packscope verify-pack --help)\n',
    ],
    [
      ['verify-pack', '--bogus', 'repo'],
      'packscope: verify-pack has no option --bogus (see packscope verify-pack --help)\n',
    ],
    [
      ['verify-pack', '--threads'],
      'packscope: verify-pack: --threads needs a value (see packscope verify-pack --help)\n',
    ],
    [['stats', '--colour', 'repo'], 'packscope: stats has no option --colour (see packscope stats --help)\n'],
    [['object', '-q', 'HEAD', 'repo'], 'packscope: object has no option -q (see packscope object --help)\n'],
    [['policies', 'extra'], 'packscope: policies takes no argument "extra" (see packscope policies --help)\n'],
  ];
  for (const [args, stderr] of cases) {
    const result = packscope(args, root, cacheDir);
    assert.equal(result.stderr, stderr, args.join(' '));
    assert.equal(result.status, 1, args.join(' '));
    assert.equal(result.stdout, '', args.join(' '));
  }
});
