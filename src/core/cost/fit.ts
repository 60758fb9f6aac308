/**
 * Non-negative least squares for the few columns a calibration stage fits (≤ 4): every subset of
 * columns is solved by ordinary least squares and the best subset whose coefficients are all ≥ 0
 * wins, the others at 0. A cost below 0 means noise, not a machine that gains time by inflating,
 * and a clamped coefficient is what a proper NNLS returns too (the optimum is on that face).
 */
export function nonNegativeLeastSquares(rows: number[][], y: number[]): number[] {
  const k = rows[0]?.length ?? 0;
  let best: number[] = new Array(k).fill(0);
  let bestResidual = residual(rows, y, best);
  for (let mask = 1; mask < 1 << k; mask++) {
    const columns = [...Array(k).keys()].filter((c) => (mask >> c) & 1);
    const solved = ordinaryLeastSquares(
      rows.map((r) => columns.map((c) => r[c]!)),
      y,
    );
    if (!solved || solved.some((v) => !(v >= 0))) continue;
    const full = new Array(k).fill(0);
    columns.forEach((c, i) => (full[c] = solved[i]!));
    const r = residual(rows, y, full);
    if (r < bestResidual) {
      best = full;
      bestResidual = r;
    }
  }
  return best;
}

function residual(rows: number[][], y: number[], x: number[]): number {
  let sum = 0;
  rows.forEach((r, i) => {
    const e = y[i]! - r.reduce((s, v, c) => s + v * x[c]!, 0);
    sum += e * e;
  });
  return sum;
}

/** Normal equations with columns scaled to unit norm (bytes and counts differ by 10⁶); undefined when singular. */
function ordinaryLeastSquares(rows: number[][], y: number[]): number[] | undefined {
  const k = rows[0]?.length ?? 0;
  const scale = new Array(k).fill(0).map((_, c) => Math.sqrt(rows.reduce((s, r) => s + r[c]! * r[c]!, 0)) || 1);
  const a: number[][] = Array.from({ length: k }, () => new Array(k + 1).fill(0));
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!.map((v, c) => v / scale[c]!);
    for (let p = 0; p < k; p++) {
      for (let q = 0; q < k; q++) a[p]![q]! += r[p]! * r[q]!;
      a[p]![k]! += r[p]! * y[i]!;
    }
  }
  for (let p = 0; p < k; p++) {
    let pivot = p;
    for (let q = p + 1; q < k; q++) if (Math.abs(a[q]![p]!) > Math.abs(a[pivot]![p]!)) pivot = q;
    if (Math.abs(a[pivot]![p]!) < 1e-12) return undefined;
    [a[p], a[pivot]] = [a[pivot]!, a[p]!];
    for (let q = 0; q < k; q++) {
      if (q === p) continue;
      const f = a[q]![p]! / a[p]![p]!;
      for (let c = p; c <= k; c++) a[q]![c]! -= f * a[p]![c]!;
    }
  }
  return a.map((row, p) => row[k]! / row[p]! / scale[p]!);
}

/** The middle value (the mean of the two middle ones for an even count): what the calibration and the replay keep of repeated timings. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
