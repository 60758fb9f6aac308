import { errorMessage } from '../common/error-message.ts';
import vscode = require('vscode');
import { OBJECT_DOCUMENT_SCHEME } from '../protocol/server-protocol.ts';
import { probeWorkspace } from './git-directory-probe.ts';
import { registerCommands } from './commands.ts';
import { Lifetime } from './dispose.ts';
import { locateGit, type GitLocation } from './git-locator.ts';
import { PACKS_VIEW_ID } from './model-progress.ts';
import { ObjectDocumentProvider, objectDocumentUri } from './object-document.ts';
import type { PacksNode } from './packs-view/packs-node.ts';
import { PacksTreeProvider } from './packs-view/packs-tree.ts';
import { ServerClient } from './server-client.ts';
import { affectsServerSettings, readServerSettings, readViewSettings, type ViewSettings } from './settings.ts';
import { ObjectIdTerminalLinkProvider } from './terminal-links.ts';
import { registerRecording, type RecordingApi } from './recording/index.ts';
import { recordingsDirectory } from './recording/recording-store.ts';
import { recordingSourceFromStore, registerCacheLab, type CacheLabApi } from './cache-lab/cache-lab.ts';
import { SimulationSummaries } from './simulation-summaries.ts';
import { registerRepackPreview, type RepackPreviewApi } from './repack-preview/repack-preview-command.ts';
import { registerPackMap, type PackMapApi } from './pack-map/pack-map.ts';
import { registerBytesTreemap, type BytesTreemapApi } from './bytes-treemap/bytes-treemap.ts';
import { PreviewPackHolds } from './pack-map/preview-pack-holds.ts';

/** What `activate` returns: `vscode.extensions.getExtension('packscope.packscope').exports`. */
export interface PackScopeApi {
  /** Milliseconds the host spent in `activate` (the server starts after it). */
  readonly activationMs: number;
  /** Loading dist/extension-main.js (read, compile, evaluate; timed by entry.ts) plus `activate`: what activation costs the host. */
  readonly loadAndActivationMs: number;
  /** The same in CPU time of the extension host process (load and activate are synchronous). */
  readonly loadAndActivationCpuMs: number;
  /** Settles once the server has started the first time. */
  readonly ready: Promise<void>;
  readonly server: ServerClient;
  readonly packsTree: PacksTreeProvider;
  readonly packsView: vscode.TreeView<PacksNode>;
  readonly terminalLinks: ObjectIdTerminalLinkProvider;
  readonly objectDocuments: ObjectDocumentProvider;
  readonly gitLocation: Promise<GitLocation>;
  readonly output: vscode.LogOutputChannel;
  /** The folder of the output channel's log file (`PackScope.log`). */
  readonly logUri: vscode.Uri;
  /** Terminal recording, "Record a git command…" and the Recordings view (src/extension/recording). */
  readonly recording: RecordingApi;
  /** The Cache Lab panel (src/extension/cache-lab): the open panel, its state and what it was sent. */
  readonly cacheLab: CacheLabApi;
  /** Preview Repack… (src/extension/repack-preview): the last run, its result and its panel. */
  readonly repackPreview: RepackPreviewApi;
  /** The Pack Map (src/extension/pack-map): its open panel and what it was sent. */
  readonly packMap: PackMapApi;
  readonly bytesTreemap: BytesTreemapApi;
  objectDocumentUri(oid: string, repository?: string): vscode.Uri;
}

let activeServer: ServerClient | undefined;

/** What loading dist/extension-main.js cost, measured by entry.ts: wall time and CPU time. */
export interface LoadCost {
  ms: number;
  cpuMs: number;
}

// Stays long: the activation script: each registration in the order its dependencies need, read top to bottom.
export function activate(context: vscode.ExtensionContext, load: LoadCost = { ms: 0, cpuMs: 0 }): PackScopeApi {
  const activationStart = performance.now();
  const activationCpuStart = process.cpuUsage();
  // The extension's one root: everything below is registered into it (or into something it owns),
  // and VS Code disposes it, the last registered first, after `deactivate`.
  const lifetime = new Lifetime();
  context.subscriptions.push(lifetime);
  const output = lifetime.register(vscode.window.createOutputChannel('PackScope', { log: true }));

  let viewSettings: ViewSettings = readViewSettings();
  // The git the server may run: the one located below, once found (README "Trust and safety").
  let locatedGit = 'git';
  const server = lifetime.register(
    new ServerClient({
      serverModule: context.asAbsolutePath('dist/server.js'),
      output,
      settings: () => readServerSettings(locatedGit),
      recordingDirectory: recordingsDirectory(context),
      hoverEnabled: () => viewSettings.hoverEnabled,
    }),
  );
  activeServer = server;

  const packsTree = lifetime.register(
    new PacksTreeProvider(server, () => viewSettings.pageSize, context.workspaceState),
  );
  const packsView = lifetime.register(
    vscode.window.createTreeView(PACKS_VIEW_ID, { treeDataProvider: packsTree, showCollapseAll: true }),
  );
  packsTree.attach(packsView);
  const objectDocuments = lifetime.register(new ObjectDocumentProvider(server, () => viewSettings));
  const terminalLinks = new ObjectIdTerminalLinkProvider(server, () => viewSettings.terminalLinksEnabled);
  lifetime.register(vscode.workspace.registerTextDocumentContentProvider(OBJECT_DOCUMENT_SCHEME, objectDocuments));
  lifetime.register(vscode.window.registerTerminalLinkProvider(terminalLinks));
  lifetime.register(
    server.onPacksChanged(({ repository }) => {
      packsTree
        .refreshRepository(repository)
        .catch((error: unknown) => output.warn(`Refreshing ${repository} failed: ${errorMessage(error)}`));
    }),
  );
  // Restricted Mode reaches the server as a setting (it refuses to run git then); granting trust lifts it.
  lifetime.register(vscode.workspace.onDidGrantWorkspaceTrust(() => server.configure(readServerSettings(locatedGit))));
  lifetime.register(server.onLoadProgress((params) => packsTree.showBackgroundLoad(params)));
  lifetime.register(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('packscope')) return;
      viewSettings = readViewSettings();
      // The histogram's bars are drawn when the Summary is built: built again at the new scale.
      if (event.affectsConfiguration('packscope.view.depthScale')) void packsTree.refreshAll();
      if (affectsServerSettings(event)) {
        server.configure(readServerSettings(locatedGit));
        void packsTree.refreshAll();
      }
    }),
  );

  // Git is only looked for after activation: it runs a process, and nothing in the view waits for it.
  const gitLocation = new Promise<void>((resolve) => setImmediate(resolve)).then(locateGit);
  void gitLocation.then((location) => {
    if (location.found) {
      locatedGit = location.path;
      server.configure(readServerSettings(locatedGit));
    }
    if (location.found) output.info(`git: ${location.version} (${location.path}, from the ${location.source})`);
    else output.warn(`git was not found (${location.reason}); packs are read without it.`);
    packsTree.setGitLocation(location);
  });
  const summaries = lifetime.register(new SimulationSummaries(context.workspaceState));
  const recording = registerRecording({ lifetime, context, server, output, gitLocation, summaries });
  const cacheLab = registerCacheLab({
    lifetime,
    context,
    server,
    output,
    gitLocation,
    recordings: recordingSourceFromStore(recording.api.store),
    onSweep: (file, segment, result) => summaries.remember(file, segment, result),
  });
  const previewPacks = new PreviewPackHolds(server, output);
  const repackPreview = registerRepackPreview({
    lifetime,
    context,
    server,
    output,
    gitLocation,
    recordings: recording.api.store,
    previewPacks,
  });
  const packMap = registerPackMap({ lifetime, context, server, output, recordings: recording.api.store, previewPacks });
  const bytesTreemap = registerBytesTreemap({ lifetime, context, server, output });
  registerCommands(lifetime, {
    server,
    packsTree,
    output,
    recordings: recording.commands,
    cacheLab,
    repackPreview,
    packMap,
    bytesTreemap,
  });

  // Started right after activation rather than inside it: hovers and terminal links need a server soon.
  // `onStartupFinished` activates every window, so a bounded probe (git-directory-probe.ts) decides
  // first whether the workspace holds a repository; without one the server waits until the view or
  // a command asks for it, or a folder with a repository is added.
  const startServer = (): void => {
    server
      .whenRunning()
      .catch((error: unknown) => output.error(`The PackScope server is not running: ${errorMessage(error)}`));
  };
  const probeAndStart = (): boolean => {
    const folders = (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => f.uri.fsPath);
    const probeStart = performance.now();
    const found = probeWorkspace(folders, readServerSettings(locatedGit).scanDepth);
    output.info(
      `Repository probe: ${found === undefined ? 'no git directory' : found} in ${(performance.now() - probeStart).toFixed(1)} ms.`,
    );
    if (found !== undefined) startServer();
    return found !== undefined;
  };
  setImmediate(() => {
    if (probeAndStart()) return;
    const folders = vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (server.isRunning || probeAndStart()) folders.dispose();
    });
    lifetime.register(folders);
  });

  const activationEnd = performance.now();
  const activationCpu = process.cpuUsage(activationCpuStart);
  const activationMs = activationEnd - activationStart;
  const loadAndActivationMs = load.ms + activationMs;
  // CPU time is what activation costs the extension host; wall time also counts other processes
  // that happen to run at the same moment (the workbench itself is starting on the same cores).
  const loadAndActivationCpuMs = load.cpuMs + (activationCpu.user + activationCpu.system) / 1000;
  output.info(
    `PackScope activated in ${activationMs.toFixed(1)} ms (${loadAndActivationMs.toFixed(1)} ms with loading the bundle; ${loadAndActivationCpuMs.toFixed(1)} ms of CPU).`,
  );
  return {
    activationMs,
    loadAndActivationMs,
    loadAndActivationCpuMs,
    ready: server.ready,
    server,
    packsTree,
    packsView,
    terminalLinks,
    objectDocuments,
    gitLocation,
    output,
    logUri: context.logUri,
    recording: recording.api,
    cacheLab,
    repackPreview,
    packMap,
    bytesTreemap,
    objectDocumentUri,
  };
}

export async function deactivate(): Promise<void> {
  const server = activeServer;
  activeServer = undefined;
  await server?.dispose();
}
