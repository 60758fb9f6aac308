// The recording toggle: while it is on, every integrated terminal runs git with the recording
// variables (src/common/recording-environment.ts, the same ones `packscope record` uses) through
// the extension's environment variable collection.
//
// - New terminals get the variables at once; VS Code offers to relaunch the terminals that were
//   already open (its own UI), and relaunches untouched ones by itself.
// - The collection is not persistent (`persistent = false`): after a window reload recording is off
//   and terminals started then get nothing. Restored terminals that still have the variables keep
//   writing to their session's live file, which the Recordings view adopts as a recording.
// - Every variable is a `replace` (these variables hold one value; `append`/`prepend` would glue
//   strings together). GIT_CONFIG_COUNT/KEY_n/VALUE_n are appended after the user's own entries by
//   index: n is the GIT_CONFIG_COUNT the terminal would otherwise have (the extension host's
//   environment plus `terminal.integrated.env.<platform>`). GIT_TRACE is left alone when the user
//   already sets it; GIT_TRACE_BARE, when set, is replaced by an empty value (= false for git).
// - Turning recording off clears the collection: every variable it added, nothing else.
// - Rotation: past `packscope.recording.maxFileMiB` the live file is renamed into a finished part
//   (RecordingStore.finishLive). git opens its trace files once per process, so a running command
//   finishes in the renamed part and commands started afterwards create a new live file at the same
//   path: no file is truncated or cut mid-command, and terminals need no relaunch.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import vscode = require('vscode');
import { EXACT_RECORDING_LIMIT, recordingVariables, type RecordingMode } from '../../common/recording-environment.ts';
import { formatBytes } from '../format-units.ts';
import { SIDECAR_VERSION, writeSidecar } from '../recording-sidecar.ts';
import { timestampName, type RecordingStore } from './recording-store.ts';
import type { RecordingSettings } from './recording-settings.ts';
import { Disposable } from '../dispose.ts';

const WATCH_INTERVAL_MS = 1000;

export class TerminalRecorder extends Disposable {
  private session: string | undefined;
  private sessionMode: RecordingMode = 'exact';
  private part = 1;
  private watchTimer: NodeJS.Timeout | undefined;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly changeEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires when recording starts, stops, rotates or changes mode. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly writeEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires when git has written to the live file since the last look (polled every WATCH_INTERVAL_MS): the Recordings view lists commands as they run. */
  readonly onDidWrite = this.writeEmitter.event;
  private liveSize = -1;

  constructor(
    readonly environment: vscode.GlobalEnvironmentVariableCollection,
    private readonly store: RecordingStore,
    private readonly settings: () => RecordingSettings,
    private readonly output: vscode.LogOutputChannel,
  ) {
    super();
    environment.persistent = false;
    environment.clear();
    this.statusItem = this._register(
      vscode.window.createStatusBarItem('packscope.recording', vscode.StatusBarAlignment.Left, -100),
    );
    this.statusItem.name = 'PackScope Recording';
    this.statusItem.command = 'packscope.toggleRecording';
    this.updateStatus();
    this.statusItem.show();
  }

  get isOn(): boolean {
    return this.session !== undefined;
  }

  /** The mode of the running recording, else the one the setting asks for. */
  get mode(): RecordingMode {
    return this.session === undefined ? this.settings().mode : this.sessionMode;
  }

  /** The file git appends to while recording is on (it is renamed into a recording on rotation and stop). */
  get currentTraceFile(): string | undefined {
    return this.session === undefined ? undefined : this.store.liveFile(this.session);
  }

  get statusText(): string {
    return this.statusItem.text;
  }

  async toggle(): Promise<void> {
    if (this.isOn) await this.stop();
    else await this.start();
  }

  async start(): Promise<void> {
    if (this.isOn) return;
    this.store.ensureDirectory();
    this.store.adoptOrphans(undefined);
    const settings = this.settings();
    this.session = `${timestampName()}-${randomBytes(3).toString('hex')}`;
    this.sessionMode = settings.mode;
    this.part = 1;
    this.liveSize = -1;
    const live = this.store.liveFile(this.session);
    this.writeLiveSidecar(live);
    this.applyVariables(live);
    this.watchTimer = setInterval(() => this.checkSize(), WATCH_INTERVAL_MS);
    this.output.info(`Recording git in terminals (${this.sessionMode} mode) into ${live}.`);
    this.updateStatus();
    this.changeEmitter.fire();
  }

  /** Stops recording: the collection is cleared and the live file becomes a recording. Returns it (undefined: git wrote nothing). */
  async stop(): Promise<string | undefined> {
    const live = this.currentTraceFile;
    if (live === undefined) return undefined;
    this.session = undefined;
    if (this.watchTimer !== undefined) clearInterval(this.watchTimer);
    this.watchTimer = undefined;
    this.environment.clear();
    let finished: string | undefined;
    try {
      finished = this.store.finishLive(live);
      this.store.removeLive(live);
    } catch (error) {
      this.output.error(`Finishing the recording ${live} failed: ${String(error)}`);
    }
    this.output.info(
      finished === undefined ? 'Recording stopped; no git command read a pack.' : `Recording stopped: ${finished}.`,
    );
    this.updateStatus();
    this.changeEmitter.fire();
    this.store.changed();
    return finished;
  }

  /** The mode setting changed while recording: the running part ends, a new session starts in the new mode. */
  async settingsChanged(): Promise<void> {
    if (this.isOn && this.settings().mode !== this.sessionMode) {
      await this.stop();
      await this.start();
    } else {
      this.updateStatus();
    }
  }

  /** Rotates the live file now (the size watcher's action; tests call it directly). */
  rotate(): string | undefined {
    const live = this.currentTraceFile;
    if (live === undefined) return undefined;
    const finished = this.store.finishLive(live);
    if (finished === undefined) return undefined;
    this.part += 1;
    this.writeLiveSidecar(live);
    this.output.info(`Recording file rotated: ${finished} is finished, new git commands write to ${live}.`);
    this.changeEmitter.fire();
    return finished;
  }

  override dispose(): void {
    if (this.watchTimer !== undefined) clearInterval(this.watchTimer);
    // The collection is not persistent; a live file left here is adopted by the next start or listing.
    this.environment.clear();
    super.dispose();
  }

  private checkSize(): void {
    const live = this.currentTraceFile;
    if (live === undefined) return;
    let size: number;
    try {
      size = fs.statSync(live).size;
    } catch {
      // No git command has read a pack yet; keep the folder there (git does not create it).
      this.store.ensureDirectory();
      return;
    }
    if (size !== this.liveSize) {
      this.liveSize = size;
      this.writeEmitter.fire();
    }
    if (size < this.settings().maxFileBytes) return;
    try {
      this.rotate();
    } catch (error) {
      this.output.error(`Rotating ${live} (${formatBytes(size)}) failed: ${String(error)}`);
    }
  }

  private writeLiveSidecar(live: string): void {
    writeSidecar(live, {
      version: SIDECAR_VERSION,
      source: 'terminal',
      mode: this.sessionMode,
      recordedLimit: this.sessionMode === 'exact' ? EXACT_RECORDING_LIMIT : null,
      startedAt: new Date().toISOString(),
      session: this.session,
      part: this.part,
      hostPid: process.pid,
    });
  }

  private applyVariables(live: string): void {
    const variables = recordingVariables(terminalBaseEnvironment(), live, this.sessionMode);
    this.environment.clear();
    for (const [name, value] of variables.set) this.environment.replace(name, value);
    for (const name of variables.unset) this.environment.replace(name, '');
    const description = new vscode.MarkdownString(
      this.sessionMode === 'exact'
        ? `PackScope is recording git's pack accesses (exact mode: \`core.deltaBaseCacheLimit=0\` for recorded commands, so a replay is exact at every limit).`
        : `PackScope is recording git's pack accesses (passive mode: git runs with your own \`core.deltaBaseCacheLimit\`).`,
    );
    this.environment.description = description;
  }

  private updateStatus(): void {
    if (this.isOn) {
      this.statusItem.text = `$(record) PackScope: recording (${this.sessionMode})`;
      this.statusItem.tooltip = new vscode.MarkdownString(
        `Git commands in the integrated terminals are being recorded (${this.sessionMode} mode${this.sessionMode === 'exact' ? ': core.deltaBaseCacheLimit=0' : ''}).\n\nClick to stop; the recording appears in the Recordings view.`,
      );
      this.statusItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      this.statusItem.accessibilityInformation = {
        label: `PackScope is recording git commands, ${this.sessionMode} mode. Activate to stop.`,
      };
    } else {
      this.statusItem.text = '$(circle-outline) PackScope: not recording';
      this.statusItem.tooltip = `Click to record the git commands run in the integrated terminals (${this.settings().mode} mode, see packscope.recording.mode).`;
      this.statusItem.backgroundColor = undefined;
      this.statusItem.accessibilityInformation = {
        label: 'PackScope is not recording. Activate to record git commands run in terminals.',
      };
    }
  }
}

/** The environment a new terminal would start with, as far as the extension host can tell. */
export function terminalBaseEnvironment(): Record<string, string | undefined> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'osx' : 'linux';
  const configured =
    vscode.workspace.getConfiguration('terminal.integrated.env').get<Record<string, string | null>>(platform) ?? {};
  const base: Record<string, string | undefined> = { ...process.env };
  for (const [name, value] of Object.entries(configured)) base[name] = value === null ? undefined : String(value);
  return base;
}
