/**
 * A recording's own reads timed on git's read path: `git cat-file --batch --buffer` fed
 * the recorded reads in their order, at limit 0 and at READ_REPLAY_LIMIT, with the calibration's
 * malloc thresholds pinned, CPU time, the median of interleaved repeats. The same unpack_entry
 * calls in the same order through the same cache: what the command's reads cost at those limits,
 * measured, beside what the model says they cost.
 *
 * Why: the calibration's lists are objects sampled from the whole pack; a workload reads its own
 * mix (blame re-reads one file's versions, log --raw walks trees), and the replays of their reads
 * come far closer to the commands than the model does (bench/README.md, "Figures the comments rely
 * on"). The replay's ratio
 *
 *   readScale = (replay(0) − replay(L)) / (model(0) − model(L))
 *
 * scales the model's read seconds of every cell of the sweep (every limit and policy): the model
 * gives the shape, the replay the size. cat-file's own work per object is the same at both limits
 * and cancels in the difference.
 *
 * Not in it, and said so: glibc's heap churn in the command itself (its own allocations decide how
 * often freed pages go back to the kernel and are faulted in again), which Measure for real shows
 * as page faults.
 */
import { timedRun } from './calibrate.ts';
import { median } from './fit.ts';
import { readSeconds } from './cost-model.ts';
import type { Calibration, CostParameters, ReadReplay } from '../documents/calibration-document.ts';
import { keptNewest, sameCommand } from './measured-split.ts';
import { parsePolicy } from '../sim/policy-registry.ts';
import type { SimObjects } from '../sim/sim-objects.ts';

/** The cached limit the replay is timed at besides 0: cached enough for most workloads' knees, small enough that the cache's own growth (priced by bCache) stays a minor part. */
export const READ_REPLAY_LIMIT = 16 << 20;
/** At most this many reads are replayed (the first ones): a long command's reads take seconds at limit 0. */
export const READ_REPLAY_MAX_READS = 200_000;
/** The stage name a replay reports progress under. */
export const REPLAY_STAGE = 'replaying the recorded reads';
/** How many replays a calibration keeps (the newest). */
export const READ_REPLAYS_KEPT = 20;

export interface ReadReplayOptions {
  git: string;
  gitDir: string;
  repeats?: number;
  signal?: AbortSignal | undefined;
  onStage?: (stage: string, done: number, total: number) => void;
}

/**
 * Times `oids` (the recording's reads, in order; `reads` the same as ids of `objects`) and fits the
 * read scale. `command` names the recording: its arguments, directory and start.
 */
export async function replayReads(
  objects: SimObjects,
  reads: Int32Array,
  oids: string[],
  parameters: CostParameters,
  command: ReadReplay['command'],
  options: ReadReplayOptions,
): Promise<ReadReplay> {
  const repeats = options.repeats ?? 3;
  const taken = Math.min(reads.length, READ_REPLAY_MAX_READS);
  const list = reads.subarray(0, taken);
  const input = oids.slice(0, taken).join('\n') + '\n';
  const limits = [0, READ_REPLAY_LIMIT];
  const git = parsePolicy('git');
  const modelReadSeconds = limits.map((limit) => {
    const counts = git.run(objects, list, limit);
    return readSeconds({ ...counts, appliedBytes: counts.appliedBytes ?? 0 }, parameters);
  });
  const runs: number[][] = limits.map(() => []);
  const total = repeats * limits.length;
  for (let r = 0; r < repeats; r++) {
    for (const [i, limit] of limits.entries()) {
      options.onStage?.(REPLAY_STAGE, r * limits.length + i, total);
      runs[i]!.push(await timedRun(options.git, options.gitDir, limit, '--batch', input, 1, undefined, options.signal));
    }
  }
  const seconds = runs.map(median);
  const saved = seconds[0]! - seconds[1]!;
  const modelSaved = modelReadSeconds[0]! - modelReadSeconds[1]!;
  // A scale only where the cache saves enough to measure: 50 ms, and a tenth of the reads.
  const measurable = modelSaved >= 0.05 && modelSaved >= 0.1 * modelReadSeconds[0]! && saved > 0;
  return {
    command,
    date: new Date().toISOString(),
    reads: reads.length,
    readsTimed: taken,
    repeats,
    limits,
    seconds,
    modelReadSeconds,
    readScale: measurable ? saved / modelSaved : null,
    note: measurable
      ? `the cache saves ${saved.toFixed(2)} s of these reads between 0 and ${READ_REPLAY_LIMIT >> 20}m on git's read path, the model ${modelSaved.toFixed(2)} s`
      : `no scale: the model says the cache saves ${modelSaved.toFixed(3)} s of these reads and the replay ${saved.toFixed(3)} s, too little to tell`,
  };
}

/** The calibration's replay of this recording (same command, directory and start), if any. */
export function readReplayFor(calibration: Calibration, command: ReadReplay['command']): ReadReplay | undefined {
  return (calibration.replays ?? []).find((r) => sameRecording(r.command, command));
}

function sameRecording(a: ReadReplay['command'], b: ReadReplay['command']): boolean {
  return a.startedAt === b.startedAt && sameCommand(a, b);
}

/** The calibration with `replay` kept: the same recording's replaced, newest first, at most READ_REPLAYS_KEPT. */
export function withReadReplay(calibration: Calibration, replay: ReadReplay): Calibration {
  return {
    ...calibration,
    replays: keptNewest(replay, calibration.replays, (a, b) => sameRecording(a.command, b.command), READ_REPLAYS_KEPT),
  };
}
