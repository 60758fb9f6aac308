/**
 * The time view of a sweep (`sweep --time`, docs/json.md; the Cache Lab's time table): the cells
 * priced by the cost model (core/cost/cost-model.ts builds it). Shapes only, importing only other
 * shapes (see stats-document.ts).
 */
import type { NeededCompletion } from '../../common/bound-width.ts';
import type { Calibration, CostParameters } from './calibration-document.ts';

/** The recorded command's time that is not object reading (diffing, output, start-up). */
export interface NonReadTime {
  /** Wall time of the recorded run (the recording's startedAt to endedAt). */
  recordedSeconds: number;
  /** The limit it ran at (0 for an exact recording). */
  recordedLimit: number;
  /** Predicted read seconds at that limit with git's policy (scaled by a replay's readScale when there is one). */
  readSecondsAtRecordedLimit: number;
  /** Lines git wrote to GIT_TRACE_PACK_ACCESS while recording, and their cost taken out. */
  traceLines: number;
  traceSeconds: number;
  /** recordedSeconds − traceSeconds − readSecondsAtRecordedLimit, at least 0. */
  seconds: number;
  /** Set when the subtraction went below 0 (the model over-prices this workload's reads). */
  clamped: boolean;
}

/** Where a time view's split of the command comes from: the recording's run, or "Measure for real" runs of the same command. */
export interface TimeBasis {
  source: 'recording' | 'replay' | 'measured';
  /** measured: the runs' date, runs per limit, limits, and the fit (non-read seconds; the factor on the model's read seconds). */
  measured: { date: string; runs: number; limits: number[]; nonReadSeconds: number; readScale: number } | null;
  /** replay: the recording's reads timed on git's read path (read-replay.ts): the factor on the model's read seconds, and the limits and reads it rests on. */
  replay: { date: string; limits: number[]; readsTimed: number; reads: number; readScale: number } | null;
}

export interface TimeCell {
  policy: string;
  limit: number;
  /** Predicted wall time of the whole command: non-read + read. An estimate. */
  predictedSeconds: number;
  readSeconds: number;
  /** Bounds on predictedSeconds where the counts have bounds; null when the counts have none. */
  predictedSecondsBounds: [number, number] | null;
  /** Predicted time at the user's current limit (git's policy) over this cell's. */
  speedUp: number;
  /**
   * Set when the estimate rests on a cell bounded wider than 5% of its inflations (this cell, the
   * recorded limit's or the user's limit's, src/common/bound-width.ts): the numbers above are then
   * not to be read, and this says at which limits to complete the recording instead. Null otherwise.
   */
  needs: NeededCompletion | null;
}

export interface TimeView {
  estimate: true;
  calibration: { date: string; key: Calibration['key']; parameters: CostParameters; batches: number; reads: number };
  nonRead: NonReadTime;
  /**
   * 'measured': the cells are priced nonReadSeconds + readScale · read seconds from the
   * calibration's fit of this command's measured runs (nonRead above is then the recording's own
   * split, shown beside it); 'recording': nonRead.seconds + read seconds.
   */
  basis: TimeBasis;
  /** The user's core.deltaBaseCacheLimit (git's default 96m when unset), and where it came from. */
  currentLimit: number;
  currentLimitSource: string;
  currentSeconds: number;
  cells: TimeCell[];
  /** Per policy: the smallest limit whose predicted time is within 2% of the policy's best. */
  knees: { policy: string; limit: number; seconds: number; bestSeconds: number; needs: NeededCompletion | null }[];
  /** In words; when git's knee `needs` a completed recording, says so instead of recommending. */
  recommendation: string;
}
