/**
 * What "Measure for real" learns about a command (issue 16): timed at several limits, its best
 * times against the model's predicted read seconds there fit
 *
 *   measured = nonReadSeconds + readScale · predictedReadSeconds      (least squares, both ≥ 0)
 *
 * nonReadSeconds is git's own work (diffing, output, start-up), readScale how the model's read time
 * compares with this command's. The calibration keeps the fit per command (`measured`), and a time
 * view of a recording of that command prices its cells with it: the prediction is then of the
 * whole command, from runs of it, and says so.
 */
// Pure (no node:*): the Cache Lab's webview fits the same split from a Measure it shows.
import type { Calibration, MeasuredCommand } from './cost-model.ts';

/** How many measured commands a calibration keeps (the newest). */
export const MEASURED_KEPT = 20;

export interface SplitPoint {
  limit: number;
  /** Predicted read seconds at this limit (git's policy). */
  reads: number;
  /** Best measured seconds of the whole command. */
  measured: number;
}

export interface MeasuredSplit {
  nonReadSeconds: number;
  readScale: number;
  /** Per point: the read seconds the fit gives and their share of the command. */
  readShare: { limit: number; seconds: number; share: number }[];
}

/** Least squares of measured = n + s·reads with n, s ≥ 0 (two columns, solved directly); null with fewer than two points whose reads differ. */
export function fitMeasuredSplit(points: SplitPoint[]): MeasuredSplit | null {
  if (points.length < 2) return null;
  const k = points.length;
  const mx = points.reduce((a, p) => a + p.reads, 0) / k;
  const my = points.reduce((a, p) => a + p.measured, 0) / k;
  const sxx = points.reduce((a, p) => a + (p.reads - mx) ** 2, 0);
  if (!(sxx > 1e-18 * Math.max(1, mx * mx))) return null;
  let s = points.reduce((a, p) => a + (p.reads - mx) * (p.measured - my), 0) / sxx;
  let n = my - s * mx;
  if (s < 0) {
    s = 0;
    n = my;
  } else if (n < 0) {
    n = 0;
    s = points.reduce((a, p) => a + p.reads * p.measured, 0) / points.reduce((a, p) => a + p.reads * p.reads, 0);
  }
  return {
    nonReadSeconds: n,
    readScale: s,
    readShare: points.map((p) => ({ limit: p.limit, seconds: s * p.reads, share: n + s * p.reads > 0 ? (s * p.reads) / (n + s * p.reads) : 0 })),
  };
}

function sameCommand(a: { args: string[]; cwd: string }, b: { args: string[]; cwd: string }): boolean {
  return a.cwd === b.cwd && a.args.length === b.args.length && a.args.every((x, i) => x === b.args[i]);
}

/** The calibration's measured fit of this command (same arguments, same directory), if any. */
export function measuredCommandFor(calibration: Calibration, command: { args: string[]; cwd: string }): MeasuredCommand | undefined {
  return (calibration.measured ?? []).find((m) => sameCommand(m, command));
}

/** The calibration with `entry` kept: the same command's replaced, newest first, at most MEASURED_KEPT. */
export function withMeasuredCommand(calibration: Calibration, entry: MeasuredCommand): Calibration {
  return { ...calibration, measured: [entry, ...(calibration.measured ?? []).filter((m) => !sameCommand(m, entry))].slice(0, MEASURED_KEPT) };
}
