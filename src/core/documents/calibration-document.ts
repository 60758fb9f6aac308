/**
 * The shape of `packscope calibrate --json` (packscope.calibration/4, docs/json.md), which the
 * server also keeps beside the model cache: what the cost model (core/cost/cost-model.ts) prices
 * counts with. Shapes only, importing nothing (see stats-document.ts).
 */

/**
 * /4: walk rows (chains at 0 and at 1g, each minus --batch-check) replace /3's saved rows (0 minus
 * 1g), whose small differences left bDelta undetermined.
 * /3: cold lists (distinct objects, deltas read chain by chain) and the cache's memory (bCache, the
 * growth list); /2's lists repeated 32 objects, which stayed in the CPU's caches and under-priced reads.
 * /2: saved lists (limit 0 minus 1g) and perRead replace /1's delta and hit lists, whose constants over-priced reads.
 */
export const CALIBRATION_SCHEMA = 'packscope.calibration/4';

/** Seconds per unit; all ≥ 0 (fit.ts fits them non-negative). */
export interface CostParameters {
  /** Per inflation (zlib stream set-up, object header, cache lookup). */
  aInflate: number;
  /** Per inflated byte. */
  bInflate: number;
  /** Per delta application (delta header, cache insert and eviction). */
  aDelta: number;
  /** Per byte of delta result (patch_delta's copies). */
  bDelta: number;
  /** Per byte of the cache's peak: memory first touched (page faults, zeroed pages). */
  bCache: number;
  /** Per cache hit. The calibration leaves it 0: with the reads fixed a hit's cost is a part of aInflate and aDelta (calibrate.ts, fit). Kept for hand-made parameters. */
  cHit: number;
  /** Per GIT_TRACE_PACK_ACCESS line git writes while recording: taken out of the recorded time. */
  cTrace: number;
}

/** One timed batch of the calibration: what it read (exact counts) and what git took. */
export interface CalibrationBatch {
  /**
   * inflate: non-deltas, --batch minus --batch-check at limit 0; walk: chains, --batch at `limit`
   * (0, and 1g in a second row) minus --batch-check; growth: chains, --batch at `limit` (1g) minus
   * at `against`, a limit with the same counts and a smaller cache.
   */
  stage: 'inflate' | 'walk' | 'growth';
  /** Size class: objects with inflated (or, for deltas, result) size in [low, high); high −1 for no bound. */
  sizeClass: [number, number];
  /** Distinct objects sampled, and reads (the list repeated). */
  objects: number;
  reads: number;
  limit: number;
  /** The limit subtracted (the growth row): the counts below are then differences, limit's minus against's; null: minus --batch-check. */
  against: number | null;
  inflations: number;
  inflatedBytes: number;
  compressedBytes: number;
  deltaApplications: number;
  appliedBytes: number;
  hits: number;
  /** Peak cache bytes, `limit`'s minus `against`'s. */
  cacheBytes: number;
  /** The timed difference (see stage), each side best of `repeats`, CPU seconds. */
  seconds: number;
  /** What the fitted parameters predict for this batch, seconds. */
  predicted: number;
}

export interface Calibration {
  schema: typeof CALIBRATION_SCHEMA;
  /** ISO date of the calibration run. */
  date: string;
  /** Cache key parts: the pack's checksum, node's version, the CPU model, git's version. */
  key: { packChecksum: string; node: string; cpu: string; git: string };
  pack: { path: string; objects: number };
  seed: number;
  repeats: number;
  /** What was timed, and why: git itself, not PackScope's own zlib. */
  method: string;
  parameters: CostParameters;
  /** cat-file's own work per object in --batch beyond --batch-check (fitted, seconds): not a command's, never priced. */
  perRead: number;
  /** The page-cache miss cost, or why it is not measured. */
  pageCacheMiss: { secondsPerByte: number | null; note: string };
  /** Load average when it ran (a shared machine makes every constant larger). */
  loadAverage: number[];
  batches: CalibrationBatch[];
  /** Seconds the calibration took. */
  seconds: number;
  /** Commands timed by "Measure for real", each with the split of its time the runs imply (measured-split.ts); newest first. */
  measured?: MeasuredCommand[];
  /** Recordings whose reads were timed on git's read path (read-replay.ts); newest first. */
  replays?: ReadReplay[];
}

/** A recording's reads replayed through `git cat-file --batch` at two limits (read-replay.ts). */
export interface ReadReplay {
  /** The recording: git's arguments, where it ran, when it started. */
  command: { args: string[]; cwd: string; startedAt: string };
  date: string;
  /** The recording's reads, and how many of the first were timed. */
  reads: number;
  readsTimed: number;
  repeats: number;
  limits: number[];
  /** cat-file's CPU seconds at each limit (median of the repeats), and the model's read seconds of the same reads there. */
  seconds: number[];
  modelReadSeconds: number[];
  /** (seconds[0] − seconds[1]) / (modelReadSeconds[0] − modelReadSeconds[1]); null when the cache saves too little to tell. */
  readScale: number | null;
  note: string;
}

/** One command "Measure for real" timed, and what its runs say of it. */
export interface MeasuredCommand {
  /** git's arguments (those of the recording) and where it ran. */
  args: string[];
  cwd: string;
  date: string;
  gitVersion: string;
  /** Runs per limit; each point's time is the best of them. */
  runs: number;
  points: { limit: number; bestSeconds: number; predictedReadSeconds: number }[];
  /** measured = nonReadSeconds + readScale · predicted reads; null when the points cannot tell them apart (fewer than two limits whose reads differ). */
  split: { nonReadSeconds: number; readScale: number } | null;
}
