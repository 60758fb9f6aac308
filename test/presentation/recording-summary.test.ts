/**
 * The Recordings view's line for a recording's last sweep (src/presentation/recording-summary.ts),
 * on a real sweep: `packscope sweep --json` of a recording git wrote. The line names git's cell at
 * git's default limit (or the nearest swept) as the table shows it, and the belady distance there.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { simulationSummaryText, summarizeSweep } from '../../src/presentation/recording-summary.ts';
import type { SweepResult } from '../../src/protocol/server-protocol.ts';
import { GitSandbox, runCli, tempDir } from '../support/git.ts';
import { historyRepository } from '../support/git-oracle.ts';

let root: string;
let sweep: SweepResult;
const M = 1024 * 1024;

before(() => {
  root = tempDir(undefined, 'packscope-recording-summary-');
  const sandbox = new GitSandbox(root);
  const repo = historyRepository(sandbox, 'history', {
    commits: 30,
    seed: 14,
    files: 3,
    linesPerFile: 30,
    repack: ['-adf', '--depth=20'],
  });
  const recording = path.join(root, 'log-p.psrec');
  const env = { HOME: sandbox.home, PACKSCOPE_CACHE_DIR: path.join(root, 'models') };
  const recorded = runCli(['record', '--exact', '-o', recording, '-C', repo, '--', 'log', '-p'], { cwd: repo, env });
  assert.equal(recorded.status, 0, recorded.stderr);
  const swept = runCli(['sweep', '--json', '--limits', '0,16k,1m,96m', '--policies', 'git,belady', recording], {
    cwd: repo,
    env,
  });
  assert.equal(swept.status, 0, swept.stderr);
  sweep = JSON.parse(swept.stdout.toString()) as SweepResult;
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

test("the line is git's 96m cell and belady's distance from it, as the sweep gives them", () => {
  const summary = summarizeSweep(sweep)!;
  const git = sweep.results.find((cell) => cell.policy === 'git' && cell.limit === 96 * M)!;
  const belady = sweep.results.find((cell) => cell.policy === 'belady' && cell.limit === 96 * M)!;
  assert.equal(summary.limit, 96 * M);
  assert.deepEqual(summary.git, git);
  assert.deepEqual(summary.limits, [0, 16 * 1024, M, 96 * M]);
  assert.equal(git.exact, true, 'an exact recording replays exactly');
  const distance = ((belady.inflations - git.inflations) / git.inflations) * 100;
  const sign = distance > 0 ? '+' : distance < 0 ? '−' : '';
  const { description, tooltip } = simulationSummaryText(summary);
  assert.equal(
    description,
    `git ${git.inflations.toLocaleString('en-US')} inflations at 96m · belady ${sign}${Math.abs(distance).toFixed(1)}%`,
  );
  assert.match(
    tooltip,
    new RegExp(`${git.reads.toLocaleString('en-US')} reads replayed over 0, 16k, 1m, 96m for git, belady`),
  );
});

test('without a 96m cell the nearest limit swept is named; without a git cell there is no line', () => {
  const without96 = { ...sweep, results: sweep.results.filter((cell) => cell.limit !== 96 * M) };
  assert.equal(summarizeSweep(without96)!.limit, M);
  assert.equal(summarizeSweep(sweep, 20 * 1024)!.limit, 16 * 1024);
  assert.equal(summarizeSweep({ ...sweep, results: sweep.results.filter((cell) => cell.policy !== 'git') }), undefined);
});
