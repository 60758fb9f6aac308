import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { calibratePack, calibrationPlan } from '../../src/core/cost/calibrate.ts';
import { readSeconds, type CellCounts } from '../../src/core/cost/cost-model.ts';
import type { TimeView } from '../../src/core/documents/time-view-document.ts';
import {
  CALIBRATION_SCHEMA,
  type Calibration,
  type ReadReplay,
} from '../../src/core/documents/calibration-document.ts';
import { withMeasuredCommand } from '../../src/core/cost/measured-split.ts';
import { READ_REPLAY_LIMIT, withReadReplay } from '../../src/core/cost/read-replay.ts';
import { recordedOids } from '../../src/core/cost/time-plan.ts';
import { loadRecording } from '../../src/cli/load-recording.ts';
import { Progress } from '../../src/cli/progress.ts';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { hashAlgorithmNear } from '../../src/core/model/repository.ts';
import { simObjectsFrom } from '../../src/core/sim/sim-objects.ts';
import { parsePolicy } from '../../src/core/sim/policy-registry.ts';
import { GitSandbox, packStems, runCli, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

/**
 * The calibration on a real repository made here with git. Timings vary from run to run;
 * what is asserted is the shape (the same lists for the same seed, parameters non-negative and
 * finite, costs monotone in size, an inflation that costs something) and the JSON documents. No
 * assertion on how long anything takes.
 */
describe('calibrate and sweep --time on a real repository', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let cacheDir: string;
  let pack: string;

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-cost-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 120, seed: 16, files: 6, linesPerFile: 400 }));
    sandbox.git(repo, ['repack', '-adf', '--depth=20', '--window=20']);
    sandbox.git(repo, ['reset', '-q', '--hard', 'main']);
    cacheDir = path.join(sandbox.root, 'cache');
    pack = `${packStems(path.join(repo, '.git', 'objects'))[0]!}.pack`;
  });

  test('the plan is a function of the pack and the seed', () => {
    const files = packFilesFor(pack);
    const model = buildPackModel(files, { hash: hashAlgorithmNear(files.pack)! });
    const objects = simObjectsFrom([model]);
    const shape = (seed: number): string =>
      JSON.stringify(calibrationPlan(objects, seed, 8).map((l) => [l.stage, l.cls, l.ids, l.limit, l.reads.length]));
    assert.equal(shape(16), shape(16));
    assert.notEqual(shape(16), shape(17));
    const stages = new Set(calibrationPlan(objects, 16, 8).map((l) => l.stage));
    assert.deepEqual([...stages].sort(), ['inflate', 'walk']);
  });

  test('the fitted parameters are non-negative, finite, monotone in size', async () => {
    const files = packFilesFor(pack);
    const model = buildPackModel(files, { hash: hashAlgorithmNear(files.pack)! });
    const c = await calibratePack(model, { gitDir: path.join(repo, '.git'), repeats: 1, perClass: 8 });
    for (const [key, value] of Object.entries(c.parameters))
      assert.ok(Number.isFinite(value) && value >= 0, `${key} = ${value}`);
    const inflate = (bytes: number): number => c.parameters.aInflate + c.parameters.bInflate * bytes;
    const apply = (bytes: number): number => c.parameters.aDelta + c.parameters.bDelta * bytes;
    for (const [small, large] of [
      [100, 1000],
      [1000, 1 << 20],
    ] as const) {
      assert.ok(inflate(small) <= inflate(large));
      assert.ok(apply(small) <= apply(large));
    }
    assert.ok(inflate(1 << 20) > 0, 'inflating a MiB costs something');
    assert.equal(c.pageCacheMiss.secondsPerByte, null);
    for (const batch of c.batches) assert.ok(batch.inflations > 0 && batch.reads > 0 && batch.seconds >= 0);
  });

  test('calibrate --json: the packscope.calibration/4 document, cached on the second run', () => {
    const env = {
      PACKSCOPE_CACHE_DIR: cacheDir,
      PACKSCOPE_NO_PROGRESS: '1',
      HOME: sandbox.home,
      GIT_CONFIG_NOSYSTEM: '1',
    };
    const first = runCli(['calibrate', '--json', repo], { cwd: sandbox.root, env });
    assert.equal(first.status, 0, first.stderr);
    const doc = JSON.parse(first.stdout.toString()) as Calibration;
    assert.equal(doc.schema, CALIBRATION_SCHEMA);
    assert.deepEqual(Object.keys(doc).sort(), [
      'batches',
      'date',
      'key',
      'loadAverage',
      'method',
      'pack',
      'pageCacheMiss',
      'parameters',
      'perRead',
      'repeats',
      'schema',
      'seconds',
      'seed',
    ]);
    assert.deepEqual(Object.keys(doc.parameters).sort(), [
      'aDelta',
      'aInflate',
      'bCache',
      'bDelta',
      'bInflate',
      'cHit',
      'cTrace',
    ]);
    assert.deepEqual(Object.keys(doc.key).sort(), ['cpu', 'git', 'node', 'packChecksum']);
    assert.equal(doc.pack.path, fs.realpathSync(pack));
    assert.ok(fs.readdirSync(path.join(cacheDir, 'calibrations')).length === 1, 'kept in the cache directory');
    const second = runCli(['calibrate', '--json', repo], { cwd: sandbox.root, env });
    assert.equal(second.status, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout.toString()), doc, 'the cached calibration is returned as it was');
  });

  test('sweep --time --json: a time view over every cell, with the knee and the recommendation', () => {
    const env = {
      PACKSCOPE_CACHE_DIR: cacheDir,
      PACKSCOPE_NO_PROGRESS: '1',
      HOME: sandbox.home,
      GIT_CONFIG_NOSYSTEM: '1',
    };
    const recording = path.join(sandbox.root, 'log-p.psrec');
    const recorded = runCli(['record', '-o', recording, '-C', repo, '--', 'log', '-p'], { cwd: sandbox.root, env });
    assert.equal(recorded.status, 0, recorded.stderr);
    const sweep = runCli(['sweep', '--time', '--json', '--limits', '0,16k,1m', '--policies', 'git,belady', recording], {
      cwd: sandbox.root,
      env,
    });
    assert.equal(sweep.status, 0, sweep.stderr);
    const doc = JSON.parse(sweep.stdout.toString()) as {
      schema: string;
      results: { policy: string; limit: number }[];
      time: TimeView;
    };
    assert.equal(doc.schema, 'packscope.sweep/1');
    const time = doc.time;
    assert.equal(time.estimate, true);
    // The user's limit (git's default here: the sandbox sets none) is added to the sweep.
    assert.equal(time.currentLimit, 96 << 20);
    const limits = [...new Set(doc.results.map((r) => r.limit))];
    assert.deepEqual(limits, [0, 16384, 1 << 20, 96 << 20]);
    assert.equal(time.cells.length, doc.results.length);
    for (const cell of time.cells) {
      assert.ok(cell.predictedSeconds >= time.nonRead.seconds);
      assert.ok(cell.speedUp > 0);
      if (cell.predictedSecondsBounds)
        assert.ok(
          cell.predictedSecondsBounds[0] <= cell.predictedSeconds + 1e-12 &&
            cell.predictedSeconds <= cell.predictedSecondsBounds[1] + 1e-12,
        );
    }
    assert.equal(time.cells.find((c) => c.policy === 'git' && c.limit === time.currentLimit)!.speedUp, 1);
    assert.deepEqual(time.knees.map((k) => k.policy).sort(), ['belady', 'git']);
    assert.match(time.recommendation, /core\.deltaBaseCacheLimit/);
    assert.equal(time.nonRead.recordedLimit, 0);
    const text = runCli(['sweep', '--time', '--limits', '0,1m', '--policies', 'git', recording], {
      cwd: sandbox.root,
      env,
    });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout.toString(), /predicted seconds of the whole command \(estimate\)/);
    assert.match(text.stdout.toString(), /recommendation: /);
    assert.match(text.stdout.toString(), /\nnot in it: glibc handing freed memory back/);
    assert.doesNotMatch(text.stdout.toString(), /priced from your measured runs/);

    // A split kept for this command (as Measure for real keeps it, server side): the next estimate
    // of the same command starts from it; the JSON says so and each cell is its formula.
    const file = path.join(cacheDir, 'calibrations', fs.readdirSync(path.join(cacheDir, 'calibrations'))[0]!);
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as Calibration;
    const split = { nonReadSeconds: 0.25, readScale: 1.5 };
    fs.writeFileSync(
      file,
      JSON.stringify(
        withMeasuredCommand(kept, {
          args: ['log', '-p'],
          cwd: repo,
          date: '2026-12-03T22:00:00.000Z',
          gitVersion: 'x',
          runs: 3,
          points: [],
          split,
        }),
      ),
    );
    const again = runCli(['sweep', '--time', '--json', '--limits', '0,1m', '--policies', 'git', recording], {
      cwd: sandbox.root,
      env,
    });
    assert.equal(again.status, 0, again.stderr);
    const measuredDoc = JSON.parse(again.stdout.toString()) as { results: CellCounts[]; time: TimeView };
    assert.equal(measuredDoc.time.basis.source, 'measured');
    for (const cell of measuredDoc.time.cells) {
      const counts = measuredDoc.results.find((r) => r.policy === cell.policy && r.limit === cell.limit)!;
      assert.ok(
        Math.abs(
          cell.predictedSeconds -
            (0.25 + 1.5 * readSeconds({ ...counts, appliedBytes: counts.appliedBytes ?? 0 }, kept.parameters)),
        ) < 1e-12,
      );
    }
    const words = runCli(['sweep', '--time', '--limits', '0,1m', '--policies', 'git', recording], {
      cwd: sandbox.root,
      env,
    });
    assert.match(
      words.stdout.toString(),
      /priced from your measured runs of this command \(2026-12-03T22:00:00\.000Z, best of 3/,
    );
    // A given time (--recorded-seconds, a run measured apart) is used as it is.
    const given = runCli(
      [
        'sweep',
        '--time',
        '--no-replay',
        '--json',
        '--recorded-seconds',
        '2',
        '--limits',
        '0,1m',
        '--policies',
        'git',
        recording,
      ],
      { cwd: sandbox.root, env },
    );
    assert.equal((JSON.parse(given.stdout.toString()) as { time: TimeView }).time.basis.source, 'recording');
  });

  test("sweep --time --replay: the recording's own reads fed to git cat-file in order, kept with the calibration; a kept scale prices every cell", () => {
    const env = {
      PACKSCOPE_CACHE_DIR: cacheDir,
      PACKSCOPE_NO_PROGRESS: '1',
      HOME: sandbox.home,
      GIT_CONFIG_NOSYSTEM: '1',
    };
    const recording = path.join(sandbox.root, 'log-raw.psrec');
    const recorded = runCli(['record', '-o', recording, '-C', repo, '--', 'log', '--raw'], { cwd: sandbox.root, env });
    assert.equal(recorded.status, 0, recorded.stderr);
    // What cat-file is fed: the logged reads' objects, in order, as git's own index names them.
    const offsets = fs
      .readFileSync(recording, 'utf8')
      .split('\n')
      .filter((l) => / packfile\.c:\d+ /.test(l))
      .map((l) => Number(l.trim().split(/\s+/).pop()));
    const byOffset = new Map(
      sandbox
        .gitText(repo, ['show-index'], { input: fs.readFileSync(pack.replace(/\.pack$/, '.idx')) })
        .trim()
        .split('\n')
        .map((l) => {
          const [o, h] = l.split(' ');
          return [Number(o), h!] as const;
        }),
    );
    const loaded = loadRecording(recording, { cacheDir, noCache: false }, new Progress(false));
    assert.deepEqual(
      recordedOids(loaded),
      offsets.map((o) => byOffset.get(o)),
    );

    const sweep = runCli(
      ['sweep', '--time', '--replay', '--json', '--limits', '0,1m', '--policies', 'git', recording],
      { cwd: sandbox.root, env },
    );
    assert.equal(sweep.status, 0, sweep.stderr);
    const file = path.join(cacheDir, 'calibrations', fs.readdirSync(path.join(cacheDir, 'calibrations'))[0]!);
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as Calibration;
    const replay = kept.replays![0]!;
    assert.deepEqual(replay.command, {
      args: ['log', '--raw'],
      cwd: loaded.log.metadata!.cwd,
      startedAt: loaded.log.metadata!.startedAt,
    });
    assert.deepEqual(replay.limits, [0, READ_REPLAY_LIMIT]);
    assert.equal(replay.reads, offsets.length);
    assert.equal(replay.readsTimed, offsets.length);
    assert.ok(replay.seconds.every((x) => x >= 0) && replay.seconds.length === 2);
    // The model's side is the formula on the simulator's counts of the same reads at the same limits
    // (not ordered: in a small repository the cache's memory, bCache × its peak, can outweigh what it saves).
    replay.limits.forEach((limit, i) => {
      const counts = parsePolicy('git').run(loaded.objects, loaded.reads, limit);
      assert.ok(
        Math.abs(
          replay.modelReadSeconds[i]! -
            readSeconds({ ...counts, appliedBytes: counts.appliedBytes ?? 0 }, kept.parameters),
        ) < 1e-12,
      );
    });
    // A small repository's cache saves milliseconds: too little to scale by, and the note says so.
    const doc = JSON.parse(sweep.stdout.toString()) as { time: TimeView };
    if (replay.readScale === null) {
      assert.match(replay.note, /^no scale: /);
      assert.equal(doc.time.basis.source, 'recording');
    } else {
      assert.equal(doc.time.basis.source, 'replay');
    }

    // A kept scale (as a replay of a larger workload gives): every cell is rest + scale × its read
    // seconds, rest the recorded time less trace writing and the scaled reads at the recorded limit.
    const scaled: ReadReplay = { ...replay, readScale: 0.5, note: 'test' };
    fs.writeFileSync(file, JSON.stringify(withReadReplay(kept, scaled)));
    const again = runCli(['sweep', '--time', '--json', '--limits', '0,1m', '--policies', 'git', recording], {
      cwd: sandbox.root,
      env,
    });
    assert.equal(again.status, 0, again.stderr);
    const priced = JSON.parse(again.stdout.toString()) as { results: CellCounts[]; time: TimeView };
    assert.equal(priced.time.basis.source, 'replay');
    assert.equal(priced.time.basis.replay!.readScale, 0.5);
    const read = (c: CellCounts): number => readSeconds({ ...c, appliedBytes: c.appliedBytes ?? 0 }, kept.parameters);
    const atRecorded = priced.results.find((r) => r.policy === 'git' && r.limit === 0)!;
    const n = priced.time.nonRead;
    assert.ok(Math.abs(n.readSecondsAtRecordedLimit - 0.5 * read(atRecorded)) < 1e-12);
    assert.ok(Math.abs(n.seconds - Math.max(0, n.recordedSeconds - n.traceSeconds - 0.5 * read(atRecorded))) < 1e-12);
    for (const cell of priced.time.cells) {
      const counts = priced.results.find((r) => r.policy === cell.policy && r.limit === cell.limit)!;
      assert.ok(Math.abs(cell.predictedSeconds - (n.seconds + 0.5 * read(counts))) < 1e-12);
    }
    const words = runCli(['sweep', '--time', '--limits', '0,1m', '--policies', 'git', recording], {
      cwd: sandbox.root,
      env,
    });
    assert.match(words.stdout.toString(), /reads scaled ×0\.50 by a replay of this recording's reads on git/);
    assert.match(words.stdout.toString(), new RegExp(`recommendation: .*reads scaled ×0\\.50 by a replay`));
    // --no-replay: the calibration's lists alone, though a replay is kept.
    const off = runCli(
      ['sweep', '--time', '--no-replay', '--json', '--limits', '0,1m', '--policies', 'git', recording],
      { cwd: sandbox.root, env },
    );
    assert.equal(off.status, 0, off.stderr);
    assert.equal((JSON.parse(off.stdout.toString()) as { time: TimeView }).time.basis.replay, null);
    const both = runCli(['sweep', '--time', '--replay', '--no-replay', '--limits', '0', recording], {
      cwd: sandbox.root,
      env,
    });
    assert.notEqual(both.status, 0);
    assert.match(both.stderr.toString(), /--replay and --no-replay contradict each other/);
  });
});
