/** `packscope/record`: a git command run with GIT_TRACE_PACK_ACCESS into a recording outside the repository. */
import type { ChildProcess } from 'node:child_process';
import type { CancellationToken, WorkDoneProgressReporter } from 'vscode-languageserver/node';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { killProcessGroup, runGitCapture } from '../../core/git/run-git.ts';
import { ObjectStore } from '../../core/model/object-store.ts';
import { makeDirectories } from '../../core/atomic-file.ts';
import { enclosingRepositoryRoot, repositoryRootHolding } from '../../core/model/outside-repository.ts';
import { discoverRepository, type Repository } from '../../core/model/repository.ts';
import { keptInput, recordGitCommand } from '../../core/trace/record-git.ts';
import { TraceTail } from '../../core/trace/trace-tail.ts';
import { formatCount, formatLimit } from '../../common/format.ts';
import {
  CompleteRecordingRequest,
  RecordRequest,
  TrackedFilesRequest,
  type CompleteRecordingParams,
  type RecordParams,
  type RecordingInfo,
} from '../../protocol/server-protocol.ts';
import { abortSignalFor, cancelledError, cancelledPromise, throwIfCancelled } from '../cancellation.ts';
import { openRecording } from '../recording-opener.ts';
import { invalid, paramsObject, requireString } from '../request-params.ts';
import { checkGitArguments, gitForWorkspace } from '../trusted-git.ts';
import { nested, withProgress } from '../request-progress.ts';
import type { ServerContext } from '../server-context.ts';

/** Most limits a complete recording runs at (each is one more run of the command). */
const MAX_COMPLETE_LIMITS = 8;

/** How often a recording's trace file is looked at for the progress line. */
const RECORD_PROGRESS_MS = 250;

/**
 * README "Trust and safety": a recording is written only below the directory the client named at
 * initialization (the extension's storage), symbolic links resolved, and never inside a repository
 * the server reads (the recorded one, any workspace repository) or one made inside that directory.
 * (The caller also refuses any other enclosing repository, even one holding the directory itself.)
 */
function checkRecordingOutput(
  output: string,
  recordingDirectory: string | undefined,
  workspaceRepositories: Repository[],
): void {
  if (recordingDirectory === undefined)
    throw invalid(
      'the server writes recordings only into the recording directory its client names at initialization, and none was named',
    );
  if (!isBelow(output, recordingDirectory))
    throw invalid(`${output}: recordings are written only into ${recordingDirectory}`);
  const realDirectory = realPathOfNearest(recordingDirectory);
  const realOutput = realPathOfNearest(output);
  if (!isBelow(realOutput, realDirectory))
    throw invalid(
      `${output}: recordings are written only into ${recordingDirectory} (a symbolic link leads out of it)`,
    );
  const nearest = nearestRepository(realOutput);
  const inside = [
    ...(nearest !== undefined && isBelow(nearest.commonDir, realDirectory) ? [nearest] : []),
    ...workspaceRepositories,
  ].find((repository) => repositoryRootHolding(realOutput, repository) !== undefined);
  if (inside !== undefined)
    throw invalid(
      `${output} is inside the repository ${inside.workTree ?? inside.gitDir}; PackScope never writes inside a repository`,
    );
}

function isBelow(file: string, directory: string): boolean {
  const relative = path.relative(directory, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** The real path of `file`, through its nearest existing ancestor when it does not exist yet. */
function realPathOfNearest(file: string): string {
  let probe = file;
  while (!fs.existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
  return path.join(fs.realpathSync(probe), path.relative(probe, file));
}

/** The repository `file` would be in, found as git finds one (upwards from its nearest existing ancestor), or undefined. */
function nearestRepository(file: string): Repository | undefined {
  let probe = file;
  while (!fs.existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
  try {
    return discoverRepository(probe);
  } catch (error) {
    if (error instanceof UsageError && error.code === 'not-a-repository') return undefined;
    throw error;
  }
}

export function registerRecordHandlers(context: ServerContext): void {
  context.connection.onRequest(TrackedFilesRequest, (params, token) =>
    context.guarded(async () => {
      const fields = paramsObject(params);
      requireString(fields.repository, 'repository');
      const git = gitForWorkspace(params.git, context.settings, 'list of tracked files');
      // A workspace repository only: the request names no path of its own to run git in.
      const workTree = context.registry.get(params.repository)?.repository.workTree;
      if (workTree === undefined) throw invalid(`${params.repository}: not a workspace repository with a work tree`);
      const stdout = await runGitCapture(git, ['ls-files', '-z'], { cwd: workTree, signal: abortSignalFor(token) });
      return { files: stdout.toString('utf8').split('\0').filter(Boolean) };
    }),
  );
  context.connection.onRequest(RecordRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Recording', token, (progress) =>
        record(context, params, token, progress),
      ),
    ),
  );
  context.connection.onRequest(CompleteRecordingRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Completing the recording', token, (progress) =>
        completeRecording(context, params, token, progress),
      ),
    ),
  );
}

/**
 * `packscope/completeRecording`: the recording's own command, cwd and exact mode from its header,
 * run again through `record` (so through gitForWorkspace, the no-programs runner and the same
 * output checks) at the limits it was completed at before and the new ones, into a new file beside
 * it: the original stays as it was, for a replay that compares the two.
 */
async function completeRecording(
  context: ServerContext,
  params: CompleteRecordingParams,
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<RecordingInfo> {
  const fields = paramsObject(params);
  const file = requireString(fields.file, 'file');
  const limits = params.limits;
  if (!Array.isArray(limits) || limits.length === 0)
    throw invalid('limits must name at least one limit to complete the recording at');
  // Restricted Mode runs no git: refused before the recording is even opened.
  gitForWorkspace(params.git, context.settings, 'completing a recording');
  const { loaded } = await openRecording(context, { file }, token, nested(progress));
  const metadata = loaded.log.metadata;
  if (metadata === undefined)
    throw invalid(
      `${file}: a terminal recording or raw trace has no single command to run again; completion needs a recording made by packscope record (or Record a Git Command…)`,
    );
  if (metadata.mode !== 'exact')
    throw invalid(`${file}: completion needs a recording made in exact mode (limit 0); this one is ${metadata.mode}`);
  const complete = [...new Set([...(metadata.completeAt ?? []), ...limits])].sort((a, b) => a - b);
  // A command that read standard input (cat-file --batch) is given the input it kept, on every run.
  const input = metadata.input === undefined ? undefined : keptInput(loaded.log.file, metadata.input);
  return record(
    context,
    {
      cwd: metadata.cwd,
      args: metadata.command,
      output: completedOutput(context, loaded.log.file, complete),
      mode: 'exact',
      git: params.git,
      complete,
    },
    token,
    progress,
    input,
  );
}

/**
 * Beside the original when it is in the recording directory, else in that directory (a recording
 * opened from elsewhere may lie in a repository); `record` checks the place either way.
 */
function completedOutput(context: ServerContext, original: string, complete: number[]): string {
  const directory = context.recordingDirectory;
  if (directory === undefined)
    throw invalid(
      'the server writes recordings only into the recording directory its client names at initialization, and none was named',
    );
  // The original's extension: the extension's store lists its own kind of file (`.recording`).
  const extension = path.extname(original) || '.recording';
  const stem = path.basename(original, extension).replace(/\.complete-[^.]*$/, '');
  const name = `${stem}.complete-${complete.map(formatLimit).join('-')}${extension}`;
  return path.join(isBelow(path.resolve(original), path.resolve(directory)) ? path.dirname(original) : directory, name);
}

/** `packscope/record`: the request checked, the packs' models loaded, git run with its trace, the recording opened. */
async function record(
  context: ServerContext,
  params: RecordParams,
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
  input?: Buffer,
): Promise<RecordingInfo> {
  const { args, git, complete } = checkRecordParams(context, params);
  const cwd = path.resolve(params.cwd);
  const repository = discoverRepository(cwd);
  const output = path.resolve(params.output);
  checkOutsideRepositories(context, output, repository);
  makeDirectories(path.dirname(output), 0o777);
  const store = await loadedStore(context, repository, token, progress);
  throwIfCancelled(token);
  await runTraced(params, { git, args, cwd, store, output, complete, input }, token, progress);
  if (token.isCancellationRequested) {
    fs.rmSync(output, { force: true });
    throw cancelledError();
  }
  const { info } = await openRecording(context, { file: output }, token, progress);
  return info;
}

/** The request's git arguments, git, mode, limits and output, each refused with what is wrong. */
function checkRecordParams(
  context: ServerContext,
  params: RecordParams,
): { args: string[]; git: string; complete: number[] } {
  const args = checkGitArguments(params.args);
  const git = gitForWorkspace(params.git, context.settings, 'recording');
  if (params.mode !== 'exact' && params.mode !== 'passive') throw invalid('mode must be "exact" or "passive"');
  const complete = params.complete ?? [];
  if (
    !Array.isArray(complete) ||
    complete.length > MAX_COMPLETE_LIMITS ||
    !complete.every((limit) => Number.isSafeInteger(limit) && limit > 0)
  )
    throw invalid(`complete must be at most ${MAX_COMPLETE_LIMITS} positive whole byte counts`);
  if (complete.length > 0 && params.mode !== 'exact') throw invalid('complete needs mode "exact"');
  if (typeof params.output !== 'string' || params.output === '') throw invalid('no output file given');
  return { args, git, complete };
}

/**
 * Never inside a repository: the recorded one, a workspace one, one below the recording directory
 * (checkRecordingOutput says which), or any other, even one that holds the recording directory
 * itself (a home directory kept in git; README, "Trust and safety").
 */
function checkOutsideRepositories(context: ServerContext, output: string, repository: Repository): void {
  const insideRepository = (): never => {
    throw invalid(
      `${output}: the recording must be written outside the repository; PackScope never writes inside a repository`,
    );
  };
  const enclosing = enclosingRepositoryRoot(output);
  if (repositoryRootHolding(output, repository) !== undefined) insideRepository();
  if (context.recordingDirectory === undefined && enclosing !== undefined) insideRepository();
  checkRecordingOutput(
    output,
    context.recordingDirectory,
    context.registry.repositories.map((state) => state.repository),
  );
  if (enclosing !== undefined) insideRepository();
}

/** recordGitCommand reads every pack's model (checksums, object counts): they are loaded in workers first. */
async function loadedStore(
  context: ServerContext,
  repository: Repository,
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<ObjectStore> {
  const state = context.registry.get(repository.commonDir);
  if (state) {
    await context.ensureRepository(state, token, nested(progress));
    return state.store;
  }
  const store = new ObjectStore(repository, context.loader.modelStore);
  for (const pack of store.packs) {
    throwIfCancelled(token);
    await context.loader.ensure(pack.files, repository.hash, { cancelled: cancelledPromise(token) });
  }
  return store;
}

/** git run by recordGitCommand, killed on cancellation, with the reads so far on the progress line. */
async function runTraced(
  params: RecordParams,
  run: {
    git: string;
    args: string[];
    cwd: string;
    store: ObjectStore;
    output: string;
    complete: number[];
    input: Buffer | undefined;
  },
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<void> {
  const { complete } = run;
  const commandLine = ['git', ...run.args].join(' ');
  let running = `running ${commandLine}…`;
  progress.report(running);
  let child: ChildProcess | undefined;
  let counter: TraceTail | undefined;
  const started = Date.now();
  // Reads so far, the time git has run and the git command it is in (an alias or a script runs
  // others), from the trace as it grows: a bounded chunk per tick (TraceTail).
  const report = (): void => {
    counter?.poll();
    const reads = counter?.reads ?? 0;
    const inside = counter?.command !== undefined && counter.command !== commandLine ? `, in ${counter.command}` : '';
    progress.report(
      `${running} ${formatCount(reads)} pack read${reads === 1 ? '' : 's'}, ${((Date.now() - started) / 1000).toFixed(1)} s${inside}`,
    );
  };
  const timer = setInterval(report, RECORD_PROGRESS_MS);
  const subscription = token.onCancellationRequested(() => {
    if (child) killProcessGroup(child);
  });
  try {
    await recordGitCommand({
      git: run.git,
      args: run.args,
      cwd: run.cwd,
      store: run.store,
      mode: params.mode,
      output: run.output,
      stdio: 'ignore',
      processGroup: true,
      ...(complete.length > 0 ? { complete } : {}),
      ...(run.input !== undefined ? { input: run.input } : {}),
      onRun: (runNumber, runs, limit) => {
        if (runs > 1)
          running = `run ${runNumber} of ${runs}: ${commandLine} at core.deltaBaseCacheLimit=${formatLimit(limit)}…`;
        report();
      },
      onSpawn: (spawned, traceFile) => {
        child = spawned;
        counter = new TraceTail(traceFile);
        if (token.isCancellationRequested) killProcessGroup(spawned);
      },
    });
  } finally {
    clearInterval(timer);
    subscription.dispose();
  }
}
