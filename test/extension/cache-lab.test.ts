// The Cache Lab inside VS Code (test/extension/index.ts): opening it on a recording of a repository
// made here with the git CLI posts to the webview a sweep, index-pack simulations and locality whose
// numbers equal the CLI's (`packscope sweep --json`, `index-pack-sim --json`, `locality --json`) on
// the same recording. The recording is made with the CLI, outside the repository.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CACHE_LAB_POLICIES } from '../../src/core/sim/policy-registry.ts';
import { DEFAULT_LIMITS, type HostToWebview } from '../../src/protocol/cache-lab-protocol.ts';
import { formatLimit } from '../../src/common/format.ts';
import type { PackScopeApi } from '../../src/extension/extension.ts';
import { RecordingInfoRequest } from '../../src/protocol/server-protocol.ts';
import type { CacheLabPanel } from '../../src/extension/cache-lab/cache-lab-panel.ts';
import { measurePlan } from '../../src/extension/cache-lab/measure-plan.ts';
import {
  activatePackScope,
  addRepositoryToServer,
  commitHistory,
  git,
  gitEnv,
  packscopeCli,
  pickedByUser,
  until,
} from './support.ts';

/** 24 commits of three growing files, then one pack with deltas (trees and blobs chained). */
function makeRepository(parent: string): string {
  const dir = path.join(parent, 'repo');
  fs.mkdirSync(dir);
  commitHistory(
    dir,
    24,
    (c) => `2024-03-${String(c).padStart(2, '0')}T12:00:00Z`,
    (c) => {
      for (let f = 1; f <= 3; f++) {
        const lines: string[] = [];
        for (let i = 0; i < 150 + c * 12; i++)
          lines.push(`file ${f} line ${i}: ${'cache lab '.repeat((i % 5) + 1)}${i % 9 === c % 9 ? `rev ${c}` : ''}`);
        fs.writeFileSync(path.join(dir, `file-${f}.txt`), `${lines.join('\n')}\n`);
      }
    },
  );
  git(dir, 'repack', '-adfq');
  return dir;
}

/** Waits for what a panel posts (longer than until's default: a whole run happens first). */
const waitFor = <T>(what: string, probe: () => T | undefined, timeoutMs = 90_000): Promise<T> =>
  until(what, probe, timeoutMs);

/** Resolves with the next `runEnded` the panel posts (subscribe before starting the run). */
function nextRunEnd(panel: CacheLabPanel, timeoutMs = 120_000): Promise<Extract<HostToWebview, { type: 'runEnded' }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`no run ended within ${timeoutMs} ms`));
    }, timeoutMs);
    const subscription = panel.onDidPost((message) => {
      if (message.type !== 'runEnded') return;
      clearTimeout(timer);
      subscription.dispose();
      resolve(message);
    });
  });
}

/** Drops what differs between two runs of the same replay (wall time). */
function withoutTimes<T extends { seconds?: unknown }>(cells: T[]): Omit<T, 'seconds'>[] {
  return cells.map(({ seconds: _seconds, ...rest }) => rest);
}

describe('Cache Lab', function () {
  this.timeout(180_000);
  let api: PackScopeApi;
  let temp: string;
  let repo: string;
  let recording: string;
  let cli: (...args: string[]) => string;
  let restoreRepositories: (() => Promise<void>) | undefined;

  before(async () => {
    const activated = await activatePackScope();
    api = activated.api;
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-cache-lab-test-'));
    repo = makeRepository(temp);
    recording = path.join(temp, 'log-raw.psrec');
    cli = packscopeCli(activated.extensionPath, gitEnv);
    cli('record', '--exact', '-o', recording, '-C', repo, '--', 'log', '--raw');
    // The repository joins the workspace through the setting: a raw trace names its packs by a path
    // relative to where git ran, which the server resolves to a workspace pack of that name.
    restoreRepositories = await addRepositoryToServer(api, repo);
  });

  after(async () => {
    api?.cacheLab.panel?.dispose();
    await restoreRepositories?.();
    if (temp !== undefined) fs.rmSync(temp, { recursive: true, force: true });
  });

  it('opened on a recording, posts the sweep, index-pack and locality the CLI computes on it', async () => {
    await vscode.commands.executeCommand('packscope.openCacheLab', { file: recording });
    const panel = await waitFor<CacheLabPanel>('the Cache Lab panel', () => api.cacheLab.panel);
    assert.equal(panel.panel.viewType, 'packscope.cacheLab');
    assert.equal(panel.state.recording, recording);
    assert.deepEqual(panel.state.limits, DEFAULT_LIMITS);
    assert.deepEqual(panel.state.policies, CACHE_LAB_POLICIES);

    // The handshake: nothing is posted before the webview's `ready`; then init, then the results.
    const init = await waitFor('init', () => panel.lastPosted('init'));
    assert.equal(panel.posted[0]?.type, 'init');
    assert.equal(init.state.recording, recording);
    const runEnded = await waitFor('the run to end', () => panel.lastPosted('runEnded'));
    const failures = panel.posted.filter(
      (m): m is Extract<HostToWebview, { type: 'jobEnded' }> => m.type === 'jobEnded' && m.outcome !== 'done',
    );
    assert.deepEqual(failures, [], 'no job failed');
    assert.equal(runEnded.outcome, 'done');

    const sweep = panel.lastPosted('sweep');
    assert.ok(sweep, 'a sweep was posted');
    const expected = JSON.parse(
      cli(
        'sweep',
        '--json',
        '--limits',
        DEFAULT_LIMITS.map(formatLimit).join(','),
        '--policies',
        CACHE_LAB_POLICIES.join(','),
        recording,
      ),
    ) as {
      recording: { reads: number; file: string };
      results: { seconds: number }[];
    };
    assert.ok(expected.recording.reads > 0, 'the recording has reads');
    assert.equal(sweep.result.recording.reads, expected.recording.reads);
    assert.equal(sweep.result.recording.file, expected.recording.file);
    assert.deepEqual(withoutTimes(sweep.result.results), withoutTimes(expected.results));
    assert.deepEqual(sweep.request, { limits: DEFAULT_LIMITS, policies: CACHE_LAB_POLICIES });

    const indexPack = panel.lastPosted('indexPack');
    assert.ok(indexPack, 'index-pack simulations were posted');
    assert.equal(indexPack.results.length, 1, 'one pack');
    const expectedIndexPack = JSON.parse(cli('index-pack-sim', '--json', indexPack.results[0]!.pack)) as {
      results: { variant: string; inflations: number }[];
    };
    assert.deepEqual(
      indexPack.results[0]!.variants.map((v) => [v.variant, v.inflations]),
      expectedIndexPack.results.map((v) => [v.variant, v.inflations]),
    );

    const locality = panel.lastPosted('locality');
    assert.ok(locality, 'locality was posted');
    assert.equal(locality.slot, 'primary');
    const expectedLocality = JSON.parse(cli('locality', '--json', recording)) as {
      packs: { pack: string; reads: number; percentiles: unknown; pagesTouched: number; backwardSeekShare: number }[];
    };
    assert.deepEqual(
      locality.result.packs.map((p) => ({
        pack: p.pack,
        reads: p.reads,
        percentiles: p.percentiles,
        pagesTouched: p.pagesTouched,
        backwardSeekShare: p.backwardSeekShare,
      })),
      expectedLocality.packs.map((p) => ({
        pack: p.pack,
        reads: p.reads,
        percentiles: p.percentiles,
        pagesTouched: p.pagesTouched,
        backwardSeekShare: p.backwardSeekShare,
      })),
    );
    assert.equal(locality.result.packs[0]!.distanceQuantiles.length, 101);
  });

  it('opening it again on the same panel with the Recordings view argument switches tab and segment', async () => {
    const panel = api.cacheLab.panel;
    assert.ok(panel);
    const before = panel.posted.length;
    await vscode.commands.executeCommand('packscope.openCacheLab', { file: recording, segment: 1, tab: 'locality' });
    assert.equal(api.cacheLab.panel, panel, 'one panel');
    assert.equal(panel.state.tab, 'locality');
    assert.equal(panel.state.segment, 1);
    await waitFor('the second run to end', () => panel.posted.slice(before).find((m) => m.type === 'runEnded'));
    const state = panel.posted
      .slice(before)
      .find((m): m is Extract<HostToWebview, { type: 'state' }> => m.type === 'state');
    assert.equal(state?.state.tab, 'locality');
  });

  it("Measure for real runs the recording's own argv (an argument with spaces intact) in its cwd, at each limit, best of N", async () => {
    const recordingWithSpaces = path.join(temp, 'log-format.psrec');
    cli('record', '--exact', '-o', recordingWithSpaces, '-C', repo, '--', 'log', '--format=%H %s');
    const panel = api.cacheLab.panel;
    assert.ok(panel);
    const analysed = nextRunEnd(panel);
    await vscode.commands.executeCommand('packscope.openCacheLab', { file: recordingWithSpaces });
    assert.equal((await analysed).outcome, 'done');
    assert.equal(panel.state.recording, recordingWithSpaces);
    assert.equal(panel.state.segment, null);

    const limits = [0, 1 << 20, 96 << 20];
    const runs = 2;
    // With a kept heap, as the confirmation's second button asks: each limit run again with the calibration's malloc thresholds.
    const outcome = await api.cacheLab.measure(panel, { limits, runs, confirmed: true, keptHeap: true });
    assert.deepEqual(outcome.errors, []);
    assert.equal(outcome.outcome, 'done');
    const measured = outcome.message;
    assert.ok(measured, 'a measure result was posted');
    assert.deepEqual(panel.lastPosted('measure'), measured, 'the message the webview got');
    // The recording's argv, not its command line split on spaces (`git log --format=%H %s` would fail).
    assert.deepEqual(measured.args, ['log', '--format=%H %s']);
    assert.equal(measured.cwd, repo);
    assert.equal(measured.reconstructed, false);
    assert.equal(measured.command, "git log '--format=%H %s'");
    const version = execFileSync('git', ['--version'], { encoding: 'utf8' })
      .trim()
      .replace(/^git version /, '');
    assert.equal(measured.result.gitVersion, version);
    assert.deepEqual(
      measured.result.results.map((r) => r.limit),
      limits,
      'one entry per limit, in order',
    );
    for (const r of measured.result.results) {
      assert.equal(r.seconds.length, runs);
      assert.ok(
        r.seconds.every((s) => typeof s === 'number' && s > 0 && s < 120),
        JSON.stringify(r.seconds),
      );
      assert.equal(r.bestSeconds, Math.min(...r.seconds));
      assert.equal(r.minorFaults.length, runs);
      assert.equal(r.cpuSeconds.length, runs);
      assert.equal(r.keptHeap?.seconds.length, runs);
    }
    assert.match(measured.result.heapTunables ?? '', /^glibc\.malloc\.trim_threshold=/);
  });

  it('a raw terminal trace of several git processes: Measure runs the chosen segment, says it was reconstructed, and refuses without a segment', async () => {
    // Two git processes appending to one file, as in a recording terminal (GIT_TRACE names each).
    const raw = path.join(temp, 'terminal.trace');
    const traceEnv = { ...gitEnv, GIT_TRACE: raw, GIT_TRACE_PACK_ACCESS: raw };
    execFileSync('git', ['log', '--raw', '-n', '3'], { cwd: repo, env: traceEnv, stdio: 'ignore' });
    execFileSync('git', ['log', '-n', '5', '--format=%H %s'], { cwd: repo, env: traceEnv, stdio: 'ignore' });
    await pickedByUser(api, raw);
    const info = await api.server.request(RecordingInfoRequest, { file: raw });
    assert.equal(info.mode, 'raw');
    assert.deepEqual([info.args, info.cwd], [null, null]);
    assert.equal(info.segments.length, 2, JSON.stringify(info.segments));
    const whole = measurePlan(info, null);
    assert.ok(
      'refusal' in whole && /2 git processes; choose one of them \(a segment\)/.test(whole.refusal),
      JSON.stringify(whole),
    );
    const second = measurePlan(info, 2);
    assert.ok(!('refusal' in second), JSON.stringify(second));
    assert.deepEqual(second.args, ['log', '-n', '5', '--format=%H %s']);
    assert.equal(second.reconstructed, true);
    assert.equal(fs.realpathSync(second.cwd), fs.realpathSync(repo));
    // Without GIT_TRACE nothing names the command: refused, with the reason.
    const bare = path.join(temp, 'bare.trace');
    execFileSync('git', ['log', '--raw', '-n', '3'], {
      cwd: repo,
      env: { ...gitEnv, GIT_TRACE_PACK_ACCESS: bare },
      stdio: 'ignore',
    });
    await pickedByUser(api, bare);
    const unnamed = measurePlan(await api.server.request(RecordingInfoRequest, { file: bare }), null);
    assert.ok('refusal' in unnamed && /does not say which git command/.test(unnamed.refusal), JSON.stringify(unnamed));

    const panel = api.cacheLab.panel;
    assert.ok(panel);
    const analysed = nextRunEnd(panel);
    await vscode.commands.executeCommand('packscope.openCacheLab', { file: raw });
    assert.equal((await analysed).outcome, 'done');
    const refused = await api.cacheLab.measure(panel, { limits: [0], runs: 1, confirmed: true });
    assert.equal(refused.outcome, 'failed');
    assert.equal(refused.message, undefined);
    assert.match(refused.errors.join('\n'), /2 git processes/);

    const analysedSegment = nextRunEnd(panel);
    await vscode.commands.executeCommand('packscope.openCacheLab', { file: raw, segment: 2 });
    assert.equal((await analysedSegment).outcome, 'done');
    const outcome = await api.cacheLab.measure(panel, { limits: [0, 96 << 20], runs: 1, confirmed: true });
    assert.deepEqual(outcome.errors, []);
    assert.ok(outcome.message);
    assert.deepEqual(outcome.message.args, ['log', '-n', '5', '--format=%H %s']);
    assert.equal(outcome.message.reconstructed, true);
    assert.deepEqual(
      outcome.message.result.results.map((r) => [r.limit, r.seconds.length]),
      [
        [0, 1],
        [96 << 20, 1],
      ],
    );
  });
});
