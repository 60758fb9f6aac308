// The Cache Lab's time estimate inside VS Code: opened on a recording of a repository
// made here with the git CLI, the sweep the host posts carries a time view whose every cell is the
// cost model's formula on that cell's own counts with the calibration the view names, labelled an
// estimate, with the user's limit, knees and a recommendation; Measure for real then posts measured
// times for the limits the view predicts. No timed assertion: the calibration's figures vary.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readSeconds } from '../../src/core/cost/cost-model.ts';
import type { HostToWebview } from '../../src/protocol/cache-lab-protocol.ts';
import type { PackScopeApi } from '../../src/extension/extension.ts';
import type { CacheLabPanel } from '../../src/extension/cache-lab/cache-lab-panel.ts';
import {
  activatePackScope,
  addRepositoryToServer,
  commitHistory,
  git,
  gitEnv,
  packscopeCli,
  until,
} from './support.ts';

function makeRepository(parent: string): string {
  const dir = path.join(parent, 'repo');
  fs.mkdirSync(dir);
  commitHistory(
    dir,
    20,
    (c) => `2024-04-${String(c).padStart(2, '0')}T12:00:00Z`,
    (c) => {
      for (let f = 1; f <= 2; f++) {
        const lines: string[] = [];
        for (let i = 0; i < 200 + c * 10; i++)
          lines.push(`file ${f} line ${i}: ${'time view '.repeat((i % 4) + 1)}${i % 7 === c % 7 ? `rev ${c}` : ''}`);
        fs.writeFileSync(path.join(dir, `file-${f}.txt`), `${lines.join('\n')}\n`);
      }
    },
  );
  git(dir, 'repack', '-adfq', '--depth=10');
  return dir;
}

describe('Cache Lab time estimate', function () {
  // The first sweep calibrates the pack (git timed on it): tens of seconds on a loaded machine.
  this.timeout(300_000);
  let api: PackScopeApi;
  let temp: string;
  let repo: string;
  let recording: string;
  let restoreRepositories: (() => Promise<void>) | undefined;

  before(async () => {
    const activated = await activatePackScope();
    api = activated.api;
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-cache-lab-time-'));
    repo = makeRepository(temp);
    recording = path.join(temp, 'log-p.psrec');
    packscopeCli(activated.extensionPath, gitEnv)('record', '-o', recording, '-C', repo, '--', 'log', '-p');
    restoreRepositories = await addRepositoryToServer(api, repo);
  });

  after(async () => {
    api?.cacheLab.panel?.dispose();
    await restoreRepositories?.();
    if (temp !== undefined) fs.rmSync(temp, { recursive: true, force: true });
  });

  it("the sweep carries a time view: each cell the model on its counts, the user's limit at ×1, knees and a recommendation", async () => {
    api.cacheLab.panel?.dispose();
    await vscode.commands.executeCommand('packscope.openCacheLab', { file: recording });
    const panel = await until<CacheLabPanel>('the Cache Lab panel', () => api.cacheLab.panel, 60_000);
    const sweep = await until(
      'a sweep',
      () =>
        panel.posted.find(
          (m): m is Extract<HostToWebview, { type: 'sweep' }> =>
            m.type === 'sweep' && m.result.recording.file === recording && m.timePending !== true,
        ),
      240_000,
    );
    // The counts came first, without waiting for the calibration, and said the time view would follow.
    const first = panel.posted.find(
      (m): m is Extract<HostToWebview, { type: 'sweep' }> =>
        m.type === 'sweep' && m.result.recording.file === recording,
    );
    assert.equal(first?.timePending, true, 'the first sweep posted is the one without a time view');
    assert.equal(first?.result.time, undefined);
    // The same counts (each cell's `seconds` is how long its replay took, which differs run to run).
    const counts = (results: typeof sweep.result.results | undefined) =>
      results?.map(({ seconds: _seconds, ...cell }) => cell);
    assert.deepEqual(
      counts(first?.result.results),
      counts(sweep.result.results),
      'the timed sweep has the same counts',
    );
    assert.equal(sweep.result.timeError, undefined, sweep.result.timeError);
    const time = sweep.result.time;
    assert.ok(time, 'a time view');
    assert.equal(time.estimate, true);
    assert.ok(time.calibration.batches > 0 && time.calibration.reads > 0);
    assert.equal(time.currentLimit, 96 << 20, 'git’s default: the test repository sets none');
    for (const cell of time.cells) {
      const counts = sweep.result.results.find((r) => r.policy === cell.policy && r.limit === cell.limit) ?? undefined;
      if (counts === undefined) continue; // an extra cell the estimate needed (git at the recorded limit), not in results
      assert.equal(cell.readSeconds, readSeconds(counts as never, time.calibration.parameters));
      assert.equal(cell.predictedSeconds, time.nonRead.seconds + cell.readSeconds);
    }
    const mine = time.cells.find((c) => c.policy === 'git' && c.limit === time.currentLimit);
    assert.ok(mine);
    assert.equal(mine.speedUp, 1);
    assert.deepEqual(time.knees.map((k) => k.policy).sort(), [...new Set(time.cells.map((c) => c.policy))].sort());
    assert.match(time.recommendation, /core\.deltaBaseCacheLimit/);

    // Measure for real at two of the limits: the measured times come back for the limits the view predicts.
    const outcome = await api.cacheLab.measure(panel, { limits: [0, 96 << 20], runs: 1, confirmed: true });
    assert.deepEqual(outcome.errors, []);
    assert.ok(outcome.message);
    for (const r of outcome.message.result.results)
      assert.ok(
        time.cells.some((c) => c.policy === 'git' && c.limit === r.limit),
        `a prediction at ${r.limit}`,
      );
    // The recording went along (its own command ran): the split of its time is kept with the calibration, or the note says why not.
    const kept = outcome.message.result.kept;
    assert.ok(kept, 'a kept split or its reason');
    if (kept.split) {
      assert.ok(kept.file && fs.existsSync(kept.file), kept.note);
      const calibration = JSON.parse(fs.readFileSync(kept.file, 'utf8')) as { measured?: { split: unknown }[] };
      assert.deepEqual(calibration.measured?.[0]?.split, kept.split);
    } else {
      assert.match(kept.note, /^not kept: /);
    }
  });
});
