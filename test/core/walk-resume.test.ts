/**
 * A walk that stops (its read budget, its time bound) or is cancelled keeps where it was, and a
 * walk given that checkpoint goes on from there: resumed again and again until it ends, it names
 * every object exactly as an uninterrupted walk does, and as `git rev-list --objects --all` does;
 * through the store, the checkpoint is saved beside the paths file, picked up by the next walk,
 * and removed once a walk finishes.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { loadOrWalkPaths, pathsFileFor } from '../../src/core/model/object-paths-store.ts';
import {
  storeWalkInputs,
  walkStorePaths,
  type ObjectPaths,
  type StoreWalkInputs,
  type WalkCheckpoint,
} from '../../src/core/model/object-paths.ts';
import { ObjectStore } from '../../src/core/model/object-store.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { checkpointFileFor } from '../../src/core/model/walk-checkpoint-store.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { pathsRepository, revListNames, packedNames } from '../support/paths-repository.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
/** A read budget that stops the walk about ten times (each stop must leave room to go on). */
let budget: number;

before(() => {
  root = tempDir(undefined, 'packscope-walk-resume-');
  sandbox = new GitSandbox(root);
  // Long enough for several progress reports (one per 2,048 commits and trees): a cancellation lands on one.
  repo = pathsRepository(sandbox, 'repo', 5000);
  budget = Math.ceil(walkStorePaths(inputsOf(repo)).summary.bytesRebuilt / 10);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

function inputsOf(dir: string): StoreWalkInputs {
  return storeWalkInputs(new ObjectStore(discoverRepository(dir), new ModelStore(undefined)));
}

/** The names of every object rev-list lists and the packs hold, as rev-list prints them. */
function revListNamesInPacks(inputs: StoreWalkInputs): Map<string, string | undefined> {
  const git = revListNames(sandbox, repo);
  const names = new Map<string, string | undefined>();
  for (const model of inputs.models)
    for (let n = 0; n < model.count; n++) {
      const oid = model.oidHex(n);
      names.set(oid, git.get(oid));
    }
  return names;
}

function counts(paths: ObjectPaths): unknown {
  const { commits, trees, named, missing, complete, tips } = paths.summary;
  return { commits, trees, named, missing, complete, tips };
}

describe('a stopped walk goes on from where it stopped', () => {
  test('resumed after each read budget until it ends: the names of an uninterrupted walk, and rev-list’s', () => {
    const inputs = inputsOf(repo);
    const whole = walkStorePaths(inputs);
    assert.equal(whole.checkpoint, undefined, 'a walk that ends leaves no checkpoint');
    const limits = { maxRebuiltBytes: budget };
    let paths = walkStorePaths(inputs, { limits });
    const phases = new Set<string>();
    let runs = 1;
    while (paths.checkpoint !== undefined) {
      phases.add(paths.checkpoint.phase);
      assert.ok(runs < 500, 'each resumed walk gets further');
      const before = paths.summary.named + paths.summary.commits;
      paths = walkStorePaths(inputs, { limits, resume: paths.checkpoint });
      assert.ok(paths.summary.named + paths.summary.commits >= before, 'a resumed walk keeps what it had');
      runs++;
    }
    assert.ok(runs > 5, `the budget stopped the walk ${runs - 1} times`);
    assert.ok(paths.summary.bytesRebuilt > 0);
    assert.ok(phases.has('trees'), 'stopped while reading trees');
    assert.equal(paths.stopped, undefined);
    assert.deepEqual(counts(paths), counts(whole));
    const resumed = packedNames(inputs, paths);
    assert.deepEqual(resumed, packedNames(inputs, whole));
    assert.deepEqual(resumed, revListNamesInPacks(inputs));
  });

  test('a cancelled walk carries its checkpoint; resumed, it names as the uninterrupted walk', () => {
    const inputs = inputsOf(repo);
    const whole = walkStorePaths(inputs);
    let checkpoint: WalkCheckpoint | undefined;
    let cancels = 0;
    const phases = new Set<string>();
    for (let progress = 0; ; progress++) {
      const controller = new AbortController();
      let steps = 0;
      try {
        const paths = walkStorePaths(inputs, {
          resume: checkpoint,
          // A progress report comes every 2,048 steps; the cancellation is seen at the next one.
          onProgress: () => {
            if (++steps === 1) controller.abort();
          },
          signal: controller.signal,
        });
        assert.deepEqual(packedNames(inputs, paths), packedNames(inputs, whole));
        assert.deepEqual(counts(paths), counts(whole));
        break;
      } catch (error) {
        assert.equal((error as Error).name, 'PathWalkCancelled');
        checkpoint = (error as { checkpoint?: WalkCheckpoint }).checkpoint;
        assert.ok(checkpoint !== undefined, 'a cancelled walk says where it was');
        phases.add(checkpoint.phase);
        cancels++;
        assert.ok(progress < 500);
      }
    }
    assert.ok(cancels >= 2, `the walk was cancelled ${cancels} times`);
    assert.deepEqual([...phases].sort(), ['commits', 'trees'], 'cancelled in both phases');
  });

  test('through the store: the checkpoint is saved, the next walk goes on from it, a finished walk removes it', (t) => {
    const cache = tempDir(t, 'packscope-walk-resume-cache-');
    const inputs = inputsOf(repo);
    const store = discoverRepository(repo);
    const pathsFile = pathsFileFor(cache, store.commonDir);
    const checkpointFile = checkpointFileFor(pathsFile);
    const options = { limits: { maxRebuiltBytes: budget }, saveStopped: false };
    let loaded = loadOrWalkPaths(inputs, store.commonDir, cache, options);
    assert.ok(loaded.paths.stopped !== undefined);
    assert.ok(fs.existsSync(checkpointFile), 'a stopped walk saves its checkpoint');
    assert.ok(!fs.existsSync(pathsFile), 'a walk stopped by a caller’s bound is not the store’s names');
    let runs = 1;
    while (loaded.paths.stopped !== undefined) {
      const named = loaded.paths.summary.named;
      loaded = loadOrWalkPaths(inputs, store.commonDir, cache, options);
      assert.ok(loaded.paths.summary.named >= named, 'the next walk starts from the checkpoint, not from nothing');
      assert.ok(++runs < 500);
    }
    assert.ok(fs.existsSync(pathsFile), 'the finished walk is stored');
    assert.ok(!fs.existsSync(checkpointFile), 'and its checkpoint removed');
    const whole = walkStorePaths(inputs);
    assert.deepEqual(packedNames(inputs, loaded.paths), packedNames(inputs, whole));
    assert.deepEqual(packedNames(inputs, loaded.paths), revListNamesInPacks(inputs));
  });

  test('a damaged checkpoint is ignored: the walk starts over', (t) => {
    const cache = tempDir(t, 'packscope-walk-resume-damaged-');
    const inputs = inputsOf(repo);
    const store = discoverRepository(repo);
    const checkpointFile = checkpointFileFor(pathsFileFor(cache, store.commonDir));
    loadOrWalkPaths(inputs, store.commonDir, cache, { limits: { maxRebuiltBytes: budget }, saveStopped: false });
    const bytes = fs.readFileSync(checkpointFile);
    bytes[bytes.length >> 1] ^= 0xff;
    fs.writeFileSync(checkpointFile, bytes);
    const loaded = loadOrWalkPaths(inputs, store.commonDir, cache, {});
    assert.equal(loaded.paths.stopped, undefined);
    assert.deepEqual(packedNames(inputs, loaded.paths), packedNames(inputs, walkStorePaths(inputs)));
  });
});
