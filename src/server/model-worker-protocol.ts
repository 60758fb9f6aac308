/**
 * The boundary between the server and its model workers (worker_threads). A worker builds one pack
 * model and persists it in the model cache; the server then opens the persisted file, which costs a
 * few percent of a build, so the CPU-heavy scan never runs on the thread that answers hovers.
 */
import type { PackFiles } from '../core/model/pack-model.ts';

export interface BuildModelTask {
  files: PackFiles;
  /** 'sha1' or 'sha256'. */
  hashName: string;
  cacheDir: string;
}

export type ModelWorkerMessage =
  | { kind: 'progress'; done: number; total: number }
  | { kind: 'done'; source: 'built' | 'persisted'; persistedFile: string | undefined; rebuiltBecause?: string }
  | { kind: 'error'; message: string; code?: string };
