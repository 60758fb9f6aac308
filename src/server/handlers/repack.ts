// Repack previews over LSP: `packscope/repackPreview` runs the engine of
// src/core/repack (pack-objects into a temporary directory outside the repository, the preview
// pack's model, the write-order estimate, recordings replayed on both layouts) in a simulation
// worker (workers/repack-preview-task.ts) and answers with the very document `packscope repack-preview
// --json` prints; this thread checks the request, loads the current packs' models (model workers),
// forwards progress and cancels. `packscope/gitCapabilities` says which of the newer pack-objects
// options the installed git takes.
import { errorKind, GitCommandError } from '../../core/errors.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CancellationToken, type WorkDoneProgressReporter } from 'vscode-languageserver/node';
import { ObjectStore } from '../../core/model/object-store.ts';
import { discoverRepository, type Repository } from '../../core/model/repository.ts';
import { gitSupports, gitVersionOf } from '../../core/git/git-probe.ts';
import { gitForWorkspace, trustedGit } from '../trusted-git.ts';
import { formatCount, percent } from '../../common/format.ts';
import { previewRepackMode, repackModesSupported } from '../../core/repack/repack-mode-preview.ts';
import { TEMP_PREFIX } from '../../core/repack/preview-directory.ts';
import type { RepackMode } from '../../core/documents/repack-mode-document.ts';
import {
  GitCapabilitiesRequest,
  RepackModePreviewRequest,
  RepackModesRequest,
  RepackPreviewRequest,
  ReleasePreviewPackRequest,
  type GitCapabilities,
  type RepackPreviewParams,
  type RepackPreviewResult,
} from '../../protocol/server-protocol.ts';
import { cancelledError, cancelledPromise } from '../cancellation.ts';
import { checkLimits, invalid, paramsObject, requireString, stringList } from '../request-params.ts';
import type { ServerContext } from '../server-context.ts';
import { startTaskWorker, workerStoreOf } from '../workers/task-worker-client.ts';

/** pack-objects takes --depth up to 4095 (pack.depth's maximum); --window and --threads are counts. */
const MAX_DEPTH = 4095;

/**
 * A failed git command answers the user in one line (git's fatal:/error: lines, as the kind's
 * RequestFailed: core/errors.ts); everything git printed goes to the log.
 */
function logGitFailure(context: ServerContext, error: unknown): void {
  if (error instanceof GitCommandError)
    context.log(`repack preview failed: ${error.argv.join(' ')} (exit status ${error.exitStatus})\n${error.gitStderr}`);
}

/** A cancelled model load (LoadCancelled) or a stopped git (an AbortError). */
function isAbort(error: unknown): boolean {
  return errorKind(error) === 'cancelled';
}

function optionalCount(value: unknown, name: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max)
    throw invalid(`${name} must be an integer from 0 to ${max}`);
  return value;
}

function checkParams(params: RepackPreviewParams): void {
  const fields = paramsObject(params);
  if (typeof params.repository !== 'string' || params.repository === '') throw invalid('no repository given');
  requireString(fields.repository, 'repository');
  if (!Array.isArray(params.extraOptions) || params.extraOptions.some((o) => typeof o !== 'string'))
    throw invalid('extraOptions must be a list of strings');
  stringList(fields.extraOptions, 'extraOptions');
  if (fields.recordings !== undefined) stringList(fields.recordings, 'recordings');
  if (fields.limits !== undefined) checkLimits(fields.limits);
  requireString(fields.git, 'git');
  for (const flag of ['reuseDeltas', 'estimate', 'estimateOnly', 'keepPack'] as const) {
    if (fields[flag] !== undefined && typeof fields[flag] !== 'boolean') throw invalid(`${flag} must be true or false`);
  }
  // Only options: a path among them would be taken by pack-objects as the pack's base name.
  const notOption = params.extraOptions.find((o) => !o.startsWith('-'));
  if (notOption !== undefined) throw invalid(`"${notOption}" is not a pack-objects option (options start with -)`);
  if (!Array.isArray(params.recordings) || params.recordings.some((r) => typeof r !== 'string'))
    throw invalid('recordings must be a list of files');
  if (
    params.limits !== undefined &&
    (!Array.isArray(params.limits) ||
      params.limits.length === 0 ||
      params.limits.some((l) => !Number.isSafeInteger(l) || l < 0))
  ) {
    throw invalid('limits must be a non-empty list of byte counts');
  }
}

/** The repository: a workspace repository by id, else discovered from the path. */
function repositoryOf(context: ServerContext, where: string): Repository {
  const state = context.registry.get(where);
  if (state) return state.repository;
  // Outside the workspace: only where the read rules allow (read-rules.ts, a recording's repository).
  const allowed = context.readRules.check(where, 'repository');
  if (!fs.existsSync(allowed)) throw invalid(`${allowed}: no such repository`);
  return discoverRepository(allowed);
}

/** The installed git's version and whether its pack-objects takes the newer options (git-probe.ts caches the option list per git and version). */
export async function gitCapabilities(git: string): Promise<GitCapabilities> {
  // A git that cannot run is a GitCommandError: RequestFailed, by its kind (core/errors.ts).
  const version = await gitVersionOf(git);
  return {
    version,
    nameHashVersion: await gitSupports(git, 'name-hash-version', version),
    pathWalk: await gitSupports(git, 'path-walk', version),
  };
}

/** Models of the repository's local packs, each built in a worker (or read from the model cache) first. */
async function loadPacks(
  context: ServerContext,
  repository: Repository,
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<ObjectStore> {
  const store = new ObjectStore(repository, context.loader.modelStore);
  const local = store.packs.filter((p) => p.local);
  for (const [k, pack] of local.entries()) {
    if (token.isCancellationRequested) throw cancelledError();
    if (context.loader.peek(pack.files)) continue;
    const name = path.basename(pack.files.pack);
    progress.report(0, `Indexing ${name} (${k + 1} of ${local.length})`);
    await context.loader.ensure(pack.files, repository.hash, {
      cancelled: cancelledPromise(token),
      onProgress: (done, total) =>
        progress.report(
          percent(done, total),
          `Indexing ${name}: ${formatCount(done)} of ${formatCount(total)} objects`,
        ),
    });
  }
  return store;
}

async function runRepackPreview(
  context: ServerContext,
  params: RepackPreviewParams,
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<RepackPreviewResult> {
  checkParams(params);
  optionalCount(params.depth, 'depth', MAX_DEPTH);
  optionalCount(params.window, 'window');
  optionalCount(params.threads, 'threads');
  // The worker runs the configured git only (trusted-git.ts): a request naming another is refused.
  const git = gitForWorkspace(params.git, context.settings, 'repack preview');
  const repository = repositoryOf(context, params.repository);
  // The worker reads each recording named: each must be one the read rules allow.
  const recordings = params.recordings.map((file) => context.readRules.check(file, 'recording or trace'));
  const store = await loadPacks(context, repository, token, progress);
  if (token.isCancellationRequested) throw cancelledError();
  // Everything else (pack-objects, the preview pack's model, the estimate, recordings parsed and
  // replayed) runs in the worker; a cancel there stops git and removes the temporary directory.
  let result: RepackPreviewResult | undefined;
  await context.work.run('repack-preview', token, async (_threads, holdPlacesUntil) => {
    const worker = startTaskWorker(
      context.bundledScript('task-worker.js'),
      {
        kind: 'repack-preview',
        store: workerStoreOf(store, context.loader.directory),
        params: { ...params, git, recordings, workDoneToken: undefined },
      },
      token,
      (message) => {
        if (message.kind === 'progress') {
          if (message.percentage === undefined) progress.report(message.message);
          else progress.report(message.percentage, message.message);
        } else if (message.kind === 'log') context.log(message.message);
        else if (message.kind === 'preview') result = message.result;
      },
      { cancel: 'message', log: (message) => context.log(message) },
    );
    holdPlacesUntil(worker.exited);
    await worker.finished;
  });
  if (!result) throw new Error('the repack preview worker sent no result');
  if (result.previewPack) keepPreviewPack(context, repository, result);
  return result;
}

/**
 * A preview pack kept for the Pack Map (keepPack): held by the server (preview-packs.ts) when its
 * repository is one of the workspace's (the map finds packs there), else removed at once.
 */
function keepPreviewPack(context: ServerContext, repository: Repository, result: RepackPreviewResult): void {
  const kept = result.previewPack!;
  const files = {
    pack: kept.pack,
    idx: kept.pack.replace(/\.pack$/, '.idx'),
    ...(fs.existsSync(kept.pack.replace(/\.pack$/, '.rev')) ? { rev: kept.pack.replace(/\.pack$/, '.rev') } : {}),
  };
  const state = context.registry.repositories.find((r) => r.repository.gitDir === repository.gitDir);
  if (
    !state ||
    !path.basename(kept.directory).startsWith(TEMP_PREFIX) ||
    path.dirname(kept.pack) !== path.join(kept.directory, 'pack')
  ) {
    fs.rmSync(kept.directory, { recursive: true, force: true });
    delete result.previewPack;
    return;
  }
  context.previewPacks.add({ kept: { directory: kept.directory, files }, repository: state.id });
  context.log(`keeping the repack preview pack ${path.basename(kept.pack)} for the Pack Map (${kept.directory})`);
}

/** The mode off the wire: `{ kind: 'cruft' }` or `{ kind: 'geometric', factor }` with a whole factor from 2 to 1000. */
function repackModeOf(value: unknown): RepackMode {
  const fields = paramsObject(value);
  if (fields.kind === 'cruft') return { kind: 'cruft' };
  if (fields.kind === 'geometric') {
    const factor = fields.factor;
    if (typeof factor !== 'number' || !Number.isSafeInteger(factor) || factor < 2 || factor > 1000)
      throw invalid('mode.factor must be an integer from 2 to 1000');
    return { kind: 'geometric', factor };
  }
  throw invalid('mode.kind must be "geometric" or "cruft"');
}

/** `packscope/repackPreview`, `packscope/repackModePreview`, `packscope/repackModes` and `packscope/gitCapabilities`. */
// Stays long: a table of four requests, each a few lines of progress, cancellation and git's error for the client.
export function registerRepackHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(ReleasePreviewPackRequest, (params) =>
    context.guarded(() => ({
      released: context.previewPacks.release(requireString(paramsObject(params).pack, 'pack')),
    })),
  );

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
        logGitFailure(context, error);
        throw error;
      } finally {
        progress.done();
      }
    }),
  );

  // A real `git repack` of that mode against a shadow of the objects directory: git does the work in
  // its own process; this thread only waits for it (no model is built).
  connection.onRequest(RepackModePreviewRequest, (params, token) =>
    context.guarded(async () => {
      const fields = paramsObject(params);
      const mode = repackModeOf(fields.mode);
      const git = gitForWorkspace(requireString(fields.git, 'git'), context.settings, 'repack preview');
      const repository = repositoryOf(context, requireString(fields.repository, 'repository'));
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      progress.begin(
        `Previewing git repack ${mode.kind === 'geometric' ? `--geometric=${mode.factor}` : '--cruft'} -d`,
        0,
        undefined,
        true,
      );
      const controller = new AbortController();
      const subscription = token.onCancellationRequested(() => controller.abort());
      try {
        return await previewRepackMode({
          repository,
          mode,
          git,
          signal: controller.signal,
          onProgress: (p) => progress.report(p.phase),
        });
      } catch (error) {
        if (isAbort(error) || token.isCancellationRequested) throw cancelledError();
        logGitFailure(context, error);
        throw error;
      } finally {
        subscription.dispose();
        progress.done();
      }
    }),
  );

  connection.onRequest(RepackModesRequest, (params) =>
    context.guarded(() => {
      if (params.git !== undefined) requireString(paramsObject(params).git, 'git');
      return repackModesSupported(trustedGit(params.git, context.settings.git));
    }),
  );

  connection.onRequest(GitCapabilitiesRequest, (params) =>
    context.guarded(() => {
      if (params.git !== undefined) requireString(paramsObject(params).git, 'git');
      return gitCapabilities(trustedGit(params.git, context.settings.git));
    }),
  );
}
