/**
 * `packscope object` answers promptly when no finished path walk is stored (it once replayed the whole
 * `rev-list --objects --all` first: bench/README.md, "Figures the comments rely on"). The walk
 * is bounded by --walk-seconds; when it stops before reaching the object, the object is printed
 * without its path and the line says how to get one; the cut-short walk is not stored; after
 * `packscope stats` has stored the full walk, `object` prints rev-list's path even with the
 * tightest bound. The repository has 3,000 commits (git fast-import), more than one progress
 * checkpoint of the walk (2,048 steps), so a 1 ms bound always stops it in its commit phase.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { GitSandbox, runCli, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { revListNames } from '../support/paths-repository.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let cache: string;
let commits: number;
let blob: string;

before(() => {
  root = tempDir(undefined, 'packscope-walk-bound-');
  sandbox = new GitSandbox(root);
  repo = sandbox.init('repo');
  sandbox.fastImport(repo, historyStream({ commits: 3000, files: 10 }));
  sandbox.git(repo, ['repack', '-adq']);
  cache = path.join(root, 'cache');
  commits = Number(sandbox.gitText(repo, ['rev-list', '--all', '--count']).trim());
  // A blob of the first commit: the walk meets the oldest trees last.
  const first = sandbox.gitText(repo, ['rev-list', '--max-parents=0', '--all']).trim().split('\n')[0]!;
  blob = sandbox
    .gitText(repo, ['ls-tree', '-r', first])
    .trim()
    .split('\n')
    .map((line) => line.split(/\s+/))
    .find((fields) => fields[1] === 'blob')![2]!;
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = runCli([...args, '--cache-dir', cache, repo]);
  return { status: result.status, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}

const pathsFiles = (): string[] =>
  fs.existsSync(cache) ? fs.readdirSync(cache).filter((name) => name.endsWith('.pspaths')) : [];

test('a walk stopped by --walk-seconds: the object is printed without its path, with how to get it, and nothing is stored', () => {
  assert.ok(commits > 2048, `${commits} commits`);
  const text = cli(['object', '--walk-seconds', '0.001', blob]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^object    ${blob}$`, 'm'));
  const line = text.stdout.split('\n').find((l) => l.startsWith('path      '));
  assert.ok(line, text.stdout);
  assert.match(
    line,
    /^path {6}not known yet: the walk that names paths stopped after 0\.001 s \(it had read [\d,]+ of ([\d,]+) commits\); run `packscope stats` once to walk it all and store it/,
  );
  assert.equal(
    /of ([\d,]+) commits/.exec(line)![1],
    commits.toLocaleString('en-US'),
    'the total is git rev-list --all --count',
  );
  assert.match(text.stdout, /^family {4}\d+ objects? sharing root/m, 'the rest of the object is printed');
  assert.deepEqual(pathsFiles(), [], 'a walk cut short is not stored');

  const json = cli(['object', '--json', '--walk-seconds', '0.001', blob]);
  assert.equal(json.status, 0, json.stderr);
  const document = JSON.parse(json.stdout) as {
    oid: string;
    path: string | null;
    pathWalk: { complete: boolean; problems: string[] };
  };
  assert.equal(document.oid, blob);
  assert.equal(document.path, null);
  assert.equal(document.pathWalk.complete, false);
  assert.ok(
    document.pathWalk.problems.some((p) => p.includes('the walk stopped early')),
    document.pathWalk.problems.join('\n'),
  );
  assert.deepEqual(pathsFiles(), []);
});

test('a stopped walk is kept: each bounded run goes on from where the last stopped, until it names the object as rev-list', () => {
  const expected = revListNames(sandbox, repo).get(blob);
  let reached = -1;
  let runs = 0;
  for (;;) {
    const json = cli(['object', '--json', '--walk-seconds', '0.001', blob]);
    assert.equal(json.status, 0, json.stderr);
    const document = JSON.parse(json.stdout) as {
      path: string | null;
      pathWalk: { commits: number; trees: number };
    };
    runs++;
    if (document.path !== null) {
      assert.equal(document.path, expected);
      // Asked again before any walk finished: answered from where the last walk stopped, with no more walking.
      const again = JSON.parse(cli(['object', '--json', '--walk-seconds', '0.001', blob]).stdout) as typeof document;
      assert.equal(again.path, expected);
      if (pathsFiles().length === 0)
        assert.equal(
          again.pathWalk.commits + again.pathWalk.trees,
          document.pathWalk.commits + document.pathWalk.trees,
        );
      break;
    }
    const now = document.pathWalk.commits + document.pathWalk.trees;
    assert.ok(now > reached, `run ${runs} went on from ${reached} commits and trees (now ${now})`);
    reached = now;
    assert.ok(runs < 100, 'every run gets further');
  }
  assert.ok(runs > 1, `named after ${runs} runs`);
});

test('--walk-seconds refuses what is not a number of seconds', () => {
  const bad = cli(['object', '--walk-seconds', 'soon', blob]);
  assert.equal(bad.status, 1, bad.stderr);
  assert.match(bad.stderr, /--walk-seconds needs a number of seconds/);
});

test("after stats has stored the full walk, object prints rev-list's path at once, whatever the bound", () => {
  const stats = cli(['stats', '--json']);
  assert.equal(stats.status, 0, stats.stderr);
  assert.equal(pathsFiles().length, 1, 'stats stored its walk');
  const expected = revListNames(sandbox, repo).get(blob);
  assert.ok(expected, 'rev-list names the blob');
  const text = cli(['object', '--walk-seconds', '0.001', blob]);
  assert.equal(text.status, 0, text.stderr);
  assert.ok(text.stdout.split('\n').includes(`path      ${expected}`), text.stdout);
});
