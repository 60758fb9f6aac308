import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { SimObjects } from './sim-objects.ts';
import { UNKNOWN_BASIS, type RecordingBasis } from './simulate.ts';
import type { SimResult } from '../documents/simulation-documents.ts';
import type { SweepWorkerReply, SweepWorkerRequest, SweepWorkerData } from './sweep-protocol.ts';

export interface SweepOptions {
  /** Path of the bundled worker (dist/sim-worker.js). */
  workerScript: string;
  threads?: number;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

function shared<T extends Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array>(array: T): T {
  const Constructor = array.constructor as new (buffer: SharedArrayBuffer) => T;
  const copy = new Constructor(new SharedArrayBuffer(array.byteLength));
  copy.set(array as never);
  return copy;
}

/** Copies the objects into shared memory so that every worker reads one copy. */
export function shareSimObjects(objects: SimObjects): SimObjects {
  return {
    count: objects.count,
    packBase: objects.packBase,
    pack: shared(objects.pack),
    offset: shared(objects.offset),
    base: shared(objects.base),
    size: shared(objects.size),
    payloadSize: shared(objects.payloadSize),
    isBlob: shared(objects.isBlob),
    depth: shared(objects.depth),
    oidPrefix: shared(objects.oidPrefix),
  };
}

/**
 * Every policy at every limit over the same reads, cells handed to worker threads as they become
 * free (a Belady cell costs several LRU cells). Results come back in (limit, policy) order.
 */
export async function runSweep(
  objects: SimObjects,
  reads: Int32Array,
  segmentStarts: number[],
  policies: string[],
  limits: number[],
  options: SweepOptions,
  basis: RecordingBasis = UNKNOWN_BASIS,
): Promise<SimResult[]> {
  const cells = limits.flatMap((limit) => policies.map((policy) => ({ policy, limit })));
  const results: SimResult[] = new Array(cells.length);
  const threads = Math.max(1, Math.min(options.threads ?? availableParallelism(), cells.length));
  const data: SweepWorkerData = { objects: shareSimObjects(objects), reads: shared(reads), segmentStarts, basis };
  let next = 0;
  let done = 0;
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      if (cells.length === 0) return resolve();
      const abort = (): void => reject(new Error('sweep cancelled'));
      if (options.signal?.aborted) return abort();
      options.signal?.addEventListener('abort', abort, { once: true });
      const dispatch = (worker: Worker): void => {
        if (next >= cells.length) {
          worker.postMessage({ kind: 'stop' } satisfies SweepWorkerRequest);
          return;
        }
        const cell = next++;
        worker.postMessage({ kind: 'cell', cell, ...cells[cell]! } satisfies SweepWorkerRequest);
      };
      for (let t = 0; t < threads; t++) {
        const worker = new Worker(options.workerScript, { workerData: data });
        workers.push(worker);
        worker.on('message', (reply: SweepWorkerReply) => {
          if (reply.kind === 'failed') {
            reject(new Error(`${cells[reply.cell]!.policy} at ${cells[reply.cell]!.limit}: ${reply.error.message}`));
            return;
          }
          if (reply.kind === 'result') {
            results[reply.cell] = reply.result;
            done++;
            options.onProgress?.(done, cells.length);
            if (done === cells.length) resolve();
          }
          dispatch(worker);
        });
        worker.on('error', reject);
      }
    });
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  return results;
}
