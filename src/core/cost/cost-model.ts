/**
 * From counts to seconds. The simulator counts exactly what git's read path does at a
 * limit (src/core/sim); this module prices those counts with constants calibrated by timing git
 * itself on the user's pack (calibrate.ts), and adds the command's own, non-read time.
 *
 *   readSeconds = aInflate·inflations + bInflate·inflatedBytes
 *               + aDelta·deltaApplications + bDelta·appliedBytes
 *               + bCache·peakCacheBytes
 *               + cHit·hits,            hits = reads − inflations + deltaApplications
 *
 * peakCacheBytes: the most the cache held. Each of its pages is memory the command touches for the
 * first time (a page fault and the kernel zeroing the page): a larger limit costs time even when it
 * saves no inflation (bench/README.md, "Figures the comments rely on"; on a VM a fault costs
 * several µs). Freed entries are reused by glibc's
 * malloc, so only the peak is new memory.
 *
 * hits: every read either is served whole from the cache (reads − logged) or walks its chain down
 * to a cached base (logged − roots) or to its root (roots = inflations − deltaApplications, one
 * root inflation per walk that reaches it); the first two are cache hits. A cache insert happens
 * once per delta application (the base just used, §1.6) and a lookup once per step walked, so
 * their cost is inside aDelta and aInflate.
 *
 *   commandSeconds = nonReadSeconds + readSeconds
 *   nonReadSeconds = recordedSeconds − traceSeconds − readSeconds(at the recorded limit)
 *
 * It is an estimate: every number it gives carries the calibration it rests on.
 */

import { neededCompletion, type NeededCompletion } from '../../common/bound-width.ts';
import type { Calibration, CostParameters, MeasuredCommand, ReadReplay } from '../documents/calibration-document.ts';
import type { NonReadTime, TimeBasis, TimeCell, TimeView } from '../documents/time-view-document.ts';

/** The counts of one simulated cell the model prices. */
export interface CostCounts {
  reads: number;
  logged: number;
  inflations: number;
  deltaApplications: number;
  inflatedBytes: number;
  appliedBytes: number;
  peakCacheBytes: number;
}

export function cacheHits(counts: Pick<CostCounts, 'reads' | 'inflations' | 'deltaApplications'>): number {
  return Math.max(0, counts.reads - counts.inflations + counts.deltaApplications);
}

/** The formula at the top of this file, for one cell's counts. */
export function readSeconds(counts: CostCounts, p: CostParameters): number {
  return (
    p.aInflate * counts.inflations +
    p.bInflate * counts.inflatedBytes +
    p.aDelta * counts.deltaApplications +
    p.bDelta * counts.appliedBytes +
    p.bCache * counts.peakCacheBytes +
    p.cHit * cacheHits(counts)
  );
}

/** A simulated cell as the sweep returns it (SimResult's fields this module reads). */
export interface CellCounts {
  policy: string;
  limit: number;
  reads: number;
  logged: number;
  inflations: number;
  deltaApplications: number;
  inflatedBytes: number;
  appliedBytes?: number | undefined;
  peakCacheBytes: number;
  exact: boolean;
  bounds: null | {
    logged: [number, number];
    inflations: [number, number];
    deltaApplications: [number, number];
    inflatedBytes: [number, number];
  };
}

function countsOf(cell: CellCounts): CostCounts {
  if (cell.appliedBytes === undefined)
    throw new Error(`policy ${cell.policy} does not count applied bytes: no time estimate for it`);
  return {
    reads: cell.reads,
    logged: cell.logged,
    inflations: cell.inflations,
    deltaApplications: cell.deltaApplications,
    inflatedBytes: cell.inflatedBytes,
    appliedBytes: cell.appliedBytes,
    peakCacheBytes: cell.peakCacheBytes,
  };
}

/**
 * Read seconds of a cell and, where its counts have bounds, bounds on them. Applied bytes have no
 * bounds of their own: they are scaled with the delta applications' bounds (the mean result size
 * of the applications the bounds add or remove is taken to be the cell's mean), and the hits use
 * each bound's own counts. Every term is monotone in its count, so the low counts give the low time.
 */
export function cellReadSeconds(
  cell: CellCounts,
  p: CostParameters,
): { seconds: number; bounds: [number, number] | null } {
  const counts = countsOf(cell);
  const seconds = readSeconds(counts, p);
  if (cell.exact || !cell.bounds) return { seconds, bounds: cell.exact ? [seconds, seconds] : null };
  const meanApplied = counts.deltaApplications > 0 ? counts.appliedBytes / counts.deltaApplications : 0;
  const at = (k: 0 | 1): number => {
    const b = cell.bounds!;
    const inflations = b.inflations[k];
    const deltas = b.deltaApplications[k];
    const hitsFree = {
      ...counts,
      inflations,
      deltaApplications: deltas,
      inflatedBytes: b.inflatedBytes[k],
      appliedBytes: meanApplied * deltas,
      logged: b.logged[k],
    };
    // Hits and the cache's peak are not bounded by hidden-reads.ts; the cell's own are used at both ends.
    return readSeconds(hitsFree, { ...p, cHit: 0 }) + p.cHit * cacheHits(counts);
  };
  const low = Math.min(at(0), seconds);
  const high = Math.max(at(1), seconds);
  return { seconds, bounds: [low, high] };
}

/** `traced`: the time is the recording's own run, which wrote a trace line per logged read; false for a run measured apart, without tracing. */
export function nonReadTime(
  recordedSeconds: number,
  recordedLimit: number,
  recordedCell: CellCounts,
  p: CostParameters,
  traced = true,
  readScale = 1,
): NonReadTime {
  const read = readScale * readSeconds(countsOf(recordedCell), p);
  const traceLines = traced ? recordedCell.logged : 0;
  const traceSeconds = p.cTrace * traceLines;
  const rest = recordedSeconds - traceSeconds - read;
  return {
    recordedSeconds,
    recordedLimit,
    readSecondsAtRecordedLimit: read,
    traceLines,
    traceSeconds,
    seconds: Math.max(0, rest),
    clamped: rest < 0,
  };
}

export const KNEE_TOLERANCE = 0.02;

/**
 * Prices every cell, finds each policy's knee and words a recommendation for git's own policy.
 * `cells` must hold git's policy at `currentLimit` and at the recorded limit.
 */
export function timeView(
  cells: CellCounts[],
  calibration: Calibration,
  recorded: {
    seconds: number;
    limit: number;
    traced?: boolean;
    measured?: MeasuredCommand | undefined;
    replay?: ReadReplay | undefined;
  },
  current: { limit: number; source: string },
  format: (limit: number) => string,
): TimeView {
  const p = calibration.parameters;
  const gitAt = (limit: number): CellCounts => {
    const cell = cells.find((c) => c.policy === 'git' && c.limit === limit);
    if (!cell) throw new Error(`the sweep lacks git's policy at ${format(limit)}`);
    return cell;
  };
  const replay = recorded.replay?.readScale != null ? recorded.replay : undefined;
  const nonRead = nonReadTime(
    recorded.seconds,
    recorded.limit,
    gitAt(recorded.limit),
    p,
    recorded.traced ?? true,
    replay?.readScale ?? 1,
  );
  const fitted = recorded.measured?.split ?? null;
  const basis = timeBasis(recorded.measured, fitted, replay);
  const rest = fitted ? fitted.nonReadSeconds : nonRead.seconds;
  const scale = fitted ? fitted.readScale : (replay?.readScale ?? 1);
  const currentSeconds = rest + scale * readSeconds(countsOf(gitAt(current.limit)), p);
  // Every estimate rests on the recorded limit's cell (the non-read time) and every speed-up on the
  // user's limit's: a figure whose cells are bounded too widely says what it needs instead.
  const shared = [gitAt(recorded.limit), gitAt(current.limit)];
  const needs = (restsOn: CellCounts[]): NeededCompletion | null => neededCompletion([...restsOn, ...shared]) ?? null;
  const priced = pricedCells(cells, p, rest, scale, currentSeconds).map((c) => ({
    ...c,
    needs: needs(cells.filter((x) => x.policy === c.policy && x.limit === c.limit)),
  }));
  const knees = [...new Set(priced.map((c) => c.policy))].map((policy) => ({
    ...knee(priced.filter((c) => c.policy === policy)),
    needs: needs(cells.filter((c) => c.policy === policy && c.appliedBytes !== undefined)),
  }));
  const gitKnee = knees.find((k) => k.policy === 'git');
  return {
    estimate: true,
    calibration: {
      date: calibration.date,
      key: calibration.key,
      parameters: p,
      batches: calibration.batches.length,
      reads: calibration.batches.reduce((s, b) => s + b.reads, 0),
    },
    nonRead,
    basis,
    currentLimit: current.limit,
    currentLimitSource: current.source,
    currentSeconds,
    cells: priced,
    knees,
    recommendation: !gitKnee
      ? 'no recommendation: git’s policy is not in the sweep'
      : gitKnee.needs
        ? `no recommendation: it ${gitKnee.needs.sentence}`
        : recommend(gitKnee, currentSeconds, current.limit, rest, basis, format),
  };
}

/** What the time view starts from: measured runs of the command when fitted, else the replay's or the recording's own time. */
function timeBasis(
  measured: MeasuredCommand | undefined,
  fitted: MeasuredCommand['split'] | null,
  replay: ReadReplay | undefined,
): TimeBasis {
  const replayBasis = replay
    ? {
        date: replay.date,
        limits: replay.limits,
        readsTimed: replay.readsTimed,
        reads: replay.reads,
        readScale: replay.readScale!,
      }
    : null;
  // Measured runs of the command itself come first: they hold its own heap, which a replay of its reads does not.
  return fitted && measured
    ? {
        source: 'measured',
        measured: {
          date: measured.date,
          runs: measured.runs,
          limits: measured.points.map((x) => x.limit),
          ...fitted,
        },
        replay: replayBasis,
      }
    : { source: replay ? 'replay' : 'recording', measured: null, replay: replayBasis };
}

/** Each cell of the sweep (those with byte counts) priced: the non-read time plus its reads, scaled. */
function pricedCells(
  cells: CellCounts[],
  p: Calibration['parameters'],
  rest: number,
  scale: number,
  currentSeconds: number,
): Omit<TimeCell, 'needs'>[] {
  const priced: Omit<TimeCell, 'needs'>[] = [];
  for (const cell of cells) {
    if (cell.appliedBytes === undefined) continue;
    const read = cellReadSeconds(cell, p);
    const readSecondsOfCell = scale * read.seconds;
    const predictedSeconds = rest + readSecondsOfCell;
    priced.push({
      policy: cell.policy,
      limit: cell.limit,
      predictedSeconds,
      readSeconds: readSecondsOfCell,
      predictedSecondsBounds: read.bounds ? [rest + scale * read.bounds[0], rest + scale * read.bounds[1]] : null,
      speedUp: currentSeconds / predictedSeconds,
    });
  }
  return priced;
}

/** The smallest limit within KNEE_TOLERANCE of the best predicted time. */
export function knee(cells: { policy: string; limit: number; predictedSeconds: number }[]): {
  policy: string;
  limit: number;
  seconds: number;
  bestSeconds: number;
} {
  const best = Math.min(...cells.map((c) => c.predictedSeconds));
  const sorted = [...cells].sort((a, b) => a.limit - b.limit);
  const first = sorted.find((c) => c.predictedSeconds <= best * (1 + KNEE_TOLERANCE))!;
  return { policy: first.policy, limit: first.limit, seconds: first.predictedSeconds, bestSeconds: best };
}

function recommend(
  k: { limit: number; seconds: number; bestSeconds: number },
  currentSeconds: number,
  currentLimit: number,
  nonReadSeconds: number,
  basis: TimeBasis,
  format: (limit: number) => string,
): string {
  const s = (x: number): string => `${x.toFixed(2)}s`;
  const from = basis.measured
    ? `, from your measured runs of ${basis.measured.date.slice(0, 10)}`
    : basis.replay
      ? `; reads scaled ×${basis.replay.readScale.toFixed(2)} by a replay of this recording's reads on git`
      : '';
  const evidence = `(estimate: ${s(currentSeconds)} at your ${format(currentLimit)}, ${s(k.seconds)} at ${format(k.limit)}, best ${s(k.bestSeconds)}; ${s(nonReadSeconds)} of it is not object reading${from})`;
  if (k.limit === currentLimit)
    return `keep core.deltaBaseCacheLimit=${format(currentLimit)}: it is the knee, beyond it nothing is gained for this workload ${evidence}`;
  if (k.limit < currentLimit) {
    return `core.deltaBaseCacheLimit=${format(k.limit)} is enough: beyond ${format(k.limit)} less than ${KNEE_TOLERANCE * 100}% is gained for this workload, so your ${format(currentLimit)} only costs memory ${evidence}`;
  }
  return `raise core.deltaBaseCacheLimit to ${format(k.limit)}: ×${(currentSeconds / k.seconds).toFixed(2)} predicted, and beyond ${format(k.limit)} less than ${KNEE_TOLERANCE * 100}% more ${evidence}`;
}
