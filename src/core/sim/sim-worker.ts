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

/**
 * The runner's replay, each process's counts kept in `kept` as it runs, and how many of its
 * evictions the limit made added to `limitEvictions[0]` (every eviction, unless the policy says).
 */
function keeping(runner: PolicyRunner, kept: SimCounts[], limitEvictions: [number]): PolicyRunner {
  return {
    ...runner,
    run: (o, segment, limit, planned) => {
      const replay = runner.replayWithLimitEvictions?.(o, segment, limit, planned);
      const counts = replay?.counts ?? runner.run(o, segment, limit, planned);
      kept.push(counts);
      limitEvictions[0] += replay?.limitEvictions ?? counts.evictions;
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
    const limitEvictions: [number] = [0];
    const replay =
      request.kind === 'reuse'
        ? replaying(runner, request.segments)
        : request.keepSegments
          ? keeping(runner, kept, limitEvictions)
          : runner;
    const result = simulateSegments(replay, objects, reads, segmentStarts, request.limit, basis, plan);
    const keptSegments = request.kind === 'cell' && request.keepSegments;
    port.postMessage({
      kind: 'result',
      cell: request.cell,
      result,
      segments: keptSegments ? kept : undefined,
      limitEvictions: keptSegments ? limitEvictions[0] : undefined,
      plan: made,
    } satisfies SweepWorkerReply);
  } catch (error) {
    port.postMessage({
      kind: 'failed',
      cell: request.cell,
      error: encodeWorkerError(error),
    } satisfies SweepWorkerReply);
  }
});
port.postMessage({ kind: 'ready' } satisfies SweepWorkerReply);
