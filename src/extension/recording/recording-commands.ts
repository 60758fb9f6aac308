// The Recordings view's and the recorder's commands (their ids are in the command table,
// src/extension/commands.ts): what each does with the node or argument it is given.
import * as path from 'node:path';
import vscode = require('vscode');
import type { GitLocation } from '../git-locator.ts';
import type { ServerClient } from '../server-client.ts';
import { recordGitCommand, type RecordCommandArgs, type RecordCommandResult } from './record-command.ts';
import { readRecordingSettings } from './recording-settings.ts';
import type { RecordingStore } from './recording-store.ts';
import {
  RecordingNode,
  recordedLimit,
  SegmentNode,
  type RecordingsNode,
  type RecordingsTreeProvider,
} from './recordings-tree.ts';
import type { TerminalRecorder } from './terminal-recorder.ts';

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

interface Dependencies {
  server: ServerClient;
  store: RecordingStore;
  recorder: TerminalRecorder;
  tree: RecordingsTreeProvider;
  view: vscode.TreeView<RecordingsNode>;
  gitLocation: Promise<GitLocation>;
}

export class RecordingCommands {
  constructor(private readonly deps: Dependencies) {}

  toggle(): Promise<void> {
    return this.deps.recorder.toggle();
  }

  async recordCommand(argument: unknown): Promise<RecordCommandResult | undefined> {
    const { server, store, gitLocation, tree, view } = this.deps;
    const result = await recordGitCommand(
      { server, store, settings: readRecordingSettings, gitLocation },
      recordArgs(argument),
    );
    if (result !== undefined) await revealRecording(tree, view, result.file);
    return result;
  }

  refresh(): void {
    this.deps.tree.refresh();
  }

  async openCacheLab(target: unknown, tab: CacheLabTarget['tab']): Promise<unknown> {
    const argument = cacheLabTarget(target, tab);
    if (argument === undefined) throw new Error('Choose a recording in the Recordings view.');
    const commands = await vscode.commands.getCommands(true);
    if (!commands.includes(OPEN_CACHE_LAB_COMMAND))
      throw new Error('The Cache Lab is not available in this version of PackScope.');
    return vscode.commands.executeCommand(OPEN_CACHE_LAB_COMMAND, argument);
  }

  async rename(node: unknown, newName: unknown): Promise<void> {
    const recording = await this.resolve(node);
    if (recording === undefined) return;
    const label =
      typeof newName === 'string'
        ? newName
        : await vscode.window.showInputBox({
            title: 'PackScope: Rename Recording',
            value: recording.name,
            prompt: 'A name for the recording (empty: the default name)',
            ignoreFocusOut: true,
          });
    if (label === undefined) return;
    this.deps.store.rename(recording.stored.file, label);
  }

  async delete(node: unknown, options: unknown): Promise<boolean> {
    const recording = await this.resolve(node);
    if (recording === undefined) return false;
    const confirmed =
      isConfirmed(options) ||
      (await vscode.window.showWarningMessage(
        `Delete the recording "${recording.name}"?`,
        { modal: true, detail: `${recording.stored.file} will be deleted. This cannot be undone.` },
        'Delete',
      )) === 'Delete';
    if (!confirmed) return false;
    this.deps.store.delete(recording.stored.file);
    return true;
  }

  async revealFile(node: unknown): Promise<void> {
    const recording = await this.resolve(node);
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
    const open = await vscode.window.showInformationMessage(
      `Copied the recording's path: ${recording.stored.file}`,
      'Open Folder in New Window',
    );
    if (open !== undefined)
      await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(path.dirname(recording.stored.file)), {
        forceNewWindow: true,
      });
  }

  /** The node of a recording: the node itself, one of its segments, a file path or `{ file }` (commands run programmatically). */
  private async resolve(node: unknown): Promise<RecordingNode | undefined> {
    const direct = recordingOf(node);
    if (direct !== undefined) return direct;
    const file =
      typeof node === 'string'
        ? node
        : typeof node === 'object' && node !== null && typeof (node as { file?: unknown }).file === 'string'
          ? (node as { file: string }).file
          : undefined;
    if (file === undefined) return undefined;
    return (await this.deps.tree.recordingNodes()).find((candidate) => candidate.stored.file === file);
  }
}

function recordArgs(argument: unknown): RecordCommandArgs {
  if (typeof argument !== 'object' || argument === null) return {};
  const value = argument as Record<string, unknown>;
  return {
    repository: typeof value.repository === 'string' ? value.repository : undefined,
    args:
      Array.isArray(value.args) && value.args.every((a) => typeof a === 'string')
        ? (value.args as string[])
        : undefined,
  };
}

function isConfirmed(options: unknown): boolean {
  return typeof options === 'object' && options !== null && (options as { confirmed?: unknown }).confirmed === true;
}

/** A recording node, from the node itself or one of its segments. */
function recordingOf(node: unknown): RecordingNode | undefined {
  if (node instanceof RecordingNode) return node;
  if (node instanceof SegmentNode && node.parent instanceof RecordingNode) return node.parent;
  return undefined;
}

function cacheLabTarget(node: unknown, tab: CacheLabTarget['tab']): CacheLabTarget | undefined {
  const recording = recordingOf(node);
  if (recording === undefined) {
    if (typeof node === 'object' && node !== null && typeof (node as { file?: unknown }).file === 'string')
      return { ...(node as CacheLabTarget), tab };
    return undefined;
  }
  const { stored, info } = recording;
  const mode = info === undefined || info.mode === 'raw' ? (stored.sidecar?.mode ?? 'raw') : info.mode;
  const target: CacheLabTarget = {
    file: stored.file,
    tab,
    label: recording.name,
    mode,
    recordedLimit: recordedLimit(stored, info),
  };
  if (node instanceof SegmentNode) {
    target.segment = node.segment.index;
    target.label = `${recording.name}: ${node.label as string}`;
  }
  return target;
}

async function revealRecording(
  tree: RecordingsTreeProvider,
  view: vscode.TreeView<RecordingsNode>,
  file: string,
): Promise<void> {
  tree.refresh();
  const node = (await tree.recordingNodes()).find((candidate) => candidate.stored.file === file);
  if (node !== undefined && view.visible)
    await view.reveal(node, { select: true, focus: false }).then(undefined, () => undefined);
}
