/**
 * Worker thread entry (dist/index-pack-worker.js) for packscope/indexPackSim: the simulation walks
 * every object of the pack for each variant (about a second on a 300k-object pack), which must not
 * hold up hovers on the server's thread. The worker opens the model the server's loader persisted
 * (a few percent of a build; built here if it could not be persisted) and simulates each variant.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { hashAlgorithmByName } from '../core/format/hash-algorithm.ts';
import { ModelStore } from '../core/model/model-store.ts';
import type { PackFiles } from '../core/model/pack-model.ts';
import { simulateIndexPack, type IndexPackCounts, type IndexPackVariant } from '../core/sim/index-pack-sim.ts';

export interface IndexPackTask {
  files: PackFiles;
  /** 'sha1' or 'sha256'. */
  hashName: string;
  cacheDir: string | undefined;
  limit: number;
  variants: IndexPackVariant[];
}

export type IndexPackWorkerMessage =
  | { kind: 'variant'; variant: IndexPackVariant; counts: IndexPackCounts; objects: number }
  | { kind: 'done' }
  | { kind: 'error'; message: string };

function post(message: IndexPackWorkerMessage): void {
  parentPort!.postMessage(message);
}

try {
  const task = workerData as IndexPackTask;
  const hash = hashAlgorithmByName(task.hashName);
  if (!hash) throw new Error(`unknown object format ${task.hashName}`);
  const { model } = new ModelStore(task.cacheDir).load(task.files, { hash });
  for (const variant of task.variants) post({ kind: 'variant', variant, counts: simulateIndexPack(model, { limit: task.limit, variant }), objects: model.count });
  post({ kind: 'done' });
} catch (error) {
  post({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
}
