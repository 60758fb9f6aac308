/**
 * The boundary between the server and its model workers (worker_threads). A worker builds one pack
 * model (or reads it from the model cache), persists it, computes its derived columns, and moves the
 * whole model to the server thread: nothing CPU-heavy runs on the thread that answers hovers.
 */
import type { TransferredModel } from '../../core/model/model-transfer.ts';
import type { PackFiles } from '../../core/model/pack-model.ts';

export interface BuildModelTask {
  files: PackFiles;
  /** 'sha1' or 'sha256'. */
  hashName: string;
  cacheDir: string;
}

export type ModelWorkerMessage =
  | { kind: 'progress'; done: number; total: number }
  /** The model itself, derived columns included, its buffers transferred (not copied). */
  | { kind: 'done'; source: 'built' | 'persisted'; persistedFile: string | undefined; rebuiltBecause?: string; model: TransferredModel }
  | { kind: 'error'; message: string; code?: string };
