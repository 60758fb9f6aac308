/**
 * The boundary between the server and its task workers (dist/task-worker.js, one task
 * per worker): everything CPU-heavy about recordings and repack previews runs there, so that the
 * server's thread only orchestrates and answers hovers.
 *
 *   index-pack      the variants of packscope/indexPackSim over one pack's model.
 *   locality        seek distances and the page cache replay of packscope/locality.
 *   open-recording  parse a recording (GIT_TRACE_PACK_ACCESS, chunk by chunk), say what it names
 *                   (`parsed`), wait for the server to pick its repository and load the packs it
 *                   reads (`resolve`, after the model workers ran), map the reads to objects and
 *                   compact them, gather the locality inputs, and move all of it to the server
 *                   (`recording`, buffers transferred).
 *   repack-preview  the engine of src/core/repack: git pack-objects into a temporary directory, the
 *                   preview pack's model, the write-order estimate, recordings parsed and replayed on
 *                   both layouts; answers with the request's result document (`preview`). A `cancel`
 *                   message aborts it: git is stopped and the temporary directory removed before the
 *                   worker ends (terminating it outright could leave both behind).
 *   object-content  rebuild one object (its chain's deltas applied, within a budget of bytes rebuilt)
 *                   for packscope/objectContent: the object document's content and delta listing.
 *   calibrate       time git reading the pack's sampled objects (src/core/cost/calibrate.ts): the
 *                   plan and the lists' counts walk every object of the pack (over a second on
 *                   git.git's, seconds on larger ones); answers with the calibration (`calibration`),
 *                   which the server keeps. A `cancel` message stops git and ends it.
 *   sizes           where the bytes of the history go (core/report/sizes.ts): git's rev-list and
 *                   diff-tree read and parsed here, every blob sized from the store; answers with
 *                   the whole document and the blobs by path (`sizes`). A `cancel` message stops
 *                   git and ends it.
 *   concerns        git-sizer's figures (core/report/concerns.ts): every commit, tree and tag the
 *                   refs reach read from the store, no git; answers with the document (`concerns`).
 *                   It writes nothing: a cancelled request terminates it.
 *   object-paths    name every tree, blob and tag of a store as `git rev-list --objects --all` does
 *                   (core/model/object-paths.ts), read from the model cache or walked and saved
 *                   there; answers with the table and per-pack columns, buffers transferred.
 *
 * Pack models are read from the model cache the server's loader persisted them in (a few percent of
 * a build), or built in the worker when they could not be persisted.
 */
import type { Calibration } from '../../core/documents/calibration-document.ts';
import type { SizesDocument } from '../../core/documents/sizes-document.ts';
import type { PathBlobIndex } from '../../core/report/path-blobs.ts';
import type { ConcernsDocument } from '../../core/documents/concerns-document.ts';
import type { WorkerError } from '../../core/worker-error.ts';
import type { LocalityInput } from '../../core/locality/locality.ts';
import type { SeekPath } from '../../core/map/seek-path.ts';
import type { PackLocation } from '../../core/model/object-store.ts';
import type { PackFiles } from '../../core/model/pack-model.ts';
import type { Repository } from '../../core/model/repository.ts';
import type { PathWalkSummary } from '../../core/documents/object-paths-document.ts';
import type {
  IndexPackVariant,
  IndexPackVariantResult,
  PackLocalityWithQuantiles,
  PageCacheOptions,
} from '../../core/documents/simulation-documents.ts';
import type { RecordingMetadata } from '../../core/trace/recording.ts';
import type { TransferredRecording } from '../../core/trace/recording-transfer.ts';
import type { RepackPreviewParams, RepackPreviewResult } from '../../protocol/server-protocol.ts';
import type { ObjectContentBody } from '../object-content.ts';

/** A Repository as plain data (its hash algorithm by name: 'sha1' or 'sha256'). */
export type WorkerRepository = Omit<Repository, 'hash'> & { hashName: string };

/** An ObjectStore as plain data: the repository and the exact pack list the server's store has. */
export interface WorkerStore {
  repository: WorkerRepository;
  packs: PackLocation[];
  /** The model cache the server's loader persists models in. */
  cacheDir: string;
}

export interface IndexPackTask {
  kind: 'index-pack';
  files: PackFiles;
  /** 'sha1' or 'sha256'. */
  hashName: string;
  cacheDir: string | undefined;
  limit: number;
  variants: IndexPackVariant[];
  /** The pack has no .idx: the worker indexes it from its bytes first (core/format/pack-stream-index.ts). */
  withoutIdx?: boolean;
}

export interface LocalityTask {
  kind: 'locality';
  packs: LocalityInput[];
  cache: PageCacheOptions;
}

/** One pack's reads as a path over the Pack Map, with its locality figures (core/map/seek-path.ts). */
export interface SeekPathTask {
  kind: 'seek-path';
  input: LocalityInput;
  cache: PageCacheOptions;
}

export interface OpenRecordingTask {
  kind: 'open-recording';
  /** Absolute path of the recording or raw trace. */
  file: string;
}

export interface RepackPreviewTask {
  kind: 'repack-preview';
  store: WorkerStore;
  /** The request's parameters, checked by the server. */
  params: RepackPreviewParams;
}

export interface ObjectContentTask {
  kind: 'object-content';
  files: PackFiles;
  /** 'sha1' or 'sha256'. */
  hashName: string;
  cacheDir: string | undefined;
  /** The object's number in the pack (idx order). */
  object: number;
  maxContentBytes: number;
  maxInstructions: number;
}

export interface CalibrateTask {
  kind: 'calibrate';
  files: PackFiles;
  /** 'sha1' or 'sha256'. */
  hashName: string;
  cacheDir: string | undefined;
  /** The repository git runs in, and the git it runs (trusted by the server). */
  gitDir: string;
  git: string;
}

export interface ObjectPathsTask {
  kind: 'object-paths';
  store: WorkerStore;
  /** The git that may name the objects (`git rev-list --objects --all`); absent: the walk names them (an untrusted workspace runs no git). */
  git?: string;
}

/** A store's object paths as plain data: `pathOf[i]` belongs to the pack at `packs[i]` (its .pack path). */
export interface TransferredPaths {
  packs: string[];
  pathOf: Int32Array[];
  parent: Int32Array;
  start: Uint32Array;
  pool: Uint8Array;
  summary: PathWalkSummary;
  source: 'walked' | 'persisted';
}

export interface SizesTask {
  kind: 'sizes';
  store: WorkerStore;
  /** The git the server trusts (trusted-git.ts). */
  git: string;
  count: SizesDocument['count'];
  top: number;
}

export interface ConcernsTask {
  kind: 'concerns';
  store: WorkerStore;
}

export type WorkerTask =
  | IndexPackTask
  | LocalityTask
  | SeekPathTask
  | OpenRecordingTask
  | RepackPreviewTask
  | ObjectContentTask
  | ObjectPathsTask
  | CalibrateTask
  | SizesTask
  | ConcernsTask;

/** Messages from the server to a running worker. */
export type TaskWorkerRequest =
  /** open-recording, after `parsed`: map the reads onto this store (its packs' models are persisted). */
  | { kind: 'resolve'; store: WorkerStore; segment: number | undefined }
  /** repack-preview: stop git, remove the temporary directory, end; calibrate: stop git, end. */
  | { kind: 'cancel' };

/** What a parsed recording names: enough for the server to pick the repository and the packs to load. */
export interface ParsedRecordingHead {
  file: string;
  metadata: RecordingMetadata | undefined;
  packPaths: string[];
  /** The git directories the trace's git processes ran in (GIT_TRACE_SETUP), most reads first (segmentRepositories). */
  gitDirs: string[];
}

/** A failure, with what the server needs to report it as the same error the in-thread code threw. */
export type { WorkerError };

export type TaskWorkerMessage =
  | { kind: 'variant'; result: IndexPackVariantResult; objects: number }
  | { kind: 'locality'; pack: PackLocalityWithQuantiles }
  | { kind: 'seek-path'; path: SeekPath }
  /** $/progress of the request: a percentage when known, and the message. */
  | { kind: 'progress'; percentage?: number; message: string }
  /** A line for the server's log. */
  | { kind: 'log'; message: string }
  | { kind: 'parsed'; head: ParsedRecordingHead }
  /** The loaded recording and its reads' locality inputs per pack, buffers transferred (not copied). */
  | { kind: 'recording'; recording: TransferredRecording; locality: LocalityInput[] }
  | { kind: 'preview'; result: RepackPreviewResult }
  | { kind: 'object-content'; body: ObjectContentBody }
  | { kind: 'object-paths'; paths: TransferredPaths }
  | { kind: 'calibration'; calibration: Calibration }
  /** Every row (the server keeps the document and trims it per request) and the blobs by path, buffers transferred. */
  | { kind: 'sizes'; document: SizesDocument; blobs: PathBlobIndex }
  | { kind: 'concerns'; document: ConcernsDocument }
  | { kind: 'done' }
  | ({ kind: 'error' } & WorkerError);
