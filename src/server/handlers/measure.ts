/** `packscope/measure`: a git command timed at several core.deltaBaseCacheLimit values. */
import { neededCompletion } from '../../common/bound-width.ts';
import { errorMessage } from '../../common/error-message.ts';
import * as fs from 'node:fs';
import {
  LSPErrorCodes,
  ResponseError,
  type CancellationToken,
  type WorkDoneProgressReporter,
} from 'vscode-languageserver/node';
import {
  CALIBRATION_TUNABLES,
  cachedCalibration,
  calibrationFile,
  saveCalibration,
} from '../../core/cost/calibrate.ts';
import { cellReadSeconds, type CellCounts } from '../../core/cost/cost-model.ts';
import type { Calibration, MeasuredCommand } from '../../core/documents/calibration-document.ts';
import type { PackModel } from '../../core/model/pack-model.ts';
import type { ObjectStore } from '../../core/model/object-store.ts';
import type { LoadedRecording } from '../../core/trace/load-recording.ts';
import { fitMeasuredSplit } from '../../common/measured-split-fit.ts';
import { sameCommand, withMeasuredCommand } from '../../core/cost/measured-split.ts';
import { gitDirFor, packToCalibrate } from '../../core/cost/time-plan.ts';
import { gitVersionOf } from '../../core/git/git-probe.ts';
import { runWithUsage, type UsageRun } from '../../core/git/child-usage.ts';
import { probeGit } from '../../core/git/run-git.ts';
import { measuredCommandRefusal } from '../../common/measured-command.ts';
import { formatLimit, percent } from '../../common/format.ts';
import {
  MeasureRequest,
  type MeasuredRuns,
  type MeasureParams,
  type MeasureResult,
} from '../../protocol/server-protocol.ts';
import { abortSignalFor, cancelledError, throwIfCancelled } from '../cancellation.ts';
import { calibrationInWorker } from '../calibration-worker.ts';
import { openRecording } from '../recording-opener.ts';
import { checkLimits, invalid } from '../request-params.ts';
import { withProgress } from '../request-progress.ts';
import { checkGitArguments, gitForWorkspace } from '../trusted-git.ts';
import { sweepJob } from '../sweep-job.ts';
import type { ServerContext } from '../server-context.ts';

/**
 * One git run, stdout discarded, stderr kept, with its wall time, CPU time and minor page faults
 * (core/git/child-usage.ts); cancellation kills git and its children.
 */
async function runGit(
  git: string,
  args: string[],
  cwd: string,
  keptHeap: boolean,
  configuredKeys: string[],
  token: CancellationToken,
): Promise<UsageRun> {
  const controller = new AbortController();
  const subscription = token.onCancellationRequested(() => controller.abort());
  try {
    // The user's own environment, as their git would run; the runner adds the table that keeps the
    // repository's configuration from running a program (core/git/no-programs.ts), every driver the
    // repository configures included.
    return await runWithUsage(git, args, {
      environment: 'inherited',
      env: keptHeap ? { GLIBC_TUNABLES: CALIBRATION_TUNABLES } : undefined,
      configuredKeys,
      cwd,
      signal: controller.signal,
    });
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') throw cancelledError();
    throw invalid(`cannot run ${git}: ${errorMessage(error)}`);
  } finally {
    subscription.dispose();
  }
}

/**
 * The keys the repository's own configuration files set (scope local or worktree, with what they
 * include), read with the runner's table applied (reading configuration runs nothing): the drivers
 * among them are overridden for the measured runs. Drivers of the user's global and system files
 * stay: the user configured those.
 */
async function repositoryConfigKeys(git: string, cwd: string): Promise<string[]> {
  const run = await probeGit(git, ['config', '--list', '-z', '--name-only', '--show-scope'], {
    cwd,
    environment: 'inherited',
  });
  if (run.status !== 0)
    throw invalid(`cannot read the configuration in ${cwd}: ${run.stderr.trim() || 'git printed nothing'}`);
  const fields = run.stdout.split('\0');
  const keys: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2)
    if (fields[i] === 'local' || fields[i] === 'worktree') keys.push(fields[i + 1]!);
  return keys;
}

export function registerMeasureHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(MeasureRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Measuring git', token, async (progress): Promise<MeasureResult> => {
        const gitArgs = checkGitArguments(params.args);
        const git = gitForWorkspace(params.git, context.settings, 'Measure for real');
        // A recording names the command, and a recording is hostile: only commands that read run.
        const refusal = measuredCommandRefusal(gitArgs);
        if (refusal !== undefined) throw invalid(refusal);
        const limits = checkLimits(params.limits);
        if (limits.length === 0) throw invalid('no limits given');
        if (!Number.isInteger(params.runs) || params.runs < 1) throw invalid('runs must be a positive integer');
        if (typeof params.cwd !== 'string') throw invalid('no working directory given');
        const cwd = context.readRules.check(params.cwd, 'working directory');
        if (!fs.existsSync(cwd)) throw invalid(`${cwd}: no such directory`);
        const version = await gitVersionOf(git);
        const configuredKeys = await repositoryConfigKeys(git, cwd);
        const keptHeap = params.keptHeap === true;
        const heaps = keptHeap ? [false, true] : [false];
        const total = limits.length * params.runs * heaps.length;
        let done = 0;
        const results: MeasureResult['results'] = [];
        for (const limit of limits) {
          const runs = heaps.map((): MeasuredRuns => ({
            seconds: [],
            bestSeconds: 0,
            cpuSeconds: [],
            minorFaults: [],
          }));
          for (let run = 1; run <= params.runs; run++) {
            // The two heaps in turn, run by run: a burst of other load lands on both alike.
            for (const [h, kept] of heaps.entries()) {
              throwIfCancelled(token);
              progress.report(
                percent(done, total),
                `core.deltaBaseCacheLimit=${formatLimit(limit)}: run ${run} of ${params.runs}${kept ? ', kept heap' : ''}`,
              );
              const args = ['-c', `core.deltaBaseCacheLimit=${limit}`, ...gitArgs];
              const result = await runGit(git, args, cwd, kept, configuredKeys, token);
              throwIfCancelled(token);
              if (result.status !== 0) {
                const how = result.signal ? `killed by ${result.signal}` : `exit status ${result.status}`;
                throw new ResponseError(
                  LSPErrorCodes.RequestFailed,
                  `git ${args.join(' ')} failed (${how}): ${result.stderr.trim() || 'no message'}`,
                );
              }
              runs[h]!.seconds.push(result.wallSeconds);
              runs[h]!.cpuSeconds.push(result.cpuSeconds);
              runs[h]!.minorFaults.push(result.minorFaults);
              done++;
            }
          }
          for (const r of runs) r.bestSeconds = Math.min(...r.seconds);
          results.push({ limit, ...runs[0]!, ...(keptHeap ? { keptHeap: runs[1]! } : {}) });
        }
        progress.report(100, `${total} runs`);
        const heap = keptHeap ? { heapTunables: CALIBRATION_TUNABLES } : {};
        if (params.recording === undefined) return { gitVersion: version, results, ...heap };
        // The split kept is of the command as it runs for the user: the default heap's runs.
        const kept = await keepMeasuredSplit(
          context,
          params.recording,
          { args: gitArgs, cwd, gitVersion: version, runs: params.runs, git },
          results,
          token,
          progress,
        );
        return { gitVersion: version, results, ...heap, kept };
      }),
    ),
  );
}

/**
 * The split of the command's time its runs imply (measured = non-read + scale · predicted reads,
 * src/core/cost/measured-split.ts), kept with the calibration of the recording's largest pack so
 * that later time estimates of this command predict the whole command from it. The
 * runs stand whatever happens here: a failure is the note, not the request's error.
 */
async function keepMeasuredSplit(
  context: ServerContext,
  recording: NonNullable<MeasureParams['recording']>,
  command: { args: string[]; cwd: string; gitVersion: string; runs: number; git: string },
  results: MeasureResult['results'],
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<NonNullable<MeasureResult['kept']>> {
  try {
    if (typeof recording !== 'object' || recording === null || typeof recording.file !== 'string')
      throw invalid('recording must name a file');
    const { loaded } = await openRecording(
      context,
      { file: recording.file, ...(recording.segment === undefined ? {} : { segment: recording.segment }) },
      token,
      progress,
    );
    const m = loaded.log.metadata;
    if (!m) return { split: null, file: null, note: 'not kept: a raw trace names no command to keep it for' };
    if (!sameCommand({ args: m.command, cwd: m.cwd }, command)) {
      return { split: null, file: null, note: 'not kept: what ran is not the recording’s own command' };
    }
    const { store, model, calibration, points } = await pricedPoints(
      context,
      loaded,
      command.git,
      results,
      token,
      progress,
    );
    const fit = fitMeasuredSplit(
      points.map((p) => ({ limit: p.limit, reads: p.predictedReadSeconds, measured: p.bestSeconds })),
    );
    const split = fit ? { nonReadSeconds: fit.nonReadSeconds, readScale: fit.readScale } : null;
    // Kept under the recording's own command, as time views look it up (time-plan.ts).
    const entry: MeasuredCommand = {
      args: [...m.command],
      cwd: m.cwd,
      date: new Date().toISOString(),
      gitVersion: command.gitVersion,
      runs: command.runs,
      points,
      split,
    };
    if (store.modelCacheDirectory === undefined)
      return { split, file: null, note: 'not kept: PackScope’s cache directory is off' };
    if (split === null)
      return {
        split,
        file: null,
        note: 'not kept: the runs cannot tell reading from the rest (fewer than two limits whose predicted reads differ)',
      };
    const file = calibrationFile(store.modelCacheDirectory, calibration.key);
    saveCalibration(file, withMeasuredCommand(calibration, entry));
    return {
      split,
      file,
      note: `kept with the calibration of ${model.files.pack}: time estimates of this command now start from these runs`,
    };
  } catch (error) {
    throwIfCancelled(token);
    return { split: null, file: null, note: `not kept: ${errorMessage(error)}` };
  }
}

/**
 * Each run's limit and best time beside the time the recording's reads are predicted to take at
 * that limit: the replay at the measured limits, priced by the calibration of its largest pack.
 */
async function pricedPoints(
  context: ServerContext,
  loaded: LoadedRecording,
  git: string,
  results: MeasureResult['results'],
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<{ store: ObjectStore; model: PackModel; calibration: Calibration; points: MeasuredCommand['points'] }> {
  progress.report(100, 'pricing the recording’s reads at the measured limits');
  const limits = results.map((r) => r.limit);
  const signal = abortSignalFor(token);
  const cells = (await sweepJob(context, loaded, ['git'], limits, token)) as unknown as CellCounts[];
  throwIfCancelled(token);
  // Every later time estimate of this command would start from the split: it rests on no cell
  // bounded too widely (and no calibration is run for one that would not be kept).
  const needs = neededCompletion(cells);
  if (needs !== undefined) throw new Error(`the split of this command's time ${needs.sentence}`);
  const store = loaded.store;
  const top = store.repository.workTree ?? store.repository.gitDir;
  const model = packToCalibrate(store, top);
  const { calibration } = await cachedCalibration(
    model,
    store.modelCacheDirectory,
    { gitDir: gitDirFor(store, top), git, signal },
    false,
    calibrationInWorker(context, token, progress),
  );
  const points = results.map((r) => {
    const cell = cells.find((c) => c.policy === 'git' && c.limit === r.limit);
    if (!cell) throw new Error(`the replay lacks git's policy at ${formatLimit(r.limit)}`);
    return {
      limit: r.limit,
      bestSeconds: r.bestSeconds,
      predictedReadSeconds: cellReadSeconds(cell, calibration.parameters).seconds,
    };
  });
  return { store, model, calibration, points };
}
