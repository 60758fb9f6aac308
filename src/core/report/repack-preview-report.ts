/**
 * A repack preview from start to end, as `packscope repack-preview` and the server's
 * packscope/repackPreview (in a task worker) run it: recordings read and mapped, pack-objects
 * into a temporary directory outside the repository (core/repack/preview-pack.ts), the write-order
 * estimate (git-internals §5), the recordings replayed on every layout, and the
 * "packscope.repack-preview/1" document. What the two callers do differently is said by the
 * request's options, not by a second copy.
 */
import { errorMessage } from '../../common/error-message.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setImmediate as yieldToEvents } from 'node:timers/promises';
import type { ObjectStore } from '../model/object-store.ts';
import type { PackModel } from '../model/pack-model.ts';
import { discoverRepository, type Repository } from '../model/repository.ts';
import type { GitProgress } from '../git/git-progress.ts';
import { countLooseObjects, summarizeLayout } from '../repack/layout-summary.ts';
import { replayRecordingOnCurrent, replayRecordingOnLayouts } from '../repack/recording-layouts.ts';
import type { RepackTuning } from '../repack/repack-arguments.ts';
import {
  previewRepack,
  releaseKeptPack,
  type KeptPreviewPack,
  type RepackPreview,
  type RepackPreviewRun,
} from '../repack/preview-pack.ts';
import { abortError } from '../git/run-git.ts';
import {
  compareEstimateWithPreview,
  estimateRecordingLocality,
  estimateWriteOrder,
} from '../repack/write-order-estimate.ts';
import { resolveRecording, segmentRepositories, type LoadedRecording } from '../trace/load-recording.ts';
import type { TraceLog } from '../trace/trace-log.ts';
import { recordingSummary } from './recording.ts';
import type { ReadTimeNote, RecordingReplay, RepackPreviewDocument } from '../documents/repack-preview-document.ts';
import { cachedCalibration, calibrationFile, calibrationKey, loadCalibration } from '../cost/calibrate.ts';
import { readSeconds } from '../cost/cost-model.ts';
import type { Calibration } from '../documents/calibration-document.ts';
import { readReplayFor } from '../cost/read-replay.ts';

/** What the caller does with the run's progress, log lines and warnings, and how it stops it. */
export interface RepackPreviewHost {
  readonly signal: AbortSignal;
  /** Parses one recording, showing its progress the host's way. */
  parseRecording(file: string): TraceLog;
  /** A step begins: `Estimating the write order (git rev-list)`, `Replaying 2 recordings on both layouts`. */
  step(message: string): void;
  /** git pack-objects' meters, and the preview's own phases (`Reading current packs`, …). */
  gitProgress(progress: GitProgress): void;
  /** A line for the host's log: the pack-objects pid, the argv it ran with, recordings skipped. */
  log(message: string): void;
  /** A recording left out or only partly read, as soon as it is known. */
  warn(message: string): void;
}

export interface RepackPreviewRequest extends RepackTuning {
  repository: Repository;
  /** The repository's object store (its models are reused). */
  store: ObjectStore;
  /** The git executable. */
  git: string;
  /** Recording files to replay on every layout. */
  recordings: string[];
  /** Cache limits of the recordings' `git` policy replay (bytes). */
  limits: number[];
  /** Length of `largestChanges` (default 20). */
  top?: number | undefined;
  /** Run pack-objects (false: the estimate only). */
  preview: boolean;
  /** Run the write-order estimate, and compare it with the preview when that ran too. */
  estimate: boolean;
  /**
   * A recording that cannot be parsed: an error (`fail`, the CLI), or left out with a warning
   * (`skip`, the server), which also skips recordings of other repositories and recordings without
   * a read, and names the file in every warning (they end up in one list).
   */
  unusableRecordings: 'fail' | 'skip';
  /** Without a preview, `current` still describes today's packs (the server: the panel compares against them); else null, as the CLI prints it. */
  describeCurrentWithoutPreview: boolean;
  /** The warnings also go into the document's `warnings` (the server's); the CLI prints them on stderr only. */
  warningsInDocument: boolean;
  /**
   * Predicted read time on both layouts: 'cached' prices with a calibration already
   * kept for today's largest pack and never times git (the panel: a preview must not grow by a
   * calibration's tens of seconds unasked); 'calibrate' runs one when none is kept (the CLI's
   * --time); absent or 'off': no pricing, `readTime` null.
   */
  readTime?: 'off' | 'cached' | 'calibrate' | undefined;
  /** Keep the preview pack on disk for a Pack Map of it (RepackPreviewOptions.keepPack; the report's `keptPack`). */
  keepPack?: boolean;
}

export interface RepackPreviewReport {
  document: RepackPreviewDocument;
  /** The pack-objects run, unrounded, when it ran (the CLI's text describes it). */
  preview: RepackPreview | undefined;
  /** With keepPack: the preview pack still on disk; the caller removes it (releaseKeptPack). */
  keptPack?: KeptPreviewPack;
}

/** Between steps: lets a cancellation in (the server's `cancel` message), and stops when it came. */
async function checkpoint(signal: AbortSignal): Promise<void> {
  await yieldToEvents();
  if (signal.aborted) throw abortError(signal);
}

/**
 * Whether a parsed recording is of this repository: its header names it (its git directory or
 * where git ran), else it read one of this repository's own packs: an absolute pack path must lie
 * in this repository's pack directory (a same-named pack of a copy elsewhere is not ours), a
 * relative one (git prints them relative to where it ran) is matched by name.
 */
function recordingIsOf(log: TraceLog, repository: Repository, store: ObjectStore): boolean {
  const local = store.packs.filter((p) => p.local);
  const ours = new Set(local.map((p) => path.basename(p.files.pack)));
  const ourDirectories = new Set(local.map((p) => safeRealpath(path.dirname(p.files.pack))));
  const metadata = log.metadata;
  if (metadata) {
    for (const where of [metadata.gitDir, metadata.cwd]) {
      if (typeof where !== 'string' || !fs.existsSync(where)) continue;
      try {
        return fs.realpathSync(discoverRepository(where).commonDir) === fs.realpathSync(repository.commonDir);
      } catch {
        // try the next
      }
    }
  }
  // A trace that says where its git processes ran (GIT_TRACE_SETUP) is ours when one of them ran here.
  const ranIn = segmentRepositories(log);
  if (ranIn.length > 0) {
    const common = safeRealpath(repository.commonDir);
    return ranIn.some((gitDir) => safeRealpath(gitDir) === common);
  }
  return log.packPaths.some(
    (p) => ours.has(path.basename(p)) && (!path.isAbsolute(p) || ourDirectories.has(safeRealpath(path.dirname(p)))),
  );
}

function safeRealpath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

async function loadRecordings(
  host: RepackPreviewHost,
  request: RepackPreviewRequest,
  warn: (message: string) => void,
): Promise<LoadedRecording[]> {
  const { repository, store } = request;
  const skip = request.unusableRecordings === 'skip';
  const loaded: LoadedRecording[] = [];
  for (const file of request.recordings) {
    await checkpoint(host.signal);
    const absolute = path.resolve(file);
    let log: TraceLog;
    try {
      log = host.parseRecording(absolute);
    } catch (error) {
      if (!skip) throw error;
      warn(`${absolute}: not replayed: ${errorMessage(error)}`);
      continue;
    }
    if (skip && !recordingIsOf(log, repository, store)) {
      host.log(`repack preview: ${absolute} is not a recording of ${repository.gitDir}; skipped`);
      continue;
    }
    const resolved = resolveRecording(log, store);
    for (const warning of resolved.warnings) warn(skip ? `${path.basename(absolute)}: ${warning}` : warning);
    if (!skip || resolved.reads.length > 0) loaded.push(resolved);
  }
  return loaded;
}

/** The whole preview; rejects with an AbortError when the host's signal fires (git stopped, temporary directory removed). */
export async function runRepackPreviewReport(
  host: RepackPreviewHost,
  request: RepackPreviewRequest,
): Promise<RepackPreviewReport> {
  // A kept preview pack belongs to the caller only once the report is made: a failure or a cancel after pack-objects removes it.
  const kept: { pack?: KeptPreviewPack } = {};
  try {
    return await previewReport(host, request, kept);
  } catch (error) {
    if (kept.pack) releaseKeptPack(kept.pack);
    throw error;
  }
}

// Stays long: one linear script building the report; its warnings and the kept pack are shared by every step.
async function previewReport(
  host: RepackPreviewHost,
  request: RepackPreviewRequest,
  kept: { pack?: KeptPreviewPack },
): Promise<RepackPreviewReport> {
  const { signal } = host;
  const { repository, store, git, limits } = request;
  const warnings: string[] = [];
  const warn = (message: string): void => {
    warnings.push(message);
    host.warn(message);
  };
  const recordings = await loadRecordings(host, request, warn);

  let run: RepackPreviewRun | undefined;
  if (request.preview) {
    await checkpoint(signal);
    run = await previewRepack({
      depth: request.depth,
      window: request.window,
      threads: request.threads,
      reuseDeltas: request.reuseDeltas,
      extraOptions: request.extraOptions,
      repository,
      store,
      git,
      signal,
      top: request.top,
      onProgress: (p) => host.gitProgress(p),
      onSpawn: (pid) => host.log(`repack preview: git pack-objects runs as process ${pid}`),
      keepPack: request.keepPack === true,
    });
    if (run.keptPack) kept.pack = run.keptPack;
    host.log(
      `repack preview of ${repository.gitDir}: ${run.result.gitArgs.join(' ')} (${run.result.seconds.toFixed(2)} s)`,
    );
    for (const warning of run.warnings) warn(warning);
  }
  await checkpoint(signal);

  const currentModels: PackModel[] =
    run?.currentModels ?? store.packs.filter((p) => p.local).map((p) => store.model(p));
  let estimated: Awaited<ReturnType<typeof estimateWriteOrder>> | undefined;
  if (request.estimate) {
    host.step('Estimating the write order (git rev-list)');
    estimated = await estimateWriteOrder({ repository, current: currentModels, git, signal });
  }
  if (recordings.length > 0)
    host.step(`Replaying ${recordings.length} recording${recordings.length === 1 ? '' : 's'} on both layouts`);
  const replays: RecordingReplay[] = [];
  for (const loaded of recordings) {
    await checkpoint(signal);
    replays.push({
      recording: recordingSummary(loaded),
      ...(run
        ? replayRecordingOnLayouts(loaded, run.previewModel, { limits })
        : { ...replayRecordingOnCurrent(loaded, { limits }), readsNotInPreview: 0, preview: null }),
      estimate: estimated ? estimateRecordingLocality(loaded, estimated.layout) : null,
    });
  }
  const readTime =
    request.readTime === undefined || request.readTime === 'off' || replays.length === 0
      ? null
      : await priceReplays(host, request, currentModels, replays, recordings);
  let estimate: RepackPreviewDocument['estimate'] = null;
  if (estimated) {
    const accuracy = run
      ? compareEstimateWithPreview(
          estimated.estimate,
          estimated.layout,
          run.previewModel,
          replays.map((r) => ({ file: r.recording.file, estimate: r.estimate!, preview: r.preview?.locality[0] })),
        )
      : null;
    estimate = { estimate: estimated.estimate, accuracy };
  }
  const result = run?.result;
  const current =
    result?.current ??
    (request.describeCurrentWithoutPreview
      ? {
          ...summarizeLayout(currentModels),
          looseObjects: countLooseObjects(repository.objectsDir, repository.hash.size * 2),
        }
      : null);
  const document: RepackPreviewDocument = {
    schema: 'packscope.repack-preview/1',
    repository: { gitDir: repository.gitDir, objectFormat: repository.hash.name },
    gitVersion: result?.gitVersion ?? null,
    git: result?.gitArgs ?? null,
    gitEnvironment: result?.gitEnvironment ?? null,
    equivalent: result?.equivalent ?? null,
    seconds: result ? Math.round(result.seconds * 1000) / 1000 : null,
    current,
    preview: result?.preview ?? null,
    largestChanges: result?.largestChanges ?? [],
    onlyInPreview: result?.onlyInPreview ?? null,
    onlyInCurrent: result?.onlyInCurrent ?? null,
    recordings: replays,
    estimate,
    readTime,
  };
  if (request.warningsInDocument) document.warnings = warnings;
  return { document, preview: result, ...(run?.keptPack ? { keptPack: run.keptPack } : {}) };
}

/**
 * Prices every layout's counts in place (`readSeconds`) with the calibration of today's largest
 * pack: kept in the model cache, or (readTime 'calibrate') run now by timing git on it. A recording
 * whose reads were replayed on git (a `sweep --time`, read-replay.ts) has both layouts'
 * read seconds scaled by its kept scale, as its time view has (`readScale` says so): the scale is
 * the workload's mix on this machine, which a repack does not change.
 */
async function priceReplays(
  host: RepackPreviewHost,
  request: RepackPreviewRequest,
  currentModels: PackModel[],
  replays: RecordingReplay[],
  recordings: LoadedRecording[],
): Promise<ReadTimeNote> {
  const model = [...currentModels].sort((a, b) => b.count - a.count)[0];
  const note =
    'each layout’s exact counts priced with the calibration of today’s largest pack (git’s costs per inflation and byte on this machine; a repack changes the counts, not those costs); read time only, the command’s other work is the same on both layouts';
  if (model === undefined) return { estimate: true, calibration: null, note: 'no pack to calibrate on' };
  let calibration: Calibration | undefined;
  const cacheDirectory = request.store.modelCacheDirectory;
  if (request.readTime === 'calibrate') {
    host.step('Calibrating the cost model (timing git on the pack)');
    calibration = (
      await cachedCalibration(model, cacheDirectory, {
        gitDir: request.repository.gitDir,
        git: request.git,
        signal: host.signal,
      })
    ).calibration;
  } else if (cacheDirectory !== undefined) {
    const key = await calibrationKey(model, request.git);
    const kept = loadCalibration(calibrationFile(cacheDirectory, key));
    if (kept && JSON.stringify(kept.key) === JSON.stringify(key)) calibration = kept;
  }
  if (calibration === undefined) {
    return {
      estimate: true,
      calibration: null,
      note: 'no calibration of this pack on this machine yet: run `packscope calibrate` on the repository, or a Cache Lab sweep of one of its recordings, and preview again',
    };
  }
  const p = calibration.parameters;
  for (const [i, replay] of replays.entries()) {
    const m = recordings[i]?.log.metadata;
    const scale = m
      ? (readReplayFor(calibration, { args: m.command, cwd: m.cwd, startedAt: m.startedAt })?.readScale ?? null)
      : null;
    if (scale !== null) replay.readScale = scale;
    for (const side of [replay.current, replay.preview]) {
      for (const at of side?.inflations ?? []) at.readSeconds = (scale ?? 1) * readSeconds(at, p);
    }
  }
  const scaled = replays.filter((r) => r.readScale !== undefined).length;
  const scaledNote =
    scaled === 0
      ? ''
      : `; ${scaled} of ${replays.length} recording${replays.length === 1 ? '' : 's'} scaled by a replay of ${scaled === 1 ? 'its' : 'their'} own reads on git (sweep --time; readScale), on both layouts`;
  return {
    estimate: true,
    calibration: { date: calibration.date, key: calibration.key, pack: calibration.pack.path, parameters: { ...p } },
    note: note + scaledNote,
  };
}
