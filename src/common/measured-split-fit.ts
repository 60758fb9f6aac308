/**
 * The split of a measured command's time: its best times at several limits against the
 * cost model's predicted read seconds there, fitted as
 *
 *   measured = nonReadSeconds + readScale · predicted reads      (least squares, both ≥ 0)
 *
 * Shared: the server keeps the fit with the calibration (src/core/cost/measured-split.ts), the
 * Cache Lab's webview shows the same fit under its Measure table.
 */
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
    readShare: points.map((p) => ({
      limit: p.limit,
      seconds: s * p.reads,
      share: n + s * p.reads > 0 ? (s * p.reads) / (n + s * p.reads) : 0,
    })),
  };
}
