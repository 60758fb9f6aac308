import { encodeWorkerError } from '../worker-error.ts';
import { parentPort, workerData } from 'node:worker_threads';
import type { SimCounts } from '../documents/simulation-documents.ts';
import type { PolicyRunner } from './policy-definition.ts';
import { parsePolicy } from './policy-registry.ts';
import { simulateSegments } from './simulate.ts';
import type { SweepWorkerReply, SweepWorkerRequest, SweepWorkerData } from './sweep-protocol.ts';

/** Worker thread entry for sweeps: replays one (policy, limit) cell per request. */
const { objects, reads, segmentStarts, basis } = workerData as SweepWorkerData;
const port = parentPort!;

/** The runner's replay, each process's counts kept in `kept` as it runs. */
function keeping(runner: PolicyRunner, kept: SimCounts[]): PolicyRunner {
  return {
    ...runner,
    run: (o, segment, limit, planned) => {
      const counts = runner.run(o, segment, limit, planned);
      kept.push(counts);
      return counts;
    },
  };
}

/**
 * The runner with its replay replaced by counts another limit's replay gave (sweep.ts decided they
 * are this limit's too); everything else (exactness, bounds) is computed at this cell's limit as for
 * a fresh replay. A process of another length means the counts are not this recording's: fail.
 */
function replaying(runner: PolicyRunner, segments: SimCounts[]): PolicyRunner {
  let next = 0;
  return {
    ...runner,
    run: (_o, segment) => {
      const counts = segments[next++];
      if (counts === undefined || counts.reads !== segment.length)
        throw new Error(`internal: reused counts of process ${next} do not match its ${segment.length} reads`);
      return counts;
    },
  };
}

port.on('message', (request: SweepWorkerRequest) => {
  if (request.kind === 'stop') {
    port.close();
    return;
  }
  try {
    const runner = parsePolicy(request.policy);
    const made =
      request.kind === 'cell' && request.makePlan === true
        ? runner.planReads?.(objects, reads, segmentStarts, true)
        : undefined;
    const plan = request.kind === 'cell' ? (made ?? request.plan) : undefined;
    const kept: SimCounts[] = [];
    const replay =
      request.kind === 'reuse'
        ? replaying(runner, request.segments)
        : request.keepSegments
          ? keeping(runner, kept)
          : runner;
    const result = simulateSegments(replay, objects, reads, segmentStarts, request.limit, basis, plan);
    const segments = request.kind === 'cell' && request.keepSegments ? kept : undefined;
    port.postMessage({ kind: 'result', cell: request.cell, result, segments, plan: made } satisfies SweepWorkerReply);
  } catch (error) {
    port.postMessage({
      kind: 'failed',
      cell: request.cell,
      error: encodeWorkerError(error),
    } satisfies SweepWorkerReply);
  }
});
port.postMessage({ kind: 'ready' } satisfies SweepWorkerReply);
