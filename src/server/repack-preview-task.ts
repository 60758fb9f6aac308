/**
 * The repack preview's engine run in a simulation worker (simulation-worker-protocol.ts,
 * `repack-preview`): pack-objects into a temporary directory outside the repository, the preview
 * pack's model, the write-order estimate, recordings parsed and replayed on both layouts, and the
 * very document `packscope repack-preview --json` prints. The server checked the parameters and
 * loaded the current packs' models (persisted: read here from the model cache).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setImmediate as yieldToEvents } from 'node:timers/promises';
import type { PackLocality } from '../core/locality/locality.ts';
import type { ObjectStore } from '../core/model/object-store.ts';
import type { PackModel } from '../core/model/pack-model.ts';
import { discoverRepository, type Repository } from '../core/model/repository.ts';
import type { GitProgress } from '../core/git/git-progress.ts';
import { countLooseObjects, summarizeLayout } from '../core/repack/layout-summary.ts';
import { DEFAULT_PREVIEW_LIMITS, replayRecordingOnCurrent, replayRecordingOnLayouts } from '../core/repack/recording-layouts.ts';
import { previewRepack, type RepackPreviewRun } from '../core/repack/repack-preview.ts';
import { abortError } from '../core/git/run-git.ts';
import { compareEstimateWithPreview, estimateRecordingLocality, estimateWriteOrder } from '../core/repack/write-order-estimate.ts';
import { resolveRecording, type LoadedRecording } from '../core/trace/load-recording.ts';
import { parseTraceFile, type TraceLog } from '../core/trace/trace-log.ts';
import { formatCount } from '../shared/format.ts';
import type { RepackPreviewParams, RepackPreviewResult, RepackRecordingReplay } from '../protocol/server-protocol.ts';

/** $/progress reports of git's meters at most this often (the last of a phase always goes out). */
const PROGRESS_INTERVAL_MS = 100;

export interface RepackTaskHost {
  progress(message: string, percentage?: number): void;
  log(message: string): void;
  signal: AbortSignal;
}

/** `Compressing objects: 45% (1,234/2,741)`, `Enumerating objects: 1,234`: git's own meter, grouped digits. */
export function progressMessage(progress: GitProgress): string {
  if (progress.total === undefined) return `${progress.phase}: ${formatCount(progress.done)}${progress.finished ? ', done' : ''}`;
  const percent = progress.total === 0 ? 100 : Math.floor((100 * progress.done) / progress.total);
  return `${progress.phase}: ${percent}% (${formatCount(progress.done)}/${formatCount(progress.total)})${progress.finished ? ', done' : ''}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether a parsed recording read this repository's packs (its metadata names it, or its pack paths are ours). */
function recordingIsOf(log: TraceLog, repository: Repository, store: ObjectStore): boolean {
  const ours = new Set(store.packs.filter((p) => p.local).map((p) => path.basename(p.files.pack)));
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
  return log.packPaths.some((p) => ours.has(path.basename(p)));
}

/** Between steps: lets a `cancel` message in, and stops when it came. */
async function checkpoint(signal: AbortSignal): Promise<void> {
  await yieldToEvents();
  if (signal.aborted) throw abortError(signal);
}

async function loadRecordings(host: RepackTaskHost, files: string[], repository: Repository, store: ObjectStore, warnings: string[]): Promise<LoadedRecording[]> {
  const loaded: LoadedRecording[] = [];
  for (const file of files) {
    await checkpoint(host.signal);
    const absolute = path.resolve(file);
    host.progress(`Reading ${path.basename(absolute)}`);
    let log: TraceLog;
    try {
      log = parseTraceFile(absolute);
    } catch (error) {
      warnings.push(`${absolute}: not replayed: ${errorMessage(error)}`);
      continue;
    }
    if (!recordingIsOf(log, repository, store)) {
      host.log(`repack preview: ${absolute} is not a recording of ${repository.gitDir}; skipped`);
      continue;
    }
    const resolved = resolveRecording(log, store);
    for (const warning of resolved.warnings) warnings.push(`${path.basename(absolute)}: ${warning}`);
    if (resolved.reads.length > 0) loaded.push(resolved);
  }
  return loaded;
}

/** The preview, as the server answered it when this ran on its thread. */
export async function runRepackPreviewTask(host: RepackTaskHost, repository: Repository, store: ObjectStore, params: RepackPreviewParams): Promise<RepackPreviewResult> {
  const { signal } = host;
  const tuning = {
    depth: params.depth ?? undefined,
    window: params.window ?? undefined,
    threads: params.threads ?? undefined,
    reuseDeltas: params.reuseDeltas === true,
    extraOptions: params.extraOptions,
  };
  const git = params.git || 'git';
  const limits = params.limits ?? DEFAULT_PREVIEW_LIMITS;
  const warnings: string[] = [];
  const recordings = await loadRecordings(host, params.recordings, repository, store, warnings);

  let run: RepackPreviewRun | undefined;
  if (!params.estimateOnly) {
    await checkpoint(signal);
    let lastReport = 0;
    let lastPhase = '';
    run = await previewRepack({
      ...tuning,
      repository,
      store,
      git,
      signal,
      onProgress: (p) => {
        const now = performance.now();
        if (p.phase === lastPhase && !p.finished && now - lastReport < PROGRESS_INTERVAL_MS) return;
        lastPhase = p.phase;
        lastReport = now;
        if (p.total === undefined) host.progress(progressMessage(p));
        else host.progress(progressMessage(p), p.total === 0 ? 100 : Math.floor((100 * p.done) / p.total));
      },
      onSpawn: (pid) => host.log(`repack preview: git pack-objects runs as process ${pid}`),
    });
    host.log(`repack preview of ${repository.gitDir}: ${run.result.gitArgs.join(' ')} (${run.result.seconds.toFixed(2)} s)`);
  }
  await checkpoint(signal);

  const currentModels: PackModel[] = run?.currentModels ?? store.packs.filter((p) => p.local).map((p) => store.model(p));
  let estimated: Awaited<ReturnType<typeof estimateWriteOrder>> | undefined;
  if (params.estimate || params.estimateOnly) {
    host.progress('Estimating the write order (git rev-list)');
    estimated = await estimateWriteOrder({ repository, current: currentModels, git, signal });
  }
  if (recordings.length > 0) host.progress(`Replaying ${recordings.length} recording${recordings.length === 1 ? '' : 's'} on both layouts`);
  const replays: RepackRecordingReplay[] = [];
  for (const loaded of recordings) {
    await checkpoint(signal);
    replays.push({
      ...(run ? replayRecordingOnLayouts(loaded, run.previewModel, { limits }) : { ...replayRecordingOnCurrent(loaded, { limits }), readsNotInPreview: 0, preview: null }),
      estimate: estimated ? estimateRecordingLocality(loaded, estimated.layout) : null,
    });
  }
  let estimate: RepackPreviewResult['estimate'] = null;
  if (estimated) {
    const accuracy = run
      ? compareEstimateWithPreview(
          estimated.estimate,
          estimated.layout,
          run.previewModel,
          replays.map((r) => ({ file: r.recording.file, estimate: r.estimate as PackLocality, preview: r.preview?.locality[0] as PackLocality | undefined })),
        )
      : null;
    estimate = { estimate: estimated.estimate, accuracy };
  }
  const result = run?.result;
  return {
    schema: 'packscope.repack-preview/1',
    repository: { gitDir: repository.gitDir, objectFormat: repository.hash.name },
    gitVersion: result?.gitVersion ?? null,
    git: result?.gitArgs ?? null,
    gitEnvironment: result?.gitEnvironment ?? null,
    equivalent: result?.equivalent ?? null,
    seconds: result ? Math.round(result.seconds * 1000) / 1000 : null,
    // An estimate alone still shows today's packs (the CLI prints null here): the panel compares against them.
    current: result?.current ?? { ...summarizeLayout(currentModels), looseObjects: countLooseObjects(repository.objectsDir, repository.hash.size * 2) },
    preview: result?.preview ?? null,
    largestChanges: result?.largestChanges ?? [],
    onlyInPreview: result?.onlyInPreview ?? null,
    onlyInCurrent: result?.onlyInCurrent ?? null,
    recordings: replays,
    estimate,
    warnings,
  };
}
