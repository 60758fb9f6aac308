import { availableParallelism } from 'node:os';
import type { CancellationToken } from 'vscode-languageserver/node';
import type { SimResult } from '../core/documents/simulation-documents.ts';
import { sweepRecording } from '../core/report/simulation.ts';
import type { LoadedRecording } from '../core/trace/load-recording.ts';
import { abortSignalFor } from './cancellation.ts';
import type { ServerContext } from './server-context.ts';

/**
 * A sweep of `policies` × `limits` over a recording, as a job of the work queue: one worker thread
 * per cell up to one per core, as many as the thread budget grants (thread-budget.ts). A sweep left
 * to its own default ran one thread per core on the one place its job had taken. `onStart` runs
 * once the places are granted (the request's "0 of N cells").
 */
export function sweepJob(
  context: ServerContext,
  loaded: LoadedRecording,
  policies: string[],
  limits: number[],
  token: CancellationToken,
  progress: { onStart?: () => void; onProgress?: (done: number, all: number) => void } = {},
): Promise<SimResult[]> {
  return context.work.run(
    'sweep',
    token,
    (threads) => {
      progress.onStart?.();
      return sweepRecording(loaded, policies, limits, {
        workerScript: context.bundledScript('sim-worker.js'),
        threads,
        signal: abortSignalFor(token),
        ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
      });
    },
    Math.min(policies.length * limits.length, availableParallelism()),
  );
}
