import { encodeWorkerError } from '../../core/worker-error.ts';
import * as fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { hashAlgorithmByName } from '../../core/format/hash-algorithm.ts';
import { ModelStore, readEveryColumn } from '../../core/model/model-store.ts';
import { modelForTransfer } from '../../core/model/model-transfer.ts';
import type { BuildStage } from '../../core/model/build-pack-model.ts';
import type { BuildModelTask, LoadTimings, ModelWorkerMessage } from './model-worker-protocol.ts';

/** Progress messages at most this often: the server forwards them as $/progress. */
const PROGRESS_INTERVAL_MS = 150;

function post(message: ModelWorkerMessage, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

function run(task: BuildModelTask): void {
  const hash = hashAlgorithmByName(task.hashName);
  if (!hash) throw new Error(`unknown object format ${task.hashName}`);
  const begun = performance.now();
  const workerStart = Math.max(0, Date.now() - task.requestedAt);
  const store = new ModelStore(task.cacheDir, undefined, task.parallel ? { parallel: task.parallel } : {});
  let lastReport = 0;
  // Stage boundaries, for the timings: the idx is read when 'index' arrives; then either a stored
  // model is read and checked ('stored') or the pack is scanned ('objects', 'chains').
  const marks: Partial<Record<BuildStage, number>> = {};
  const loaded = store.load(task.files, {
    hash,
    onStage: (stage, objects) => {
      marks[stage] ??= performance.now();
      post({ kind: 'stage', stage, objects });
    },
    onProgress: (done, total) => {
      const now = Date.now();
      if (now - lastReport < PROGRESS_INTERVAL_MS) return;
      lastReport = now;
      post({ kind: 'progress', done, total });
    },
  });
  // A stored model's columns are read when first used: all of them now, as the stored load's time.
  if (loaded.source === 'persisted') readEveryColumn(loaded.model);
  const file = store.fileFor(loaded.model.index);
  const persistedFile = fs.existsSync(file) ? file : undefined;
  const loadedAt = performance.now();
  const { message, transfer } = modelForTransfer(loaded.model);
  const idxAt = marks.index ?? begun;
  const timings: LoadTimings = {
    workerStart,
    idx: idxAt - begun,
    stored: marks.stored !== undefined && loaded.source === 'persisted' ? loadedAt - marks.stored : 0,
    build: loaded.source === 'built' ? loadedAt - (marks.objects ?? idxAt) : 0,
    derived: performance.now() - loadedAt,
  };
  post(
    {
      kind: 'done',
      source: loaded.source,
      persistedFile,
      ...(loaded.rebuiltBecause === undefined ? {} : { rebuiltBecause: loaded.rebuiltBecause }),
      derived: loaded.model.derivedSource,
      model: message,
      timings,
    },
    transfer,
  );
}

try {
  run(workerData as BuildModelTask);
} catch (error) {
  post({ kind: 'error', ...encodeWorkerError(error) });
}
