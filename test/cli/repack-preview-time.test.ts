import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { calibratePack, calibrationFile, saveCalibration } from '../../src/core/cost/calibrate.ts';
import { readSeconds } from '../../src/core/cost/cost-model.ts';
import type { Calibration, ReadReplay } from '../../src/core/documents/calibration-document.ts';
import { withReadReplay } from '../../src/core/cost/read-replay.ts';
import { parseRecordingFile } from '../../src/core/trace/load-recording.ts';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { hashAlgorithmNear } from '../../src/core/model/repository.ts';
import type { RepackPreviewDocument } from '../../src/core/documents/repack-preview-document.ts';
import { GitSandbox, packStems, runCli, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

/**
 * The repack preview's predicted read time on both layouts, on a real repository made
 * here with git and a real recording of `git log -p`. The calibration is made first (small, one
 * repeat: its figures are not what is checked) and kept where the CLI looks; then every layout's
 * readSeconds must be the cost model's formula on that layout's own counts. No timed assertion.
 */
describe('repack-preview --time', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let cacheDir: string;
  let env: Record<string, string>;

  before(async () => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-repack-time-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 60, seed: 7, files: 4, linesPerFile: 300 }));
    sandbox.git(repo, ['repack', '-adf', '--depth=12', '--window=10']);
    sandbox.git(repo, ['reset', '-q', '--hard', 'main']);
    cacheDir = path.join(sandbox.root, 'cache');
    env = { PACKSCOPE_CACHE_DIR: cacheDir, PACKSCOPE_NO_PROGRESS: '1', HOME: sandbox.home, GIT_CONFIG_NOSYSTEM: '1' };
    const files = packFilesFor(`${packStems(path.join(repo, '.git', 'objects'))[0]!}.pack`);
    const model = buildPackModel(files, { hash: hashAlgorithmNear(files.pack)! });
    const calibration = await calibratePack(model, { gitDir: path.join(repo, '.git'), repeats: 1, perClass: 4 });
    saveCalibration(calibrationFile(cacheDir, calibration.key), calibration);
  });

  test("each layout's read time is the model's formula on its own counts, labelled with its calibration", () => {
    const recording = path.join(sandbox.root, 'log-p.psrec');
    const recorded = runCli(['record', '-o', recording, '-C', repo, '--', 'log', '-p'], { cwd: sandbox.root, env });
    assert.equal(recorded.status, 0, recorded.stderr);
    const run = runCli(
      [
        'repack-preview',
        '--json',
        '--time',
        '--no-estimate',
        '--depth',
        '4',
        '--recording',
        recording,
        '--limits',
        '0,16m',
        repo,
      ],
      { cwd: sandbox.root, env },
    );
    assert.equal(run.status, 0, run.stderr);
    const doc = JSON.parse(run.stdout.toString()) as RepackPreviewDocument;
    assert.ok(doc.readTime && doc.readTime.calibration, JSON.stringify(doc.readTime));
    assert.equal(doc.readTime.estimate, true);
    const kept = JSON.parse(
      fs.readFileSync(
        fs.readdirSync(path.join(cacheDir, 'calibrations')).map((f) => path.join(cacheDir, 'calibrations', f))[0]!,
        'utf8',
      ),
    );
    assert.deepEqual(doc.readTime.calibration.parameters, kept.parameters, 'the kept calibration, not a new one');
    const replay = doc.recordings[0]!;
    for (const side of [replay.current, replay.preview!]) {
      assert.deepEqual(
        side.inflations.map((x) => x.limit),
        [0, 16 << 20],
      );
      for (const at of side.inflations) assert.equal(at.readSeconds, readSeconds(at, kept.parameters));
    }
    // Depth 4 against today's 12: the layouts' counts differ, so their prices are each their own.
    assert.ok(replay.preview!.inflations[0]!.inflations < replay.current.inflations[0]!.inflations);
    const text = runCli(
      [
        'repack-preview',
        '--time',
        '--no-estimate',
        '--depth',
        '4',
        '--recording',
        recording,
        '--limits',
        '0,16m',
        repo,
      ],
      { cwd: sandbox.root, env },
    );
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout.toString(), /read time \(estimate\)/);
    assert.match(text.stdout.toString(), /read time: estimate, calibration of pack-/);
  });

  test("a recording whose reads were replayed on git has both layouts' read seconds scaled by its kept scale", () => {
    const recording = path.join(sandbox.root, 'log-p.psrec');
    const file = fs
      .readdirSync(path.join(cacheDir, 'calibrations'))
      .map((f) => path.join(cacheDir, 'calibrations', f))[0]!;
    const before = fs.readFileSync(file, 'utf8');
    const kept = JSON.parse(before) as Calibration;
    const metadata = parseRecordingFile(recording).metadata!;
    const replay: ReadReplay = {
      command: { args: metadata.command, cwd: metadata.cwd, startedAt: metadata.startedAt },
      date: '2026-12-04T00:00:00.000Z',
      reads: 1,
      readsTimed: 1,
      repeats: 3,
      limits: [0, 16 << 20],
      seconds: [1, 0.5],
      modelReadSeconds: [1.25, 0.5],
      readScale: 0.8,
      note: 'test',
    };
    try {
      fs.writeFileSync(file, JSON.stringify(withReadReplay(kept, replay)));
      const run = runCli(
        [
          'repack-preview',
          '--json',
          '--time',
          '--no-estimate',
          '--depth',
          '4',
          '--recording',
          recording,
          '--limits',
          '0,16m',
          repo,
        ],
        { cwd: sandbox.root, env },
      );
      assert.equal(run.status, 0, run.stderr);
      const doc = JSON.parse(run.stdout.toString()) as RepackPreviewDocument;
      const scaled = doc.recordings[0]!;
      assert.equal(scaled.readScale, 0.8);
      for (const side of [scaled.current, scaled.preview!])
        for (const at of side.inflations) assert.equal(at.readSeconds, 0.8 * readSeconds(at, kept.parameters));
      assert.match(doc.readTime!.note, /1 of 1 recording scaled by a replay of its own reads on git/);
    } finally {
      fs.writeFileSync(file, before);
    }
  });

  test('without --time a kept calibration prices the layouts, and with none kept it says how to get one', () => {
    const recording = path.join(sandbox.root, 'log-p.psrec');
    const kept = runCli(
      ['repack-preview', '--json', '--no-estimate', '--recording', recording, '--limits', '16m', repo],
      { cwd: sandbox.root, env },
    );
    assert.equal(kept.status, 0, kept.stderr);
    const keptDoc = JSON.parse(kept.stdout.toString()) as RepackPreviewDocument;
    assert.ok(keptDoc.readTime?.calibration, JSON.stringify(keptDoc.readTime));
    const none = runCli(
      ['repack-preview', '--json', '--no-estimate', '--no-cache', '--recording', recording, '--limits', '16m', repo],
      { cwd: sandbox.root, env },
    );
    assert.equal(none.status, 0, none.stderr);
    const doc = JSON.parse(none.stdout.toString()) as RepackPreviewDocument;
    assert.equal(doc.readTime?.calibration, null);
    assert.match(doc.readTime!.note, /packscope calibrate/);
    assert.equal(doc.recordings[0]!.current.inflations[0]!.readSeconds, null);
  });
});
