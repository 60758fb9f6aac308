/**
 * What a time view needs besides the counts, for the CLI's `sweep --time` and the
 * server's sweep with `time` alike: the pack to calibrate on and where git runs to time it, the
 * recorded run's time, and the user's core.deltaBaseCacheLimit.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseGitSize, GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import { fail } from '../errors.ts';
import { probeGit } from '../git/run-git.ts';
import type { ObjectStore } from '../model/object-store.ts';
import type { PackModel } from '../model/pack-model.ts';
import { discoverRepository } from '../model/repository.ts';
import type { LoadedRecording } from '../trace/load-recording.ts';
import type { TraceSegment } from '../trace/trace-log.ts';
import { cachedCalibration, saveCalibration, type CalibrateOptions, type CalibrationRun } from './calibrate.ts';
import { readReplayFor, replayReads, withReadReplay } from './read-replay.ts';
import { measuredCommandFor } from './measured-split.ts';
import { timeView, type CellCounts } from './cost-model.ts';
import type { TimeView } from '../documents/time-view-document.ts';

/** The pack a target names, or a repository's largest (by objects): the one most reads go to. */
export function packToCalibrate(store: ObjectStore, target: string): PackModel {
  const packs = store.packs.filter((p) => !store.isUnreadable(p));
  if (packs.length === 0) throw fail('io', target, undefined, 'no readable pack to calibrate on');
  const named = /\.(pack|idx)$/.test(target)
    ? packs.find((p) => p.files.pack === target.replace(/\.idx$/, '.pack'))
    : undefined;
  if (named) return store.model(named);
  return packs.map((p) => store.model(p)).sort((a, b) => b.count - a.count)[0]!;
}

/** git must run in the pack's repository: it times its own reads of these objects. */
export function gitDirFor(store: ObjectStore, target: string): string {
  const gitDir = store.repository.gitDir;
  if (fs.existsSync(path.join(gitDir, 'HEAD')) || fs.existsSync(path.join(gitDir, 'objects'))) return gitDir;
  try {
    return discoverRepository(path.dirname(target)).gitDir;
  } catch {
    throw fail(
      'not-a-repository',
      target,
      undefined,
      'calibrate times git reading the pack, so the pack must be inside a repository',
    );
  }
}

export interface TimePlan {
  recordedSeconds: number;
  recordedLimit: number;
  traced: boolean;
  current: { limit: number; source: string };
}

/** What a time view needs before the sweep runs: the limits it must hold, the recorded run's time. */
export async function timePlan(
  loaded: LoadedRecording,
  git: string,
  segment: number | undefined,
  measuredSeconds: number | undefined,
): Promise<TimePlan> {
  const m = loaded.log.metadata;
  if (!m && loaded.environmentLimit !== undefined)
    return terminalTimePlan(loaded, loaded.environmentLimit, git, segment, measuredSeconds);
  if (!m)
    throw fail(
      'usage',
      loaded.log.file,
      undefined,
      'a time estimate needs a recording (packscope record) or a terminal recording made in exact mode: the limit this raw trace ran with is unknown',
    );
  if (m.completeAt && m.completeAt.length > 0 && measuredSeconds === undefined)
    throw fail(
      'usage',
      loaded.log.file,
      undefined,
      'a time estimate needs a recording made without --complete: the time of a complete recording spans several runs',
    );
  if (segment !== undefined)
    throw fail(
      'usage',
      loaded.log.file,
      undefined,
      'a time estimate predicts the whole command: it cannot keep one segment',
    );
  const recordedSeconds = measuredSeconds ?? (Date.parse(m.endedAt) - Date.parse(m.startedAt)) / 1000;
  if (!(recordedSeconds > 0))
    throw fail('bad-header', loaded.log.file, 0, 'the recording has no usable start and end times');
  const current = await currentLimit(git, m.cwd);
  return { recordedSeconds, recordedLimit: m.cacheLimit, traced: measuredSeconds === undefined, current };
}

/** The limit the user's git runs with in `cwd`, and where it comes from. */
async function currentLimit(git: string, cwd: string): Promise<TimePlan['current']> {
  const probe = await probeGit(git, ['config', '--get', 'core.deltaBaseCacheLimit'], { cwd });
  const configured = probe.status === 0 ? parseGitSize(probe.stdout.trim()) : undefined;
  return configured !== undefined
    ? { limit: configured, source: 'git config core.deltaBaseCacheLimit' }
    : { limit: GIT_DEFAULT_LIMIT, source: 'git’s default (unset)' };
}

/**
 * A terminal recording made in exact mode has no header: its command time is what its git
 * processes' GIT_TRACE_PERFORMANCE exit lines say (recording-environment.ts), each process the
 * interval that ends at its line's timestamp and lasts its seconds; the time is the length of their
 * union (a child runs inside its parent's time, terminals run side by side). Every process that read
 * the packs needs its line: otherwise the estimate says which are missing instead of guessing.
 */
async function terminalTimePlan(
  loaded: LoadedRecording,
  recordedLimit: number,
  git: string,
  segment: number | undefined,
  measuredSeconds: number | undefined,
): Promise<TimePlan> {
  if (segment !== undefined)
    throw fail(
      'usage',
      loaded.log.file,
      undefined,
      'a time estimate predicts the whole command: it cannot keep one segment',
    );
  const untimed = loaded.segments.filter((s) => s.endRead > s.firstRead && s.seconds === undefined);
  if (untimed.length > 0 && measuredSeconds === undefined)
    throw fail(
      'usage',
      loaded.log.file,
      undefined,
      `a time estimate needs each git process's time: ${untimed.length} of the ${loaded.segments.length} git processes of this terminal recording that read the packs have no GIT_TRACE_PERFORMANCE exit line (${untimed[0]!.command ?? 'a git process'}${untimed.length > 1 ? ', …' : ''}: recorded before PackScope set GIT_TRACE_PERFORMANCE, with GIT_TRACE_PERFORMANCE pointed elsewhere, or still running)`,
    );
  const recordedSeconds = measuredSeconds ?? unionSeconds(loaded.segments);
  if (!(recordedSeconds > 0))
    throw fail('usage', loaded.log.file, undefined, 'the terminal recording has no usable process times');
  const repository = loaded.store.repository;
  const current = await currentLimit(git, repository.workTree ?? repository.gitDir);
  return { recordedSeconds, recordedLimit, traced: measuredSeconds === undefined, current };
}

/** The length of the union of the processes' [exit − seconds, exit] intervals; processes without a timestamp add their seconds. */
function unionSeconds(segments: readonly TraceSegment[]): number {
  const intervals: [number, number][] = [];
  let loose = 0;
  for (const s of segments) {
    if (s.seconds === undefined) continue;
    if (s.exitTime === undefined) loose += s.seconds;
    else intervals.push([s.exitTime - s.seconds, s.exitTime]);
  }
  intervals.sort((a, b) => a[0] - b[0]);
  let total = loose;
  let end = -Infinity;
  for (const [from, to] of intervals) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

/** The limits a time view's sweep must hold for git's policy: the user's and the recorded one. */
export function timeLimits(plan: TimePlan): number[] {
  return [...new Set([plan.current.limit, plan.recordedLimit])];
}

/**
 * Prices the sweep's cells with the calibration of the repository's largest pack (cached, else run
 * now), and with the split of the recorded command's time that its measured runs gave, when the
 * calibration holds one (measured-split.ts). A time given on the command line (`--recorded-seconds`,
 * the bench's) is used as it is.
 */
/**
 * The recording's reads timed on git (read-replay.ts): 'off' prices with the calibration's lists
 * alone; 'kept' uses a replay the calibration keeps; 'missing' times one when none is kept;
 * 'run' times one again.
 */
export type ReplayMode = 'off' | 'kept' | 'missing' | 'run';

export async function priceSweep(
  loaded: LoadedRecording,
  results: CellCounts[],
  plan: TimePlan,
  git: string,
  format: (limit: number) => string,
  options: Pick<CalibrateOptions, 'onStage' | 'signal'> & { run?: CalibrationRun; replay?: ReplayMode } = {},
): Promise<TimeView> {
  const store = loaded.store;
  const top = store.repository.workTree ?? store.repository.gitDir;
  const model = packToCalibrate(store, top);
  const { run, replay: replayMode = 'kept', ...calibrateOptions } = options;
  const gitDir = gitDirFor(store, top);
  const cached = await cachedCalibration(
    model,
    store.modelCacheDirectory,
    { gitDir, git, ...calibrateOptions },
    false,
    run,
  );
  let calibration = cached.calibration;
  const m = loaded.log.metadata;
  const measured = m && plan.traced ? measuredCommandFor(calibration, { args: m.command, cwd: m.cwd }) : undefined;
  let replay =
    m && replayMode !== 'off'
      ? readReplayFor(calibration, { args: m.command, cwd: m.cwd, startedAt: m.startedAt })
      : undefined;
  if (m && (replayMode === 'run' || (replayMode === 'missing' && replay === undefined))) {
    replay = await replayReads(
      loaded.objects,
      loaded.reads,
      recordedOids(loaded),
      calibration.parameters,
      { args: [...m.command], cwd: m.cwd, startedAt: m.startedAt },
      { git, gitDir, signal: options.signal, onStage: options.onStage },
    );
    calibration = withReadReplay(calibration, replay);
    if (cached.file) saveCalibration(cached.file, calibration);
  }
  return timeView(
    results,
    calibration,
    { seconds: plan.recordedSeconds, limit: plan.recordedLimit, traced: plan.traced, measured, replay },
    plan.current,
    format,
  );
}

/** The object ids of a recording's kept reads, in order: what cat-file is fed to replay them. */
export function recordedOids(loaded: LoadedRecording): string[] {
  const { resolved, range } = loaded;
  if (loaded.insertedReads || range.end - range.start !== loaded.reads.length) {
    throw fail(
      'usage',
      loaded.log.file,
      undefined,
      'a replay of the recorded reads needs the reads git logged, not a complete recording’s',
    );
  }
  const oids: string[] = [];
  for (let i = range.start; i < range.end; i++)
    oids.push(resolved.packs[resolved.readPack[i]!]!.model.oidHex(resolved.readObject[i]!));
  return oids;
}
