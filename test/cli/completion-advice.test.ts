// The command `simulate` and `sweep` advise under bounds too wide to act on must be one a user can
// paste: it is parsed back into words here and run, and the recording it makes is complete at the
// limits the advice named.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { splitShellWords } from '../../src/common/shell-words.ts';
import type { SimResult } from '../../src/core/documents/simulation-documents.ts';
import { completionAdvice } from '../../src/core/report/simulation.ts';
import { parseRecordingFile } from '../../src/core/trace/load-recording.ts';
import { gitEnv, GitSandbox, runCli, tempDir } from '../support/git.ts';

/** A cell as the replay reports it, with the bounds and value under test. */
function cell(limit: number, inflations: number, bounds: [number, number] | null, exact = false): SimResult {
  const pair = (n: number): [number, number] => [n, n];
  return {
    policy: 'git',
    limit,
    reads: 10,
    logged: 10,
    inflations,
    deltaApplications: 0,
    inflatedBytes: 0,
    appliedBytes: 0,
    evictions: 0,
    peakCacheBytes: 0,
    referenceBound: false,
    seconds: 0,
    exact,
    bounds:
      bounds === null
        ? null
        : { logged: pair(10), inflations: bounds, deltaApplications: pair(0), inflatedBytes: pair(0) },
    hiddenReads: null,
    exactness: exact ? 'exact' : 'bounded',
  };
}

test('bounds wider than 1% name the limits and a pasteable record --complete that makes them exact', (t) => {
  const sandbox = new GitSandbox(tempDir(t, 'packscope-advice-'));
  const repo = sandbox.init('repo with space');
  for (let i = 0; i < 6; i++) {
    fs.writeFileSync(path.join(repo, 'file.txt'), `line ${i}\n`.repeat(50 + i));
    sandbox.git(repo, ['add', 'file.txt']);
    sandbox.git(repo, ['commit', '-qm', `commit ${i}`]);
  }
  sandbox.git(repo, ['repack', '-adq']);
  const env = gitEnv(sandbox.home) as Record<string, string>;
  const recording = path.join(sandbox.root, 'log.psrec');
  const recorded = runCli(['record', '-o', recording, '-C', repo, '--', 'log', '--format=%H %s', '--raw'], { env });
  assert.equal(recorded.status, 0, recorded.stderr);
  const metadata = parseRecordingFile(recording).metadata;

  // 1% of 1,000 is 10: a width of 10 is narrow enough, 11 is not; exact cells and cells without
  // bounds are never advised (the first says all, the second has nothing to complete).
  const results = [
    cell(0, 1000, [1000, 1000], true),
    cell(16 << 10, 1000, [995, 1005]),
    cell(64 << 10, 1000, [990, 1001]),
    cell(1 << 20, 500, null),
    cell(4 << 20, 300, [250, 400]),
  ];
  const advice = completionAdvice(metadata, results);
  assert.ok(advice);
  assert.deepEqual(advice.limits, [64 << 10, 4 << 20]);
  const words = splitShellWords(advice.command!)!;
  assert.deepEqual(words, [
    'packscope',
    'record',
    '--complete=64k,4m',
    '-C',
    repo,
    '--',
    'log',
    '--format=%H %s',
    '--raw',
  ]);

  const completed = path.join(sandbox.root, 'completed.psrec');
  const run = runCli([...words.slice(1, 3), '-o', completed, ...words.slice(3)], { env });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(parseRecordingFile(completed).metadata?.completeAt, [64 << 10, 4 << 20]);

  assert.equal(completionAdvice(metadata, results.slice(0, 2)), undefined, 'no cell wider than 1%');
  const raw = completionAdvice(undefined, results);
  assert.deepEqual(raw, { limits: [64 << 10, 4 << 20], command: undefined }, 'a raw trace names no command');
});
