import type { CellCounts } from '../core/cost/cost-model.ts';
import type { TimeView } from '../core/documents/time-view-document.ts';
import { REPLAY_STAGE } from '../core/cost/read-replay.ts';
import { priceSweep, type ReplayMode, type TimePlan } from '../core/cost/time-plan.ts';
import type { SimResult } from '../core/documents/simulation-documents.ts';
import type { LoadedRecording } from '../core/trace/load-recording.ts';
import { formatLimit, formatTable } from './output.ts';

export { timePlan } from '../core/cost/time-plan.ts';

/** Prices the sweep's cells with the calibration of the repository's largest pack. */
export async function sweepTime(
  loaded: LoadedRecording,
  results: SimResult[],
  plan: TimePlan,
  git: string,
  replay: ReplayMode,
): Promise<TimeView> {
  return priceSweep(loaded, results as unknown as CellCounts[], plan, git, formatLimit, {
    onStage: (stage, done, total) =>
      process.stderr.write(
        `\rpackscope: ${stage === REPLAY_STAGE ? stage : `calibrating (${stage})`} ${done}/${total}${done + 1 === total ? '\n' : ''}`,
      ),
    replay,
  });
}

export function timeTable(view: TimeView, policies: string[], limits: number[]): string[] {
  const cell = (policy: string, limit: number): string => {
    const c = view.cells.find((x) => x.policy === policy && x.limit === limit);
    if (!c) return '–';
    if (c.needs) return `needs completion at ${c.needs.limits.map(formatLimit).join(',')}`;
    const range =
      c.predictedSecondsBounds && c.predictedSecondsBounds[1] - c.predictedSecondsBounds[0] > 0.005
        ? ` (${c.predictedSecondsBounds[0].toFixed(2)}–${c.predictedSecondsBounds[1].toFixed(2)})`
        : '';
    return `${c.predictedSeconds.toFixed(2)}s${range} ×${c.speedUp.toFixed(2)}`;
  };
  const shown = policies.filter((p) => view.cells.some((c) => c.policy === p));
  const rows = limits.map((limit) => [formatLimit(limit), ...shown.map((p) => cell(p, limit))]);
  const n = view.nonRead;
  return [
    `predicted seconds of the whole command (estimate), ×speed-up against your ${formatLimit(view.currentLimit)} (${view.currentLimitSource})`,
    ...formatTable([['limit', ...shown], ...rows]),
    `knee (smallest limit within 2% of the best): ${view.knees.map((k) => `${k.policy} ${k.needs ? `none, it ${k.needs.sentence}` : formatLimit(k.limit)}`).join('; ')}`,
    `non-read time ${n.seconds.toFixed(2)}s = recorded ${n.recordedSeconds.toFixed(2)}s at ${formatLimit(n.recordedLimit)} − trace ${n.traceSeconds.toFixed(2)}s − reads ${n.readSecondsAtRecordedLimit.toFixed(2)}s${n.clamped ? ' (clamped at 0: the model over-prices these reads)' : ''}`,
    ...(view.basis.replay && !view.basis.measured
      ? [
          `reads scaled ×${view.basis.replay.readScale.toFixed(2)} by a replay of this recording's reads on git (${view.basis.replay.date}, ${view.basis.replay.readsTimed} of ${view.basis.replay.reads} reads at ${view.basis.replay.limits.map(formatLimit).join(' and ')})`,
        ]
      : []),
    ...(view.basis.measured
      ? [
          `priced from your measured runs of this command (${view.basis.measured.date}, best of ${view.basis.measured.runs} at ${view.basis.measured.limits.map(formatLimit).join(', ')}): non-read ${view.basis.measured.nonReadSeconds.toFixed(2)}s + ${view.basis.measured.readScale.toFixed(2)} × the model's reads`,
        ]
      : []),
    `calibration ${view.calibration.date} (${view.calibration.batches} lists, ${view.calibration.reads} reads; git ${view.calibration.key.git}, ${view.calibration.key.cpu})`,
    `recommendation: ${view.recommendation}`,
    `not in it: glibc handing freed memory back to the kernel and faulting it in again, which depends on the command's own heap (measured runs show it as page faults)`,
  ];
}
