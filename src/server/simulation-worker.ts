/**
 * Worker thread entry (dist/simulation-worker.js) for the server's simulations that are not sweeps:
 * packscope/indexPackSim walks every object of the pack for each variant (about a second on a
 * 300k-object pack) and packscope/locality replays a page cache over every read (a few hundred ms on
 * 400k reads); neither may hold up hovers on the server's thread. For index-pack, the worker opens the
 * model the server's loader persisted (a few percent of a build; built here if it could not be
 * persisted). One task per worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { hashAlgorithmByName } from '../core/format/hash-algorithm.ts';
import { packLocality, percentile, type LocalityInput, type PackLocality, type PageCacheOptions } from '../core/locality/locality.ts';
import { ModelStore } from '../core/model/model-store.ts';
import type { PackFiles } from '../core/model/pack-model.ts';
import { simulateIndexPack, type IndexPackCounts, type IndexPackVariant } from '../core/sim/index-pack-sim.ts';

export interface IndexPackTask {
  kind: 'index-pack';
  files: PackFiles;
  /** 'sha1' or 'sha256'. */
  hashName: string;
  cacheDir: string | undefined;
  limit: number;
  variants: IndexPackVariant[];
}

export interface LocalityTask {
  kind: 'locality';
  packs: LocalityInput[];
  cache: PageCacheOptions;
}

export type SimulationTask = IndexPackTask | LocalityTask;

/** A pack's locality plus the seek distances at p = 0, 1, …, 100 (nearest rank, as the percentiles). */
export type PackLocalityWithQuantiles = PackLocality & { distanceQuantiles: number[] };

export type SimulationWorkerMessage =
  | { kind: 'variant'; variant: IndexPackVariant; counts: IndexPackCounts; objects: number }
  | { kind: 'locality'; pack: PackLocalityWithQuantiles }
  | { kind: 'done' }
  | { kind: 'error'; message: string };

function post(message: SimulationWorkerMessage): void {
  parentPort!.postMessage(message);
}

function localityWithQuantiles(input: LocalityInput, cache: PageCacheOptions): PackLocalityWithQuantiles {
  const result = packLocality(input, cache);
  // The distances packLocality sorts, at every whole percent.
  const { offsets } = input;
  const distances = new Float64Array(Math.max(0, offsets.length - 1));
  for (let i = 1; i < offsets.length; i++) distances[i - 1] = Math.abs(offsets[i]! - offsets[i - 1]!);
  distances.sort();
  return { ...result, distanceQuantiles: Array.from({ length: 101 }, (_, p) => percentile(distances, p)) };
}

function run(task: SimulationTask): void {
  if (task.kind === 'locality') {
    for (const input of task.packs) post({ kind: 'locality', pack: localityWithQuantiles(input, task.cache) });
    return;
  }
  const hash = hashAlgorithmByName(task.hashName);
  if (!hash) throw new Error(`unknown object format ${task.hashName}`);
  const { model } = new ModelStore(task.cacheDir).load(task.files, { hash });
  for (const variant of task.variants) post({ kind: 'variant', variant, counts: simulateIndexPack(model, { limit: task.limit, variant }), objects: model.count });
}

try {
  run(workerData as SimulationTask);
  post({ kind: 'done' });
} catch (error) {
  post({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
}
