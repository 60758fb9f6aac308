import type { WorkerError } from '../worker-error.ts';
import type { SimObjects } from './sim-objects.ts';
import type { SimResult } from '../documents/simulation-documents.ts';
import type { RecordingBasis } from './simulate.ts';

/** Messages between the sweep and its worker threads (one module per boundary). */
export interface SweepWorkerData {
  /** Arrays backed by SharedArrayBuffers: every worker reads the same memory. */
  objects: SimObjects;
  reads: Int32Array;
  /** First read of each git process (segment); each starts with an empty cache. */
  segmentStarts: number[];
  /** What the recording says about reads it may hide: each cell's exactness and bounds. */
  basis: RecordingBasis;
}

/** To a sweep worker: one cell to replay, or stop (the LSP's packscope/sweep is SweepRequest, server-protocol.ts). */
export type SweepWorkerRequest = { kind: 'cell'; cell: number; policy: string; limit: number } | { kind: 'stop' };

/** From a sweep worker. */
export type SweepWorkerReply =
  | { kind: 'ready' }
  | { kind: 'result'; cell: number; result: SimResult }
  | { kind: 'failed'; cell: number; error: WorkerError };
