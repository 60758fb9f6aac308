// Where recordings live and what is known about them without the server: the files in the
// extension's storage (`<globalStorage>/recordings/`) and one small JSON sidecar per file.
//
// Two kinds of file, both read by the server as they are (RecordingInfoRequest, SweepRequest, …):
// - `*.recording`: "Record a git command…" — written by the server's RecordRequest, a
//   `#packscope-recording 1 {…}` header and the trace (src/core/trace/recording.ts);
// - `*.trace`: terminal recording — the raw GIT_TRACE_PACK_ACCESS + GIT_TRACE file git wrote (the
//   server reads it in mode 'raw'); the extension never parses it, so it is not converted.
// Next to each, `<file>.json` (RecordingSidecar) keeps what the raw trace cannot say (mode, the limit
// it was recorded with, when) and what the user chose (the name given by Rename).
//
// A terminal recording is written to `live-<session>.trace` while recording is on; rotation and
// "stop" rename it to `terminal-<session>-<part>.trace`. A git process that is still running keeps
// its open file descriptor, so it finishes writing into the renamed file (nothing is truncated or cut
// mid-command) while git processes started afterwards open the live path afresh.
import * as fs from 'node:fs';
import * as path from 'node:path';
import vscode = require('vscode');
import { Disposable } from '../dispose.ts';
import {
  readSidecar,
  SIDECAR_VERSION,
  sidecarPath,
  writeSidecar,
  type RecordingSidecar,
} from '../recording-sidecar.ts';
import { inputPath } from '../../common/recording-sidecar.ts';

export interface StoredRecording {
  file: string;
  sidecar: RecordingSidecar | undefined;
  bytes: number;
  mtimeMs: number;
  /** recordingName: the one name the view, the Cache Lab and messages show. */
  name: string;
  /** The file git is still appending to (terminal recording is on): listed while it grows. */
  live?: boolean;
}

const LIVE_PREFIX = 'live-';

/** `20240131-120501` in local time: sortable, and safe in file names on every platform. */
export function timestampName(date = new Date()): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}${two(date.getMonth() + 1)}${two(date.getDate())}-${two(date.getHours())}${two(date.getMinutes())}${two(date.getSeconds())}`;
}

/** `2024-01-31 12:05:01` in local time: what a terminal recording's name says of its start. */
function startedWords(date: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/**
 * The one name of a recording, wherever it is shown: the Recordings view's label, the Cache Lab's
 * list and panel title, the Rename box, messages. The name the user gave (Rename), else the git
 * command it recorded (the sidecar's arguments), else for terminal recordings `terminal session
 * <start>` with the part (the same while it is live and once finished), else the file's name.
 * It depends on the sidecar and the file only, so that every place that lists the store says the
 * same; file names are made from the same words (recordingFileStem).
 */
export function recordingName(stored: Pick<StoredRecording, 'file' | 'sidecar' | 'mtimeMs'>): string {
  const sidecar = stored.sidecar;
  if (sidecar?.label !== undefined) return sidecar.label;
  if (sidecar?.args !== undefined) return `git ${sidecar.args.join(' ')}`;
  if (sidecar?.source === 'terminal' || stored.file.endsWith('.trace')) {
    const part = sidecar?.part !== undefined && sidecar.part > 1 ? ` (part ${sidecar.part})` : '';
    return `terminal session ${startedWords(new Date(sidecar?.startedAt ?? stored.mtimeMs))}${part}`;
  }
  return path.basename(stored.file).replace(/\.(recording|psrec|trace)$/, '');
}

/** A recording name as file-name words: `git log -p` → `git-log-p` (portable characters, at most 60). */
export function recordingFileStem(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'recording'
  );
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The extension's recordings directory: the one place the server is told it may write recordings. */
export function recordingsDirectory(context: vscode.ExtensionContext): string {
  return path.join(context.globalStorageUri.fsPath, 'recordings');
}

export class RecordingStore extends Disposable {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires after a recording was added, finished, renamed or deleted. */
  readonly onDidChange = this.changeEmitter.event;

  constructor(readonly directory: string) {
    super();
  }

  ensureDirectory(): void {
    fs.mkdirSync(this.directory, { recursive: true });
  }

  changed(): void {
    this.changeEmitter.fire();
  }

  liveFile(session: string): string {
    return path.join(this.directory, `${LIVE_PREFIX}${session}.trace`);
  }

  /** A new file name for "Record a git command…" (the server writes it): its name's words and the time, `git-log-p-20240131-120501.recording`. */
  commandFile(args: string[]): string {
    const stem = `${recordingFileStem(recordingName({ file: '', mtimeMs: 0, sidecar: { version: SIDECAR_VERSION, source: 'command', mode: 'exact', recordedLimit: null, startedAt: '', args } }))}-${timestampName()}`;
    let name = stem;
    for (let n = 2; fs.existsSync(path.join(this.directory, `${name}.recording`)); n++) name = `${stem}-${n}`;
    return path.join(this.directory, `${name}.recording`);
  }

  /**
   * Turns a live terminal trace into a finished recording: renames it (and its sidecar) to
   * `terminal-<session>-<part>.trace`. Returns the new file, or undefined when git wrote nothing.
   * A live file without its sidecar (a late writer, a terminal VS Code did not relaunch, after the
   * stop removed it) takes its session's settings from the session's last finished part.
   */
  finishLive(live: string, endedAt = new Date()): string | undefined {
    if (!fs.existsSync(live)) return undefined;
    const liveSession = path.basename(live, '.trace').slice(LIVE_PREFIX.length);
    const sidecar = readSidecar(live) ?? this.lastPartSidecar(liveSession);
    const session = sidecar?.session ?? liveSession;
    let part = sidecar?.part ?? 1;
    let target = path.join(this.directory, `terminal-${session}-${part}.trace`);
    while (fs.existsSync(target)) target = path.join(this.directory, `terminal-${session}-${++part}.trace`);
    fs.renameSync(live, target);
    writeSidecar(target, {
      ...(sidecar ?? {
        version: SIDECAR_VERSION,
        source: 'terminal',
        mode: 'passive',
        recordedLimit: null,
        startedAt: endedAt.toISOString(),
        session,
      }),
      part,
      endedAt: endedAt.toISOString(),
      hostPid: undefined,
    });
    this.changed();
    return target;
  }

  /**
   * What a stopped session leaves of its live file: its sidecar (the trace itself was renamed, or
   * git never wrote it). A stale `live-….trace.json` beside the finished recording said that
   * recording was still going on.
   */
  removeLive(live: string): void {
    if (!fs.existsSync(live)) fs.rmSync(sidecarPath(live), { force: true });
  }

  /** The sidecar of a session's finished part with the highest number, if any. */
  private lastPartSidecar(session: string): RecordingSidecar | undefined {
    let last: RecordingSidecar | undefined;
    const prefix = `terminal-${session}-`;
    for (const name of this.names()) {
      if (!name.startsWith(prefix) || !name.endsWith('.trace')) continue;
      const sidecar = readSidecar(path.join(this.directory, name));
      if (sidecar !== undefined && (last === undefined || (sidecar.part ?? 1) > (last.part ?? 1))) last = sidecar;
    }
    return last;
  }

  /**
   * Live files of sessions that are not running (a window reload, or a terminal that kept the
   * variables after recording stopped) become recordings too: nothing git wrote is lost. A live
   * sidecar whose trace git never wrote goes with them.
   */
  adoptOrphans(currentLive: string | undefined): void {
    const lives = new Set<string>();
    for (const name of this.names()) {
      if (!name.startsWith(LIVE_PREFIX)) continue;
      if (name.endsWith('.trace')) lives.add(name);
      else if (name.endsWith('.trace.json')) lives.add(name.slice(0, -'.json'.length));
    }
    for (const name of lives) {
      const file = path.join(this.directory, name);
      if (file === currentLive) continue;
      const owner = readSidecar(file)?.hostPid;
      if (owner !== undefined && owner !== process.pid && processRuns(owner)) continue; // another window's recording
      try {
        this.finishLive(file);
        this.removeLive(file);
      } catch {
        // another window of the same profile is finishing it at the same moment
      }
    }
  }

  /** Finished recordings, newest first (live files are not listed). */
  list(): StoredRecording[] {
    const found: StoredRecording[] = [];
    for (const name of this.names()) {
      if (name.startsWith(LIVE_PREFIX) || !(name.endsWith('.trace') || name.endsWith('.recording'))) continue;
      const file = path.join(this.directory, name);
      try {
        const stat = fs.statSync(file);
        if (!stat.isFile()) continue;
        const sidecar = readSidecar(file);
        found.push({
          file,
          sidecar,
          bytes: stat.size,
          mtimeMs: stat.mtimeMs,
          name: recordingName({ file, sidecar, mtimeMs: stat.mtimeMs }),
        });
      } catch {
        // deleted while listing
      }
    }
    return found.sort((a, b) => b.mtimeMs - a.mtimeMs);
  }

  /** The live file of a running terminal recording, once git has written to it (undefined before). */
  liveRecording(live: string | undefined): StoredRecording | undefined {
    if (live === undefined) return undefined;
    try {
      const stat = fs.statSync(live);
      if (!stat.isFile()) return undefined;
      const sidecar = readSidecar(live);
      return {
        file: live,
        sidecar,
        bytes: stat.size,
        mtimeMs: stat.mtimeMs,
        name: recordingName({ file: live, sidecar, mtimeMs: stat.mtimeMs }),
        live: true,
      };
    } catch {
      return undefined; // no git command has written to it yet
    }
  }

  rename(file: string, label: string | undefined): void {
    const existing = readSidecar(file) ?? {
      version: SIDECAR_VERSION,
      source: file.endsWith('.recording') ? 'command' : 'terminal',
      mode: 'passive',
      recordedLimit: null,
      startedAt: new Date(fs.statSync(file).mtimeMs).toISOString(),
    };
    const next: RecordingSidecar = { ...existing };
    if (label === undefined || label.trim() === '') delete next.label;
    else next.label = label.trim();
    writeSidecar(file, next);
    this.changed();
  }

  delete(file: string): void {
    fs.rmSync(file, { force: true });
    fs.rmSync(sidecarPath(file), { force: true });
    fs.rmSync(inputPath(file), { force: true });
    this.changed();
  }

  private names(): string[] {
    try {
      return fs.readdirSync(this.directory);
    } catch {
      return [];
    }
  }
}
