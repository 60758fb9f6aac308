// The Recordings view: repository → recording → git command (segment). Facts come from the server
// (RecordingInfoRequest, cached per file size and time); names and modes from the sidecars.
import { errorMessage } from '../../common/error-message.ts';
import { formatLimit } from '../../common/format.ts';
import * as path from 'node:path';
import vscode = require('vscode');
import { RecordingInfoRequest, type RecordingInfo, type RecordingSegment } from '../../protocol/server-protocol.ts';
import { markdownText } from '../../common/markdown-text.ts';
import { formatBytes, formatCount } from '../format-units.ts';
import { type ServerClient } from '../server-client.ts';
import type { RecordingStore, StoredRecording } from './recording-store.ts';
import type { TerminalRecorder } from './terminal-recorder.ts';
import { Disposable } from '../dispose.ts';
import { simulationSummaryText, type SimulationSummary } from '../../presentation/recording-summary.ts';
import type { SimulationSummaries } from '../simulation-summaries.ts';

export const RECORDINGS_VIEW_ID = 'packscope.recordings';

/** How often at most the view re-reads a live terminal recording while git writes to it. */
const LIVE_REFRESH_MS = 1500;

export abstract class RecordingsNode extends vscode.TreeItem {
  abstract readonly parent: RecordingsNode | undefined;
  children(): RecordingsNode[] {
    return [];
  }
}

export class RecordingStatusNode extends RecordingsNode {
  readonly parent = undefined;
  /** While terminal recording is on: the git commands of the live file so far, as they come. */
  readonly liveCommands: (SegmentNode | ElsewhereNode)[] = [];
  constructor(
    label: string,
    icon: string,
    command?: vscode.Command,
    tooltip?: string,
    live?: { stored: StoredRecording; info?: RecordingInfo | undefined; error?: string | undefined },
  ) {
    const segments = live?.info?.segments.filter((segment) => segment.reads > 0) ?? [];
    super(label, segments.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    // A new id once commands arrive: VS Code keeps an id's collapsed state, and the first command should show at once.
    this.id = `status:${label}${segments.length > 0 ? ':commands' : ''}`;
    this.iconPath = new vscode.ThemeIcon(icon);
    this.contextValue = 'recordingStatus';
    if (command !== undefined) this.command = command;
    if (tooltip !== undefined) this.tooltip = tooltip;
    if (live !== undefined) {
      const elsewhere = live.info?.elsewhere ?? [];
      this.liveCommands = [
        ...segments.map((segment) => new SegmentNode(this, live.stored, segment, 'liveRecordingSegment')),
        ...elsewhere.map((process, i) => new ElsewhereNode(this, live.info!, process, i)),
      ];
      const reads = segments.reduce((sum, segment) => sum + segment.reads, 0);
      this.description =
        live.info !== undefined
          ? `${live.stored.name} · ${formatCount(segments.length)} ${segments.length === 1 ? 'command' : 'commands'}, ${formatCount(reads)} reads so far${elsewhere.length > 0 ? ` · ${formatCount(elsewhere.length)} in another repository` : ''}`
          : live.error !== undefined
            ? `${live.stored.name} · not readable yet: ${live.error}`
            : live.stored.name;
    }
  }
  override children(): RecordingsNode[] {
    return this.liveCommands;
  }
}

export class RecordingGroupNode extends RecordingsNode {
  readonly parent = undefined;
  readonly recordings: RecordingNode[] = [];
  constructor(readonly repository: string | undefined) {
    super(
      repository === undefined ? 'Unknown repository' : repositoryName(repository),
      vscode.TreeItemCollapsibleState.Expanded,
    );
    this.id = `group:${repository ?? ''}`;
    this.description = repository;
    this.iconPath = new vscode.ThemeIcon('repo');
    this.contextValue = 'recordingRepository';
  }
  override children(): RecordingsNode[] {
    return this.recordings;
  }
}

export class RecordingNode extends RecordingsNode {
  readonly segments: SegmentNode[];
  /** Its git processes that ran in another repository: listed, never replayed. */
  readonly elsewhere: ElsewhereNode[];
  constructor(
    readonly parent: RecordingGroupNode,
    readonly stored: StoredRecording,
    readonly info: RecordingInfo | undefined,
    readonly error: string | undefined,
    /** What its last sweep in the Cache Lab found, when the file has not changed since. */
    readonly simulation?: SimulationSummary | undefined,
  ) {
    const segments = info?.segments.filter((segment) => segment.reads > 0) ?? [];
    const elsewhere = info?.elsewhere ?? [];
    super(
      stored.name,
      segments.length + elsewhere.length > 0
        ? vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.None,
    );
    this.id = `recording:${stored.file}`;
    this.segments = segments.map((segment) => new SegmentNode(this, stored, segment));
    this.elsewhere = elsewhere.map((process, i) => new ElsewhereNode(this, info!, process, i));
    this.iconPath = new vscode.ThemeIcon(
      stored.sidecar?.source === 'terminal' || stored.file.endsWith('.trace') ? 'terminal' : 'record',
    );
    this.contextValue = error === undefined ? 'recording' : 'recording unreadable';
    const simulated = simulation === undefined ? undefined : simulationSummaryText(simulation);
    this.description =
      error === undefined && info !== undefined
        ? recordingDescription(stored, info) + (simulated ? ` · ${simulated.description}` : '')
        : `unreadable: ${error ?? 'no answer'}`;
    this.tooltip = recordingTooltip(stored, info, error, simulated?.tooltip);
    this.resourceUri = vscode.Uri.file(stored.file);
  }

  /** The recording's one name (recordingName), as the Cache Lab and messages use it. */
  get name(): string {
    return this.stored.name;
  }

  override children(): RecordingsNode[] {
    return [...this.segments, ...this.elsewhere];
  }
}

export class SegmentNode extends RecordingsNode {
  constructor(
    /** The recording, or the status node of a live recording (its commands are listed under it). */
    readonly parent: RecordingNode | RecordingStatusNode,
    stored: StoredRecording,
    readonly segment: RecordingSegment,
    contextValue: 'recordingSegment' | 'liveRecordingSegment' = 'recordingSegment',
  ) {
    super(segment.command ?? `git process ${segment.index}`, vscode.TreeItemCollapsibleState.None);
    this.id = `${parent.id}#${segment.index}`;
    this.description = `${formatCount(segment.reads)} reads`;
    this.iconPath = new vscode.ThemeIcon('symbol-event');
    // A live file's commands have no actions: the file is renamed when recording stops.
    this.contextValue = contextValue;
    this.tooltip = `${segment.command ?? 'A git process GIT_TRACE did not name'}\ngit process ${segment.index} of ${stored.name}: ${formatCount(segment.reads)} reads${contextValue === 'liveRecordingSegment' ? ' (still recording)' : ''}`;
  }
}

/**
 * A git process of the file that ran in another repository (the terminal changed directory): its
 * reads are of that repository's packs, so every replay of this recording leaves it out (load-recording.ts).
 */
export class ElsewhereNode extends RecordingsNode {
  constructor(
    readonly parent: RecordingNode | RecordingStatusNode,
    info: RecordingInfo,
    process: RecordingInfo['elsewhere'][number],
    index: number,
  ) {
    super(process.command ?? 'a git process GIT_TRACE did not name', vscode.TreeItemCollapsibleState.None);
    this.id = `${parent.id}@elsewhere${index}`;
    this.description = `${formatCount(process.reads)} reads · in ${repositoryName(process.gitDir)}`;
    this.iconPath = new vscode.ThemeIcon('symbol-event', new vscode.ThemeColor('disabledForeground'));
    this.contextValue = 'recordingElsewhere';
    this.tooltip = `${process.command ?? 'A git process GIT_TRACE did not name'}\nran in ${process.gitDir}: ${formatCount(process.reads)} reads of that repository's packs, left out of every replay of this recording (its repository is ${info.repository})`;
  }
}

interface CachedInfo {
  bytes: number;
  mtimeMs: number;
  info?: RecordingInfo;
  error?: string;
}

export class RecordingsTreeProvider extends Disposable implements vscode.TreeDataProvider<RecordingsNode> {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<RecordingsNode | undefined>());
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly infos = new Map<string, CachedInfo>();
  private roots: RecordingsNode[] = [];

  constructor(
    private readonly server: ServerClient,
    private readonly store: RecordingStore,
    private readonly recorder: TerminalRecorder,
    private readonly summaries?: SimulationSummaries,
  ) {
    super();
    if (summaries !== undefined) this._register(summaries.onDidChange(() => this.refresh()));
    this._register(store.onDidChange(() => this.refresh()));
    this._register(recorder.onDidChange(() => this.refresh()));
    // While recording is on, the view follows the live file: a refresh at most every LIVE_REFRESH_MS.
    this._register(recorder.onDidWrite(() => this.refreshLive()));
    this._register({ dispose: () => clearTimeout(this.liveTimer) });
  }

  private liveTimer: NodeJS.Timeout | undefined;

  private refreshLive(): void {
    if (this.liveTimer !== undefined) return;
    this.liveTimer = setTimeout(() => {
      this.liveTimer = undefined;
      this.refresh();
    }, LIVE_REFRESH_MS);
  }

  refresh(): void {
    this.changeEmitter.fire(undefined);
  }

  getTreeItem(node: RecordingsNode): vscode.TreeItem {
    return node;
  }

  getParent(node: RecordingsNode): RecordingsNode | undefined {
    return node.parent;
  }

  async getChildren(node?: RecordingsNode): Promise<RecordingsNode[]> {
    if (node !== undefined) return node.children();
    this.roots = await this.build();
    return this.roots;
  }

  /** Every recording node as last built (tests read these). */
  async recordingNodes(): Promise<RecordingNode[]> {
    const roots = await this.getChildren();
    return roots.flatMap((root) => (root instanceof RecordingGroupNode ? root.recordings : []));
  }

  /** What the server says about one recording (cached until the file changes). */
  async info(stored: Pick<StoredRecording, 'file' | 'bytes' | 'mtimeMs'>): Promise<CachedInfo> {
    const cached = this.infos.get(stored.file);
    if (cached !== undefined && cached.bytes === stored.bytes && cached.mtimeMs === stored.mtimeMs) return cached;
    let entry: CachedInfo;
    try {
      entry = {
        bytes: stored.bytes,
        mtimeMs: stored.mtimeMs,
        info: await this.server.request(RecordingInfoRequest, { file: stored.file }),
      };
    } catch (error) {
      entry = { bytes: stored.bytes, mtimeMs: stored.mtimeMs, error: errorMessage(error) };
    }
    this.infos.set(stored.file, entry);
    return entry;
  }

  private async build(): Promise<RecordingsNode[]> {
    this.store.adoptOrphans(this.recorder.currentTraceFile);
    const stored = this.store.list();
    const known = new Set([
      ...stored.map((entry) => entry.file),
      ...(this.recorder.currentTraceFile === undefined ? [] : [this.recorder.currentTraceFile]),
    ]);
    for (const file of [...this.infos.keys()]) if (!known.has(file)) this.infos.delete(file);
    const infos = await Promise.all(stored.map((entry) => this.info(entry)));
    const groups = new Map<string, RecordingGroupNode>();
    stored.forEach((entry, i) => {
      const { info, error } = infos[i]!;
      const repository = info?.repository || entry.sidecar?.repository || undefined;
      const key = repository ?? '';
      let group = groups.get(key);
      if (group === undefined) groups.set(key, (group = new RecordingGroupNode(repository)));
      group.recordings.push(
        new RecordingNode(group, entry, info, error, this.summaries?.get(entry.file, entry.bytes, entry.mtimeMs)),
      );
    });
    const roots: RecordingsNode[] = [];
    if (this.recorder.isOn) {
      const stored = this.store.liveRecording(this.recorder.currentTraceFile);
      const live = stored === undefined ? undefined : { stored, ...(await this.info(stored)) };
      roots.push(
        new RecordingStatusNode(
          `Recording terminals (${this.recorder.mode})…`,
          'record',
          { title: 'Stop Recording', command: 'packscope.toggleRecording' },
          `git commands in terminals write to ${this.recorder.currentTraceFile}; they are listed here as they run. ` +
            'A terminal opened before recording started keeps its old environment: VS Code marks it with a warning, relaunch it to record there. Click to stop.',
          live,
        ),
      );
      if (live === undefined) roots[roots.length - 1]!.description = 'no git command yet (new or relaunched terminals)';
    }
    roots.push(...[...groups.values()].sort((a, b) => String(a.label).localeCompare(String(b.label))));
    return roots;
  }
}

/** `/work/repo/.git` → `repo`; a bare `/srv/repo.git` → `repo.git`. */
export function repositoryName(gitDir: string): string {
  const base = path.basename(gitDir);
  return base === '.git' ? path.basename(path.dirname(gitDir)) : base;
}

function recordingMode(stored: StoredRecording, info: RecordingInfo): string {
  return info.mode === 'raw' ? (stored.sidecar?.mode ?? 'raw') : info.mode;
}

/** The limit the recording's commands ran with: the recording's own, else the sidecar's (raw traces). */
export function recordedLimit(stored: StoredRecording, info: RecordingInfo | undefined): number | null {
  return info?.recordedLimit ?? stored.sidecar?.recordedLimit ?? null;
}

function recordingDescription(stored: StoredRecording, info: RecordingInfo): string {
  const limit = recordedLimit(stored, info);
  return [
    `${formatCount(info.reads)} reads`,
    `${formatCount(info.packs.length)} ${info.packs.length === 1 ? 'pack' : 'packs'}`,
    limit === null ? "repository's own limit" : `limit ${formatLimit(limit)}`,
    recordingMode(stored, info),
    ...(info.completeAt !== null ? [`complete at ${info.completeAt.map(formatLimit).join(', ')}`] : []),
  ].join(' · ');
}

function recordingTooltip(
  stored: StoredRecording,
  info: RecordingInfo | undefined,
  error: string | undefined,
  simulation: string | undefined,
): vscode.MarkdownString {
  const text = new vscode.MarkdownString();
  const lines = [`file: ${stored.file} (${formatBytes(stored.bytes)})`];
  if (info !== undefined) {
    const commands = info.segments.length;
    const withReads = info.segments.filter((segment) => segment.reads > 0).length;
    lines.push(
      `${formatCount(info.reads)} reads in ${formatCount(info.traceLines)} trace lines, ${commands} git ${commands === 1 ? 'process' : 'processes'} (${withReads} read packs)`,
    );
    if (info.gitVersion) lines.push(`git ${info.gitVersion}`);
    for (const warning of info.warnings.slice(0, 5)) lines.push(`⚠ ${warning}`);
  }
  if (error !== undefined) lines.push(`The server could not read it: ${error}`);
  if (simulation !== undefined) lines.push(...simulation.split('\n'));
  if (stored.sidecar?.startedAt) lines.push(`started ${new Date(stored.sidecar.startedAt).toLocaleString()}`);
  text.appendMarkdown(lines.map(markdownText).join('  \n'));
  return text;
}
