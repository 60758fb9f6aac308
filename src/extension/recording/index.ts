// Recording inside VS Code: the terminal recording toggle and its status bar item,
// "Record a git command…", and the Recordings view with its actions. `registerRecording` is called
// once by activate; its `api` is `api.recording`, its `commands` are in the command table.
import vscode = require('vscode');
import { RecordingInfoRequest, type RecordingInfo } from '../../protocol/server-protocol.ts';
import type { Lifetime } from '../dispose.ts';
import type { GitLocation } from '../git-locator.ts';
import type { ServerClient } from '../server-client.ts';
import { RecordingCommands } from './recording-commands.ts';
import { affectsRecordingSettings, readRecordingSettings } from './recording-settings.ts';
import { recordingsDirectory, RecordingStore } from './recording-store.ts';
import { RECORDINGS_VIEW_ID, RecordingsTreeProvider, type RecordingsNode } from './recordings-tree.ts';
import type { SimulationSummaries } from '../simulation-summaries.ts';
import { TerminalRecorder } from './terminal-recorder.ts';

export interface RecordingApi {
  readonly isOn: boolean;
  readonly mode: 'exact' | 'passive';
  /** The live file git appends to while recording is on. */
  readonly currentTraceFile: string | undefined;
  /** The status bar item's text. */
  readonly statusText: string;
  /** `context.environmentVariableCollection`, as the recorder fills it. */
  readonly environment: vscode.GlobalEnvironmentVariableCollection;
  /** `<globalStorage>/recordings`. */
  readonly directory: string;
  readonly store: RecordingStore;
  readonly recorder: TerminalRecorder;
  readonly recordingsTree: RecordingsTreeProvider;
  readonly recordingsView: vscode.TreeView<RecordingsNode>;
  toggle(): Promise<void>;
  /** Stops recording; the finished recording file (undefined when git wrote nothing). */
  stop(): Promise<string | undefined>;
  /** Rotates the live file now (what the size watcher does). */
  rotate(): string | undefined;
  /** RecordingInfoRequest for one file (tests: a RequestType from another bundle is not this client's). */
  recordingInfo(file: string, segment?: number): Promise<RecordingInfo>;
}

interface Dependencies {
  /** The extension's lifetime: the store, the recorder and the view are disposed with it. */
  lifetime: Lifetime;
  context: vscode.ExtensionContext;
  server: ServerClient;
  output: vscode.LogOutputChannel;
  gitLocation: Promise<GitLocation>;
  /** The Cache Lab's last sweep per recording, shown on its row. */
  summaries: SimulationSummaries;
}

/** What the recording feature gives the extension: its API (`api.recording`) and its commands' handlers. */
export interface RecordingFeature {
  api: RecordingApi;
  commands: RecordingCommands;
}

/** Creates the store, the terminal recorder and the Recordings view, owned by `lifetime`. */
export function registerRecording({
  lifetime,
  context,
  server,
  output,
  gitLocation,
  summaries,
}: Dependencies): RecordingFeature {
  const store = lifetime.register(new RecordingStore(recordingsDirectory(context)));
  const recorder = lifetime.register(
    new TerminalRecorder(context.environmentVariableCollection, store, readRecordingSettings, output),
  );
  const tree = lifetime.register(new RecordingsTreeProvider(server, store, recorder, summaries));
  const view = lifetime.register(
    vscode.window.createTreeView(RECORDINGS_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true }),
  );
  lifetime.register(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsRecordingSettings(event)) void recorder.settingsChanged();
    }),
  );
  const commands = new RecordingCommands({ server, store, recorder, tree, view, gitLocation });

  const api: RecordingApi = {
    get isOn() {
      return recorder.isOn;
    },
    get mode() {
      return recorder.mode;
    },
    get currentTraceFile() {
      return recorder.currentTraceFile;
    },
    get statusText() {
      return recorder.statusText;
    },
    environment: context.environmentVariableCollection,
    directory: store.directory,
    store,
    recorder,
    recordingsTree: tree,
    recordingsView: view,
    toggle: () => recorder.toggle(),
    stop: () => recorder.stop(),
    rotate: () => recorder.rotate(),
    recordingInfo: (file, segment) =>
      server.request(RecordingInfoRequest, segment === undefined ? { file } : { file, segment }),
  };
  return { api, commands };
}
