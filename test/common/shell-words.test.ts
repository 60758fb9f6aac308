import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import {
  argvOfTraceCommand,
  gitArgumentsTyped,
  gitCommandLine,
  shellQuote,
  splitShellWords,
} from '../../src/common/shell-words.ts';

test('words as a POSIX shell reads them: blanks, backslashes, single and double quotes', () => {
  assert.deepEqual(splitShellWords('  log -p\t-n 100 \n-- src/ '), ['log', '-p', '-n', '100', '--', 'src/']);
  assert.deepEqual(splitShellWords(`log '--format=%H %s' "a b" a\\ b`), ['log', '--format=%H %s', 'a b', 'a b']);
  assert.deepEqual(splitShellWords(`"\\$x \\" \\\\ \\z" '\\z'`), ['$x " \\ \\z', '\\z']);
  assert.deepEqual(splitShellWords(`'' "" x""y`), ['', '', 'xy']);
  assert.deepEqual(splitShellWords('a\\\nb "c\\\nd"'), ['ab', 'cd']);
  assert.deepEqual(splitShellWords(''), []);
  assert.equal(splitShellWords(`log 'open`), undefined);
  assert.equal(splitShellWords('log "open'), undefined);
  assert.equal(splitShellWords('log "open\\"'), undefined);
});

test('shellQuote: plain arguments unquoted, the others read back as they were', () => {
  assert.equal(shellQuote('--format=%H'), '--format=%H');
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  assert.equal(gitCommandLine(['log', '--format=%H %s']), `git log '--format=%H %s'`);
  fc.assert(
    fc.property(fc.array(fc.string(), { minLength: 1 }), (args) => {
      assert.deepEqual(argvOfTraceCommand(gitCommandLine(args)), args);
    }),
  );
});

test("argvOfTraceCommand reads git's own GIT_TRACE quoting back", () => {
  const args = ['version', 'a b', "it's", 'w!x', '$HOME', 'back\\slash', ''];
  // GIT_TRACE goes to stderr; git version ignores the extra arguments but traces them.
  const trace = execFileSync('sh', ['-c', 'GIT_TRACE=1 "$@" 2>&1 >/dev/null', 'sh', 'git', ...args], {
    encoding: 'utf8',
  });
  const command = /trace: built-in: (git .*)$/m.exec(trace)?.[1];
  assert.ok(command, trace);
  assert.deepEqual(argvOfTraceCommand(command), args);
  assert.deepEqual(argvOfTraceCommand('/usr/lib/git-core/git log -p'), ['log', '-p']);
  assert.equal(argvOfTraceCommand('git'), undefined);
  assert.equal(argvOfTraceCommand('hg log'), undefined);
  assert.equal(argvOfTraceCommand("git log 'open"), undefined);
});

test('a first word git is the command typed from habit, not an argument', () => {
  assert.deepEqual(gitArgumentsTyped(['git', 'log', '-p']), ['log', '-p']);
  assert.deepEqual(gitArgumentsTyped(['log', 'git']), ['log', 'git']);
  assert.deepEqual(gitArgumentsTyped(['git']), []);
  assert.deepEqual(gitArgumentsTyped([]), []);
});
