/**
 * Object names from git (`git rev-list --objects --all`, parsed as it streams) against the walk's:
 * the same name for every packed object, byte for byte, on a history with renames, the same blob at
 * several paths, a gitlink, annotated tags of trees, blobs and tags, two packs and loose objects;
 * paths with spaces, tabs, non-ASCII bytes and a newline (where rev-list prints only the first
 * line); the walk names the repository when git cannot run, fails on a broken repository or would
 * read grafts; a cancellation leaves no git running.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { nameObjectsByGit, GitNamesUnusable } from '../../src/core/model/git-object-names.ts';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { loadOrNamePaths } from '../../src/core/model/object-paths-store.ts';
import { storeWalkInputs, walkStorePaths, type StoreWalkInputs } from '../../src/core/model/object-paths.ts';
import { ObjectStore } from '../../src/core/model/object-store.ts';
import { discoverRepository, type Repository } from '../../src/core/model/repository.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { pathsRepository, revListNames, packedNames } from '../support/paths-repository.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;

before(() => {
  root = tempDir(undefined, 'packscope-git-names-');
  sandbox = new GitSandbox(root);
  repo = pathsRepository(sandbox, 'repo');
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

function open(dir: string): { inputs: StoreWalkInputs; repository: Repository } {
  const repository = discoverRepository(dir);
  return { inputs: storeWalkInputs(new ObjectStore(repository, new ModelStore(undefined))), repository };
}

function gitOptions(repository: Repository, git = 'git'): { git: string; gitDir: string; commonDir: string } {
  return { git, gitDir: repository.gitDir, commonDir: repository.commonDir };
}

describe('names from git rev-list', () => {
  test('are the walk’s and rev-list’s, object for object, with loose objects, two packs, tags and a gitlink', async () => {
    const { inputs, repository } = open(repo);
    assert.equal(inputs.models.length, 2);
    const fromGit = await nameObjectsByGit(inputs, gitOptions(repository));
    const walked = walkStorePaths(inputs);
    assert.equal(walked.summary.complete, true, walked.summary.problems.join('\n'));
    assert.equal(fromGit.summary.namesFrom, 'git rev-list');
    assert.equal(walked.summary.namesFrom, 'walk');
    const ours = packedNames(inputs, fromGit);
    assert.deepEqual(ours, packedNames(inputs, walked));
    assert.equal(fromGit.summary.named, walked.summary.named);
    assert.equal(fromGit.summary.commits, walked.summary.commits);
    assert.equal(fromGit.summary.trees, walked.summary.trees, 'loose trees counted too');
    assert.equal(fromGit.summary.tips, walked.summary.tips);
    const git = revListNames(sandbox, repo);
    let named = 0;
    for (const [oid, name] of ours) {
      assert.equal(name, git.has(oid) ? git.get(oid) : undefined, oid);
      if (name !== undefined) named++;
    }
    assert.ok(named > 1000, `${named} names compared`);
    // The cases the repository was made for, by name.
    const values = new Set(ours.values());
    for (const expected of ['tree-tag', 'blob-tag', 'tag-of-tag', 'naïve/ünïcode file.txt'])
      assert.ok(values.has(Buffer.from(expected).toString('latin1')), expected);
  });

  test('paths with spaces, tabs, non-ASCII bytes and a newline: rev-list’s bytes, up to the newline', async (t) => {
    const box = new GitSandbox(tempDir(t, 'packscope-git-names-odd-'));
    const odd = box.init('odd');
    const blob = (text: string): string => box.gitText(odd, ['hash-object', '-w', '--stdin'], { input: text }).trim();
    const inner = box
      .gitText(odd, ['mktree', '-z'], { input: Buffer.from(`100644 blob ${blob('inner\n')}\tin side.txt\0`) })
      .trim();
    const entries = [
      `100644 blob ${blob('space\n')}\twith space.txt`,
      `100644 blob ${blob('tab\n')}\twith\ttab`,
      `100644 blob ${blob('latin\n')}\tcaf\xe9`,
      `100644 blob ${blob('newline\n')}\tnew\nline.txt`,
      `040000 tree ${inner}\tdir\nwith newline`,
    ];
    const tree = box.gitText(odd, ['mktree', '-z'], { input: Buffer.from(entries.join('\0') + '\0', 'latin1') }).trim();
    const commit = box.gitText(odd, ['commit-tree', tree, '-m', 'odd names']).trim();
    box.git(odd, ['update-ref', 'refs/heads/main', commit]);
    box.git(odd, ['repack', '-adq']);
    const { inputs, repository } = open(odd);
    const fromGit = packedNames(inputs, await nameObjectsByGit(inputs, gitOptions(repository)));
    const walked = packedNames(inputs, walkStorePaths(inputs));
    const git = revListNames(box, odd);
    assert.equal(fromGit.size, walked.size);
    let newlines = 0;
    for (const [oid, name] of fromGit) {
      assert.equal(name, git.get(oid), `${oid}: git's name is rev-list's, byte for byte`);
      const whole = walked.get(oid);
      // rev-list prints a path up to its first newline; the walk keeps the whole path.
      if (whole?.includes('\n')) newlines++;
      assert.equal(name, whole?.split('\n')[0], oid);
    }
    assert.equal(newlines, 3, 'the blob, the tree and the blob inside it have a newline in their path');
    for (const expected of ['with space.txt', 'with\ttab', 'caf\xe9'])
      assert.ok([...fromGit.values()].includes(expected));
  });

  test('a grafts file, git failing or missing: the walk names the repository and says why', async (t) => {
    const broken = path.join(root, 'broken');
    sandbox.git(root, ['clone', '-q', '--mirror', repo, broken]);
    const cache = tempDir(t, 'packscope-git-names-cache-');
    const { inputs, repository } = open(broken);
    const walked = packedNames(inputs, walkStorePaths(inputs));

    const noGit = await loadOrNamePaths(inputs, repository.commonDir, undefined, {
      git: gitOptions(repository, path.join(root, 'no-such-git')),
    });
    assert.match(noGit.walkedBecause ?? '', /cannot run git/);
    assert.equal(noGit.paths.summary.namesFrom, 'walk');
    assert.deepEqual(packedNames(inputs, noGit.paths), walked);

    fs.mkdirSync(path.join(repository.commonDir, 'info'), { recursive: true });
    fs.writeFileSync(path.join(repository.commonDir, 'info', 'grafts'), '');
    await assert.rejects(nameObjectsByGit(inputs, gitOptions(repository)), GitNamesUnusable);
    fs.rmSync(path.join(repository.commonDir, 'info', 'grafts'));

    // A ref to an object no pack or loose file holds: git fails, the walk names the rest and says so.
    fs.writeFileSync(path.join(repository.commonDir, 'refs', 'heads', 'gone'), `${'e'.repeat(40)}\n`);
    const damaged = open(broken);
    const loaded = await loadOrNamePaths(damaged.inputs, repository.commonDir, cache, {
      git: gitOptions(repository),
    });
    assert.match(loaded.walkedBecause ?? '', /git rev-list failed \(exit status 128\)/);
    assert.equal(loaded.paths.summary.namesFrom, 'walk');
    assert.equal(loaded.paths.summary.complete, false);
    assert.deepEqual(packedNames(damaged.inputs, loaded.paths), walked);
  });

  test('a replace ref changes nothing: git reads the commits as stored, as the walk does', async () => {
    const replaced = path.join(root, 'replaced');
    sandbox.git(root, ['clone', '-q', '--mirror', repo, replaced]);
    const head = sandbox.gitText(replaced, ['rev-parse', 'main~5']).trim();
    const other = sandbox.gitText(replaced, ['rev-parse', 'main~40']).trim();
    sandbox.git(replaced, ['replace', head, other]);
    const { inputs, repository } = open(replaced);
    assert.ok(inputs.refs.tips.some((tip) => tip.name === `refs/replace/${head}`));
    const fromGit = await nameObjectsByGit(inputs, gitOptions(repository));
    assert.deepEqual(packedNames(inputs, fromGit), packedNames(inputs, walkStorePaths(inputs)));
  });

  test('are stored as the walk’s are, and read back', async (t) => {
    const cache = tempDir(t, 'packscope-git-names-store-');
    const { inputs, repository } = open(repo);
    const first = await loadOrNamePaths(inputs, repository.commonDir, cache, { git: gitOptions(repository) });
    assert.equal(first.source, 'walked');
    assert.equal(first.walkedBecause, undefined);
    const again = await loadOrNamePaths(inputs, repository.commonDir, cache, { git: gitOptions(repository) });
    assert.equal(again.source, 'persisted');
    assert.equal(again.paths.summary.namesFrom, 'git rev-list');
    assert.deepEqual(packedNames(inputs, again.paths), packedNames(inputs, first.paths));
  });

  test('output that is not rev-list’s is refused with its offset, and git is stopped', async (t) => {
    const dir = tempDir(t, 'packscope-git-names-fake-');
    const { inputs, repository } = open(repo);
    const fake = (name: string, script: string): string => {
      const file = path.join(dir, name, 'git');
      fs.mkdirSync(path.dirname(file));
      fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
      return file;
    };
    const commit = sandbox.gitText(repo, ['rev-parse', 'main~1']).trim(); // packed (main is loose)
    const cases: [string, string, RegExp][] = [
      ['upper', `echo ${commit.toUpperCase()}`, /offset 0 of its output: an object id is not lower-case hex/],
      ['short', `echo ${commit}; echo ${commit.slice(0, 39)}`, /offset 41 of its output: a line is not `<id> <path>`/],
      ['tab', `printf '${commit}\\tpath\\n'`, /offset 0 of its output: a line is not `<id> <path>`/],
      ['unended', `printf '${commit}'`, /offset 0 of its output: the last line has no newline/],
      ['commit-path', `echo ${commit} a/path`, /offset 0 of its output: commit [0-9a-f]{40} is printed with a path/],
      [
        'long',
        `printf '${commit} '; head -c 70000 /dev/zero | tr '\\0' a; echo`,
        /a line longer than any path git names/,
      ],
      // Printed without end: the parser's refusal must stop it.
      ['endless', `while :; do echo ${commit.toUpperCase()}; done`, /an object id is not lower-case hex/],
    ];
    for (const [name, script, expected] of cases)
      await assert.rejects(
        nameObjectsByGit(inputs, gitOptions(repository, fake(name, script))),
        (error: Error) => {
          assert.equal(error.name, 'GitNamesUnusable', `${name}: ${error.message}`);
          assert.match(error.message, expected, name);
          return true;
        },
        `${name}: no rejection`,
      );
  });

  test('rev-list writes in full buffers (GIT_FLUSH=0), not once per object, and the names are the same', async (t) => {
    // A stand-in that notes the GIT_FLUSH it was given, then runs git: into a pipe rev-list flushes
    // after every object unless GIT_FLUSH=0 (write-or-die.c), a write and a wake-up per object.
    const dir = tempDir(t, 'packscope-git-names-flush-');
    const noted = path.join(dir, 'flush');
    const wrapper = path.join(dir, 'git');
    const realGit = sandbox.gitText(repo, ['--exec-path']).trim();
    fs.writeFileSync(
      wrapper,
      `#!/bin/sh\nprintf '%s' "\${GIT_FLUSH-unset}" > '${noted}'\nexec '${realGit}/git' "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const { inputs, repository } = open(repo);
    const fromGit = await nameObjectsByGit(inputs, gitOptions(repository, wrapper));
    assert.equal(fs.readFileSync(noted, 'utf8'), '0');
    assert.deepEqual(packedNames(inputs, fromGit), packedNames(inputs, walkStorePaths(inputs)));
  });

  test('a cancellation stops git: no git process is left', async (t) => {
    // A stand-in for git that records its process id and then waits: the run must kill it.
    const dir = tempDir(t, 'packscope-git-names-slow-');
    const pidFile = path.join(dir, 'pid');
    const slowGit = path.join(dir, 'git');
    fs.writeFileSync(slowGit, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 60\n`, { mode: 0o755 });
    const { inputs, repository } = open(repo);
    const controller = new AbortController();
    const run = nameObjectsByGit(inputs, { ...gitOptions(repository, slowGit), signal: controller.signal });
    while (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, 'utf8').trim() === '')
      await new Promise((resolve) => setTimeout(resolve, 20));
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    controller.abort();
    await assert.rejects(run, { name: 'AbortError' });
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `process ${pid} still runs`);
  });
});
