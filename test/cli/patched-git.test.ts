// The what-if policies against their patched builds of git (bench/git-patches/), on a small
// history: the same comparison as bench/policies.bench.ts, where a build exists. The unit tests
// build nothing (a build takes minutes): without `node --import tsx bench/build-git.ts … --patch
// bench/git-patches/P.patch` having run in this checkout, each policy's test is skipped and says so.
import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gitBuildDirectory } from '../../bench/build-git.ts';
import { cliPath, GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';

const patches = path.resolve(import.meta.dirname, '..', '..', 'bench', 'git-patches');

/** The installed build of git 2.55.0 with this policy's patch, or undefined when none was built here. */
function builtGit(patch: string): string | undefined {
  const dir = gitBuildDirectory({ source: '', tag: 'v2.55.0', patches: [path.join(patches, patch)] });
  const git = path.join(dir, 'bin', 'git');
  return fs.existsSync(path.join(dir, 'packscope-build-stamp')) && fs.existsSync(git) ? git : undefined;
}

const POLICIES: { policy: string; patch: string; config: string[] }[] = [
  { policy: 'admit-max:2k', patch: 'admit-max.patch', config: ['-c', 'core.deltaBaseCacheAdmitMax=2k'] },
  { policy: 'keep-on-hit', patch: 'keep-on-hit.patch', config: [] },
  { policy: 'separate-blob-lru', patch: 'separate-blob-lru.patch', config: [] },
  { policy: 'lru-by-size', patch: 'lru-by-size.patch', config: [] },
  { policy: 'gdsf', patch: 'gdsf.patch', config: [] },
  { policy: 'admit-reused', patch: 'admit-reused.patch', config: [] },
];
const LIMITS = [0, 4096, 16384, 65536, 1 << 20];
const admitMaxGit = builtGit('admit-max.patch');

describe(
  'what-if policies against their patched builds of git 2.55.0',
  { skip: admitMaxGit === undefined && 'no admit-max build in .bench/git (bench/build-git.ts)' },
  () => {
    let sandbox: GitSandbox;
    let repo: string;
    let shim: string;
    let recording: string;
    /** Inflations outside unpack_entry: the admit-nothing run's real count less its replay's. */
    let constant: number;
    const command = ['log', '-p', '--format=%H'];

    const env = (): NodeJS.ProcessEnv => ({
      ...gitEnv(sandbox.home),
      PACKSCOPE_NO_PROGRESS: '1',
      PACKSCOPE_CACHE_DIR: path.join(sandbox.root, 'cache'),
    });

    const real = (git: string, args: string[]): { lines: number; inflations: number } => {
      const trace = path.join(sandbox.root, 'trace');
      const counts = path.join(sandbox.root, 'counts');
      fs.rmSync(trace, { force: true });
      const run = spawnSync(git, args, {
        cwd: repo,
        env: { ...env(), GIT_TRACE_PACK_ACCESS: trace, ...countingEnv(shim, counts) },
        maxBuffer: 1 << 28,
      });
      assert.equal(run.status, 0, run.stderr.toString());
      const lines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length : 0;
      return { lines, inflations: readInflateCount(counts) };
    };

    const sweep = (policies: string[]): { policy: string; limit: number; logged: number; inflations: number }[] => {
      const run = spawnSync(
        process.execPath,
        [cliPath, 'sweep', '--json', '--policies', policies.join(','), '--limits', LIMITS.join(','), recording],
        { cwd: repo, env: env(), maxBuffer: 1 << 28 },
      );
      assert.equal(run.status, 0, run.stderr.toString());
      return (
        JSON.parse(run.stdout.toString()) as {
          results: { policy: string; limit: number; logged: number; inflations: number }[];
        }
      ).results;
    };

    before(() => {
      sandbox = new GitSandbox(tempDir(undefined, 'packscope-patched-git-'));
      process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
      repo = sandbox.init('repo');
      sandbox.fastImport(repo, historyStream({ commits: 120, seed: 11 }));
      sandbox.git(repo, ['repack', '-adfq', '--depth=50', '--window=10']);
      shim = buildInflateCounter(sandbox.root);
      recording = path.join(sandbox.root, 'all-reads.psrec');
      // Every read logs when nothing is admitted: the recording lists them all, hits of any cache included.
      const record = spawnSync(
        process.execPath,
        [cliPath, 'record', '--exact', '-o', recording, '--git', admitMaxGit!, '--', ...command],
        {
          cwd: repo,
          env: {
            ...env(),
            GIT_CONFIG_COUNT: '1',
            GIT_CONFIG_KEY_0: 'core.deltaBaseCacheAdmitMax',
            GIT_CONFIG_VALUE_0: '0',
          },
          maxBuffer: 1 << 28,
        },
      );
      assert.equal(record.status, 0, record.stderr.toString());
      const all = real(admitMaxGit!, [
        '-c',
        'core.deltaBaseCacheLimit=0',
        '-c',
        'core.deltaBaseCacheAdmitMax=0',
        ...command,
      ]);
      const replay = sweep(['admit-max:0']).find((cell) => cell.limit === 0)!;
      assert.equal(all.lines, replay.logged, 'the admit-nothing run logs every recorded read');
      constant = all.inflations - replay.inflations;
    });

    for (const { policy, patch, config } of POLICIES) {
      const git = builtGit(patch);
      test(
        `${policy}: trace lines and inflations equal git 2.55.0 + ${patch} at every limit`,
        { skip: git === undefined && `no build of ${patch} in .bench/git` },
        () => {
          const predicted = sweep([policy]);
          for (const limit of LIMITS) {
            const cell = predicted.find((c) => c.limit === limit)!;
            const counted = real(git!, ['-c', `core.deltaBaseCacheLimit=${limit}`, ...config, ...command]);
            assert.deepEqual(
              { lines: counted.lines, inflations: counted.inflations },
              { lines: cell.logged, inflations: cell.inflations + constant },
              `${policy} at ${limit}`,
            );
          }
        },
      );
    }
  },
);
