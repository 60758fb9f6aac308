/** `packscope/sweep` and `packscope/locality`: a recording replayed over policies and limits, and its seek locality. */
import { sweepRecording } from '../../core/report/simulation.ts';
import type { PackLocalityWithQuantiles } from '../../core/report/simulation-documents.ts';
import { parsePolicy } from '../../core/sim/policy-registry.ts';
import { LocalityRequest, SweepRequest, type LocalityResult, type SweepResult } from '../../protocol/server-protocol.ts';
import { abortSignalFor, throwIfCancelled } from '../cancellation.ts';
import { openRecording } from '../recording-opener.ts';
import { checkLimits, invalid } from '../request-params.ts';
import { percent, withProgress } from '../request-progress.ts';
import type { ServerContext } from '../server-context.ts';
import { runSimulationWorker } from '../workers/simulation-worker-client.ts';

export function registerSimulationHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(SweepRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Sweeping', token, async (progress): Promise<SweepResult> => {
        if (!Array.isArray(params.policies) || params.policies.length === 0) throw invalid('no policies given');
        for (const policy of params.policies) parsePolicy(String(policy)); // unknown policies fail before any work
        const limits = checkLimits(params.limits);
        if (limits.length === 0) throw invalid('no limits given');
        const { loaded, info } = await openRecording(context, params, token, progress);
        throwIfCancelled(token);
        const total = limits.length * params.policies.length;
        progress.report(0, `0 of ${total} cells`);
        const results = await sweepRecording(loaded, params.policies, limits, {
          workerScript: context.bundledScript('sim-worker.js'),
          signal: abortSignalFor(token),
          onProgress: (done, all) => progress.report(percent(done, all), `${done} of ${all} cells`),
        });
        return { recording: info, results };
      }),
    ),
  );

  connection.onRequest(LocalityRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Measuring locality', token, async (progress): Promise<LocalityResult> => {
        const cacheMiB = params.cacheMiB ?? 256;
        const readaheadKiB = params.readaheadKiB ?? 128;
        if (!(typeof cacheMiB === 'number' && cacheMiB > 0) || !(typeof readaheadKiB === 'number' && readaheadKiB >= 0)) {
          throw invalid('cacheMiB must be positive and readaheadKiB not negative');
        }
        const { locality: inputs, info } = await openRecording(context, params, token, progress);
        throwIfCancelled(token);
        const packs: PackLocalityWithQuantiles[] = [];
        progress.report(0, 'seek distances and page cache');
        await runSimulationWorker(context.bundledScript('simulation-worker.js'), { kind: 'locality', packs: inputs, cache: { cacheMiB, readaheadKiB } }, token, (message) => {
          if (message.kind !== 'locality') return;
          packs.push(message.pack);
          progress.report(percent(packs.length, inputs.length), `${packs.length} of ${inputs.length} packs`);
        });
        return { recording: info, pageCache: { cacheMiB, readaheadKiB }, packs };
      }),
    ),
  );
}
