import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadRecording } from '../../src/cli/load-recording.ts';
import { Progress } from '../../src/cli/progress.ts';
import type { LoadedRecording } from '../../src/core/trace/load-recording.ts';
import { recordingBasis } from '../../src/core/report/simulation.ts';
import type { SimResult } from '../../src/core/documents/simulation-documents.ts';
import { parsePolicy } from '../../src/core/sim/policy-registry.ts';
import { simulateSegments } from '../../src/core/sim/simulate.ts';
import { runSweep } from '../../src/core/sim/sweep.ts';
import { GitSandbox, projectRoot, runCli, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

/**
 * Belady's next uses depend on the reads, not on the limit: a sweep has one worker build them once,
 * in shared memory, and every other belady cell replays with that table (sweep.ts, CellQueue).
 * Here each such cell is compared, field by field, with a replay in this process that builds its
 * own table, on a recording real git made, in one process and split into three.
 */
const workerScript = path.join(projectRoot, 'dist', 'sim-worker.js');
const LIMITS = [0, 4 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 96 << 20];

function withoutTime(result: SimResult): Omit<SimResult, 'seconds'> {
  const { seconds: _seconds, ...rest } = result;
  return rest;
}

describe('sweep: belady cells share one next-use table', () => {
  let loaded: LoadedRecording;

  before(() => {
    assert.ok(fs.existsSync(workerScript), `${workerScript} is built (node scripts/build.mjs)`);
    const sandbox = new GitSandbox(tempDir(undefined, 'packscope-sweep-plans-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    const repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 160, seed: 5 }));
    sandbox.git(repo, ['repack', '-adf', '--depth=30']);
    const cacheDir = path.join(sandbox.root, 'cache');
    const file = path.join(sandbox.root, 'log-p.psrec');
    const recorded = runCli(['record', '-o', file, '-C', repo, '--cache-dir', cacheDir, '--', 'log', '-p'], {
      cwd: sandbox.root,
      env: { HOME: sandbox.home, GIT_CONFIG_NOSYSTEM: '1' },
    });
    assert.equal(recorded.status, 0, recorded.stderr);
    loaded = loadRecording(file, { cacheDir }, new Progress(false));
  });

  test('each belady cell equals a replay that builds its own table, in one process and in three', async () => {
    const reads = loaded.reads;
    assert.ok(reads.length > 500, `${reads.length} reads`);
    const basis = recordingBasis(loaded);
    const belady = parsePolicy('belady');
    for (const starts of [[0], [0, Math.floor(reads.length / 3), Math.floor((2 * reads.length) / 3)]]) {
      const label = `${starts.length} process(es)`;
      const plans: string[] = [];
      // Without limit reuse every belady cell is a replay of its own, each with the shared table.
      const swept = await runSweep(
        loaded.objects,
        reads,
        starts,
        ['git', 'belady'],
        LIMITS,
        {
          workerScript,
          threads: 2,
          reuseLimits: false,
          onPlan: (policy, limit) => plans.push(`${policy}@${limit}`),
        },
        basis,
      );
      assert.deepEqual(plans, [`belady@${96 << 20}`], `${label}: one table, built by belady's largest limit`);
      const beladyCells = swept.filter((cell) => cell.policy === 'belady');
      assert.equal(beladyCells.length, LIMITS.length);
      for (const cell of beladyCells) {
        const own = simulateSegments(belady, loaded.objects, reads, starts, cell.limit, basis);
        assert.deepEqual(withoutTime(cell), withoutTime(own), `${label}: belady at ${cell.limit}`);
      }
      // The limits differ in what they keep: the comparison is of different replays, not one.
      assert.ok(new Set(beladyCells.map((cell) => cell.inflations)).size > 2, `${label}: limits differ`);
    }
  });
});
