// Repack previews (issue 6) over LSP: `packscope/repackPreview` runs the engine of
// src/core/repack (pack-objects into a temporary directory outside the repository, the write-order
// estimate, recordings replayed on both layouts) and answers with the very document
// `packscope repack-preview --json` prints; `packscope/gitCapabilities` says which of the newer
// pack-objects options the installed git takes.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes, LSPErrorCodes, ResponseError, type CancellationToken, type WorkDoneProgressReporter } from 'vscode-languageserver/node';
import type { PackLocality } from '../core/locality/locality.ts';
import { ObjectStore } from '../core/model/object-store.ts';
import type { PackModel } from '../core/model/pack-model.ts';
import { discoverRepository, type Repository } from '../core/model/repository.ts';
import { cleanGitEnvironment, GitCommandError } from '../core/repack/git-probe.ts';
import type { GitProgress } from '../core/repack/git-progress.ts';
import { countLooseObjects, summarizeLayout } from '../core/repack/layout-summary.ts';
import { DEFAULT_PREVIEW_LIMITS, replayRecordingOnCurrent, replayRecordingOnLayouts } from '../core/repack/recording-layouts.ts';
import { previewRepack, type RepackPreviewRun } from '../core/repack/repack-preview.ts';
import { compareEstimateWithPreview, estimateRecordingLocality, estimateWriteOrder } from '../core/repack/write-order-estimate.ts';
import { resolveRecording, type LoadedRecording } from '../core/trace/load-recording.ts';
import { parseTraceFile, type TraceLog } from '../core/trace/trace-log.ts';
import { formatCount } from '../protocol/format.ts';
import {
  GitCapabilitiesRequest,
  RepackPreviewRequest,
  type GitCapabilities,
  type RepackPreviewParams,
  type RepackPreviewResult,
  type RepackRecordingReplay,
} from '../protocol/server-protocol.ts';
import { LoadCancelled } from './model-loader.ts';
import type { ServerContext } from './server-context.ts';
import { errorMessage } from './workspace-registry.ts';

/** $/progress reports of git's meters at most this often (the last of a phase always goes out). */
const PROGRESS_INTERVAL_MS = 100;
/** pack-objects takes --depth up to 4095 (pack.depth's maximum); --window and --threads are counts. */
const MAX_DEPTH = 4095;

function cancelledError(): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
}

function invalid(message: string): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidParams, message);
}

function abortSignalFor(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

function cancelledPromise(token: CancellationToken): Promise<void> {
  return new Promise((resolve) => {
    if (token.isCancellationRequested) resolve();
    else token.onCancellationRequested(() => resolve());
  });
}

function isAbort(error: unknown): boolean {
  return error instanceof LoadCancelled || (error instanceof Error && error.name === 'AbortError');
}

/** `Compressing objects: 45% (1,234/2,741)`, `Enumerating objects: 1,234`: git's own meter, grouped digits. */
export function progressMessage(progress: GitProgress): string {
  if (progress.total === undefined) return `${progress.phase}: ${formatCount(progress.done)}${progress.finished ? ', done' : ''}`;
  const percent = progress.total === 0 ? 100 : Math.floor((100 * progress.done) / progress.total);
  return `${progress.phase}: ${percent}% (${formatCount(progress.done)}/${formatCount(progress.total)})${progress.finished ? ', done' : ''}`;
}

function optionalCount(value: unknown, name: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max) throw invalid(`${name} must be an integer from 0 to ${max}`);
  return value;
}

function checkParams(params: RepackPreviewParams): void {
  if (typeof params.repository !== 'string' || params.repository === '') throw invalid('no repository given');
  if (!Array.isArray(params.extraOptions) || params.extraOptions.some((o) => typeof o !== 'string')) throw invalid('extraOptions must be a list of strings');
  // Only options: a path among them would be taken by pack-objects as the pack's base name.
  const notOption = params.extraOptions.find((o) => !o.startsWith('-'));
  if (notOption !== undefined) throw invalid(`"${notOption}" is not a pack-objects option (options start with -)`);
  if (!Array.isArray(params.recordings) || params.recordings.some((r) => typeof r !== 'string')) throw invalid('recordings must be a list of files');
  if (params.limits !== undefined && (!Array.isArray(params.limits) || params.limits.length === 0 || params.limits.some((l) => !Number.isSafeInteger(l) || l < 0))) {
    throw invalid('limits must be a non-empty list of byte counts');
  }
}

/** The repository: a workspace repository by id, else discovered from the path. */
function repositoryOf(context: ServerContext, where: string): Repository {
  const state = context.registry.get(where);
  if (state) return state.repository;
  if (!fs.existsSync(where)) throw invalid(`${where}: no such repository`);
  return discoverRepository(where);
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

interface Capability {
  key: string;
  value: GitCapabilities;
}
const capabilities = new Map<string, Capability>();

function execGit(git: string, args: string[]): Promise<{ stdout: string; stderr: string; status: number | null; error?: Error }> {
  return new Promise((resolve) => {
    execFile(git, args, { encoding: 'utf8', env: { ...cleanGitEnvironment(), LC_ALL: 'C' }, timeout: 30_000 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : null;
      resolve({ stdout, stderr, status, error: status === null ? (error ?? undefined) : undefined });
    });
  });
}

/** `--name` in `git pack-objects -h`'s usage (as `--name`, `--[no-]name`, `--name=…`). */
function lists(usage: string, option: string): boolean {
  return new RegExp(`(^|[\\s,])--(\\[no-\\])?${option}([\\s=\\[<]|$)`, 'm').test(usage);
}

/** The installed git's version and whether its pack-objects takes the newer options; cached per git and version. */
export async function gitCapabilities(git: string): Promise<GitCapabilities> {
  const version = await execGit(git, ['--version']);
  if (version.error || version.status !== 0) {
    const text = version.error?.message ?? version.stderr.trim();
    throw new ResponseError(LSPErrorCodes.RequestFailed, `cannot run git (${git}): ${text}`);
  }
  const number = version.stdout.trim().replace(/^git version /, '');
  const key = `${git}\0${number}`;
  const known = capabilities.get(git);
  if (known?.key === key) return known.value;
  // A lone -h skips repository setup (git.c): no repository needed, nothing written; exit status 129.
  const help = await execGit(git, ['pack-objects', '-h']);
  if (help.error) throw new ResponseError(LSPErrorCodes.RequestFailed, `cannot run git (${git}): ${help.error.message}`);
  const usage = `${help.stdout}\n${help.stderr}`;
  const value: GitCapabilities = { version: number, nameHashVersion: lists(usage, 'name-hash-version'), pathWalk: lists(usage, 'path-walk') };
  capabilities.set(git, { key, value });
  return value;
}

/** Models of the repository's local packs, each built in a worker (or read from the model cache) first. */
async function loadPacks(context: ServerContext, repository: Repository, token: CancellationToken, progress: WorkDoneProgressReporter): Promise<ObjectStore> {
  const store = new ObjectStore(repository, context.loader.modelStore);
  const local = store.packs.filter((p) => p.local);
  for (const [k, pack] of local.entries()) {
    if (token.isCancellationRequested) throw cancelledError();
    if (context.loader.peek(pack.files)) continue;
    const name = path.basename(pack.files.pack);
    progress.report(0, `Indexing ${name} (${k + 1} of ${local.length})`);
    await context.loader.ensure(pack.files, repository.hash, {
      cancelled: cancelledPromise(token),
      onProgress: (done, total) => progress.report(total === 0 ? 100 : Math.floor((100 * done) / total), `Indexing ${name}: ${formatCount(done)} of ${formatCount(total)} objects`),
    });
  }
  return store;
}

function loadRecordings(context: ServerContext, files: string[], repository: Repository, store: ObjectStore, warnings: string[], progress: WorkDoneProgressReporter): LoadedRecording[] {
  const loaded: LoadedRecording[] = [];
  for (const file of files) {
    const absolute = path.resolve(file);
    progress.report(`Reading ${path.basename(absolute)}`);
    let log: TraceLog;
    try {
      log = parseTraceFile(absolute);
    } catch (error) {
      warnings.push(`${absolute}: not replayed: ${errorMessage(error)}`);
      continue;
    }
    if (!recordingIsOf(log, repository, store)) {
      context.log(`repack preview: ${absolute} is not a recording of ${repository.gitDir}; skipped`);
      continue;
    }
    const resolved = resolveRecording(log, store);
    for (const warning of resolved.warnings) warnings.push(`${path.basename(absolute)}: ${warning}`);
    if (resolved.reads.length > 0) loaded.push(resolved);
  }
  return loaded;
}

async function runRepackPreview(context: ServerContext, params: RepackPreviewParams, token: CancellationToken, progress: WorkDoneProgressReporter): Promise<RepackPreviewResult> {
  checkParams(params);
  const tuning = {
    depth: optionalCount(params.depth, 'depth', MAX_DEPTH),
    window: optionalCount(params.window, 'window'),
    threads: optionalCount(params.threads, 'threads'),
    reuseDeltas: params.reuseDeltas === true,
    extraOptions: params.extraOptions,
  };
  const git = params.git || 'git';
  const limits = params.limits ?? DEFAULT_PREVIEW_LIMITS;
  const repository = repositoryOf(context, params.repository);
  const store = await loadPacks(context, repository, token, progress);
  const warnings: string[] = [];
  const recordings = loadRecordings(context, params.recordings, repository, store, warnings, progress);
  const signal = abortSignalFor(token);

  let run: RepackPreviewRun | undefined;
  if (!params.estimateOnly) {
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
        if (p.total === undefined) progress.report(progressMessage(p));
        else progress.report(p.total === 0 ? 100 : Math.floor((100 * p.done) / p.total), progressMessage(p));
      },
      onSpawn: (pid) => context.log(`repack preview: git pack-objects runs as process ${pid}`),
    });
    context.log(`repack preview of ${repository.gitDir}: ${run.result.gitArgs.join(' ')} (${run.result.seconds.toFixed(2)} s)`);
  }
  if (token.isCancellationRequested) throw cancelledError();

  const currentModels: PackModel[] = run?.currentModels ?? store.packs.filter((p) => p.local).map((p) => store.model(p));
  let estimated: Awaited<ReturnType<typeof estimateWriteOrder>> | undefined;
  if (params.estimate || params.estimateOnly) {
    progress.report('Estimating the write order (git rev-list)');
    estimated = await estimateWriteOrder({ repository, current: currentModels, git, signal });
  }
  if (recordings.length > 0) progress.report(`Replaying ${recordings.length} recording${recordings.length === 1 ? '' : 's'} on both layouts`);
  const replays: RepackRecordingReplay[] = recordings.map((loaded) => ({
    ...(run ? replayRecordingOnLayouts(loaded, run.previewModel, { limits }) : { ...replayRecordingOnCurrent(loaded, { limits }), readsNotInPreview: 0, preview: null }),
    estimate: estimated ? estimateRecordingLocality(loaded, estimated.layout) : null,
  }));
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

/** `packscope/repackPreview` and `packscope/gitCapabilities`. */
export function registerRepackHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(RepackPreviewRequest, (params, token) =>
    context.guarded(async () => {
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      progress.begin(params.estimateOnly ? 'Estimating a repack' : 'Previewing a repack', 0, undefined, true);
      try {
        return await runRepackPreview(context, params, token, progress);
      } catch (error) {
        if (isAbort(error) || token.isCancellationRequested) {
          context.log('repack preview cancelled: git stopped, temporary directory removed');
          throw cancelledError();
        }
        if (error instanceof GitCommandError) {
          // One line for the user (git's fatal:/error: lines); everything git printed goes to the log.
          context.log(`repack preview failed: ${error.argv.join(' ')} (exit status ${error.exitStatus})\n${error.gitStderr}`);
          throw new ResponseError(LSPErrorCodes.RequestFailed, error.message);
        }
        throw error;
      } finally {
        progress.done();
      }
    }),
  );

  connection.onRequest(GitCapabilitiesRequest, (params) =>
    context.guarded(() => {
      if (typeof params.git !== 'string' || params.git === '') throw invalid('no git executable given');
      return gitCapabilities(params.git);
    }),
  );
}
