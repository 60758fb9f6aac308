/**
 * The boundary between the server and its model workers (worker_threads). A worker builds one pack
 * model (or reads it from the model cache), persists it, computes its derived columns, and moves the
 * whole model to the server thread: nothing CPU-heavy runs on the thread that answers hovers.
 */
import type { WorkerError } from '../../core/worker-error.ts';
import type { TransferredModel } from '../../core/model/model-transfer.ts';
import type { PackFiles } from '../../core/model/pack-model.ts';
import type { BuildStage, ParallelBuild } from '../../core/model/build-pack-model.ts';

export interface BuildModelTask {
  files: PackFiles;
  /** 'sha1' or 'sha256'. */
  hashName: string;
  cacheDir: string;
  /** Date.now() when the server created the worker: the worker's start-up is part of a load's time. */
  requestedAt: number;
  /** A build's scan split with this many scan workers (places the server's thread budget gave it). */
  parallel?: ParallelBuild;
}

/** Milliseconds of each part of a load, for the output channel's breakdown. */
export interface LoadTimings {
  workerStart: number;
  idx: number;
  /** Reading and checking a persisted model (0 when it was built). */
  stored: number;
  /** Scanning the pack and resolving chains (0 when the persisted model was used). */
  build: number;
  /** Derived columns checked (a model file's) or computed, and packed for the move to the server thread. */
  derived: number;
}

export type ModelWorkerMessage =
  | { kind: 'progress'; done: number; total: number }
  /** A new stage of the load, with the pack's object count. */
  | { kind: 'stage'; stage: BuildStage; objects: number }
  /** The model itself, derived columns included, its buffers transferred (not copied). */
  | {
      kind: 'done';
      source: 'built' | 'persisted';
      persistedFile: string | undefined;
      rebuiltBecause?: string;
      /** Whether the derived columns were the model file's or computed. */
      derived: 'stored' | 'computed';
      model: TransferredModel;
      timings: LoadTimings;
    }
  | ({ kind: 'error' } & WorkerError);
