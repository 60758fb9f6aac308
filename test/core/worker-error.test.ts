/**
 * The worker error codec (src/core/worker-error.ts): what a worker catches arrives on the other
 * thread as the same class, with the same message and fields, after a real structured clone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CancelledError,
  errorKind,
  fail,
  GitCommandError,
  InputOutputError,
  PackFormatError,
  PackScopeError,
  UsageError,
} from '../../src/core/errors.ts';
import { decodeWorkerError, encodeWorkerError, isWorkerCrash } from '../../src/core/worker-error.ts';

const across = (error: unknown): Error => decodeWorkerError(structuredClone(encodeWorkerError(error)), 'test worker');

test('each kind crosses as its own class, message, code, file and offset', () => {
  for (const [error, type] of [
    [fail('bad-zlib', '/p/x.pack', 1234, 'entry data does not inflate'), PackFormatError],
    [fail('usage', undefined, undefined, '--limit takes one size'), UsageError],
    [fail('not-found', '/p/x.pack', undefined, 'no such object'), UsageError],
    [fail('io', '/p/x.idx', undefined, 'not a regular file'), InputOutputError],
  ] as const) {
    const back = across(error);
    assert.ok(back instanceof type, `${error.message}: ${back.name}`);
    assert.ok(back instanceof PackScopeError);
    assert.equal(back.message, error.message);
    assert.equal(back.code, error.code);
    assert.equal(back.file, error.file);
    assert.equal(back.offset, error.offset);
    assert.equal(back.detail, error.detail);
    assert.equal(errorKind(back), errorKind(error));
    assert.equal(isWorkerCrash(encodeWorkerError(error)), false);
  }
});

test("git's details and a cancellation survive the crossing", () => {
  const git = across(new GitCommandError(['git', 'repack'], 129, 'error: unknown option\n', 'git repack failed'));
  assert.ok(git instanceof GitCommandError);
  assert.deepEqual(
    [git.argv, git.exitStatus, git.gitStderr, git.message, errorKind(git)],
    [['git', 'repack'], 129, 'error: unknown option\n', 'git repack failed', 'git'],
  );
  const controller = new AbortController();
  controller.abort();
  for (const cancelled of [new CancelledError(), controller.signal.reason]) {
    const back = across(cancelled);
    assert.ok(back instanceof CancelledError);
    assert.equal(back.name, 'AbortError');
    assert.equal(errorKind(back), 'cancelled');
  }
});

test("a worker's own bug stays an internal error, named as the worker's, with its stack", () => {
  const bug = new TypeError('x is undefined');
  assert.equal(isWorkerCrash(encodeWorkerError(bug)), true);
  const back = across(bug);
  assert.ok(!(back instanceof PackScopeError));
  assert.equal(back.message, 'test worker: x is undefined');
  assert.equal(back.stack, bug.stack);
  assert.equal(errorKind(back), 'internal');
  assert.equal(across('a string').message, 'test worker: a string');
});
