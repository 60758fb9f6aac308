import type { WorkerError } from '../worker-error.ts';
import type { SimObjects } from './sim-objects.ts';
import type { SimResult } from '../report/simulation-documents.ts';
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

export type SweepRequest = { kind: 'cell'; cell: number; policy: string; limit: number } | { kind: 'stop' };

export type SweepReply =
  | { kind: 'ready' }
  | { kind: 'result'; cell: number; result: SimResult }
  | { kind: 'failed'; cell: number; error: WorkerError };
