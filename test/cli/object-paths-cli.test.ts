/**
 * `packscope object` and `packscope stats` with paths and subjects, against git: the path printed
 * for a blob, a tree and a tag is the name `git rev-list --objects --all` prints; a commit's subject
 * is `git log -1 --format=%s`; the lists of `stats` carry the same names; --no-paths leaves them out.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { StatsDocument } from '../../src/core/documents/stats-document.ts';
import { GitSandbox, runCli, tempDir } from '../support/git.ts';
import { pathsRepository, revListNames } from '../support/paths-repository.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let cache: string;
let names: Map<string, string | undefined>;

before(() => {
  root = tempDir(undefined, 'packscope-paths-cli-');
  sandbox = new GitSandbox(root);
  repo = pathsRepository(sandbox, 'repo', 120);
  cache = path.join(root, 'cache');
  names = revListNames(sandbox, repo);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = runCli([...args, '--cache-dir', cache, repo]);
  return { status: result.status, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}

function latin1(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

describe('packscope object', () => {
  test("a blob's and a tree's introducing commit: git log --find-object's last commit adding it at the path, in the text and in --json", () => {
    for (const [name, file] of [
      ['main:renamed/same.txt', 'renamed/same.txt'],
      ['main:deep/a', 'deep/a'],
    ] as const) {
      const oid = sandbox.gitText(repo, ['rev-parse', name]).trim();
      // git's answer: the last commit it lists whose change has the object as the new side at that path.
      const listed = sandbox.gitText(repo, [
        'log',
        '--all',
        `--find-object=${oid}`,
        '--no-renames',
        '--diff-merges=separate',
        '--format=commit %H',
        '--raw',
        '--no-abbrev',
      ]);
      let commit: string | null = null;
      let expected: string | null = null;
      for (const line of listed.split('\n')) {
        if (line.startsWith('commit ')) commit = line.slice(7);
        const [header, changed] = line.split('\t');
        const [, , before, after] = (header ?? '').split(' ');
        if (line.startsWith(':') && after === oid && before !== oid && changed === file) expected = commit;
      }
      assert.ok(expected, `git lists a commit adding ${oid} at ${file}`);
      const subject = sandbox.gitText(repo, ['log', '-1', '--format=%s', expected]).trim();
      const json = cli(['object', '--json', '--walk-seconds', '0', name]);
      assert.equal(json.status, 0, json.stderr);
      assert.deepEqual(JSON.parse(json.stdout).introducedBy, { commit: expected, subject });
      const text = cli(['object', '--walk-seconds', '0', name]);
      assert.match(text.stdout, new RegExp(`^introduced ${expected} ${escape(subject)}$`, 'm'), text.stdout);
    }
    const commitJson = JSON.parse(cli(['object', '--json', 'main~1']).stdout);
    assert.equal(commitJson.introducedBy, null, 'a commit has none');
  });

  test('a blob, a tree and a tag: path (name) as rev-list prints it, in the text and in --json', () => {
    const blob = sandbox.gitText(repo, ['rev-parse', 'main:naïve/ünïcode file.txt']).trim();
    const tree = sandbox.gitText(repo, ['rev-parse', 'main~1:deep/a']).trim();
    const tag = sandbox.gitText(repo, ['rev-parse', 'tree-tag']).trim();
    for (const oid of [blob, tree, tag]) {
      const json = cli(['object', '--json', oid]);
      assert.equal(json.status, 0, json.stderr);
      const document = JSON.parse(json.stdout) as {
        path: string | null;
        subject: string | null;
        pathWalk: { complete: boolean };
      };
      assert.ok(names.has(oid), `rev-list lists ${oid}`);
      assert.equal(latin1(document.path ?? ''), names.get(oid), oid);
      assert.equal(document.pathWalk.complete, true);
      const text = cli(['object', oid]);
      assert.equal(text.status, 0, text.stderr);
      const label = oid === tag ? 'name' : 'path';
      assert.match(text.stdout, new RegExp(`^${label} {6}${escape(document.path!)}$`, 'm'), text.stdout);
    }
    assert.equal(JSON.parse(cli(['object', '--json', tag]).stdout).subject, 'a tree', 'a tag has a subject too');
  });

  test('a commit: its subject is git log -1 --format=%s, no path; --no-paths has neither walk nor path', () => {
    for (const rev of ['main~1', 'odd-message', 'main~5']) {
      const oid = sandbox.gitText(repo, ['rev-parse', rev]).trim();
      const subject = sandbox.gitText(repo, ['log', '-1', '--format=%s', oid]).trim();
      const json = JSON.parse(cli(['object', '--json', oid]).stdout) as { subject: string; path: null; pathWalk: null };
      assert.equal(json.subject, subject);
      assert.equal(json.path, null);
      assert.equal(json.pathWalk, null, 'a commit needs no walk');
      assert.match(cli(['object', oid]).stdout, new RegExp(`^subject {3}${escape(subject)}$`, 'm'));
    }
    const blob = sandbox.gitText(repo, ['rev-parse', 'main:renamed/same.txt']).trim();
    const skipped = JSON.parse(cli(['object', '--json', '--no-paths', blob]).stdout) as { path: null; pathWalk: null };
    assert.equal(skipped.path, null);
    assert.equal(skipped.pathWalk, null);
    assert.doesNotMatch(cli(['object', '--no-paths', blob]).stdout, /^path/m);
  });

  test('a root tree says so; an unreachable blob says no ref reaches it', () => {
    const rootTree = sandbox.gitText(repo, ['rev-parse', 'main~2^{tree}']).trim();
    assert.equal(names.get(rootTree), '');
    assert.match(cli(['object', rootTree]).stdout, /^path {6}\(a root tree: rev-list names it by the empty path\)$/m);
    const dangling = sandbox.gitText(repo, ['hash-object', '-w', '--stdin'], { input: 'dangling\n' }).trim();
    // Packed by id (repack packs only what a ref reaches).
    sandbox.git(repo, ['pack-objects', '-q', path.join(repo, '.git', 'objects', 'pack', 'pack')], {
      input: `${dangling}\n`,
    });
    const json = JSON.parse(cli(['object', '--json', dangling]).stdout) as {
      path: null;
      pathWalk: { complete: boolean };
    };
    assert.equal(json.path, null);
    assert.equal(json.pathWalk.complete, true);
    assert.equal(names.has(dangling), false);
    assert.match(cli(['object', dangling]).stdout, /^path {6}none \(no ref reaches this blob\)$/m);
  });
});

describe('packscope stats', () => {
  test('with no stored walk, the text prints the report first and then the names, each as rev-list prints it', () => {
    const fresh = path.join(root, 'fresh-cache');
    const result = runCli(['stats', '--top', '8', '--cache-dir', fresh, repo]);
    assert.equal(result.status, 0, result.stderr);
    const text = result.stdout.toString('utf8');
    const heading = text.indexOf('names of the objects listed');
    assert.ok(heading > text.indexOf('deepest objects:'), text);
    const section = text.slice(heading).split('\n').slice(1);
    let checked = 0;
    for (const line of section) {
      const match = /^ {2}([0-9a-f]{40}) +(tree|blob|tag|commit) +(.*)$/.exec(line);
      if (!match) continue;
      const [, oid, type, name] = match;
      if (type === 'commit')
        assert.equal(name, JSON.stringify(sandbox.gitText(repo, ['log', '-1', '--format=%s', oid!]).trim()));
      // An annotated tag shows its subject, as in the lists.
      else if (type === 'tag') assert.match(name!, /^".*"$/);
      else assert.equal(name === '(root tree)' ? '' : latin1(name!), names.get(oid!), oid);
      checked++;
    }
    assert.ok(checked >= 8, `${checked} names checked`);
    // The lists above the names carry none: they were printed before the walk.
    const listed = text.slice(0, heading);
    for (const line of section) {
      const match = /^ {2}([0-9a-f]{40}) +(tree|blob) +(.+)$/.exec(line);
      if (match && match[3] !== '(root tree)') assert.ok(!listed.includes(`${match[3]}\n`), match[3]);
    }
  });

  test("every object in the lists carries rev-list's name or a commit's subject, in --json and in the text", () => {
    const json = cli(['stats', '--json', '--top', '8']);
    assert.equal(json.status, 0, json.stderr);
    const document = JSON.parse(json.stdout) as StatsDocument;
    assert.equal(document.pathWalk?.complete, true);
    let checked = 0;
    for (const pack of document.packs) {
      for (const object of [...pack.largestObjects, ...pack.largestOnDisk, ...pack.deepestObjects]) {
        if (object.type === 'commit') {
          assert.equal(object.subject, sandbox.gitText(repo, ['log', '-1', '--format=%s', object.oid]).trim());
          assert.equal(object.path, undefined);
        } else {
          assert.equal(object.path === null ? undefined : latin1(object.path!), names.get(object.oid), object.oid);
        }
        checked++;
      }
      for (const family of pack.largestFamilies)
        if (family.type !== 'commit')
          assert.equal(latin1(family.path ?? ''), names.get(family.root) ?? '', family.root);
    }
    assert.ok(checked >= 16, `${checked} list entries checked`);
    const text = cli(['stats', '--top', '8']);
    assert.equal(text.status, 0, text.stderr);
    const listed = document.packs.flatMap((pack) => pack.largestObjects).filter((object) => object.path)[0]!;
    assert.match(
      text.stdout,
      new RegExp(`^ {4}${listed.oid} .*depth ${listed.depth} +${escape(listed.path!)}$`, 'm'),
      text.stdout,
    );
    const none = JSON.parse(cli(['stats', '--json', '--no-paths']).stdout) as StatsDocument;
    assert.equal(none.pathWalk, undefined);
    assert.equal(none.packs[0]!.largestObjects[0]!.path, undefined);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
