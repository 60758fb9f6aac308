// Recording inside VS Code (issue 5): the terminal recording toggle and its status bar item,
// "Record a git command…", and the Recordings view with its actions. `registerRecording` is called
// once by activate; what it returns is `api.recording`.
import * as path from 'node:path';
import vscode = require('vscode');
import { RecordingInfoRequest, type RecordingInfo } from '../../protocol/server-protocol.ts';
import type { GitLocation } from '../git-locator.ts';
import { describe, type ServerClient } from '../server-client.ts';
import { recordGitCommand, type RecordCommandArgs, type RecordCommandResult } from './record-command.ts';
import { affectsRecordingSettings, readRecordingSettings } from './recording-settings.ts';
import { RecordingStore } from './recording-store.ts';
import { RECORDINGS_VIEW_ID, RecordingNode, RecordingsTreeProvider, recordedLimit, SegmentNode, type RecordingsNode } from './recordings-tree.ts';
import { TerminalRecorder } from './terminal-recorder.ts';

/** The Cache Lab's command (built elsewhere); the Recordings view calls it with a CacheLabTarget. */
export const OPEN_CACHE_LAB_COMMAND = 'packscope.openCacheLab';

/** The argument `packscope.openCacheLab` is called with from the Recordings view. */
export interface CacheLabTarget {
  /** The recording file: a `.recording` (with header) or a raw `.trace` (GIT_TRACE_PACK_ACCESS + GIT_TRACE). */
  file: string;
  /** 1-based git process (RecordingSegment.index); absent: the whole recording. */
  segment?: number;
  /** Which tab to show first. */
  tab?: 'simulation' | 'locality';
  /** The name the Recordings view shows (for the panel's title). */
  label?: string;
  /** From the sidecar for raw traces, else the recording's own: how it was recorded. */
  mode?: 'exact' | 'passive' | 'raw';
  /** The limit it was recorded with (bytes), null when unknown. */
  recordedLimit?: number | null;
}

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
  context: vscode.ExtensionContext;
  server: ServerClient;
  output: vscode.LogOutputChannel;
  gitLocation: Promise<GitLocation>;
}

export function registerRecording({ context, server, output, gitLocation }: Dependencies): RecordingApi {
  const store = new RecordingStore(path.join(context.globalStorageUri.fsPath, 'recordings'));
  const recorder = new TerminalRecorder(context.environmentVariableCollection, store, readRecordingSettings, output);
  const tree = new RecordingsTreeProvider(server, store, recorder);
  const view = vscode.window.createTreeView(RECORDINGS_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  const recordDeps = { server, store, settings: readRecordingSettings, gitLocation };

  const run = (name: string, action: (...args: unknown[]) => Promise<unknown> | unknown): vscode.Disposable =>
    vscode.commands.registerCommand(name, async (...args: unknown[]) => {
      try {
        return await action(...args);
      } catch (error) {
        output.error(`${name} failed: ${describe(error)}`);
        void vscode.window.showErrorMessage(`PackScope: ${describe(error)}`);
        return undefined;
      }
    });

  /** The node of a recording: the node itself, one of its segments, a file path or `{ file }` (commands run programmatically). */
  const resolve = async (node: unknown): Promise<RecordingNode | undefined> => {
    const direct = recordingOf(node);
    if (direct !== undefined) return direct;
    const file = typeof node === 'string' ? node : typeof node === 'object' && node !== null && typeof (node as { file?: unknown }).file === 'string' ? (node as { file: string }).file : undefined;
    if (file === undefined) return undefined;
    return (await tree.recordingNodes()).find((candidate) => candidate.stored.file === file);
  };

  const openCacheLab = async (target: unknown, tab: CacheLabTarget['tab']): Promise<unknown> => {
    const argument = cacheLabTarget(target, tab);
    if (argument === undefined) throw new Error('Choose a recording in the Recordings view.');
    const commands = await vscode.commands.getCommands(true);
    if (!commands.includes(OPEN_CACHE_LAB_COMMAND)) throw new Error('The Cache Lab is not available in this version of PackScope.');
    return vscode.commands.executeCommand(OPEN_CACHE_LAB_COMMAND, argument);
  };

  context.subscriptions.push(
    store,
    recorder,
    tree,
    view,
    run('packscope.toggleRecording', () => recorder.toggle()),
    run('packscope.recordCommand', async (argument): Promise<RecordCommandResult | undefined> => {
      const result = await recordGitCommand(recordDeps, recordArgs(argument));
      if (result !== undefined) await revealRecording(tree, view, result.file);
      return result;
    }),
    run('packscope.recordings.refresh', () => tree.refresh()),
    run('packscope.recordings.openCacheLab', (node) => openCacheLab(node, 'simulation')),
    run('packscope.recordings.localityReport', (node) => openCacheLab(node, 'locality')),
    run('packscope.recordings.rename', async (node, newName) => {
      const recording = await resolve(node);
      if (recording === undefined) return;
      const label =
        typeof newName === 'string'
          ? newName
          : await vscode.window.showInputBox({ title: 'PackScope: Rename Recording', value: recording.name, prompt: 'A name for the recording (empty: the default name)', ignoreFocusOut: true });
      if (label === undefined) return;
      store.rename(recording.stored.file, label);
    }),
    run('packscope.recordings.delete', async (node, options) => {
      const recording = await resolve(node);
      if (recording === undefined) return false;
      const confirmed =
        isConfirmed(options) ||
        (await vscode.window.showWarningMessage(
          `Delete the recording "${recording.name}"?`,
          { modal: true, detail: `${recording.stored.file} will be deleted. This cannot be undone.` },
          'Delete',
        )) === 'Delete';
      if (!confirmed) return false;
      store.delete(recording.stored.file);
      return true;
    }),
    run('packscope.recordings.revealFile', async (node) => {
      const recording = await resolve(node);
      if (recording === undefined) return;
      const uri = vscode.Uri.file(recording.stored.file);
      // A desktop window shows the file in the OS file manager. In the browser (code-server,
      // vscode.dev) that would be the server's file manager, which the user cannot see: the path is
      // copied instead, with a way to open the containing folder in a new window.
      if (vscode.env.uiKind === vscode.UIKind.Desktop && vscode.env.remoteName === undefined) {
        await vscode.commands.executeCommand('revealFileInOS', uri);
        return;
      }
      await vscode.env.clipboard.writeText(recording.stored.file);
      const open = await vscode.window.showInformationMessage(`Copied the recording's path: ${recording.stored.file}`, 'Open Folder in New Window');
      if (open !== undefined) await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(path.dirname(recording.stored.file)), { forceNewWindow: true });
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsRecordingSettings(event)) void recorder.settingsChanged();
    }),
  );

  return {
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
    recordingInfo: (file, segment) => server.request(RecordingInfoRequest, segment === undefined ? { file } : { file, segment }),
  };
}

function recordArgs(argument: unknown): RecordCommandArgs {
  if (typeof argument !== 'object' || argument === null) return {};
  const value = argument as Record<string, unknown>;
  return {
    repository: typeof value.repository === 'string' ? value.repository : undefined,
    args: Array.isArray(value.args) && value.args.every((a) => typeof a === 'string') ? (value.args as string[]) : undefined,
  };
}

function isConfirmed(options: unknown): boolean {
  return typeof options === 'object' && options !== null && (options as { confirmed?: unknown }).confirmed === true;
}

/** A recording node, from the node itself or one of its segments. */
function recordingOf(node: unknown): RecordingNode | undefined {
  if (node instanceof RecordingNode) return node;
  if (node instanceof SegmentNode) return node.parent;
  return undefined;
}

function cacheLabTarget(node: unknown, tab: CacheLabTarget['tab']): CacheLabTarget | undefined {
  const recording = recordingOf(node);
  if (recording === undefined) {
    if (typeof node === 'object' && node !== null && typeof (node as { file?: unknown }).file === 'string') return { ...(node as CacheLabTarget), tab };
    return undefined;
  }
  const { stored, info } = recording;
  const mode = info === undefined || info.mode === 'raw' ? (stored.sidecar?.mode ?? 'raw') : info.mode;
  const target: CacheLabTarget = { file: stored.file, tab, label: recording.name, mode, recordedLimit: recordedLimit(stored, info) };
  if (node instanceof SegmentNode) {
    target.segment = node.segment.index;
    target.label = `${recording.name}: ${node.label as string}`;
  }
  return target;
}

async function revealRecording(tree: RecordingsTreeProvider, view: vscode.TreeView<RecordingsNode>, file: string): Promise<void> {
  tree.refresh();
  const node = (await tree.recordingNodes()).find((candidate) => candidate.stored.file === file);
  if (node !== undefined && view.visible) await view.reveal(node, { select: true, focus: false }).then(undefined, () => undefined);
}
