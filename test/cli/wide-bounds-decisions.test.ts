import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliPath, GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { longHistory } from '../support/long-history.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';
import { timeView, type CellCounts } from '../../src/core/cost/cost-model.ts';
import { CALIBRATION_SCHEMA, type Calibration } from '../../src/core/documents/calibration-document.ts';
import { DECIDING_BOUND_SHARE, limitsWiderThan } from '../../src/common/bound-width.ts';
import { formatLimit } from '../../src/common/format.ts';
import { kneeSentences, measuredAgainstPredicted, timeCellText } from '../../src/presentation/time-view-text.ts';
import { timeTable } from '../../src/cli/sweep-time.ts';

/**
 * No recommendation, knee or time estimate rests on bounds wider than 5% of the inflations: on a
 * real limit-0 recording of `blame` of a build file edited across 360 commits, whose bounds at the
 * small limits where eviction separates bases from children are wide (checked here against real
 * git, which lies inside them), the time view says which limits it needs completed instead. Once
 * `record --complete` runs there, those cells are real git's (trace lines and inflations) and the
 * same time view recommends. The calibration is hand-made: what is checked is which cells each
 * figure rests on, not the seconds.
 */
const LIMITS = [0, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20, 4 << 20];
const ARGS = ['blame', 'Makefile'];
const YOURS = 1 << 20;

const calibration: Calibration = {
  schema: CALIBRATION_SCHEMA,
  date: '2026-12-06T00:00:00.000Z',
  key: { packChecksum: '00'.repeat(20), node: 'v20', cpu: 'test', git: '2.0' },
  pack: { path: '/x.pack', objects: 1 },
  seed: 1,
  repeats: 1,
  method: 'hand-made',
  parameters: { aInflate: 2e-6, bInflate: 1e-9, aDelta: 1e-6, bDelta: 5e-10, bCache: 1e-12, cHit: 0, cTrace: 1e-6 },
  perRead: 0,
  pageCacheMiss: { secondsPerByte: null, note: 'not measured' },
  loadAverage: [0, 0, 0],
  batches: [],
  seconds: 0,
};

type Cell = CellCounts & { exactness: string };

describe('decisions on wide bounds, on a real blame recording', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let shim: string;
  let cacheDir: string;

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-wide-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(repo, longHistory(360, 3));
    sandbox.git(repo, ['repack', '-adf', '--depth=50', '--window=50']);
    sandbox.git(repo, ['reset', '-q', '--hard', 'main']);
    shim = buildInflateCounter(sandbox.root);
    cacheDir = path.join(sandbox.root, 'model-cache');
  });

  function packscope(args: string[]): string {
    const result = spawnSync(process.execPath, [cliPath, ...args], {
      env: { ...gitEnv(sandbox.home), PACKSCOPE_NO_PROGRESS: '1' },
      maxBuffer: 1 << 30,
    });
    assert.equal(result.status, 0, result.stderr.toString());
    return result.stdout.toString();
  }

  function record(name: string, complete: number[]): Cell[] {
    const output = path.join(sandbox.root, `${name}.psrec`);
    const completeOption = complete.length > 0 ? [`--complete=${complete.join(',')}`] : [];
    packscope([
      'record',
      '--exact',
      ...completeOption,
      '-o',
      output,
      '-C',
      repo,
      '--cache-dir',
      cacheDir,
      '--',
      ...ARGS,
    ]);
    const sweep = ['sweep', '--json', '--threads', '1', '--policies', 'git', '--limits', LIMITS.join(',')];
    return (JSON.parse(packscope([...sweep, '--cache-dir', cacheDir, output])) as { results: Cell[] }).results;
  }

  function realRun(limit: number): { lines: number; inflations: number } {
    const trace = path.join(sandbox.root, `real-${process.hrtime.bigint()}.trace`);
    const counts = `${trace}.count`;
    sandbox.git(repo, ['-c', `core.deltaBaseCacheLimit=${limit}`, ...ARGS], {
      env: { GIT_TRACE_PACK_ACCESS: trace, ...countingEnv(shim, counts) },
    });
    const lines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length : 0;
    return { lines, inflations: readInflateCount(counts) };
  }

  /** Each cell against real git: inside its bounds, and equal where it says exact; the table for the diagnostics. */
  function checkAgainstGit(cells: Cell[]): string[] {
    const atZero = cells.find((cell) => cell.limit === 0)!;
    assert.equal(atZero.exact, true);
    // Inflations outside unpack_entry (§1.8) are the same at every limit: measured at limit 0.
    const outside = realRun(0).inflations - atZero.inflations;
    return cells.map((cell) => {
      const real = realRun(cell.limit);
      const realInflations = real.inflations - outside;
      const line = `${formatLimit(cell.limit)}: lines real ${real.lines} predicted ${cell.logged}; inflations real ${realInflations} predicted ${cell.inflations} bounds ${cell.bounds?.inflations.join('–')}`;
      assert.ok(cell.bounds, line);
      assert.ok(cell.bounds.inflations[0] <= realInflations && realInflations <= cell.bounds.inflations[1], line);
      assert.ok(cell.bounds.logged[0] <= real.lines && real.lines <= cell.bounds.logged[1], line);
      if (cell.exact) {
        assert.equal(cell.logged, real.lines, `exact lines: ${line}`);
        assert.equal(cell.inflations, realInflations, `exact inflations: ${line}`);
      }
      return line;
    });
  }

  const view = (cells: Cell[]): ReturnType<typeof timeView> =>
    timeView(cells, calibration, { seconds: 2, limit: 0 }, { limit: YOURS, source: 'test' }, formatLimit);

  test('wide at the small limits: knee, recommendation and those cells say what they need; completed, they are exact and decide', (t) => {
    const recorded = record('blame', []);
    const table = checkAgainstGit(recorded);
    const wide = limitsWiderThan(recorded, DECIDING_BOUND_SHARE);
    t.diagnostic(`limit-0 recording, wide (> 5%) at ${wide.map(formatLimit).join(', ')}\n${table.join('\n')}`);
    assert.ok(wide.length > 0, `a genuinely wide case:\n${table.join('\n')}`);
    assert.ok(!wide.includes(0) && !wide.includes(YOURS), 'the recorded and the user’s limits are not among them');

    const before = view(recorded);
    const sentence = `needs the recording completed at ${wide.map(formatLimit).join(', ')}: bounds `;
    assert.ok(before.recommendation.startsWith(`no recommendation: it ${sentence}`), before.recommendation);
    const gitKnee = before.knees.find((k) => k.policy === 'git')!;
    assert.deepEqual(gitKnee.needs?.limits, wide);
    assert.match(kneeSentences(before, (p) => p)[0]!, /^git: no knee, it needs the recording completed at /);
    for (const cell of before.cells) {
      const isWide = wide.includes(cell.limit);
      assert.deepEqual(cell.needs?.limits ?? [], isWide ? [cell.limit] : [], `${formatLimit(cell.limit)}`);
      assert.equal(timeCellText(cell).startsWith('needs completion at '), isWide);
    }
    // Measure for real beside it: the wide limit is neither compared nor fitted.
    const run = (limit: number, bestSeconds: number) => ({
      limit,
      seconds: [bestSeconds],
      bestSeconds,
      cpuSeconds: [null],
      minorFaults: [null],
    });
    const measured = measuredAgainstPredicted(before, {
      gitVersion: '2',
      results: [run(0, 3), run(wide[0]!, 2.5), run(YOURS, 2)],
    });
    const wideRow = measured.rows[1]!;
    assert.deepEqual([wideRow.predicted, wideRow.error, wideRow.needs?.limits], [null, null, [wide[0]]]);
    assert.ok(measured.rows[0]!.predicted !== null && measured.rows[2]!.predicted !== null);
    const printed = timeTable(before, ['git'], LIMITS).join('\n');
    assert.match(printed, new RegExp(`\\n${formatLimit(wide[0]!)}\\s+needs completion at ${formatLimit(wide[0]!)}\\n`));
    assert.match(printed, /recommendation: no recommendation: it needs the recording completed at /);

    const completed = record('blame-complete', wide);
    const completedTable = checkAgainstGit(completed);
    t.diagnostic(`completed at ${wide.map(formatLimit).join(', ')}\n${completedTable.join('\n')}`);
    for (const limit of wide)
      assert.equal(completed.find((c) => c.limit === limit)!.exact, true, completedTable.join('\n'));
    assert.deepEqual(limitsWiderThan(completed, DECIDING_BOUND_SHARE), []);
    const after = view(completed);
    assert.ok(!after.recommendation.startsWith('no recommendation'), after.recommendation);
    assert.ok(after.knees.every((k) => k.needs === null));
    assert.ok(after.cells.every((c) => c.needs === null));
  });
});
