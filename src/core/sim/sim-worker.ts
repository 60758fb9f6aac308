import { encodeWorkerError } from '../worker-error.ts';
import { parentPort, workerData } from 'node:worker_threads';
import { parsePolicy } from './policy-registry.ts';
import { simulateSegments } from './simulate.ts';
import type { SweepWorkerReply, SweepWorkerRequest, SweepWorkerData } from './sweep-protocol.ts';

/** Worker thread entry for sweeps: replays one (policy, limit) cell per request. */
const { objects, reads, segmentStarts, basis } = workerData as SweepWorkerData;
const port = parentPort!;
port.on('message', (request: SweepWorkerRequest) => {
  if (request.kind === 'stop') {
    port.close();
    return;
  }
  try {
    const result = simulateSegments(parsePolicy(request.policy), objects, reads, segmentStarts, request.limit, basis);
    port.postMessage({ kind: 'result', cell: request.cell, result } satisfies SweepWorkerReply);
  } catch (error) {
    port.postMessage({
      kind: 'failed',
      cell: request.cell,
      error: encodeWorkerError(error),
    } satisfies SweepWorkerReply);
  }
});
port.postMessage({ kind: 'ready' } satisfies SweepWorkerReply);
