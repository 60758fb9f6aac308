import { fail } from '../core/errors.ts';
import { cachedCalibration } from '../core/cost/calibrate.ts';
import { timeView, type CellCounts, type TimeView } from '../core/cost/cost-model.ts';
import { probeGit } from '../core/git/run-git.ts';
import { parseGitSize } from '../common/git-size.ts';
import type { SimResult } from '../core/report/simulation-documents.ts';
import type { LoadedRecording } from '../core/trace/load-recording.ts';
import { gitDirFor, packToCalibrate } from './commands/calibrate.ts';
import { formatLimit, formatTable } from './output.ts';

/** git's default core.deltaBaseCacheLimit (environment.c: 96 MiB). */
export const GIT_DEFAULT_LIMIT = 96 << 20;

/** What `sweep --time` needs before the sweep runs: the limits it must hold, the recorded run's time. */
export async function timePlan(loaded: LoadedRecording, git: string, segment: number | undefined, measuredSeconds: number | undefined): Promise<{ recordedSeconds: number; recordedLimit: number; traced: boolean; current: { limit: number; source: string } }> {
  const m = loaded.log.metadata;
  if (!m) throw fail('usage', loaded.log.file, undefined, 'sweep --time needs a recording (packscope record): a raw trace has no command time to split into reads and the rest');
  if (m.completeAt && m.completeAt.length > 0 && measuredSeconds === undefined) throw fail('usage', loaded.log.file, undefined, 'sweep --time needs a recording made without --complete: the time of a complete recording spans several runs');
  if (segment !== undefined) throw fail('usage', loaded.log.file, undefined, 'sweep --time predicts the whole command: it cannot keep one segment');
  const recordedSeconds = measuredSeconds ?? (Date.parse(m.endedAt) - Date.parse(m.startedAt)) / 1000;
  if (!(recordedSeconds > 0)) throw fail('bad-header', loaded.log.file, 0, 'the recording has no usable start and end times');
  const probe = await probeGit(git, ['config', '--get', 'core.deltaBaseCacheLimit'], { cwd: m.cwd });
  const configured = probe.status === 0 ? parseGitSize(probe.stdout.trim()) : undefined;
  const current = configured !== undefined ? { limit: configured, source: 'git config core.deltaBaseCacheLimit' } : { limit: GIT_DEFAULT_LIMIT, source: 'git’s default (unset)' };
  return { recordedSeconds, recordedLimit: m.cacheLimit, traced: measuredSeconds === undefined, current };
}

/** Prices the sweep's cells with the calibration of the repository's largest pack. */
export async function sweepTime(loaded: LoadedRecording, results: SimResult[], plan: Awaited<ReturnType<typeof timePlan>>, git: string): Promise<TimeView> {
  const store = loaded.store;
  const top = store.repository.workTree ?? store.repository.gitDir;
  const model = packToCalibrate(store, top);
  const { calibration } = await cachedCalibration(model, store.modelCacheDirectory, {
    gitDir: gitDirFor(store, top),
    git,
    onStage: (stage, done, total) => process.stderr.write(`\rpackscope: calibrating (${stage}) ${done}/${total}${done + 1 === total ? '\n' : ''}`),
  });
  return timeView(results as unknown as CellCounts[], calibration, { seconds: plan.recordedSeconds, limit: plan.recordedLimit, traced: plan.traced }, plan.current, formatLimit);
}

export function timeTable(view: TimeView, policies: string[], limits: number[]): string[] {
  const cell = (policy: string, limit: number): string => {
    const c = view.cells.find((x) => x.policy === policy && x.limit === limit);
    if (!c) return '–';
    const range = c.predictedSecondsBounds && c.predictedSecondsBounds[1] - c.predictedSecondsBounds[0] > 0.005 ? ` (${c.predictedSecondsBounds[0].toFixed(2)}–${c.predictedSecondsBounds[1].toFixed(2)})` : '';
    return `${c.predictedSeconds.toFixed(2)}s${range} ×${c.speedUp.toFixed(2)}`;
  };
  const shown = policies.filter((p) => view.cells.some((c) => c.policy === p));
  const rows = limits.map((limit) => [formatLimit(limit), ...shown.map((p) => cell(p, limit))]);
  const n = view.nonRead;
  return [
    `predicted seconds of the whole command (estimate), ×speed-up against your ${formatLimit(view.currentLimit)} (${view.currentLimitSource})`,
    ...formatTable([['limit', ...shown], ...rows]),
    `knee (smallest limit within 2% of the best): ${view.knees.map((k) => `${k.policy} ${formatLimit(k.limit)}`).join(', ')}`,
    `non-read time ${n.seconds.toFixed(2)}s = recorded ${n.recordedSeconds.toFixed(2)}s at ${formatLimit(n.recordedLimit)} − trace ${n.traceSeconds.toFixed(2)}s − reads ${n.readSecondsAtRecordedLimit.toFixed(2)}s${n.clamped ? ' (clamped at 0: the model over-prices these reads)' : ''}`,
    `calibration ${view.calibration.date} (${view.calibration.batches} lists, ${view.calibration.reads} reads; git ${view.calibration.key.git}, ${view.calibration.key.cpu})`,
    `recommendation: ${view.recommendation}`,
  ];
}
