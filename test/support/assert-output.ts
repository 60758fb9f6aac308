/**
 * Byte-for-byte comparison of PackScope's output with git's. The assertion is on the whole stdout
 * string; the message names the first differing line so a failure is readable without a 3 MB diff.
 */
import * as assert from 'node:assert/strict';
import type { ProcessResult } from './git-oracle.ts';

/** "line N: git `...` / packscope `...`" for the first line where the two texts differ. */
export function firstDifference(expected: string, actual: string): string {
  const want = expected.split('\n');
  const got = actual.split('\n');
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    if (want[i] !== got[i]) {
      const show = (line: string | undefined): string =>
        line === undefined ? '<end of output>' : JSON.stringify(line);
      return `first difference at line ${i + 1} (git ${want.length - 1} lines, packscope ${got.length - 1} lines):\n  git:       ${show(want[i])}\n  packscope: ${show(got[i])}`;
    }
  }
  return 'texts are equal';
}

/** Asserts that stdout equals git's exactly. */
export function assertSameStdout(actual: ProcessResult, expected: string, what: string): void {
  if (actual.stdout !== expected) {
    assert.equal(
      actual.stdout,
      expected,
      `${what}: stdout differs from git's; ${firstDifference(expected, actual.stdout)}\n  packscope stderr: ${JSON.stringify(actual.stderr)}`,
    );
  }
}

/** A successful run (status 0, nothing on stderr) whose stdout equals git's exactly. */
export function assertMatchesGit(actual: ProcessResult, expected: string, what: string): void {
  assertSameStdout(actual, expected, what);
  assert.equal(actual.stderr, '', `${what}: packscope wrote to stderr`);
  assert.equal(actual.status, 0, `${what}: packscope exit status`);
}
