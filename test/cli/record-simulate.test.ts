import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliPath, GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';

/**
 * The exactness promise (git-internals §8): a recording made with --exact, replayed at any
 * limit, predicts real git's GIT_TRACE_PACK_ACCESS line count exactly, and its inflations up to a
 * difference that is the same at every limit (inflations outside unpack_entry).
 */
const LIMITS = [0, 16 * 1024, 96 * 1024 * 1024];

describe('record --exact, then simulate at every limit, against real git', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let shim: string;
  let cacheDir: string;
  let blamed: string;
  let batchInput: string;

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-record-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 250, seed: 11, files: 8, linesPerFile: 60 }));
    sandbox.git(repo, ['repack', '-adf', '--depth=40', '--window=50']);
    sandbox.git(repo, ['reset', '-q', '--hard', 'main']);
    shim = buildInflateCounter(sandbox.root);
    cacheDir = path.join(sandbox.root, 'model-cache');
    blamed = sandbox
      .gitText(repo, ['ls-tree', '-r', '--name-only', 'main'])
      .split('\n')
      .find((name) => name.endsWith('.txt'))!;
    const objects = sandbox
      .gitText(repo, ['rev-list', '--objects', '--all'])
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(0, 40));
    batchInput = objects.filter((_, i) => i % 3 === 0).join('\n') + '\n';
  });

  function record(args: string[], input: string | undefined): string {
    const output = path.join(sandbox.root, `rec-${args[0]}-${process.hrtime.bigint()}.psrec`);
    const result = spawnSync(
      process.execPath,
      [cliPath, 'record', '--exact', '-o', output, '-C', repo, '--cache-dir', cacheDir, '--', ...args],
      {
        env: { ...gitEnv(sandbox.home), PACKSCOPE_NO_PROGRESS: '1' },
        input,
        maxBuffer: 1 << 30,
      },
    );
    assert.equal(result.status, 0, result.stderr.toString());
    assert.match(result.stderr.toString(), /recorded \d+ pack reads/);
    return output;
  }

  function realRun(args: string[], input: string | undefined, limit: number): { lines: number; inflations: number } {
    const trace = path.join(sandbox.root, `real-${process.hrtime.bigint()}.trace`);
    const counts = `${trace}.count`;
    sandbox.git(repo, ['-c', `core.deltaBaseCacheLimit=${limit}`, ...args], {
      input: input ?? '',
      env: { GIT_TRACE_PACK_ACCESS: trace, ...countingEnv(shim, counts) },
    });
    const lines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length : 0;
    return { lines, inflations: readInflateCount(counts) };
  }

  function simulate(recording: string, limit: number): { logged: number; inflations: number; reads: number } {
    const result = spawnSync(
      process.execPath,
      [cliPath, 'simulate', '--json', '--limit', String(limit), '--cache-dir', cacheDir, recording],
      { env: { ...process.env, PACKSCOPE_NO_PROGRESS: '1' } },
    );
    assert.equal(result.status, 0, result.stderr.toString());
    assert.equal(result.stderr.toString(), '', 'no reads left out, no malformed lines');
    const document = JSON.parse(result.stdout.toString()) as {
      schema: string;
      results: { logged: number; inflations: number; reads: number; limit: number; policy: string }[];
    };
    assert.equal(document.schema, 'packscope.simulate/1');
    assert.equal(document.results.length, 1);
    assert.equal(document.results[0]!.limit, limit);
    assert.equal(document.results[0]!.policy, 'git');
    return document.results[0]!;
  }

  test('`record -- git log …` records `git log …` (the habit of typing git), and a failed git is said in the summary', () => {
    const typed = record(['git', 'log', '--raw', '-n', '50'], undefined);
    const plain = record(['log', '--raw', '-n', '50'], undefined);
    const counts = (recording: string): number[] => {
      const { reads, logged, inflations } = simulate(recording, 0);
      return [reads, logged, inflations];
    };
    assert.ok(counts(plain)[0]! > 0, 'the command reads from the pack');
    assert.deepEqual(counts(typed), counts(plain));
    const output = path.join(sandbox.root, `rec-failed-${process.hrtime.bigint()}.psrec`);
    const failed = spawnSync(
      process.execPath,
      [cliPath, 'record', '-o', output, '-C', repo, '--cache-dir', cacheDir, '--', 'log', '--no-such-option'],
      { env: { ...gitEnv(sandbox.home), PACKSCOPE_NO_PROGRESS: '1' } },
    );
    assert.equal(failed.status, 128, "git's exit status");
    assert.match(
      failed.stderr.toString(),
      /recorded \d+ pack reads of `git log --no-such-option` .*; git exited with status 128\n$/,
    );
  });

  const commands: [string, () => string[], () => string | undefined][] = [
    ['git log --raw', () => ['log', '--raw', '-n', '200'], () => undefined],
    ['git log -p', () => ['log', '-p', '-n', '120'], () => undefined],
    ['git blame', () => ['blame', blamed], () => undefined],
    ['git cat-file --batch', () => ['cat-file', '--batch'], () => batchInput],
  ];
  for (const [name, args, input] of commands) {
    test(name, () => {
      const recording = record(args(), input());
      const differences = new Set<number>();
      const table: string[] = [];
      const realInflations: number[] = [];
      for (const limit of LIMITS) {
        const real = realRun(args(), input(), limit);
        realInflations.push(real.inflations);
        const predicted = simulate(recording, limit);
        assert.ok(real.lines > 0, 'the command reads from the pack');
        assert.equal(predicted.logged, real.lines, `${name} at limit ${limit}: predicted trace lines`);
        differences.add(real.inflations - predicted.inflations);
        table.push(
          `limit ${limit}: lines ${real.lines}, inflations real ${real.inflations} predicted ${predicted.inflations}`,
        );
      }
      assert.equal(
        differences.size,
        1,
        `${name}: real − predicted inflations must not depend on the limit:\n${table.join('\n')}`,
      );
      // Not vacuous: the cache changes what git does here, and the model follows it.
      assert.ok(
        realInflations[0]! > realInflations[2]!,
        `${name}: limit 0 should cost more inflations than 96m:\n${table.join('\n')}`,
      );
    });
  }
});
