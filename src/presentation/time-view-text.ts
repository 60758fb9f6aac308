/**
 * What the Cache Lab shows of a sweep's time estimate: the table of predicted seconds
 * per limit and policy with the speed-up against the user's limit, each policy's knee in words, the
 * label saying it is an estimate and what calibration it rests on, and, after Measure for real,
 * predicted against measured seconds with the error and the share of the command that is object
 * reading as the measured runs themselves tell it. Pure: the webview draws with it, tests check it.
 */
import { formatCount, formatLimit } from '../common/format.ts';
import { fitMeasuredSplit } from '../common/measured-split-fit.ts';
import type { MeasuredRuns, MeasureResult, SweepResult } from '../protocol/server-protocol.ts';

type TimeView = NonNullable<SweepResult['time']>;

export function seconds(s: number): string {
  return s >= 100 ? `${s.toFixed(0)} s` : s >= 10 ? `${s.toFixed(1)} s` : `${s.toFixed(2)} s`;
}

/**
 * The cell's words: `1.23 s ×1.45`, with the bounds when the counts have bounds that differ; what
 * it needs instead when it rests on bounds too wide to read (`needs completion at 64k`).
 */
export function timeCellText(cell: TimeView['cells'][number]): string {
  if (cell.needs) return `needs completion at ${cell.needs.limits.map(formatLimit).join(', ')}`;
  const b = cell.predictedSecondsBounds;
  const range = b && b[1] - b[0] > 0.005 ? ` (${b[0].toFixed(2)}–${b[1].toFixed(2)})` : '';
  return `${seconds(cell.predictedSeconds)}${range} ×${cell.speedUp.toFixed(2)}`;
}

/** Rows = limits, columns = policies; '' where the sweep has no priced cell. */
export function timeTableRows(time: TimeView, limits: readonly number[], policies: readonly string[]): string[][] {
  const shown = policies.filter((p) => time.cells.some((c) => c.policy === p));
  return [
    ['limit', ...shown],
    ...limits.map((limit) => [
      formatLimit(limit),
      ...shown.map((policy) => {
        const cell = time.cells.find((c) => c.policy === policy && c.limit === limit);
        return cell === undefined ? '' : timeCellText(cell);
      }),
    ]),
  ];
}

/** The label every time figure carries: an estimate, on which calibration, and how the command's time splits. */
export function timeLabel(time: TimeView): string {
  const c = time.calibration;
  const n = time.nonRead;
  const m = time.basis.measured;
  const recorded = `the recorded ${seconds(n.recordedSeconds)} at ${formatLimit(n.recordedLimit)} less ${seconds(n.traceSeconds)} of trace writing and ${seconds(n.readSecondsAtRecordedLimit)} of predicted reads${n.clamped ? '; clamped at 0: the model over-prices these reads' : ''}`;
  const r = time.basis.replay;
  const replayed = r
    ? `scaled ×${r.readScale.toFixed(2)} from a replay of this recording's reads on git's read path (${r.date.slice(0, 16).replace('T', ' ')} UTC, ${r.readsTimed} of ${r.reads} reads at ${r.limits.map(formatLimit).join(' and ')}), `
    : '';
  const split = m
    ? `scaled ×${m.readScale.toFixed(2)}, plus ${seconds(m.nonReadSeconds)} of the command that is not object reading, both from your Measure for real runs of this command (${m.date.slice(0, 16).replace('T', ' ')} UTC, best of ${m.runs} at ${m.limits.map(formatLimit).join(', ')}; the recording alone said ${seconds(n.seconds)}: ${recorded})`
    : `${replayed}plus ${seconds(n.seconds)} of the command that is not object reading (${recorded})`;
  return (
    `Estimate, not a measurement: the simulator's exact counts priced by the cost model calibrated on this machine and pack ` +
    `(${c.date.slice(0, 16).replace('T', ' ')} UTC; git ${c.key.git}; ${c.key.cpu}; ${c.batches} timed lists, ${c.reads} reads), ` +
    `${split}. Speed-ups are against your ${formatLimit(time.currentLimit)} (${time.currentLimitSource}). ` +
    `Not in it: glibc handing freed memory back to the kernel and faulting it in again, which depends on the command's own heap (measured runs show it as page faults).`
  );
}

/** One sentence per policy: where its curve flattens. */
export function kneeSentences(time: TimeView, label: (policy: string) => string): string[] {
  return time.knees.map((k) => {
    if (k.needs) return `${label(k.policy)}: no knee, it ${k.needs.sentence}.`;
    const limits = time.cells.filter((c) => c.policy === k.policy).map((c) => c.limit);
    const largest = Math.max(...limits);
    if (k.limit === largest)
      return `${label(k.policy)}: still gaining at ${formatLimit(k.limit)}, the largest limit swept (${seconds(k.seconds)}); try larger limits.`;
    return `${label(k.policy)}: beyond ${formatLimit(k.limit)} nothing is gained for this workload (${seconds(k.seconds)}, within 2% of the best ${seconds(k.bestSeconds)}).`;
  });
}

export interface MeasuredRow {
  limit: number;
  measured: number;
  /** Git's policy's predicted seconds at that limit; null when the sweep did not price it, or when the estimate `needs` a completed recording. */
  predicted: number | null;
  /** Set when the estimate at that limit rests on bounds too wide to compare (TimeCell's `needs`). */
  needs: TimeView['cells'][number]['needs'];
  /** predicted / measured − 1. */
  error: number | null;
  /** Speed-ups against the first measured limit. */
  predictedSpeedUp: number | null;
  measuredSpeedUp: number;
  /** Minor page faults of the run with the best wall time; null where they were not counted. */
  minorFaults: number | null;
}

export interface MeasuredComparison {
  rows: MeasuredRow[];
  /**
   * The measured runs fitted as nonRead + scale × predicted reads (least squares, both ≥ 0): how
   * much of the command's time is object reading, as the command itself says it. Null with fewer
   * than two limits whose predicted reads differ.
   */
  fit: {
    nonReadSeconds: number;
    readScale: number;
    readShare: { limit: number; seconds: number; share: number }[];
  } | null;
}

/** Predicted against measured (best of N wall times), limit by limit, and the split the runs imply. */
export function measuredAgainstPredicted(time: TimeView, measure: MeasureResult, policy = 'git'): MeasuredComparison {
  // A cell whose estimate needs a completed recording is neither compared nor fitted: its error
  // would be the bounds' width, not the model's.
  const cellAt = (limit: number): TimeView['cells'][number] | undefined =>
    time.cells.find((c) => c.policy === policy && c.limit === limit && !c.needs);
  const needsAt = (limit: number): TimeView['cells'][number]['needs'] =>
    time.cells.find((c) => c.policy === policy && c.limit === limit)?.needs ?? null;
  const first = measure.results[0];
  const firstPredicted = first === undefined ? undefined : cellAt(first.limit)?.predictedSeconds;
  const rows = measure.results.map((r): MeasuredRow => {
    const cell = cellAt(r.limit);
    const predicted = cell?.predictedSeconds ?? null;
    return {
      limit: r.limit,
      measured: r.bestSeconds,
      predicted,
      needs: needsAt(r.limit),
      error: predicted === null ? null : predicted / r.bestSeconds - 1,
      predictedSpeedUp: predicted === null || firstPredicted === undefined ? null : firstPredicted / predicted,
      measuredSpeedUp: first!.bestSeconds / r.bestSeconds,
      minorFaults: faultsOfBestRun(r),
    };
  });
  const points = measure.results.flatMap((r) => {
    const cell = cellAt(r.limit);
    return cell === undefined ? [] : [{ limit: r.limit, reads: cell.readSeconds, measured: r.bestSeconds }];
  });
  return { rows, fit: fitMeasuredSplit(points) };
}

/** The words under the Measure table: the error in one line, and the split the runs imply. */
export function measuredSentences(comparison: MeasuredComparison): string[] {
  const priced = comparison.rows.filter((r) => r.error !== null);
  const out: string[] = [];
  if (priced.length > 0) {
    const worst = priced.reduce((a, r) => (Math.abs(r.error!) > Math.abs(a.error!) ? r : a));
    out.push(
      `Predicted against measured: the largest error is ${(worst.error! * 100).toFixed(1)}% at ${formatLimit(worst.limit)} (${seconds(worst.predicted!)} predicted, ${seconds(worst.measured)} measured).`,
    );
  }
  const fit = comparison.fit;
  if (fit) {
    const at = fit.readShare[0]!;
    out.push(
      `Your runs fit ${seconds(fit.nonReadSeconds)} of other work plus ${fit.readScale.toFixed(2)}× the predicted reads: at ${formatLimit(at.limit)} about ${seconds(at.seconds)} (${(at.share * 100).toFixed(0)}%) of the command is object reading.`,
    );
  }
  const faults = faultSentence(comparison.rows);
  if (faults) out.push(faults);
  return out;
}

/**
 * What a kept heap changes (Measure for real with `keptHeap`): the best runs with glibc's malloc
 * thresholds pinned against the default's, limit by limit. The two can differ by a third
 * (bench/README.md, "Figures the comments rely on"): glibc handing freed memory back and faulting
 * it in again, which depends on the command's own heap and which the estimate (made with the
 * thresholds pinned) does not model.
 */
export function heapSentence(results: MeasureResult['results']): string | undefined {
  const paired = results.filter((r) => r.keptHeap !== undefined);
  if (paired.length === 0) return undefined;
  const pairs = paired.map((r) => ({
    limit: r.limit,
    normal: r.bestSeconds,
    kept: r.keptHeap!.bestSeconds,
    faults: faultsOfBestRun(r),
    keptFaults: faultsOfBestRun(r.keptHeap!),
  }));
  const list = pairs
    .map((p) => `${seconds(p.kept)} instead of ${seconds(p.normal)} at ${formatLimit(p.limit)}`)
    .join(', ');
  const worst = pairs.reduce((a, p) => (p.normal - p.kept > a.normal - a.kept ? p : a));
  const lead = `With a heap that keeps what it frees (glibc's malloc thresholds pinned, as the calibration runs git) the best runs took ${list}`;
  // Under a twentieth at every limit: within the runs' own spread on a quiet machine.
  if (worst.normal - worst.kept < 0.05 * worst.normal)
    return `${lead}: the heap's handing memory back is not where this command's time goes.`;
  const faults =
    worst.faults !== null && worst.keptFaults !== null
      ? `, ${formatCount(worst.faults - worst.keptFaults)} more page faults`
      : '';
  return `${lead}. Up to ${seconds(worst.normal - worst.kept)} (${((1 - worst.kept / worst.normal) * 100).toFixed(0)}%) at ${formatLimit(worst.limit)} is glibc handing freed memory back to the kernel and faulting it in again${faults}: the estimate, made with the thresholds pinned, does not model it.`;
}

/** The minor page faults of a limit's run with the best wall time (null where not counted). */
export function faultsOfBestRun(r: MeasuredRuns): number | null {
  return r.minorFaults[r.seconds.indexOf(r.bestSeconds)] ?? null;
}

/**
 * The page faults of the best runs, when they differ much between limits: memory the model prices
 * only as the cache's peak. glibc's malloc hands freed memory back to the kernel and faults it in
 * again, depending on the command's own heap: the counts can differ several times between limits
 * (bench/README.md, "Figures the comments rely on"). Each fault costs microseconds (more on a VM).
 */
export function faultSentence(rows: Pick<MeasuredRow, 'limit' | 'minorFaults'>[]): string | undefined {
  const counted = rows.filter((r) => r.minorFaults !== null);
  if (counted.length < 2) return undefined;
  const least = counted.reduce((a, r) => (r.minorFaults! < a.minorFaults! ? r : a));
  const most = counted.reduce((a, r) => (r.minorFaults! > a.minorFaults! ? r : a));
  const list = counted.map((r) => `${formatCount(r.minorFaults!)} at ${formatLimit(r.limit)}`).join(', ');
  // A difference under 10,000 faults, or under a fifth, is tens of milliseconds at most: not worth a warning.
  if (most.minorFaults! - least.minorFaults! < 10000 || most.minorFaults! < 1.2 * least.minorFaults!)
    return `Page faults of the best runs: ${list}.`;
  return `Page faults of the best runs: ${list}. The ${formatCount(most.minorFaults! - least.minorFaults!)} more at ${formatLimit(most.limit)} than at ${formatLimit(least.limit)} are memory (glibc's heap handing pages back and touching them again, or the cache's growth), which the estimate prices only as the cache's peak: part of the error above may be this.`;
}
