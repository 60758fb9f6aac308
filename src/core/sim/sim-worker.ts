import { encodeWorkerError } from '../worker-error.ts';
import { parentPort, workerData } from 'node:worker_threads';
import { parsePolicy } from './policy-registry.ts';
import { simulateSegments } from './simulate.ts';
import type { SweepReply, SweepRequest, SweepWorkerData } from './sweep-protocol.ts';

/** Worker thread entry for sweeps: replays one (policy, limit) cell per request. */
const { objects, reads, segmentStarts, basis } = workerData as SweepWorkerData;
const port = parentPort!;
port.on('message', (request: SweepRequest) => {
  if (request.kind === 'stop') {
    port.close();
    return;
  }
  try {
    const result = simulateSegments(parsePolicy(request.policy), objects, reads, segmentStarts, request.limit, basis);
    port.postMessage({ kind: 'result', cell: request.cell, result } satisfies SweepReply);
  } catch (error) {
    port.postMessage({ kind: 'failed', cell: request.cell, error: encodeWorkerError(error) } satisfies SweepReply);
  }
});
port.postMessage({ kind: 'ready' } satisfies SweepReply);
