/**
 * Where a bench leaves its figures for the one table `npm run bench` ends with (scripts/bench.mjs,
 * bench/summary.ts): each bench appends what it measured, as it measured it, to the JSON-lines file
 * PACKSCOPE_BENCH_RESULTS names; the summary reads that file and measures nothing itself. Run alone
 * (no PACKSCOPE_BENCH_RESULTS), a bench records nothing.
 */
import * as fs from 'node:fs';

/** The speed targets (bench/README.md, "The closing table"), in the order the table lists them (bench/summary.ts knows each one's words). */
export type TargetId =
  | 'reopen-in-process'
  | 'reopen-cli'
  | 'header-scan'
  | 'verify-pack'
  | 'objects-generated'
  | 'objects-monorepo'
  | 'objects-many-packs'
  | 'hover-during-build'
  | 'first-row'
  | 'sweep-5m'
  | 'names';

export interface Figure {
  target: TargetId;
  /** What was measured: a pack's or repository's label. */
  subject: string;
  /** The figure as the table shows it: `3.4%`, `7.1 M objects/s`, `0.92×`. */
  value: string;
  /** Whether it meets the target. */
  met: boolean;
  /** What it was measured against, and anything the reader needs to judge it (one line). */
  note?: string;
}

/** Appends `figures` to the results file of this `npm run bench`, if there is one. */
export function recordFigures(bench: string, figures: Figure[]): void {
  const file = process.env.PACKSCOPE_BENCH_RESULTS;
  if (!file || figures.length === 0) return;
  fs.appendFileSync(file, figures.map((figure) => `${JSON.stringify({ bench, ...figure })}\n`).join(''));
}
