import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadRecording } from '../../src/cli/load-recording.ts';
import { Progress } from '../../src/cli/progress.ts';
import type { LoadedRecording } from '../../src/core/trace/load-recording.ts';
import { recordingBasis } from '../../src/core/report/simulation.ts';
import type { SimResult } from '../../src/core/documents/simulation-documents.ts';
import { POLICIES } from '../../src/core/sim/policy-registry.ts';
import { LIMIT_REUSE, limitReuseOf, runSweep } from '../../src/core/sim/sweep.ts';
import { GitSandbox, projectRoot, runCli, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

/**
 * A sweep answers some cells of the policies that opted into LIMIT_REUSE with the replay of another
 * limit (sweep.ts). Here every such cell is compared, field by field, with the same cell replayed
 * on its own (`reuseLimits: false`), on recordings real git made, in one process and split into
 * several (each process starts with an empty cache).
 */
const workerScript = path.join(projectRoot, 'dist', 'sim-worker.js');

/** Every opted-in policy (admit-max and libgit2 with arguments), and two that must never be reused. */
const OPTED_IN = [
  'git',
  'admit-max:4k',
  'keep-on-hit',
  'separate-blob-lru',
  'gdsf',
  'lru-by-size',
  'belady',
  'git-legacy',
  'git-legacy:0x1000',
  'libgit2',
  'libgit2:lookup',
];
const NOT_OPTED_IN = ['libgit2-pack-whatif', 'libgit2-objcache:scaled'];
const LIMITS = [0, 4 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 96 << 20, 1 << 30];

/** A cell without its replay time, which differs between any two runs. */
function withoutTime(result: SimResult): Omit<SimResult, 'seconds'> {
  const { seconds: _seconds, ...rest } = result;
  return rest;
}

describe('sweep: one replay answers the limits it provably does (LIMIT_REUSE)', () => {
  let sandbox: GitSandbox;
  let cacheDir: string;
  const recordings: { name: string; loaded: LoadedRecording }[] = [];

  before(() => {
    assert.ok(fs.existsSync(workerScript), `${workerScript} is built (node scripts/build.mjs)`);
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-sweep-reuse-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    const repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 160, seed: 11 }));
    sandbox.git(repo, ['repack', '-adf', '--depth=30']);
    cacheDir = path.join(sandbox.root, 'cache');
    for (const [name, command] of [
      ['log -p', ['log', '-p']],
      ['rev-list --objects --all', ['rev-list', '--objects', '--all']],
    ] as const) {
      const file = path.join(sandbox.root, `${name.replace(/\W+/g, '-')}.psrec`);
      const recorded = runCli(['record', '-o', file, '-C', repo, '--cache-dir', cacheDir, '--', ...command], {
        cwd: sandbox.root,
        env: { HOME: sandbox.home, GIT_CONFIG_NOSYSTEM: '1' },
      });
      assert.equal(recorded.status, 0, recorded.stderr);
      recordings.push({ name, loaded: loadRecording(file, { cacheDir }, new Progress(false)) });
    }
  });

  test('every policy named in LIMIT_REUSE exists, and only the policies checked against their code are in it', () => {
    const names = new Set(POLICIES.map((policy) => policy.name));
    for (const name of LIMIT_REUSE.keys()) assert.ok(names.has(name), `${name} is a policy`);
    for (const spec of OPTED_IN) assert.notEqual(limitReuseOf(spec), undefined, spec);
    for (const spec of NOT_OPTED_IN) assert.equal(limitReuseOf(spec), undefined, spec);
  });

  test('reused cells equal fresh replays, bounds and exactness included, in one process and in three', async () => {
    const policies = [...OPTED_IN, ...NOT_OPTED_IN];
    const reusedPolicies = new Set<string>();
    for (const { name, loaded } of recordings) {
      const reads = loaded.reads;
      assert.ok(reads.length > 500, `${name}: ${reads.length} reads`);
      for (const starts of [[0], [0, Math.floor(reads.length / 3), Math.floor((2 * reads.length) / 3)]]) {
        const label = `${name}, ${starts.length} process(es)`;
        const basis = recordingBasis(loaded);
        const reusedCells: string[] = [];
        const reused = await runSweep(loaded.objects, reads, starts, policies, LIMITS, {
          workerScript,
          threads: 2,
          onReuse: (policy, limit, from) => {
            reusedCells.push(`${policy}@${limit}`);
            reusedPolicies.add(policy);
            assert.notEqual(limit, from, `${label}: ${policy} answered by its own limit`);
          },
        });
        const fresh = await runSweep(loaded.objects, reads, starts, policies, LIMITS, {
          workerScript,
          threads: 2,
          reuseLimits: false,
          onReuse: () => assert.fail('reuseLimits: false reused a cell'),
        });
        assert.equal(reused.length, policies.length * LIMITS.length);
        for (let i = 0; i < reused.length; i++) {
          const cell = `${fresh[i]!.policy} at ${fresh[i]!.limit}`;
          assert.deepEqual(withoutTime(reused[i]!), withoutTime(fresh[i]!), `${label}: ${cell}`);
        }
        for (const spec of NOT_OPTED_IN)
          assert.ok(!reusedCells.some((cell) => cell.startsWith(`${spec}@`)), `${label}: ${spec} never reused`);
        // The recording is a limit-0 one: git's cells have bounds, which a reused cell recomputed.
        assert.equal(basis.recordedLimit, 0, label);
        assert.ok(reusedCells.length > 0, `${label}: some cells were reused`);
      }
    }
    // Each opted-in policy had cells answered by another limit on these recordings, so each
    // comparison above was of a reused cell, not only of fresh ones.
    for (const spec of OPTED_IN) assert.ok(reusedPolicies.has(spec), `${spec} was reused somewhere`);
  });
});
