/**
 * The repack preview as a task worker runs it (task-worker-protocol.ts,
 * `repack-preview`): core/report/repack-preview-report.ts with the server's options, its progress as
 * $/progress messages (git's meters at most every PROGRESS_INTERVAL_MS), its log lines for the
 * server's log, and the warnings in the document. The server checked the parameters and loaded the
 * current packs' models (persisted: read here from the model cache).
 */
import * as path from 'node:path';
import type { ObjectStore } from '../../core/model/object-store.ts';
import type { Repository } from '../../core/model/repository.ts';
import type { GitProgress } from '../../core/git/git-progress.ts';
import { DEFAULT_PREVIEW_LIMITS } from '../../core/repack/recording-layouts.ts';
import { runRepackPreviewReport } from '../../core/report/repack-preview-report.ts';
import { parseRecordingFile } from '../../core/trace/load-recording.ts';
import { formatCount, percent } from '../../common/format.ts';
import type { RepackPreviewParams, RepackPreviewResult } from '../../protocol/server-protocol.ts';

/** $/progress reports of git's meters at most this often (the last of a phase always goes out). */
const PROGRESS_INTERVAL_MS = 100;

export interface RepackTaskHost {
  progress(message: string, percentage?: number): void;
  log(message: string): void;
  signal: AbortSignal;
}

/** `Compressing objects: 45% (1,234/2,741)`, `Enumerating objects: 1,234`: git's own meter, grouped digits. */
export function progressMessage(progress: GitProgress): string {
  if (progress.total === undefined)
    return `${progress.phase}: ${formatCount(progress.done)}${progress.finished ? ', done' : ''}`;
  return `${progress.phase}: ${percent(progress.done, progress.total)}% (${formatCount(progress.done)}/${formatCount(progress.total)})${progress.finished ? ', done' : ''}`;
}

/** The preview, as the server answers it. */
export async function runRepackPreviewTask(
  host: RepackTaskHost,
  repository: Repository,
  store: ObjectStore,
  params: RepackPreviewParams,
): Promise<RepackPreviewResult> {
  let lastReport = 0;
  let lastPhase = '';
  const { document, keptPack } = await runRepackPreviewReport(
    {
      signal: host.signal,
      parseRecording: (file) => {
        host.progress(`Reading ${path.basename(file)}`);
        return parseRecordingFile(file);
      },
      step: (message) => host.progress(message),
      gitProgress: (p) => {
        const now = performance.now();
        if (p.phase === lastPhase && !p.finished && now - lastReport < PROGRESS_INTERVAL_MS) return;
        lastPhase = p.phase;
        lastReport = now;
        if (p.total === undefined) host.progress(progressMessage(p));
        else host.progress(progressMessage(p), percent(p.done, p.total));
      },
      log: (message) => host.log(message),
      warn: () => undefined,
    },
    {
      repository,
      store,
      git: params.git || 'git',
      depth: params.depth ?? undefined,
      window: params.window ?? undefined,
      threads: params.threads ?? undefined,
      reuseDeltas: params.reuseDeltas === true,
      extraOptions: params.extraOptions,
      recordings: params.recordings,
      limits: params.limits ?? DEFAULT_PREVIEW_LIMITS,
      preview: !params.estimateOnly,
      estimate: params.estimate || params.estimateOnly === true,
      unusableRecordings: 'skip',
      // An estimate alone still shows today's packs (the CLI prints null here): the panel compares against them.
      describeCurrentWithoutPreview: true,
      warningsInDocument: true,
      // Priced when this pack was calibrated already (a Cache Lab sweep, packscope calibrate): a preview never times git for it.
      readTime: 'cached',
      keepPack: params.keepPack === true,
    },
  );
  return keptPack
    ? { ...document, previewPack: { pack: keptPack.files.pack, directory: keptPack.directory } }
    : document;
}
