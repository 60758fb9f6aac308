/**
 * The PackScope language server (ARCHITECTURE.md, "Processes"): owns every pack of every workspace
 * folder, answers hovers on object ids and the requests of src/protocol/server-protocol.ts. Started
 * by the extension over IPC, or standalone with `node dist/server.js --stdio` for tools and benchmarks.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CancellationToken,
  createConnection,
  ErrorCodes,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type Hover,
  type InitializeParams,
  type WorkDoneProgressReporter,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { PackFormatError } from '../core/errors.ts';
import { assertOutsideRepository, defaultModelCacheDir } from '../core/model/model-store.ts';
import { formatCount } from '../shared/format.ts';
import {
  ConfigureNotification,
  DEFAULT_SERVER_SETTINGS,
  ListRepositoriesRequest,
  ObjectContentRequest,
  ObjectListRequest,
  ObjectRequest,
  PacksChangedNotification,
  PackSummaryRequest,
  ResolveIdsRequest,
  type InitializationOptions,
  type ObjectContentParams,
  type ObjectContentResult,
  type ServerSettings,
} from '../protocol/server-protocol.ts';
import { LoadCancelled, ModelLoader, type TimedModel } from './model-loader.ts';
import { readObjectDocument } from './object-content.ts';
import { hexWordAt, hoverMarkdown, lookupObject } from './object-lookup.ts';
import { listChildren, listObjects, objectDetails } from './object-views.ts';
import { errorMessage, RepositoryState, WorkspaceRegistry } from './workspace-registry.ts';
import type { PackLocation } from '../core/model/object-store.ts';
import type { ServerContext } from './server-context.ts';
import { registerPolicyHandlers } from './policy-handlers.ts';
import { registerRepackHandlers } from './repack-handlers.ts';
import { registerSimulationHandlers } from './simulation-handlers.ts';

/** Replaced by the bundler with package.json's version. */
declare const PACKSCOPE_VERSION: string | undefined;

const connection: Connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);

let settings: ServerSettings = { ...DEFAULT_SERVER_SETTINGS };
let workspaceFolders: string[] = [];
let loader: ModelLoader;
let registry: WorkspaceRegistry;
let privateCacheDir: string | undefined;
let clientSendsFolderChanges = false;

function log(message: string): void {
  connection.console.log(message);
}

// The server must survive anything a pack or a request throws at it: report, keep serving.
process.on('uncaughtException', (error) => log(`unexpected error (server keeps running): ${error.stack ?? error.message}`));
process.on('unhandledRejection', (reason) => log(`unexpected rejection (server keeps running): ${reason instanceof Error ? reason.stack : String(reason)}`));

function uriToPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/** The model cache: the setting, else the default; a private temporary one when persisting is off. */
function modelCacheDirFor(current: ServerSettings): string {
  if (!current.persistModels) {
    privateCacheDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-server-models-'));
    return privateCacheDir;
  }
  return current.modelCacheDirectory.trim() === '' ? defaultModelCacheDir() : path.resolve(current.modelCacheDirectory);
}

function startRegistry(cacheDir = modelCacheDirFor(settings)): void {
  registry?.dispose();
  loader = new ModelLoader(cacheDir, path.join(__dirname, 'model-worker.js'), Math.max(1, Math.min(2, os.availableParallelism() - 1)), log);
  registry = new WorkspaceRegistry(loader, (state) => {
    void connection.sendNotification(PacksChangedNotification, { repository: state.id });
    warmUp();
  });
  registry.discover(workspaceFolders, settings);
  for (const state of registry.repositories) {
    try {
      assertOutsideRepository(cacheDir, state.repository);
    } catch (error) {
      // Never write inside a repository: keep models in a private temporary directory instead.
      void connection.window.showWarningMessage(`PackScope: ${errorMessage(error)}. Models are kept in a temporary directory for this session.`);
      privateCacheDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-server-models-'));
      if (cacheDir !== privateCacheDir) return startRegistry(privateCacheDir);
    }
  }
  for (const problem of registry.problems) log(problem);
  log(`repositories: ${registry.repositories.map((r) => r.id).join(', ') || 'none'}; model cache ${loader.directory}`);
}

/** Wraps a cancellation token as the promise ModelLoader observes. */
function cancelledPromise(token: CancellationToken | undefined): Promise<void> | undefined {
  if (!token) return undefined;
  return new Promise((resolve) => {
    if (token.isCancellationRequested) resolve();
    else token.onCancellationRequested(() => resolve());
  });
}

async function ensureModel(state: RepositoryState, pack: PackLocation, token?: CancellationToken, progress?: WorkDoneProgressReporter): Promise<TimedModel> {
  const name = path.basename(pack.files.pack);
  const ready = loader.peek(pack.files);
  if (ready) return ready;
  progress?.begin(`Indexing ${name}`, 0, 'reading the idx…', true);
  try {
    const cancelled = cancelledPromise(token);
    return await loader.ensure(pack.files, state.repository.hash, {
      ...(cancelled ? { cancelled } : {}),
      onProgress: (done, total) => progress?.report(total === 0 ? 100 : Math.floor((100 * done) / total), `${formatCount(done)} of ${formatCount(total)} objects`),
    });
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

async function ensureRepository(state: RepositoryState, token?: CancellationToken, progress?: WorkDoneProgressReporter): Promise<void> {
  for (const pack of state.store.packs) {
    // A damaged pack is listed with its error; lookups go on over the others.
    if (loader.peek(pack.files) || state.store.isUnreadable(pack)) continue;
    try {
      await ensureModel(state, pack, token, progress);
    } catch (error) {
      // ensureModel marked it unreadable and recorded its error for the listing.
      if (error instanceof LoadCancelled) throw error;
      log(`${pack.files.pack}: ${errorMessage(error)}`);
    }
  }
}

/** Turns internal failures into LSP errors the client can show as one line. */
function asResponseError(error: unknown): ResponseError<void> {
  if (error instanceof ResponseError) return error;
  if (error instanceof LoadCancelled) return new ResponseError(LSPErrorCodes.RequestCancelled, error.message);
  if (error instanceof PackFormatError) return new ResponseError(ErrorCodes.InvalidParams, error.message);
  return new ResponseError(ErrorCodes.InternalError, errorMessage(error));
}

async function guarded<T>(work: () => Promise<T> | T): Promise<T | ResponseError<void>> {
  try {
    return await work();
  } catch (error) {
    return asResponseError(error);
  }
}

function findPack(packPath: string): { state: RepositoryState; pack: PackLocation } {
  for (const state of registry.repositories) {
    const pack = state.findPack(packPath);
    if (pack) return { state, pack };
  }
  throw new ResponseError(ErrorCodes.InvalidParams, `${packPath} is not a pack of the workspace (it may have been removed by git gc or repack; refresh)`);
}

function statesFor(repository: string | undefined): RepositoryState[] {
  if (repository === undefined) return registry.repositories;
  const state = registry.get(repository);
  if (!state) throw new ResponseError(ErrorCodes.InvalidParams, `${repository} is not a repository of the workspace`);
  return [state];
}

/** Hover and terminal links never wait for a build: they use repositories whose packs are all loaded. */
function readyStates(): RepositoryState[] {
  return registry.repositories.filter((state) => state.allLoaded());
}

let warmingUp = false;

/** Loads, in the background, every pack small enough for hovers (packscope.hover.indexLimit). */
function warmUp(): void {
  if (warmingUp) return;
  const pending: { state: RepositoryState; pack: PackLocation }[] = [];
  for (const state of registry.repositories) {
    for (const pack of state.store.packs) {
      if (loader.peek(pack.files) || state.packErrors.has(pack.files.pack)) continue;
      let objects: number;
      try {
        objects = state.listingOf(pack).objects ?? Infinity;
      } catch {
        continue;
      }
      if (objects <= settings.hoverIndexLimit) pending.push({ state, pack });
    }
  }
  if (pending.length === 0) return;
  warmingUp = true;
  void (async () => {
    const changed = new Set<RepositoryState>();
    try {
      for (const { state, pack } of pending) {
        try {
          await ensureModel(state, pack);
        } catch (error) {
          log(`${pack.files.pack}: ${errorMessage(error)}`);
        }
        changed.add(state);
      }
    } finally {
      warmingUp = false;
      for (const state of changed) void connection.sendNotification(PacksChangedNotification, { repository: state.id });
    }
  })();
}

connection.onInitialize((params: InitializeParams) => {
  const options = params.initializationOptions as Partial<InitializationOptions> | undefined;
  settings = { ...DEFAULT_SERVER_SETTINGS, ...(options?.settings ?? {}) };
  workspaceFolders = (params.workspaceFolders ?? []).map((f) => uriToPath(f.uri)).filter((p): p is string => p !== undefined);
  if (workspaceFolders.length === 0 && params.rootUri) {
    const root = uriToPath(params.rootUri);
    if (root) workspaceFolders.push(root);
  }
  clientSendsFolderChanges = params.capabilities.workspace?.workspaceFolders === true;
  startRegistry();
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
    serverInfo: { name: 'packscope', version: typeof PACKSCOPE_VERSION === 'string' ? PACKSCOPE_VERSION : 'dev' },
  };
});

connection.onInitialized(() => {
  if (clientSendsFolderChanges) connection.workspace.onDidChangeWorkspaceFolders((event) => {
    const removed = new Set(event.removed.map((f) => uriToPath(f.uri)));
    workspaceFolders = workspaceFolders.filter((f) => !removed.has(f));
    for (const added of event.added) {
      const folder = uriToPath(added.uri);
      if (folder) workspaceFolders.push(folder);
    }
    registry.discover(workspaceFolders, settings);
    for (const state of registry.repositories) void connection.sendNotification(PacksChangedNotification, { repository: state.id });
    warmUp();
  });
  warmUp();
});

connection.onNotification(ConfigureNotification, (next) => {
  const cacheChanged = modelCacheDirFor({ ...settings, ...next }) !== loader.directory;
  settings = { ...DEFAULT_SERVER_SETTINGS, ...next };
  if (cacheChanged) startRegistry();
  else registry.discover(workspaceFolders, settings);
  for (const state of registry.repositories) void connection.sendNotification(PacksChangedNotification, { repository: state.id });
  warmUp();
});

connection.onRequest(ListRepositoriesRequest, () => guarded(() => ({ repositories: registry.repositories.map((state) => state.listing()) })));

connection.onRequest(PackSummaryRequest, (params, token) =>
  guarded(async () => {
    const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
    const { state, pack } = findPack(params.pack);
    const timed = await ensureModel(state, pack, token, progress);
    return state.summaryOf(pack, timed);
  }),
);

connection.onRequest(ObjectListRequest, (params, token) =>
  guarded(async () => {
    const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
    const { state, pack } = findPack(params.pack);
    const { model } = await ensureModel(state, pack, token, progress);
    if (params.kind === 'children') {
      const n = model.findHex((params.oid ?? '').toLowerCase());
      if (n < 0) throw new ResponseError(ErrorCodes.InvalidParams, `${params.oid} is not in ${path.basename(pack.files.pack)}`);
      return listChildren(model, n, params.start, params.count);
    }
    return listObjects(model, params.kind, params.start, params.count);
  }),
);

connection.onRequest(ObjectRequest, (params, token) =>
  guarded(async () => {
    const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
    const states = statesFor(params.repository);
    for (const state of states) await ensureRepository(state, token, progress);
    const result = lookupObject(params.oid.trim(), states);
    if (result.kind === 'none') return { found: false as const, reason: result.reason };
    return { found: true as const, object: objectDetails(result.found.location, result.found.state) };
  }),
);

connection.onRequest(ObjectContentRequest, (params: ObjectContentParams, token) =>
  guarded(async (): Promise<ObjectContentResult> => {
    const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
    const states = statesFor(params.repository);
    for (const state of states) await ensureRepository(state, token, progress);
    const result = lookupObject(params.oid.trim(), states);
    if (result.kind === 'none') return { found: false, reason: result.reason };
    return { found: true, content: readObjectDocument(result.found, params) };
  }),
);

connection.onRequest(ResolveIdsRequest, (params) =>
  guarded(() => {
    const states = readyStates();
    if (states.length < registry.repositories.length) warmUp();
    const words = params.words.slice(0, 1000);
    return {
      oids: words.map((word) => {
        if (!/^[0-9a-fA-F]{7,64}$/.test(word)) return null;
        const result = lookupObject(word.toLowerCase(), states);
        return result.kind === 'found' ? result.found.oid : null;
      }),
    };
  }),
);

connection.onHover((params): Hover | null => {
  const document = documents.get(params.textDocument.uri);
  if (!document) return null;
  const line = document.getText({ start: { line: params.position.line, character: 0 }, end: { line: params.position.line + 1, character: 0 } }).replace(/\r?\n$/, '');
  const hit = hexWordAt(line, params.position.character);
  if (!hit) return null;
  const states = readyStates();
  if (states.length < registry.repositories.length) warmUp();
  try {
    const result = lookupObject(hit.word, states);
    if (result.kind === 'none') return null;
    return {
      contents: { kind: 'markdown', value: hoverMarkdown(result.found) },
      range: { start: { line: params.position.line, character: hit.start }, end: { line: params.position.line, character: hit.end } },
    };
  } catch (error) {
    log(`hover on ${hit.word}: ${errorMessage(error)}`);
    return null;
  }
});

/** What handler modules (simulations, repack previews) get to work with: the same pack state and helpers. */
const context: ServerContext = {
  connection,
  get registry() {
    return registry;
  },
  get loader() {
    return loader;
  },
  get settings() {
    return settings;
  },
  log,
  ensureModel,
  ensureRepository,
  findPack,
  statesFor,
  guarded,
  bundledScript: (name) => path.join(__dirname, name),
};
registerSimulationHandlers(context);
registerRepackHandlers(context);
registerPolicyHandlers(context);

connection.onShutdown(() => {
  registry?.dispose();
  if (privateCacheDir) fs.rmSync(privateCacheDir, { recursive: true, force: true });
});

documents.listen(connection);
connection.listen();
