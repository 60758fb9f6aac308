/**
 * Worker thread entry (dist/task-worker.js) for the server's CPU-heavy work other than sweeps
 * and model builds; the tasks and messages are those of task-worker-protocol.ts, one task per
 * worker. packscope/indexPackSim walks every object of the pack for each variant (about a second on a
 * 300k-object pack), packscope/locality replays a page cache over every read (a few hundred ms on
 * 400k reads), opening a recording parses it and maps its reads to objects (a quarter of a second for
 * 400k reads on a quiet machine, seconds under load), and a repack preview builds the preview pack's
 * model and replays recordings on both layouts, and an object document may rebuild hundreds of MiB of
delta results: none of it may hold up hovers on the server's thread.
 * Models are opened from the model cache the server's loader persisted them in (a few percent of a
 * build; built here if they could not be persisted).
 */
import { encodeWorkerError } from '../../core/worker-error.ts';
import { parentPort, workerData } from 'node:worker_threads';
import { hashAlgorithmByName } from '../../core/format/hash-algorithm.ts';
import { indexPackWithoutIdx } from '../../core/format/pack-stream-index.ts';
import { formatCount, percent } from '../../common/format.ts';
import { buildPackModel } from '../../core/model/build-pack-model.ts';
import { ModelStore } from '../../core/model/model-store.ts';
import { watchListing } from '../../core/model/git-object-names.ts';
import { loadOrNamePaths, type LoadedPaths } from '../../core/model/object-paths-store.ts';
import { storeWalkInputs } from '../../core/model/object-paths.ts';
import { ObjectStore } from '../../core/model/object-store.ts';
import type { Repository } from '../../core/model/repository.ts';
import { indexPackVariant } from '../../core/report/index-pack-sim.ts';
import { localityInputs, packLocalityWithQuantiles } from '../../core/report/locality.ts';
import { seekPath } from '../../core/map/seek-path.ts';
import { parseRecordingFile, resolveRecording, segmentRepositories } from '../../core/trace/load-recording.ts';
import { recordingForTransfer } from '../../core/trace/recording-transfer.ts';
import type { TraceLog } from '../../core/trace/trace-log.ts';
import { readObjectContentBody } from '../object-content.ts';
import { runRepackPreviewTask } from './repack-preview-task.ts';
import { calibratePack } from '../../core/cost/calibrate.ts';
import { historySizes, sizesDocument } from '../../core/report/sizes.ts';
import { pathBlobIndex } from '../../core/report/path-blobs.ts';
import { concernsDocument } from '../../core/report/concerns.ts';
import type {
  CalibrateTask,
  ConcernsTask,
  SizesTask,
  OpenRecordingTask,
  RepackPreviewTask,
  WorkerTask,
  TaskWorkerMessage,
  TaskWorkerRequest,
  WorkerStore,
  ObjectPathsTask,
  TransferredPaths,
} from './task-worker-protocol.ts';

/** Progress messages at most this often (the server forwards them as $/progress). */
const PROGRESS_INTERVAL_MS = 100;

function post(message: TaskWorkerMessage, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

function repositoryOf(store: WorkerStore): Repository {
  const hash = hashAlgorithmByName(store.repository.hashName);
  if (!hash) throw new Error(`unknown object format ${store.repository.hashName}`);
  const { hashName: _, ...rest } = store.repository;
  return { ...rest, hash };
}

/** The server's store: the same repository and pack list, models read from its model cache. */
function objectStoreOf(store: WorkerStore): ObjectStore {
  return new ObjectStore(repositoryOf(store), new ModelStore(store.cacheDir), {}, store.packs);
}

/** The next message from the server. */
function nextRequest(): Promise<TaskWorkerRequest> {
  return new Promise((resolve) => parentPort!.once('message', resolve));
}

async function openRecording(task: OpenRecordingTask): Promise<void> {
  const name = task.file.slice(task.file.lastIndexOf('/') + 1);
  let lastReport = 0;
  const log: TraceLog = parseRecordingFile(task.file, (bytes, total) => {
    const now = performance.now();
    if (now - lastReport < PROGRESS_INTERVAL_MS && bytes < total) return;
    lastReport = now;
    post({
      kind: 'progress',
      percentage: percent(bytes, total),
      message: `reading ${name}`,
    });
  });
  post({
    kind: 'parsed',
    head: { file: log.file, metadata: log.metadata, packPaths: log.packPaths, gitDirs: segmentRepositories(log) },
  });
  const request = await nextRequest();
  if (request.kind !== 'resolve') return;
  const loaded = resolveRecording(log, objectStoreOf(request.store), { segment: request.segment });
  // Gathered before the transfer detaches the reads' buffers here.
  const locality = localityInputs(loaded);
  const { message, transfer } = recordingForTransfer(loaded);
  post({ kind: 'recording', recording: message, locality }, [
    ...transfer,
    ...locality.flatMap((l) => [l.offsets.buffer as ArrayBuffer, l.entryBytes.buffer as ArrayBuffer]),
  ]);
}

async function repackPreview(task: RepackPreviewTask): Promise<void> {
  const controller = new AbortController();
  parentPort!.on('message', (request: TaskWorkerRequest) => {
    if (request.kind === 'cancel') controller.abort();
  });
  const store = objectStoreOf(task.store);
  const result = await runRepackPreviewTask(
    {
      progress: (message, percentage) =>
        post(percentage === undefined ? { kind: 'progress', message } : { kind: 'progress', percentage, message }),
      log: (message) => post({ kind: 'log', message }),
      signal: controller.signal,
    },
    store.repository,
    store,
    task.params,
  );
  post({ kind: 'preview', result });
}

async function calibrate(task: CalibrateTask): Promise<void> {
  const controller = new AbortController();
  parentPort!.on('message', (request: TaskWorkerRequest) => {
    if (request.kind === 'cancel') controller.abort();
  });
  const hash = hashAlgorithmByName(task.hashName);
  if (!hash) throw new Error(`unknown object format ${task.hashName}`);
  post({ kind: 'progress', percentage: 0, message: 'calibrating: opening the pack' });
  const { model } = new ModelStore(task.cacheDir).load(task.files, { hash });
  const calibration = await calibratePack(model, {
    gitDir: task.gitDir,
    git: task.git,
    signal: controller.signal,
    onStage: (stage, done, total) =>
      post({
        kind: 'progress',
        percentage: percent(done, total),
        message: `calibrating (${stage}): ${done} of ${total} timed lists`,
      }),
  });
  post({ kind: 'calibration', calibration });
}

async function sizes(task: SizesTask): Promise<void> {
  const controller = new AbortController();
  parentPort!.on('message', (request: TaskWorkerRequest) => {
    if (request.kind === 'cancel') controller.abort();
  });
  const store = objectStoreOf(task.store);
  let lastReport = 0;
  const history = await historySizes(store, {
    git: task.git,
    count: task.count,
    signal: controller.signal,
    onCommit: (commits, total) => {
      const now = performance.now();
      if (now - lastReport < PROGRESS_INTERVAL_MS) return;
      lastReport = now;
      post({
        kind: 'progress',
        percentage: percent(commits, total),
        message: `reading the history: ${formatCount(commits)} of ${formatCount(total)} commits`,
      });
    },
  });
  const document = sizesDocument(store, history, task.top);
  const blobs = pathBlobIndex(history.pairs, store.repository.hash.size);
  post({ kind: 'sizes', document, blobs }, [
    blobs.start.buffer as ArrayBuffer,
    blobs.blobs.buffer as ArrayBuffer,
    blobs.blobIds.buffer as ArrayBuffer,
    blobs.blobCommit.buffer as ArrayBuffer,
    blobs.commitIds.buffer as ArrayBuffer,
  ]);
}

/** One synchronous pass that writes nothing: a cancelled request terminates the worker. */
function concerns(task: ConcernsTask): void {
  const store = objectStoreOf(task.store);
  post({ kind: 'progress', message: 'reading every commit, tree and tag the refs reach' });
  post({
    kind: 'concerns',
    document: concernsDocument(storeWalkInputs(store), store.repository.hash.size),
  });
}

async function objectPaths(task: ObjectPathsTask): Promise<void> {
  // A cancellation stops git (and its process group) before the worker ends.
  const controller = new AbortController();
  parentPort!.on('message', (request: TaskWorkerRequest) => {
    if (request.kind === 'cancel') controller.abort();
  });
  const store = objectStoreOf(task.store);
  const inputs = storeWalkInputs(store);
  const { repository } = store;
  let lastReport = 0;
  let stopListing: (() => void) | undefined;
  let loaded: LoadedPaths;
  try {
    loaded = await loadOrNamePaths(inputs, repository.commonDir, task.store.cacheDir, {
      signal: controller.signal,
      onGitStarted: (run) => {
        stopListing = watchListing(run, inputs, PROGRESS_INTERVAL_MS, (listed, total) =>
          post({
            kind: 'progress',
            percentage: percent(listed, total),
            message: `git rev-list has listed ${formatCount(listed)} of ${formatCount(total)} objects`,
          }),
        );
      },
      // Git names them when the server may run it and every pack is read (else git would name
      // through objects the walk cannot see).
      ...(task.git !== undefined && inputs.packs.length === store.packs.length
        ? { git: { git: task.git, gitDir: repository.gitDir, commonDir: repository.commonDir } }
        : {}),
      onProgress: ({ phase, done, total }) => {
        const now = performance.now();
        if (now - lastReport < PROGRESS_INTERVAL_MS) return;
        lastReport = now;
        post({
          kind: 'progress',
          percentage: percent(done, total),
          message: `walking ${phase} for paths: ${formatCount(done)} of ${formatCount(total)}`,
        });
      },
    });
  } finally {
    // Never left ticking: an interval would keep the worker's thread alive.
    stopListing?.();
  }
  if (loaded.rewalkedBecause)
    post({
      kind: 'log',
      message: `walked the object paths of ${store.repository.commonDir} again: ${loaded.rewalkedBecause}`,
    });
  if (loaded.walkedBecause)
    post({
      kind: 'log',
      message: `git did not name the objects of ${repository.commonDir}, the walk did: ${loaded.walkedBecause}`,
    });
  if (loaded.notSavedBecause) post({ kind: 'log', message: loaded.notSavedBecause });
  const { table, pathOf, summary } = loaded.paths;
  const paths: TransferredPaths = {
    packs: inputs.packs.map((pack) => pack.files.pack),
    pathOf,
    parent: table.parent,
    start: table.start,
    pool: table.pool,
    summary,
    source: loaded.source,
  };
  // A persisted file's arrays are views of one buffer: it moves once.
  const buffers = new Set<ArrayBuffer>();
  for (const view of [...pathOf, table.parent, table.start, table.pool])
    if (view.buffer instanceof ArrayBuffer) buffers.add(view.buffer);
  post({ kind: 'object-paths', paths }, [...buffers]);
}

async function run(task: WorkerTask): Promise<void> {
  switch (task.kind) {
    case 'locality':
      for (const input of task.packs) post({ kind: 'locality', pack: packLocalityWithQuantiles(input, task.cache) });
      return;
    case 'seek-path':
      post({ kind: 'seek-path', path: seekPath(task.input, task.cache) });
      return;
    case 'index-pack': {
      const hash = hashAlgorithmByName(task.hashName);
      if (!hash) throw new Error(`unknown object format ${task.hashName}`);
      const model = task.withoutIdx
        ? buildPackModel(task.files, {
            index: indexPackWithoutIdx(task.files.pack, {
              hash,
              // done runs over 2 × count: the pass that reads every object, then the one resolving deltas.
              onProgress: (done, total) => {
                const count = total / 2;
                const message =
                  done <= count
                    ? `indexing (no .idx): ${formatCount(done)} of ${formatCount(count)} objects read`
                    : `indexing (no .idx): ${formatCount(done - count)} of ${formatCount(count)} objects resolved`;
                post({ kind: 'progress', percentage: Math.floor((done / total) * 100), message });
              },
            }),
            hash,
          })
        : new ModelStore(task.cacheDir).load(task.files, { hash }).model;
      for (const variant of task.variants)
        post({ kind: 'variant', result: indexPackVariant(model, task.limit, variant), objects: model.count });
      return;
    }
    case 'open-recording':
      return openRecording(task);
    case 'repack-preview':
      return repackPreview(task);
    case 'object-paths':
      return objectPaths(task);
    case 'calibrate':
      return calibrate(task);
    case 'sizes':
      return sizes(task);
    case 'concerns':
      return concerns(task);
    case 'object-content': {
      const hash = hashAlgorithmByName(task.hashName);
      if (!hash) throw new Error(`unknown object format ${task.hashName}`);
      const { model } = new ModelStore(task.cacheDir).load(task.files, { hash });
      post({ kind: 'object-content', body: readObjectContentBody(model, task.object, task) });
      return;
    }
  }
}

run(workerData as WorkerTask).then(
  () => {
    post({ kind: 'done' });
    parentPort!.close();
  },
  (error: unknown) => {
    post({ kind: 'error', ...encodeWorkerError(error) });
    parentPort!.close();
  },
);
