import type {
  CancellationToken,
  Connection,
  ResponseError,
  WorkDoneProgressReporter,
} from 'vscode-languageserver/node';
import type { PackLocation } from '../core/model/object-store.ts';
import type { ServerSettings } from '../protocol/server-protocol.ts';
import type { ObjectPathsWalks } from './object-paths-walks.ts';
import type { IntroducingCommits } from './introducing-commits.ts';
import type { RankedLists } from './object-views.ts';
import type { PreviewPacks } from './preview-packs.ts';
import type { ReadRules } from './read-rules.ts';
import type { RecordingCache } from './recording-cache.ts';
import type { SizesWalks } from './sizes-walks.ts';
import type { WorkQueues } from './work-queue.ts';
import type { MapWorkerClient } from './workers/map-worker-client.ts';
import type { TileViews } from './tile-views.ts';
import type { ModelLoader, TimedModel } from './workers/model-loader.ts';
import type { RepositoryState, WorkspaceRegistry } from './workspace-registry.ts';

/**
 * The server's shared state and helpers, handed to each handler module (handlers/*.ts) so that
 * every request works on the same pack models and reports errors, progress and cancellation the
 * same way. One object owns all of it (server-state.ts, created by server.ts): no module keeps state
 * of its own.
 */
export interface ServerContext {
  readonly connection: Connection;
  readonly registry: WorkspaceRegistry;
  readonly loader: ModelLoader;
  readonly settings: ServerSettings;
  /** Where `packscope/record` may write (InitializationOptions.recordingDirectory), if the client said. */
  readonly recordingDirectory: string | undefined;
  /** Which files a client may name for the server to read (read-rules.ts, README "Trust and safety"). */
  readonly readRules: ReadRules;
  /** The Packs view's paged lists, ordered once per model (object-views.ts). */
  readonly rankedLists: RankedLists;
  /** The last recording opened (recording-opener.ts). */
  readonly recordings: RecordingCache;
  /** Repack preview packs kept for the Pack Map (preview-packs.ts). */
  readonly previewPacks: PreviewPacks;
  /** Each repository's object paths (object-paths-walks.ts). */
  readonly objectPaths: ObjectPathsWalks;
  /** Each repository's last sizes walk (sizes-walks.ts): packscope/pathBlobs answers from it. */
  readonly sizesWalks: SizesWalks;
  /** Each blob's or tree's introducing commit, asked of git on demand (introducing-commits.ts). */
  readonly introducingCommits: IntroducingCommits;
  /** The workspace's trusted git, undefined in Restricted Mode (no git runs there). */
  gitForObjectNames(): string | undefined;
  /** The heavy work of requests, queued per kind with a few running at once (work-queue.ts). */
  readonly work: WorkQueues;
  /** The Pack Map's worker, which keeps the maps it drew (workers/map-worker.ts). */
  readonly packMaps: MapWorkerClient;
  /** Pack Map tile requests of views a newer view of the same pane superseded. */
  readonly tileViews: TileViews;
  log(message: string): void;
  /** The model of one pack, built in a worker when needed, with $/progress and cancellation. */
  ensureModel(
    state: RepositoryState,
    pack: PackLocation,
    token?: CancellationToken,
    progress?: WorkDoneProgressReporter,
  ): Promise<TimedModel>;
  /** Every pack of a repository loaded (so its ObjectStore answers without building on this thread). */
  ensureRepository(
    state: RepositoryState,
    token?: CancellationToken,
    progress?: WorkDoneProgressReporter,
  ): Promise<void>;
  /** The workspace pack with this .pack path; a ResponseError when it is not (or no longer) one. */
  findPack(packPath: string): { state: RepositoryState; pack: PackLocation };
  statesFor(repository: string | undefined): RepositoryState[];
  /** Hover and terminal links never wait for a build: the repositories whose packs are all loaded. */
  readyStates(): RepositoryState[];
  /** Loads, in the background, every pack small enough for hovers (packscope.hover.indexLimit). */
  warmUp(): void;
  /** Stops the warm-up's builds (their workers end); the next warm-up (a settings or pack change) starts them again. */
  cancelLoads(): void;
  /** Runs a handler, turning each kind of error (core/errors.ts) into a one-line LSP error of its code. */
  guarded<T>(work: () => Promise<T> | T): Promise<T | ResponseError<void>>;
  /** Absolute path of a bundled script next to server.js (worker entry points). */
  bundledScript(name: string): string;
}
