import { decodeWorkerError } from '../../core/worker-error.ts';
import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { CancelledError, fail } from '../../core/errors.ts';
import type { HashAlgorithm } from '../../core/format/hash-algorithm.ts';
import {
  PARALLEL_SCAN_MIN_OBJECTS,
  parallelBuildFrom,
  type BuildOptions,
  type BuildStage,
  type ParallelBuild,
} from '../../core/model/build-pack-model.ts';
import { peekIdxObjectCount } from '../../core/format/idx.ts';
import { ModelStore, type LoadedModel } from '../../core/model/model-store.ts';
import type { PackFiles } from '../../core/model/pack-model.ts';
import { modelFromTransfer } from '../../core/model/model-transfer.ts';
import type { BuildModelTask, ModelWorkerMessage } from './model-worker-protocol.ts';
import type { ThreadBudget } from '../thread-budget.ts';

export interface LoadObserver {
  onProgress?(done: number, total: number): void;
  /** A new stage of the load ("Reading index: 849,014 objects"). */
  onStage?(message: string): void;
  /** Resolves (or is already resolved) when the caller no longer wants the model. */
  cancelled?: Promise<void>;
  /** One of many packs loaded in a row: a small one is loaded on this thread (IN_PROCESS_PACK_BYTES). */
  bulk?: boolean;
}

export class LoadCancelled extends CancelledError {
  override readonly name = 'LoadCancelled';
}

export interface TimedModel extends LoadedModel {
  /** Milliseconds from the request that started the load to the model being usable. */
  loadMs: number;
}

/**
 * Packs up to this size, loaded in bulk (the warm-up, a request over every pack), are read or built
 * on the server's thread, one per turn of its event loop: a worker's start costs more than the
 * build (3,000 one-object packs took over 240 s through one worker each), and such a build takes
 * about a millisecond, so hovers still answer between.
 */
const IN_PROCESS_PACK_BYTES = 256 * 1024;

interface Build {
  promise: Promise<TimedModel>;
  observers: Set<LoadObserver>;
  worker: Worker | undefined;
  /** Settles once the build's worker thread (and the scan threads it started) has ended. */
  threadEnded: Promise<void>;
  lastProgress: [number, number] | undefined;
  lastStage: string | undefined;
}

/**
 * Gets pack models without blocking the server's thread: a worker builds the model and persists it
 * in the model cache; the server opens the persisted file. Builds are shared by every caller that
 * wants the same pack and stopped when the last of them cancels. Models are kept in memory, keyed by
 * the pack's path, size and mtime, so a store rebuilt after `git gc` reuses the packs that stayed.
 */
export class ModelLoader {
  private readonly loaded = new Map<string, TimedModel>();
  private readonly builds = new Map<string, Build>();
  private running = 0;
  private readonly queue: (() => void)[] = [];

  /** The ModelStore an ObjectStore reads through: in-memory models first, else the persisted file. */
  readonly modelStore: ModelStore;
  /** The model cache itself, for the small packs built on this thread. */
  private readonly persisted: ModelStore;

  constructor(
    private readonly cacheDir: string,
    private readonly workerScript: string,
    private readonly maxConcurrentBuilds: number,
    private readonly log: (message: string) => void,
    /** The server's bound on worker threads across kinds (thread-budget.ts): a build takes one place, before waiting jobs. */
    private readonly threads?: ThreadBudget,
  ) {
    this.modelStore = new MemoizingModelStore(this, log);
    this.persisted = new ModelStore(cacheDir, (message) => log(`model cache: ${message}`));
  }

  peek(files: PackFiles): TimedModel | undefined {
    const key = packKey(files.pack);
    return key === undefined ? undefined : this.loaded.get(key);
  }

  /** @internal used by MemoizingModelStore */
  remember(files: PackFiles, model: TimedModel): void {
    const key = packKey(files.pack);
    if (key !== undefined) this.loaded.set(key, model);
  }

  get directory(): string {
    return this.cacheDir;
  }

  /** Forgets models of packs no longer in `livePacks` (after a repack removed them). */
  forgetExcept(livePacks: Set<string>): void {
    for (const [key, model] of this.loaded) if (!livePacks.has(model.model.files.pack)) this.loaded.delete(key);
  }

  async ensure(files: PackFiles, hash: HashAlgorithm, observer: LoadObserver = {}): Promise<TimedModel> {
    const key = packKey(files.pack);
    if (key === undefined) throw fail('io', files.pack, undefined, 'the pack is gone (removed by git gc or repack?)');
    const ready = this.loaded.get(key);
    if (ready) return ready;
    if (observer.bulk && !this.builds.has(key) && packSize(files.pack) <= IN_PROCESS_PACK_BYTES)
      return this.loadInProcess(key, files, hash, observer);
    let build = this.builds.get(key);
    if (!build) {
      build = this.startBuild(key, files, hash);
      this.builds.set(key, build);
    }
    build.observers.add(observer);
    if (build.lastStage) observer.onStage?.(build.lastStage);
    if (build.lastProgress) observer.onProgress?.(...build.lastProgress);
    const current = build;
    const cancelled = observer.cancelled?.then(() => {
      current.observers.delete(observer);
      if (current.observers.size === 0 && this.builds.get(key) === current) {
        this.builds.delete(key);
        void current.worker?.terminate();
        current.worker = undefined;
      }
      throw new LoadCancelled('cancelled');
    });
    try {
      return await (cancelled ? Promise.race([current.promise, cancelled]) : current.promise);
    } finally {
      current.observers.delete(observer);
    }
  }

  /** A small pack's model, read from the model cache or built (and persisted) here, after letting waiting requests in. */
  private async loadInProcess(
    key: string,
    files: PackFiles,
    hash: HashAlgorithm,
    observer: LoadObserver,
  ): Promise<TimedModel> {
    const started = performance.now();
    let cancelled = false;
    void observer.cancelled?.then(() => (cancelled = true));
    await yieldToEvents();
    if (cancelled) throw new LoadCancelled('cancelled');
    const ready = this.loaded.get(key);
    if (ready) return ready;
    const loaded = this.persisted.load(files, { hash });
    if (loaded.rebuiltBecause) this.log(`rebuilt the persisted model of ${files.pack}: ${loaded.rebuiltBecause}`);
    const timed: TimedModel = { model: loaded.model, source: loaded.source, loadMs: performance.now() - started };
    this.loaded.set(key, timed);
    return timed;
  }

  private startBuild(key: string, files: PackFiles, hash: HashAlgorithm): Build {
    const started = performance.now();
    const build: Build = {
      promise: undefined as unknown as Promise<TimedModel>,
      observers: new Set(),
      worker: undefined,
      threadEnded: Promise.resolve(),
      lastProgress: undefined,
      lastStage: undefined,
    };
    let slotAt = started;
    let releaseThread: (() => void) | undefined;
    let releaseScanThreads: (() => void) | undefined;
    let parallel: ParallelBuild | undefined;
    build.promise = this.whenSlotFree()
      .then(async () => {
        if (this.threads !== undefined) releaseThread = (await this.threads.acquire(1, undefined, true)).release;
        slotAt = performance.now();
        // A big pack's scan also takes the cores free now, never waiting for them.
        const plan = this.parallelScanFor(files);
        if (plan) {
          const extra =
            this.threads === undefined
              ? { places: plan.workers, release: () => undefined }
              : this.threads.tryAcquire(plan.workers);
          if (extra) {
            releaseScanThreads = extra.release;
            parallel = { ...plan, workers: extra.places };
          }
        }
      })
      .then(() =>
        this.runWorker(build, {
          files,
          hashName: hash.name,
          cacheDir: this.cacheDir,
          requestedAt: Date.now(),
          ...(parallel ? { parallel } : {}),
        }),
      )
      .then((done) => {
        if (this.builds.get(key) !== build) throw new LoadCancelled('cancelled');
        // The worker moved the model here, derived columns included: no scan, no file read on this thread.
        const received = performance.now();
        const timed: TimedModel = {
          model: modelFromTransfer(done.model),
          source: done.source,
          loadMs: performance.now() - started,
        };
        this.loaded.set(key, timed);
        const t = done.timings;
        const ms = (n: number): string => `${Math.round(n)} ms`;
        // Where a load's time goes: a reopen can be slow in the workbench and quick in the CLI
        // (bench/README.md, "Figures the comments rely on").
        this.log(
          `model of ${path.basename(files.pack)} (${done.source}) in ${ms(timed.loadMs)}: waiting for a build slot ${ms(slotAt - started)}, ` +
            `worker start ${ms(t.workerStart)}, idx read ${ms(t.idx)}, ${done.source === 'persisted' ? `stored model read+check ${ms(t.stored)}` : `scan and chains ${ms(t.build)}`}, ` +
            `derived columns ${done.derived} ${ms(t.derived)}, moved to the server thread ${ms(performance.now() - received)}`,
        );
        return timed;
      })
      .finally(() => {
        if (this.builds.get(key) === build) this.builds.delete(key);
        // The thread places go back once the thread has ended: one still ending beside the next job's ran one over the budget.
        void build.threadEnded.then(() => {
          releaseThread?.();
          releaseScanThreads?.();
        });
        this.running--;
        this.queue.shift()?.();
      });
    // Nobody may be waiting when the last observer cancelled: never an unhandled rejection.
    build.promise.catch(() => undefined);
    return build;
  }

  /**
   * The scan worker beside the model worker, for a pack big enough to split (by its idx's count).
   * One core stays with the server's own thread, which answers hovers: on 2 cores a build's model
   * worker and a scan worker left hovers waiting for a core (the hover bench: bench/README.md,
   * "Figures the comments rely on").
   */
  private parallelScanFor(files: PackFiles): ParallelBuild | undefined {
    const plan = parallelBuildFrom(path.dirname(this.workerScript), availableParallelism() - 1);
    if (!plan) return undefined;
    let objects: number;
    try {
      objects = peekIdxObjectCount(files.idx);
    } catch {
      return undefined; // the build itself reports what is wrong with the idx
    }
    return objects >= PARALLEL_SCAN_MIN_OBJECTS ? plan : undefined;
  }

  private whenSlotFree(): Promise<void> {
    if (this.running < this.maxConcurrentBuilds) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.queue.push(() => {
        this.running++;
        resolve();
      }),
    );
  }

  private runWorker(build: Build, task: BuildModelTask): Promise<Extract<ModelWorkerMessage, { kind: 'done' }>> {
    return new Promise((resolve, reject) => {
      if (!this.isWanted(build)) {
        reject(new LoadCancelled('cancelled'));
        return;
      }
      const worker = new Worker(this.workerScript, { workerData: task });
      build.worker = worker;
      // A worker thread's scan threads end before it does: their 'exit' comes first.
      build.threadEnded = new Promise((resolve) => worker.once('exit', () => resolve()));
      let settled = false;
      worker.on('message', (message: ModelWorkerMessage) => {
        if (message.kind === 'stage') {
          build.lastStage = stageMessage(message.stage, message.objects);
          for (const observer of build.observers) observer.onStage?.(build.lastStage);
        } else if (message.kind === 'progress') {
          build.lastProgress = [message.done, message.total];
          for (const observer of build.observers) observer.onProgress?.(message.done, message.total);
        } else if (message.kind === 'done') {
          settled = true;
          // Its work is over: end the thread now rather than when its script unwinds.
          void worker.terminate();
          if (message.rebuiltBecause)
            this.log(`rebuilt the persisted model of ${task.files.pack}: ${message.rebuiltBecause}`);
          if (message.persistedFile === undefined)
            this.log(`could not persist the model of ${task.files.pack} in ${this.cacheDir}`);
          resolve(message);
        } else {
          settled = true;
          reject(decodeWorkerError(message));
        }
      });
      worker.on('error', (error) => {
        settled = true;
        reject(error);
      });
      worker.on('exit', (code) => {
        build.worker = undefined;
        if (settled) return;
        reject(
          this.isWanted(build)
            ? new Error(`the model worker for ${task.files.pack} stopped unexpectedly (exit code ${code})`)
            : new LoadCancelled('cancelled'),
        );
      });
    });
  }

  private isWanted(build: Build): boolean {
    for (const candidate of this.builds.values()) if (candidate === build) return true;
    return false;
  }
}

const formatCount = (n: number): string => n.toLocaleString('en-US');

/** What a stage of a load says in the progress ("Reading index: 849,014 objects"). */
export function stageMessage(stage: BuildStage, objects: number): string {
  switch (stage) {
    case 'index':
      return `Reading index: ${formatCount(objects)} objects`;
    case 'stored':
      return `Opening the stored model: ${formatCount(objects)} objects`;
    case 'objects':
      return `Reading objects: 0 of ${formatCount(objects)}`;
    case 'chains':
      return `Resolving delta chains of ${formatCount(objects)} objects`;
  }
}

/** The in-memory layer over the persisted model files. */
class MemoizingModelStore extends ModelStore {
  constructor(
    private readonly loader: ModelLoader,
    logSaveFailure: (message: string) => void,
  ) {
    super(loader.directory, logSaveFailure);
  }

  override load(files: PackFiles, options: BuildOptions = {}): TimedModel {
    const known = this.loader.peek(files);
    if (known) return known;
    const started = performance.now();
    const loaded = super.load(files, options);
    const timed: TimedModel = { ...loaded, loadMs: performance.now() - started };
    this.loader.remember(files, timed);
    return timed;
  }
}

function packSize(pack: string): number {
  try {
    return fs.statSync(pack).size;
  } catch {
    return Infinity;
  }
}

function packKey(pack: string): string | undefined {
  try {
    const stat = fs.statSync(pack);
    return `${path.resolve(pack)}\0${stat.size}\0${stat.mtimeMs}\0${stat.ino}`;
  } catch {
    return undefined;
  }
}
