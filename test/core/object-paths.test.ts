/**
 * Object paths against git: the walk names every packed object exactly as `git rev-list --objects
 * --all` does (same name, byte for byte, and nothing git leaves unnamed), on a repository of two
 * packs and loose objects with renames, shared blobs, equal commit dates, a merge, a gitlink, tags
 * of trees, blobs and tags; subjects equal `git log -1 --format=%s`; the persisted walk is reused
 * only for the same refs and packs and is rebuilt when damaged; hostile trees are reported by id.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readSubject } from '../../src/core/model/commit-subject.ts';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { ObjectStore } from '../../src/core/model/object-store.ts';
import { loadOrWalkPaths, pathsFileFor } from '../../src/core/model/object-paths-store.ts';
import {
  storeWalkInputs,
  walkStorePaths,
  type ObjectPaths,
  type StoreWalkInputs,
} from '../../src/core/model/object-paths.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { pathsRepository, revListNames, packedNames } from '../support/paths-repository.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;

before(() => {
  root = tempDir(undefined, 'packscope-paths-');
  sandbox = new GitSandbox(root);
  repo = pathsRepository(sandbox, 'repo');
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

function openStore(dir: string): ObjectStore {
  return new ObjectStore(discoverRepository(dir), new ModelStore(undefined));
}

function assertSameAsRevList(dir: string, inputs: StoreWalkInputs, paths: ObjectPaths): number {
  const git = revListNames(sandbox, dir);
  const ours = packedNames(inputs, paths);
  let compared = 0;
  for (const [oid, name] of ours) {
    const listed = git.has(oid);
    // rev-list prints a name up to its first newline (show_object_with_name).
    const expected = listed ? git.get(oid) : undefined;
    const actual = name?.split('\n')[0];
    assert.equal(
      actual,
      expected,
      `${oid}: rev-list names it ${JSON.stringify(expected)}${listed ? '' : ' (not listed)'}, the walk ${JSON.stringify(name)}`,
    );
    compared++;
  }
  return compared;
}

describe('the walk names objects as git rev-list --objects --all', () => {
  test('every object of two packs, with loose objects, renames, shared blobs, tied dates and tags', () => {
    const store = openStore(repo);
    const inputs = storeWalkInputs(store);
    assert.equal(inputs.packs.length, 2, 'the repository has two packs');
    const paths = walkStorePaths(inputs);
    assert.equal(paths.summary.complete, true, paths.summary.problems.join('\n'));
    assert.deepEqual(paths.summary.problems, []);
    const compared = assertSameAsRevList(repo, inputs, paths);
    assert.ok(compared > 1000, `${compared} objects compared`);
    // The shapes the repository was made for are really there, named as git names them.
    const git = revListNames(sandbox, repo);
    const named = [...git.values()];
    for (const expected of [
      'tree-tag',
      'blob-tag',
      'tag-of-tag',
      'naïve/ünïcode file.txt',
      'renamed/same.txt',
      'side/only.txt',
    ]) {
      assert.ok(named.includes(Buffer.from(expected).toString('latin1')), `rev-list names something ${expected}`);
    }
    // A blob a tag points at is pending before every commit's tree: git names it by the empty path.
    const tagged = sandbox.gitText(repo, ['rev-parse', 'blob-tag^{blob}']).trim();
    assert.equal(git.get(tagged), '');
    assert.ok(!named.some((name) => name?.startsWith('vendor/submodule')), 'a gitlink is not listed');
    assert.ok(
      paths.table.count < paths.summary.named,
      'paths are shared between objects (a trie, not a string per object)',
    );
  });

  test('a stopped walk (byte budget) names each object it reached as git does, and says it stopped', () => {
    const store = openStore(repo);
    const inputs = storeWalkInputs(store);
    const paths = walkStorePaths(inputs, { limits: { maxRebuiltBytes: 200_000 } });
    assert.equal(paths.summary.complete, false);
    assert.match(paths.summary.problems.join('\n'), /stopped early.*200000-byte budget/);
    const full = walkStorePaths(inputs);
    assert.ok(
      paths.summary.named > 0 && paths.summary.named < full.summary.named,
      `${paths.summary.named} of ${full.summary.named} named`,
    );
    const git = revListNames(sandbox, repo);
    for (const [oid, name] of packedNames(inputs, paths)) if (name !== undefined) assert.equal(name, git.get(oid), oid);
  });

  test('a cancelled walk throws', () => {
    const controller = new AbortController();
    controller.abort();
    assert.throws(() => walkStorePaths(storeWalkInputs(openStore(repo)), { signal: controller.signal }), {
      name: 'PathWalkCancelled',
    });
  });
});

describe('subjects', () => {
  test("every commit's and annotated tag's subject is git's %s", () => {
    const store = openStore(repo);
    const expected = new Map<string, string>();
    for (const line of sandbox.gitText(repo, ['log', '--all', '--format=%H %s']).split('\n'))
      if (line) expected.set(line.slice(0, 40), line.slice(41));
    for (const line of sandbox
      .gitText(repo, ['for-each-ref', 'refs/tags', '--format=%(objecttype) %(objectname) %(contents:subject)'])
      .split('\n')) {
      if (line.startsWith('tag ')) expected.set(line.slice(4, 44), line.slice(45));
    }
    assert.ok(expected.size > 300);
    assert.equal(
      expected.get(sandbox.gitText(repo, ['rev-parse', 'odd-message']).trim()),
      'first line second line',
      'the hand-made message really has a two-line subject after blank lines',
    );
    let checked = 0;
    for (const [oid, subject] of expected) {
      const location = store.locate(oid);
      if (!location) continue; // the loose commit
      assert.equal(readSubject(location.model, location.object), subject, oid);
      checked++;
    }
    assert.ok(checked >= expected.size - 1, `${checked} subjects checked`);
    const blob = store.locate(sandbox.gitText(repo, ['rev-parse', 'main~1:deep/a/b/c/same.txt']).trim())!;
    assert.equal(readSubject(blob.model, blob.object), undefined, 'a blob has no subject');
  });
});

describe('the persisted walk', () => {
  test('is read back for the same refs and packs, walked again when a ref moves, rebuilt when damaged', (t) => {
    const cache = tempDir(t, 'packscope-paths-cache-');
    const clone = path.join(root, 'persist');
    sandbox.git(root, ['clone', '-q', '--mirror', repo, clone]);
    const inputs = (): StoreWalkInputs => storeWalkInputs(openStore(clone));
    const commonDir = discoverRepository(clone).commonDir;
    const first = loadOrWalkPaths(inputs(), commonDir, cache);
    assert.equal(first.source, 'walked');
    assert.equal(first.notSavedBecause, undefined);
    const file = pathsFileFor(cache, commonDir);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const again = loadOrWalkPaths(inputs(), commonDir, cache);
    assert.equal(again.source, 'persisted', again.rewalkedBecause);
    assert.deepEqual(packedNames(inputs(), again.paths), packedNames(inputs(), first.paths));
    assert.deepEqual(again.paths.summary.named, first.paths.summary.named);

    sandbox.git(clone, ['update-ref', 'refs/heads/moved', 'main~3']);
    const moved = loadOrWalkPaths(inputs(), commonDir, cache);
    assert.equal(moved.source, 'walked');
    assert.match(moved.rewalkedBecause ?? '', /refs or packs changed/);

    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 40] ^= 0xff;
    fs.writeFileSync(file, bytes);
    const damaged = loadOrWalkPaths(inputs(), commonDir, cache);
    assert.equal(damaged.source, 'walked');
    assert.match(damaged.rewalkedBecause ?? '', /checksum mismatch/);
    fs.truncateSync(file, 100);
    assert.match(loadOrWalkPaths(inputs(), commonDir, cache).rewalkedBecause ?? '', /truncated|checksum/);
    assert.equal(assertSameAsRevList(clone, inputs(), loadOrWalkPaths(inputs(), commonDir, cache).paths) > 1000, true);
  });
});

describe('trees compared with the tree walked before at their path', () => {
  test('entries changed in place, added, removed and moved between versions are named as git names them', (t) => {
    const dir = tempDir(t, 'packscope-paths-versions-');
    const box = new GitSandbox(dir);
    const repo = box.init('versions');
    // Each commit rewrites a few files of wide directories (same-length and longer names), adds one,
    // deletes one and moves one across directories: the walk skips the entries equal to the tree
    // before and must still name every new object at git's path. Two branches share the history.
    const lines: string[] = [];
    let mark = 1;
    for (let c = 0; c < 60; c++) {
      lines.push(`commit refs/heads/${c % 7 === 3 ? 'side' : 'main'}`, `mark :${mark++}`);
      lines.push(`committer A <a@example.com> ${1_700_000_000 + c * 60 + (c % 5 === 0 ? 0 : c)} +0000`);
      lines.push('data 3', `c${String(c).padStart(2, '0')}`);
      if (c === 0)
        for (let f = 0; f < 40; f++)
          for (const d of ['a', 'b/c', 'b/d'])
            lines.push(
              `M 100644 inline ${d}/f${String(f).padStart(2, '0')}`,
              `data 6`,
              `${d[0]}${f}-0\n`.slice(0, 5) + '\n',
            );
      else {
        const d = ['a', 'b/c', 'b/d'][c % 3]!;
        for (const f of [c % 40, (c * 7) % 40])
          lines.push(
            `M 100644 inline ${d}/f${String(f).padStart(2, '0')}`,
            `data 8`,
            `v${String(c).padStart(3, '0')}-${f % 10}\n`.slice(0, 7) + '\n',
          );
        lines.push(`M 100644 inline ${d}/new-${c}.txt`, 'data 4', `n${c % 100}`.padEnd(3, '.') + '\n');
        lines.push(`D ${['a', 'b/c', 'b/d'][(c + 1) % 3]}/f${String((c * 3) % 40).padStart(2, '0')}`);
        if (c % 4 === 0) lines.push(`R ${d}/new-${c}.txt ${['a', 'b/c', 'b/d'][(c + 2) % 3]}/moved-${c}.txt`);
      }
      lines.push('');
    }
    lines.push('done');
    box.fastImport(repo, Buffer.from(lines.join('\n') + '\n'));
    box.git(repo, ['repack', '-adq']);
    const inputs = storeWalkInputs(openStore(repo));
    const paths = walkStorePaths(inputs);
    assert.deepEqual(paths.summary.problems, []);
    assert.ok(assertSameAsRevList(repo, inputs, paths) > 300);
  });
});

describe('hostile trees', () => {
  test('a malformed tree, a path over the cap and nesting over the cap are reported by object id; the rest is named', (t) => {
    const dir = tempDir(t, 'packscope-paths-hostile-');
    const box = new GitSandbox(dir);
    const bad = box.init('bad');
    const blob = box.gitText(bad, ['hash-object', '-w', '--stdin'], { input: 'x\n' }).trim();
    // An entry whose mode is not octal, written past git's own checks.
    const broken = Buffer.concat([Buffer.from('10x644 evil\0'), Buffer.from(blob, 'hex')]);
    const brokenTree = box
      .gitText(bad, ['hash-object', '-t', 'tree', '-w', '--literally', '--stdin'], { input: broken })
      .trim();
    let nested = box.gitText(bad, ['mktree'], { input: `100644 blob ${blob}\tleaf\n` }).trim();
    for (let i = 0; i < 6; i++)
      nested = box.gitText(bad, ['mktree'], { input: `040000 tree ${nested}\td${i}\n` }).trim();
    const top = box
      .gitText(bad, ['mktree'], {
        input: `040000 tree ${brokenTree}\tbroken\n040000 tree ${nested}\tnested\n100644 blob ${blob}\t${'n'.repeat(60)}\n`,
      })
      .trim();
    const commit = box.gitText(bad, ['commit-tree', top, '-m', 'hostile']).trim();
    box.git(bad, ['update-ref', 'refs/heads/main', commit]);
    // git repack would refuse to walk the broken tree: pack the objects by id, no walk.
    const ids = [blob, brokenTree, nested, top, commit];
    for (let tree = nested, i = 0; i < 6; i++) {
      tree = box.gitText(bad, ['rev-parse', `${tree}:d${5 - i}`]).trim();
      ids.push(tree);
    }
    box.git(bad, ['pack-objects', '-q', path.join(bad, '.git', 'objects', 'pack', 'pack')], {
      input: `${ids.join('\n')}\n`,
    });
    box.git(bad, ['prune-packed']);
    const inputs = storeWalkInputs(openStore(bad));
    const paths = walkStorePaths(inputs, { limits: { maxTreeDepth: 3, maxPathBytes: 40 } });
    assert.equal(paths.summary.complete, false);
    const problems = paths.summary.problems.join('\n');
    assert.match(
      problems,
      new RegExp(`tree ${brokenTree} \\(.*pack-.*\\.pack at offset \\d+\\): malformed mode at byte 0`),
    );
    assert.match(problems, /nested deeper than 3 trees/);
    assert.match(problems, /longer than 40 bytes/);
    const names = packedNames(inputs, paths);
    assert.equal(names.get(top), '');
    assert.equal(names.get(brokenTree), 'broken');
    assert.equal(names.get(nested), 'nested');
  });
});
