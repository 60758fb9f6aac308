import type { WorkerError } from '../worker-error.ts';
import type { SimObjects } from './sim-objects.ts';
import type { SimCounts, SimResult } from '../documents/simulation-documents.ts';
import type { RecordingBasis } from './simulate.ts';
import type { ReadsPlan } from './policy-definition.ts';

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

/**
 * To a sweep worker (the LSP's packscope/sweep is SweepRequest, server-protocol.ts):
 * - `cell`: replay one (policy, limit) cell; with `keepSegments`, send back each process's counts
 *   too, so that other limits can reuse the replay (sweep.ts, LIMIT_REUSE). `plan`: the policy's
 *   plan of the recording (PolicyRunner.planReads), shared memory another cell built; with
 *   `makePlan`, build it (shared) for this cell and send it back for the policy's other cells;
 * - `reuse`: a cell whose counts are another limit's replay (`segments`, one per non-empty
 *   process, in order): only its exactness and bounds are computed, at this cell's limit;
 * - `stop`.
 */
export type SweepWorkerRequest =
  | {
      kind: 'cell';
      cell: number;
      policy: string;
      limit: number;
      keepSegments: boolean;
      plan?: ReadsPlan | undefined;
      makePlan?: boolean;
    }
  | { kind: 'reuse'; cell: number; policy: string; limit: number; segments: SimCounts[] }
  | { kind: 'stop' };

/**
 * From a sweep worker. `segments`: each process's counts, when the request kept them; `plan`: the
 * plan the request asked it to make, when the policy has one.
 */
export type SweepWorkerReply =
  | { kind: 'ready' }
  | {
      kind: 'result';
      cell: number;
      result: SimResult;
      segments?: SimCounts[] | undefined;
      /** With `segments`: how many of the replay's evictions the limit made (PolicyRunner.replayWithLimitEvictions). */
      limitEvictions?: number | undefined;
      plan?: ReadsPlan | undefined;
    }
  | { kind: 'failed'; cell: number; error: WorkerError };
