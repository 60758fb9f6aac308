/**
 * Everything the server keeps between requests, in one object (server.ts creates it; the handlers
 * see it as their ServerContext): the settings and workspace folders, the model cache and loader,
 * the registry of repositories, the background warm-up, and the handlers' caches.
 */
import { errorMessage } from '../common/error-message.ts';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  CancellationTokenSource,
  ErrorCodes,
  LSPErrorCodes,
  ResponseError,
  type CancellationToken,
  type Connection,
  type InitializeParams,
  type WorkDoneProgressReporter,
  type WorkspaceFoldersChangeEvent,
} from 'vscode-languageserver/node';
import { fileURLToPath } from 'node:url';
import { errorKind, type ErrorKind } from '../core/errors.ts';
import { assertOutsideRepository, defaultModelCacheDir } from '../core/model/model-store.ts';
import { enclosingRepositoryRoot } from '../core/model/outside-repository.ts';
import { removeStalePreviewDirectories } from '../core/repack/preview-directory.ts';
import { createOwnedTempDirectory, removeStaleOwnedDirectories } from '../core/model/owned-temp-directory.ts';
import type { PackLocation } from '../core/model/object-store.ts';
import { formatCount, percent } from '../common/format.ts';
import {
  DEFAULT_SERVER_SETTINGS,
  LoadProgressNotification,
  PacksChangedNotification,
  type InitializationOptions,
  type ServerSettings,
} from '../protocol/server-protocol.ts';
import { cancelledPromise } from './cancellation.ts';
import { gitForWorkspace } from './trusted-git.ts';
import { RankedLists } from './object-views.ts';
import { SizesWalks } from './sizes-walks.ts';
import { ObjectPathsWalks } from './object-paths-walks.ts';
import { IntroducingCommits } from './introducing-commits.ts';
import { readSubject } from '../core/model/commit-subject.ts';
import { PreviewPacks } from './preview-packs.ts';
import { ReadRules } from './read-rules.ts';
import { defaultThreadBudget, ThreadBudget } from './thread-budget.ts';
import { RecordingCache } from './recording-cache.ts';
import type { ServerContext } from './server-context.ts';
import { collectGarbage } from './full-gc.ts';
import { defaultConcurrency, IDLE_RELEASE_MS, WorkQueues } from './work-queue.ts';
import { MapWorkerClient } from './workers/map-worker-client.ts';
import { TileViews } from './tile-views.ts';
import { LoadCancelled, ModelLoader, type TimedModel } from './workers/model-loader.ts';
import { type RepositoryState, WorkspaceRegistry } from './workspace-registry.ts';

function uriToPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The LSP error code of each kind of error (docs/architecture.md "Errors by kind"): what the
 * request asked for or named is wrong, InvalidParams; a git command or a read failed on a sound
 * request, RequestFailed; cancelled, RequestCancelled; PackScope's own bug, InternalError.
 */
const LSP_ERROR_CODE: Readonly<Record<ErrorKind | 'internal', number>> = {
  usage: ErrorCodes.InvalidParams,
  format: ErrorCodes.InvalidParams,
  git: LSPErrorCodes.RequestFailed,
  io: LSPErrorCodes.RequestFailed,
  cancelled: LSPErrorCodes.RequestCancelled,
  internal: ErrorCodes.InternalError,
};

/** Turns internal failures into LSP errors the client can show as one line. */
function asResponseError(error: unknown): ResponseError<void> {
  if (error instanceof ResponseError) return error;
  return new ResponseError(LSP_ERROR_CODE[errorKind(error)], errorMessage(error));
}

/**
 * How long the server waits with no work before it releases its caches: IDLE_RELEASE_MS, or
 * PACKSCOPE_IDLE_RELEASE_MS (tests that check the release and what follows it, without 10 s waits).
 */
function idleReleaseMs(): number {
  const value = Number(process.env.PACKSCOPE_IDLE_RELEASE_MS);
  return Number.isFinite(value) && value >= 50 ? value : IDLE_RELEASE_MS;
}

/** The private model cache (persisting off, or the cache refused): one per server, removed at shutdown or by the next server. */
const PRIVATE_CACHE_PREFIX = 'packscope-server-models-';

/** A background build's row is told how far it is at most this often (the client's own rows redraw as often). */
const LOAD_PROGRESS_MS = 400;

export class ServerState implements ServerContext {
  settings: ServerSettings = { ...DEFAULT_SERVER_SETTINGS };
  recordingDirectory: string | undefined;
  loader!: ModelLoader;
  registry!: WorkspaceRegistry;
  readonly rankedLists = new RankedLists();
  readonly recordings = new RecordingCache();
  readonly previewPacks = new PreviewPacks((message) => this.log(message));
  /** One bound on worker threads across every kind of work and the model builds (thread-budget.ts). */
  readonly threads = new ThreadBudget(defaultThreadBudget(), (message) => this.log(message));
  readonly readRules = new ReadRules(() => [
    this.recordingDirectory,
    ...this.workspaceFolders,
    ...(this.registry?.repositories ?? []).flatMap((state) => [
      state.repository.workTree,
      state.repository.gitDir,
      state.repository.commonDir,
    ]),
  ]);
  /** Each repository's object paths, walked in a worker on first use (object-paths-walks.ts). */
  readonly objectPaths = new ObjectPathsWalks(
    () => this.bundledScript('task-worker.js'),
    () => this.loader.directory,
    (message) => this.log(message),
    (repository) => void this.connection.sendNotification(PacksChangedNotification, { repository }),
    this.threads,
    () => this.gitForObjectNames(),
  );
  /** Each repository's last sizes walk: its document and blobs by path (sizes-walks.ts). */
  readonly sizesWalks = new SizesWalks();
  /** Which commit introduced a blob or tree under its path, asked of git per object (introducing-commits.ts). */
  readonly introducingCommits = new IntroducingCommits(
    () => this.gitForObjectNames(),
    (message) => this.log(message),
    (store, commit) => {
      try {
        const location = store.resolve(commit);
        return readSubject(location.model, location.object);
      } catch {
        // A commit in no pack (loose) or too large to read keeps its id alone.
        return undefined;
      }
    },
  );
  // Idle: what was kept for the next request goes (the workers of the queued work have ended).
  readonly work = new WorkQueues(defaultConcurrency(), () => this.releaseIdleMemory(), idleReleaseMs(), this.threads);
  readonly packMaps: MapWorkerClient;
  readonly tileViews = new TileViews();
  /** The client tells of folders added and removed (workspace/didChangeWorkspaceFolders). */
  clientSendsFolderChanges = false;
  private workspaceFolders: string[] = [];
  private privateCacheDir: string | undefined;
  /** Cancels the warm-up under way (packscope/cancelLoads); undefined when none is. */
  private warmUpCancel: CancellationTokenSource | undefined;
  /**
   * The warm-up cancelled because the registry it loads for was replaced (the model cache
   * changed): not the user's cancel, so its packs are not listed as cancelled, and the new
   * registry's warm-up starts at once rather than waiting for it to end.
   */
  private supersededWarmUp: CancellationTokenSource | undefined;

  /** `bundleDirectory`: where server.js and the worker bundles are (dist/). */
  constructor(
    readonly connection: Connection,
    private readonly bundleDirectory: string,
  ) {
    this.packMaps = new MapWorkerClient(this.bundledScript('map-worker.js'), (message) => this.log(message));
  }

  /**
   * The git that names objects by path (`git rev-list --objects --all`, about a quarter of the
   * walk's CPU): the workspace's trusted git, none in Restricted Mode (the walk names them then).
   */
  gitForObjectNames(): string | undefined {
    try {
      return gitForWorkspace(undefined, this.settings, 'object names from git');
    } catch {
      return undefined;
    }
  }

  log(message: string): void {
    this.connection.console.log(message);
  }

  /** Drops the caches that only make the next request faster (a recording, the paged lists' orders), then the heap's free pages. */
  releaseIdleMemory(): void {
    this.recordings.clear();
    this.rankedLists.clear();
    this.packMaps.release();
    collectGarbage();
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
    const mib = (bytes: number): string => `${Math.round(bytes / (1 << 20))} MiB`;
    this.log(
      `idle: released the cached recording and list orders (RSS ${mib(rss)}, heap ${mib(heapUsed)} of ${mib(heapTotal)}, external ${mib(external)}, array buffers ${mib(arrayBuffers)})`,
    );
  }

  bundledScript(name: string): string {
    return path.join(this.bundleDirectory, name);
  }

  initialize(params: InitializeParams): void {
    const options = params.initializationOptions as Partial<InitializationOptions> | undefined;
    this.settings = { ...DEFAULT_SERVER_SETTINGS, ...(options?.settings ?? {}) };
    if (typeof options?.recordingDirectory === 'string' && options.recordingDirectory !== '')
      this.recordingDirectory = path.resolve(options.recordingDirectory);
    this.workspaceFolders = (params.workspaceFolders ?? [])
      .map((f) => uriToPath(f.uri))
      .filter((p): p is string => p !== undefined);
    if (this.workspaceFolders.length === 0 && params.rootUri) {
      const root = uriToPath(params.rootUri);
      if (root) this.workspaceFolders.push(root);
    }
    this.clientSendsFolderChanges = params.capabilities.workspace?.workspaceFolders === true;
    // Previews and private model caches of an earlier server killed mid-run (HUP, KILL, or a
    // client gone without shutdown) left their directories behind.
    for (const removed of removeStalePreviewDirectories(os.tmpdir()))
      this.log(`removed the stale repack preview directory ${removed}`);
    for (const removed of removeStaleOwnedDirectories(os.tmpdir(), PRIVATE_CACHE_PREFIX))
      this.log(`removed the stale private model cache ${removed}`);
    this.startRegistry();
  }

  changeFolders(event: WorkspaceFoldersChangeEvent): void {
    const removed = new Set(event.removed.map((f) => uriToPath(f.uri)));
    this.workspaceFolders = this.workspaceFolders.filter((f) => !removed.has(f));
    for (const added of event.added) {
      const folder = uriToPath(added.uri);
      if (folder) this.workspaceFolders.push(folder);
    }
    this.registry.discover(this.workspaceFolders, this.settings);
    for (const state of this.registry.repositories)
      void this.connection.sendNotification(PacksChangedNotification, { repository: state.id });
    this.warmUp();
  }

  configure(next: ServerSettings): void {
    const cacheChanged = this.modelCacheDirFor({ ...this.settings, ...next }) !== this.loader.directory;
    const onlyGitChanged = (Object.keys(DEFAULT_SERVER_SETTINGS) as (keyof ServerSettings)[]).every(
      (key) =>
        key === 'git' ||
        key === 'workspaceTrusted' ||
        JSON.stringify(next[key] ?? DEFAULT_SERVER_SETTINGS[key]) === JSON.stringify(this.settings[key]),
    );
    this.settings = { ...DEFAULT_SERVER_SETTINGS, ...next };
    // The extension sends the git it located once it has found it: no repository changes with it.
    if (onlyGitChanged) return;
    if (cacheChanged) this.startRegistry();
    else this.registry.discover(this.workspaceFolders, this.settings);
    for (const state of this.registry.repositories)
      void this.connection.sendNotification(PacksChangedNotification, { repository: state.id });
    this.warmUp();
  }

  shutdown(): void {
    this.objectPaths.dispose();
    this.introducingCommits.dispose();
    this.registry?.dispose();
    this.packMaps.dispose();
    this.previewPacks.releaseAll();
    this.removePrivateCache();
  }

  /** The private model cache goes with the server: at shutdown, and at exit when the client left without one. */
  removePrivateCache(): void {
    if (this.privateCacheDir) fs.rmSync(this.privateCacheDir, { recursive: true, force: true });
    this.privateCacheDir = undefined;
  }

  /** The model cache: the setting, else the default; a private temporary one when persisting is off. */
  private modelCacheDirFor(current: ServerSettings): string {
    if (!current.persistModels) {
      this.privateCacheDir ??= createOwnedTempDirectory(os.tmpdir(), PRIVATE_CACHE_PREFIX);
      return this.privateCacheDir;
    }
    return current.modelCacheDirectory.trim() === ''
      ? defaultModelCacheDir()
      : path.resolve(current.modelCacheDirectory);
  }

  private startRegistry(cacheDir = this.modelCacheDirFor(this.settings)): void {
    this.registry?.dispose();
    // A warm-up under way loads into the loader being replaced: its models would never reach the new
    // registry's listings (the pack row stayed at "N objects" when the settings' model cache arrived
    // during the first build), and while it ran no other warm-up could start.
    if (this.warmUpCancel !== undefined) {
      this.supersededWarmUp = this.warmUpCancel;
      this.warmUpCancel = undefined;
      this.supersededWarmUp.cancel();
    }
    this.loader = new ModelLoader(
      cacheDir,
      this.bundledScript('model-worker.js'),
      Math.max(1, Math.min(2, os.availableParallelism() - 1)),
      (message) => this.log(message),
      this.threads,
    );
    this.registry = new WorkspaceRegistry(this.loader, (state) => {
      void this.connection.sendNotification(PacksChangedNotification, { repository: state.id });
      this.warmUp();
    });
    this.registry.discover(this.workspaceFolders, this.settings);
    for (const state of this.registry.repositories) {
      try {
        assertOutsideRepository(cacheDir, state.repository);
      } catch (error) {
        // Never write inside a repository: keep models in a private temporary directory instead.
        void this.connection.window.showWarningMessage(
          `PackScope: ${errorMessage(error)}. Models are kept in a temporary directory for this session.`,
        );
        this.privateCacheDir ??= createOwnedTempDirectory(os.tmpdir(), PRIVATE_CACHE_PREFIX);
        if (cacheDir !== this.privateCacheDir) return this.startRegistry(this.privateCacheDir);
      }
    }
    // Not only the workspace's repositories: a HOME that is itself a repository holds the default cache.
    const enclosing = cacheDir === this.privateCacheDir ? undefined : enclosingRepositoryRoot(cacheDir);
    if (enclosing !== undefined) {
      this.log(
        `warning: the model cache ${cacheDir} is inside the repository ${enclosing}; PackScope never writes inside a repository, so models are kept in a temporary directory for this session`,
      );
      this.privateCacheDir ??= createOwnedTempDirectory(os.tmpdir(), PRIVATE_CACHE_PREFIX);
      return this.startRegistry(this.privateCacheDir);
    }
    for (const problem of this.registry.problems) this.log(problem);
    this.log(
      `repositories: ${this.registry.repositories.map((r) => r.id).join(', ') || 'none'}; model cache ${this.loader.directory}`,
    );
  }

  /** `bulk`: one of many packs loaded in a row (the warm-up, every pack of a repository): small ones load on this thread. */
  async ensureModel(
    state: RepositoryState,
    pack: PackLocation,
    token?: CancellationToken,
    progress?: WorkDoneProgressReporter,
    bulk = false,
    /** Told the objects read of the idx's count as the build goes (the warm-up's rows). */
    onObjects?: (done: number, total: number) => void,
  ): Promise<TimedModel> {
    const name = path.basename(pack.files.pack);
    const ready = this.loader.peek(pack.files);
    if (ready) return ready;
    progress?.begin(`Indexing ${name}`, 0, 'reading the idx…', true);
    try {
      const cancelled = token ? cancelledPromise(token) : undefined;
      const model = await this.loader.ensure(pack.files, state.repository.hash, {
        ...(cancelled ? { cancelled } : {}),
        bulk,
        onStage: (message) => progress?.report(message),
        onProgress: (done, total) => {
          onObjects?.(done, total);
          progress?.report(percent(done, total), `Reading objects: ${formatCount(done)} of ${formatCount(total)}`);
        },
      });
      state.cancelledLoads.delete(pack.files.pack);
      return model;
    } catch (error) {
      if (!(error instanceof LoadCancelled)) {
        state.packErrors.set(pack.files.pack, errorMessage(error));
        state.store.markUnreadable(pack);
      }
      throw error;
    } finally {
      progress?.done();
    }
  }

  async ensureRepository(
    state: RepositoryState,
    token?: CancellationToken,
    progress?: WorkDoneProgressReporter,
  ): Promise<void> {
    for (const pack of state.store.packs) {
      // A damaged pack is listed with its error; lookups go on over the others.
      if (this.loader.peek(pack.files) || state.store.isUnreadable(pack)) continue;
      try {
        await this.ensureModel(state, pack, token, progress, true);
      } catch (error) {
        // ensureModel marked it unreadable and recorded its error for the listing.
        if (error instanceof LoadCancelled) throw error;
        this.log(`${pack.files.pack}: ${errorMessage(error)}`);
      }
    }
  }

  async guarded<T>(work: () => Promise<T> | T): Promise<T | ResponseError<void>> {
    try {
      return await work();
    } catch (error) {
      return asResponseError(error);
    }
  }

  findPack(packPath: string): { state: RepositoryState; pack: PackLocation } {
    for (const state of this.registry.repositories) {
      const pack = state.findPack(packPath);
      if (pack) return { state, pack };
    }
    // A repack preview's pack, kept for the Pack Map's before/after: read as a pack of its repository.
    const preview = this.previewPacks.get(packPath);
    const location = this.previewPacks.location(packPath);
    const state = preview ? this.registry.get(preview.repository) : undefined;
    if (state && location) return { state, pack: location };
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `${packPath} is not a pack of the workspace (it may have been removed by git gc or repack; refresh)`,
    );
  }

  statesFor(repository: string | undefined): RepositoryState[] {
    if (repository === undefined) return this.registry.repositories;
    const state = this.registry.get(repository);
    if (!state) throw new ResponseError(ErrorCodes.InvalidParams, `${repository} is not a repository of the workspace`);
    return [state];
  }

  readyStates(): RepositoryState[] {
    return this.registry.repositories.filter((state) => state.allLoaded());
  }

  cancelLoads(): void {
    if (this.warmUpCancel === undefined) return;
    this.log('model loads cancelled: the warm-up stops (its worker builds end)');
    this.warmUpCancel.cancel();
  }

  /**
   * A background build's progress for the pack's row: kept for the listings, and sent as
   * packscope/loadProgress at most every LOAD_PROGRESS_MS (VS Code redraws a row only after 200 ms
   * without a change). Packs that load without a report (small ones, on this thread) send nothing.
   */
  private backgroundProgress(
    state: RepositoryState,
    pack: PackLocation,
  ): { report: (done: number, total: number) => void; end: () => void } {
    const repository = state.id;
    const packPath = pack.files.pack;
    let sentAt: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    const send = (): void => {
      timer = undefined;
      sentAt = Date.now();
      const loading = state.backgroundLoads.get(packPath);
      void this.connection.sendNotification(LoadProgressNotification, {
        repository,
        pack: packPath,
        ...(loading === undefined ? {} : { loading: { ...loading } }),
      });
    };
    return {
      report: (done, total) => {
        state.backgroundLoads.set(packPath, { done, total });
        if (timer !== undefined) return;
        const wait = sentAt === undefined ? 0 : Math.max(0, sentAt + LOAD_PROGRESS_MS - Date.now());
        if (wait === 0) send();
        else timer = setTimeout(send, wait);
      },
      end: () => {
        clearTimeout(timer);
        state.backgroundLoads.delete(packPath);
        if (sentAt !== undefined) send();
      },
    };
  }

  warmUp(): void {
    if (this.warmUpCancel !== undefined) return;
    const pending: { state: RepositoryState; pack: PackLocation }[] = [];
    for (const state of this.registry.repositories) {
      for (const pack of state.store.packs) {
        // A pack whose warm-up the user cancelled waits for a request: a hover must not undo the cancel.
        if (
          this.loader.peek(pack.files) ||
          state.packErrors.has(pack.files.pack) ||
          state.cancelledLoads.has(pack.files.pack)
        )
          continue;
        let objects: number;
        try {
          objects = state.listingOf(pack).objects ?? Infinity;
        } catch {
          continue;
        }
        if (objects <= this.settings.hoverIndexLimit) {
          pending.push({ state, pack });
          state.backgroundLoads.set(pack.files.pack, { done: 0, total: objects, waiting: true });
        }
      }
    }
    if (pending.length === 0) return;
    const cancel = (this.warmUpCancel = new CancellationTokenSource());
    void (async () => {
      const changed = new Set<RepositoryState>();
      try {
        for (const { state, pack } of pending) {
          if (cancel.token.isCancellationRequested) break;
          // Under way now, no longer waiting its turn (a listing from now on says so).
          const queued = state.backgroundLoads.get(pack.files.pack);
          if (queued !== undefined) state.backgroundLoads.set(pack.files.pack, { done: 0, total: queued.total });
          const progress = this.backgroundProgress(state, pack);
          try {
            await this.ensureModel(state, pack, cancel.token, undefined, true, progress.report);
          } catch (error) {
            if (error instanceof LoadCancelled) break;
            this.log(`${pack.files.pack}: ${errorMessage(error)}`);
          } finally {
            progress.end();
          }
          changed.add(state);
        }
        if (cancel === this.supersededWarmUp) {
          this.log('warm-up stopped: the model cache changed, and the new one warms up in its place');
        } else if (cancel.token.isCancellationRequested) {
          // Every pack the warm-up did not get to is the user's cancel: listed so, not retried.
          const left = pending.filter(({ pack }) => !this.loader.peek(pack.files));
          for (const { state, pack } of left) {
            state.cancelledLoads.add(pack.files.pack);
            changed.add(state);
          }
          this.log(
            `warm-up cancelled: ${left.length} pack model${left.length === 1 ? '' : 's'} not loaded (a request for a pack loads it)`,
          );
        }
      } finally {
        for (const { state, pack } of pending) state.backgroundLoads.delete(pack.files.pack);
        if (this.warmUpCancel === cancel) this.warmUpCancel = undefined;
        if (this.supersededWarmUp === cancel) this.supersededWarmUp = undefined;
        cancel.dispose();
        for (const state of changed)
          void this.connection.sendNotification(PacksChangedNotification, { repository: state.id });
      }
    })();
  }
}
