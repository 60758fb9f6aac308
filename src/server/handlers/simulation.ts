/** `packscope/sweep` and `packscope/locality`: a recording replayed over policies and limits, and its seek locality. */
import { errorMessage } from '../../common/error-message.ts';
import { formatLimit, percent } from '../../common/format.ts';
import type { CellCounts } from '../../core/cost/cost-model.ts';
import { priceSweep, timeLimits, timePlan } from '../../core/cost/time-plan.ts';
import type { SimResult, PackLocalityWithQuantiles } from '../../core/documents/simulation-documents.ts';
import type { LoadedRecording } from '../../core/trace/load-recording.ts';
import { parsePolicy } from '../../core/sim/policy-registry.ts';
import {
  LocalityRequest,
  SweepRequest,
  type LocalityResult,
  type SweepResult,
} from '../../protocol/server-protocol.ts';
import { abortSignalFor, throwIfCancelled } from '../cancellation.ts';
import type { CancellationToken, WorkDoneProgressReporter } from 'vscode-languageserver/node';
import { calibrationInWorker } from '../calibration-worker.ts';
import { openRecording } from '../recording-opener.ts';
import { checkLimits, invalid, pageCacheParams, paramsObject, stringList } from '../request-params.ts';
import { withProgress } from '../request-progress.ts';
import { gitForWorkspace } from '../trusted-git.ts';
import { sweepJob } from '../sweep-job.ts';
import type { ServerContext } from '../server-context.ts';
import { runTaskWorker } from '../workers/task-worker-client.ts';

/** Policies of one sweep: the registry has a handful; a list this long is no sweep a view asks for. */
const MAX_POLICIES = 100;
/** The page cache replayed (1 TiB) and its readahead window (1 GiB): beyond any machine's. */

export function registerSimulationHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(SweepRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Sweeping', token, async (progress): Promise<SweepResult> => {
        const fields = paramsObject(params);
        if (!Array.isArray(fields.policies) || fields.policies.length === 0) throw invalid('no policies given');
        const policies = stringList(fields.policies.map(String), 'policies', MAX_POLICIES, 256);
        for (const policy of policies) parsePolicy(policy); // unknown policies fail before any work
        const limits = checkLimits(fields.limits);
        if (limits.length === 0) throw invalid('no limits given');
        const { loaded, info } = await openRecording(context, params, token, progress);
        throwIfCancelled(token);
        const total = limits.length * policies.length;
        const results = await sweepJob(context, loaded, policies, limits, token, {
          onStart: () => progress.report(0, `0 of ${total} cells`),
          onProgress: (done, all) => progress.report(percent(done, all), `${done} of ${all} cells`),
        });
        if (fields.time !== true) return { recording: info, results };
        return {
          recording: info,
          results,
          ...(await priceCells(context, loaded, params.segment, results, fields.replay === true, token, progress)),
        };
      }),
    ),
  );

  connection.onRequest(LocalityRequest, (params, token) =>
    context.guarded(() =>
      withProgress(
        context,
        params.workDoneToken,
        'Measuring locality',
        token,
        async (progress): Promise<LocalityResult> => {
          const { cacheMiB, readaheadKiB } = pageCacheParams(paramsObject(params));
          const { locality: inputs, info } = await openRecording(context, params, token, progress);
          throwIfCancelled(token);
          const packs: PackLocalityWithQuantiles[] = [];
          progress.report(0, 'seek distances and page cache');
          await context.work.run('locality', token, (_threads, holdPlacesUntil) =>
            runTaskWorker(
              context.bundledScript('task-worker.js'),
              { kind: 'locality', packs: inputs, cache: { cacheMiB, readaheadKiB } },
              token,
              (message) => {
                if (message.kind !== 'locality') return;
                packs.push(message.pack);
                progress.report(percent(packs.length, inputs.length), `${packs.length} of ${inputs.length} packs`);
              },
              holdPlacesUntil,
            ),
          );
          return { recording: info, pageCache: { cacheMiB, readaheadKiB }, packs };
        },
      ),
    ),
  );
}

/**
 * The sweep's time estimate: git's policy at the user's limit and the recorded one is
 * replayed too where the sweep lacks it (priced, not added to the results), and the pack is
 * calibrated by timing the configured git in a worker (cached; tens of seconds the first time on a large pack).
 * A recording that cannot be priced (a raw trace, a complete recording, one segment) gives the
 * reason instead, and the counts stand.
 */
async function priceCells(
  context: ServerContext,
  loaded: LoadedRecording,
  segment: number | undefined,
  results: SimResult[],
  replay: boolean,
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<Pick<SweepResult, 'time' | 'timeError'>> {
  try {
    const git = gitForWorkspace(undefined, context.settings, 'time estimate (it times git on the pack)');
    const plan = await timePlan(loaded, git, segment, undefined);
    const missing = timeLimits(plan).filter((limit) => !results.some((r) => r.policy === 'git' && r.limit === limit));
    const signal = abortSignalFor(token);
    const extra = missing.length === 0 ? [] : await sweepJob(context, loaded, ['git'], missing, token);
    throwIfCancelled(token);
    progress.report(100, 'calibrating the cost model (timing git on the pack)');
    const time = await priceSweep(loaded, [...results, ...extra] as unknown as CellCounts[], plan, git, formatLimit, {
      signal,
      run: calibrationInWorker(context, token, progress),
      // The replay, when asked for and not yet kept: git itself reads, the server waits on it.
      replay: replay ? 'missing' : 'kept',
      onStage: (stage, done, total) =>
        progress.report(percent(done, total), `${stage} (${done + 1} of ${total} runs of git cat-file)`),
    });
    return { time };
  } catch (error) {
    throwIfCancelled(token);
    return { timeError: errorMessage(error) };
  }
}
