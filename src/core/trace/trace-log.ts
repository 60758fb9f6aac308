import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail } from '../errors.ts';
import { openRegularFile } from '../format/checked-file.ts';
import { GrowableFloat64, GrowableUint32 } from './growable.ts';
import { parseRecordingHeader, RECORDING_MAGIC, type RecordingMetadata } from './recording.ts';

/**
 * A GIT_TRACE_PACK_ACCESS log (git-internals §1.10), parsed as a stream: one read per line
 * `<pack path> <offset>`, prefixed (`HH:MM:SS.uuuuuu file:line<pad to col 40>`) or bare
 * (GIT_TRACE_BARE=1). Lines of other trace keys in the same file are skipped, except GIT_TRACE's
 * `trace: built-in: git …` / `trace: exec: …`, which start a new command segment: several git
 * processes appending to one file are told apart by them.
 */
export interface TraceSegment {
  /** The command as GIT_TRACE printed it, or the recording's command, or undefined. */
  command: string | undefined;
  /** 1-based line of the file where the segment starts. */
  line: number;
  /** Reads [firstRead, endRead) belong to this segment. */
  firstRead: number;
  endRead: number;
  /**
   * The git directory (the common one, absolute) this git process ran in, from GIT_TRACE_SETUP's
   * `setup: git_common_dir:` and `setup: cwd:` lines, which git prints before its `trace: built-in`
   * line; undefined when the trace has none (GIT_TRACE_SETUP was not set, or git found no repository).
   */
  gitDir?: string;
  /**
   * The process's own time in seconds, from GIT_TRACE_PERFORMANCE's `performance: <s> s: git
   * command: git …` line, which git writes as it exits; undefined when the trace has none for it.
   */
  seconds?: number;
  /** That line's command: git's arguments as given, options before the command (`-c …`) included. */
  givenCommand?: string;
  /** When that line was written, in seconds after local midnight (its timestamp); absent in bare traces. */
  exitTime?: number;
}

export interface TraceLog {
  file: string;
  metadata: RecordingMetadata | undefined;
  /** Pack paths exactly as git printed them, indexed by the ids in `readPack`. */
  packPaths: string[];
  readPack: Uint32Array;
  readOffset: Float64Array;
  segments: TraceSegment[];
  lines: number;
  /** Lines of other trace keys (GIT_TRACE, GIT_TRACE_PERFORMANCE, …) that were skipped. */
  otherLines: number;
  malformed: { count: number; firstLines: number[] };
  bytes: number;
  /**
   * The file's last line had no newline: it was cut short (a copy that stopped early, or git still
   * writing it), so it was left out rather than read as a wrong offset. Its 1-based line number.
   */
  unterminatedLine?: number;
  /** Line 1 starts with `#` but is no recording header: git writes no such line (a damaged or foreign header). */
  foreignHeader?: string;
}

const CHUNK_BYTES = 1 << 20;
/** A single trace line longer than this is malformed (git's own lines are short). */
const MAX_LINE_BYTES = 64 << 10;
const MAX_REPORTED_MALFORMED = 20;

const enum Char {
  Newline = 10,
  CarriageReturn = 13,
  Space = 32,
  Colon = 58,
  Dot = 46,
  Zero = 48,
  Nine = 57,
}

function isDigit(c: number): boolean {
  return c >= Char.Zero && c <= Char.Nine;
}

/** `HH:MM:SS.uuuuuu ` — the trace API's timestamp prefix. */
function hasTimestamp(bytes: Uint8Array, at: number, end: number): boolean {
  if (end - at < 16) return false;
  return (
    isDigit(bytes[at]!) &&
    isDigit(bytes[at + 1]!) &&
    bytes[at + 2] === Char.Colon &&
    isDigit(bytes[at + 3]!) &&
    isDigit(bytes[at + 4]!) &&
    bytes[at + 5] === Char.Colon &&
    isDigit(bytes[at + 6]!) &&
    isDigit(bytes[at + 7]!) &&
    bytes[at + 8] === Char.Dot &&
    isDigit(bytes[at + 9]!) &&
    isDigit(bytes[at + 14]!) &&
    bytes[at + 15] === Char.Space
  );
}

/** `HH:MM:SS.uuuuuu` as seconds after midnight (hasTimestamp has checked the digits). */
function timestampSeconds(bytes: Uint8Array, at: number): number {
  const two = (i: number): number => (bytes[at + i]! - Char.Zero) * 10 + (bytes[at + i + 1]! - Char.Zero);
  let micros = 0;
  for (let i = 9; i < 15; i++) micros = micros * 10 + (bytes[at + i]! - Char.Zero);
  return two(0) * 3600 + two(3) * 60 + two(6) + micros / 1e6;
}

/** Builds a TraceLog line by line; `parseTraceFile` feeds it a file in chunks. */
export class TraceLogBuilder {
  private readonly packIds = new Map<string, number>();
  private readonly packPaths: string[] = [];
  private readonly readPack = new GrowableUint32();
  private readonly readOffset = new GrowableFloat64();
  private readonly segments: TraceSegment[] = [];
  private lastPackBytes: Uint8Array = new Uint8Array(0);
  private lastPackId = -1;
  private lineNumber = 0;
  private otherLines = 0;
  private malformedCount = 0;
  private readonly malformedLines: number[] = [];
  metadata: RecordingMetadata | undefined;
  private foreignHeader: string | undefined;
  /** GIT_TRACE_SETUP's lines of the git process about to start a segment. */
  private setupCommonDir: string | undefined;
  private setupGitDir: string | undefined;
  /** The timestamp of the line being read, in seconds after local midnight; undefined for a bare line. */
  private lineTime: number | undefined;

  constructor(private readonly file: string) {}

  /** Lines seen so far. */
  get lines(): number {
    return this.lineNumber;
  }

  /** Counts a last line that was left out because the file ends inside it (see TraceLog.unterminatedLine). */
  addUnterminatedLine(): void {
    this.lineNumber++;
  }

  /** One line without its newline, bytes[at, end). */
  addLine(bytes: Uint8Array, at: number, end: number): void {
    this.lineNumber++;
    if (end > at && bytes[end - 1] === Char.CarriageReturn) end--;
    if (end === at) return;
    if (this.lineNumber === 1 && startsWith(bytes, at, end, RECORDING_MAGIC)) {
      this.metadata = parseRecordingHeader(this.file, Buffer.from(bytes.subarray(at, end)).toString('utf8'));
      return;
    }
    if (this.lineNumber === 1 && bytes[at] === 35 /* # */)
      this.foreignHeader = Buffer.from(bytes.subarray(at, Math.min(end, at + 60))).toString('utf8');
    let message = at;
    this.lineTime = undefined;
    if (hasTimestamp(bytes, at, end)) {
      this.lineTime = timestampSeconds(bytes, at);
      // Skip `file:line`, then the padding to column 40 (none when the prefix is longer).
      let pos = at + 16;
      while (pos < end && bytes[pos] !== Char.Colon && bytes[pos] !== Char.Space) pos++;
      if (pos >= end || bytes[pos] !== Char.Colon) return this.malformed();
      pos++;
      const digitsStart = pos;
      while (pos < end && isDigit(bytes[pos]!)) pos++;
      if (pos === digitsStart) return this.malformed();
      while (pos < end && bytes[pos] === Char.Space) pos++;
      message = pos;
    }
    // `<pack path> <offset>`: the offset is the digits after the last space.
    let pos = end - 1;
    while (pos > message && isDigit(bytes[pos]!)) pos--;
    const offsetStart = pos + 1;
    const isAccess =
      offsetStart < end && pos > message && bytes[pos] === Char.Space && endsWithPack(bytes, message, pos);
    if (!isAccess) {
      // A bare line must be an access, or GIT_TRACE's own "trace: …" under GIT_TRACE_BARE.
      if (message === at && !startsWith(bytes, at, end, 'trace: ')) return this.malformed();
      this.otherLine(bytes, message, end);
      return;
    }
    if (end - offsetStart > 15) return this.malformed();
    let offset = 0;
    for (let i = offsetStart; i < end; i++) offset = offset * 10 + (bytes[i]! - Char.Zero);
    this.addRead(this.packIdFor(bytes, message, pos), offset);
  }

  /** A line longer than any git writes. */
  addOverlongLine(): void {
    this.lineNumber++;
    this.malformed();
  }

  private recordedCommand(): string | undefined {
    return this.metadata ? ['git', ...this.metadata.command].join(' ') : undefined;
  }

  finish(bytes: number): TraceLog {
    const reads = this.readPack.length;
    if (this.segments.length === 0)
      this.segments.push({ command: this.recordedCommand(), line: 1, firstRead: 0, endRead: reads });
    this.segments[this.segments.length - 1]!.endRead = reads;
    return {
      file: this.file,
      metadata: this.metadata,
      packPaths: this.packPaths,
      readPack: this.readPack.toArray(),
      readOffset: this.readOffset.toArray(),
      segments: this.segments,
      lines: this.lineNumber,
      otherLines: this.otherLines,
      malformed: { count: this.malformedCount, firstLines: this.malformedLines },
      bytes,
      ...(this.foreignHeader === undefined ? {} : { foreignHeader: this.foreignHeader }),
    };
  }

  private addRead(packId: number, offset: number): void {
    // Reads before any GIT_TRACE command line belong to the recorded command, if known.
    if (this.segments.length === 0) this.startSegment(this.recordedCommand());
    this.readPack.push(packId);
    this.readOffset.push(offset);
  }

  private packIdFor(bytes: Uint8Array, start: number, end: number): number {
    // Consecutive lines almost always name the same pack: compare bytes before building a string.
    const last = this.lastPackBytes;
    if (last.length === end - start) {
      let same = true;
      for (let i = end - start - 1; i >= 0; i--) {
        if (last[i] !== bytes[start + i]) {
          same = false;
          break;
        }
      }
      if (same) return this.lastPackId;
    }
    const path = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
    let id = this.packIds.get(path);
    if (id === undefined) {
      id = this.packPaths.length;
      this.packPaths.push(path);
      this.packIds.set(path, id);
    }
    this.lastPackBytes = bytes.slice(start, end);
    this.lastPackId = id;
    return id;
  }

  private otherLine(bytes: Uint8Array, message: number, end: number): void {
    this.otherLines++;
    const text = Buffer.from(bytes.buffer, bytes.byteOffset + message, Math.min(end - message, 4096)).toString('utf8');
    const command = /^trace: (?:built-in|exec): (git .*)$/.exec(text);
    if (command) return this.startSegment(command[1]);
    const setup = /^setup: (git_common_dir|cwd): (.*)$/.exec(text);
    if (setup) return this.setupLine(setup[1]!, setup[2]!);
    const performance = /^performance: (\d+(?:\.\d+)?) s: git command: (git(?: .*)?)$/.exec(text);
    if (performance) this.performanceLine(Number(performance[1]), performance[2]!);
  }

  /**
   * A process exits: its time goes to the newest segment of the same command still without one.
   * GIT_TRACE prints the command without the options before it (`git -c x=y log` starts segment
   * `git log`), so the exiting command matches when it ends with the segment's words. Processes of
   * several terminals interleave, so the match is by command, not by position.
   */
  private performanceLine(seconds: number, given: string): void {
    for (let i = this.segments.length - 1, looked = 0; i >= 0 && looked < 256; i--, looked++) {
      const segment = this.segments[i]!;
      if (segment.seconds !== undefined || segment.command === undefined) continue;
      const words = segment.command.slice('git'.length);
      if (given === segment.command || (words !== '' && given.endsWith(words))) {
        segment.seconds = seconds;
        segment.givenCommand = given;
        if (this.lineTime !== undefined) segment.exitTime = this.lineTime;
        return;
      }
    }
  }

  /**
   * `setup: git_common_dir: .git` then `setup: cwd: /abs/repo` (trace.c's trace_repo_setup; the
   * directory is relative to the cwd git changed to): the git directory of the process whose
   * `trace: built-in` line follows, or of the current segment when none follows (a dashed external).
   */
  private setupLine(key: string, value: string): void {
    if (key === 'git_common_dir') {
      this.setupCommonDir = value;
      return;
    }
    if (this.setupCommonDir === undefined || this.setupCommonDir === '(null)' || !path.isAbsolute(value)) return;
    this.setupGitDir = path.resolve(value, this.setupCommonDir);
    this.setupCommonDir = undefined;
    const current = this.segments[this.segments.length - 1];
    if (current !== undefined && current.gitDir === undefined && current.firstRead === this.readPack.length) {
      // The segment has no read yet: these lines are of its own process (or of the next one, which then starts its own segment).
      current.gitDir = this.setupGitDir;
    }
  }

  private startSegment(command: string | undefined): void {
    const reads = this.readPack.length;
    const previous = this.segments[this.segments.length - 1];
    if (previous) previous.endRead = reads;
    const segment: TraceSegment = { command, line: this.lineNumber, firstRead: reads, endRead: reads };
    if (this.setupGitDir !== undefined) segment.gitDir = this.setupGitDir;
    this.setupGitDir = undefined;
    this.segments.push(segment);
  }

  private malformed(): void {
    this.malformedCount++;
    if (this.malformedLines.length < MAX_REPORTED_MALFORMED) this.malformedLines.push(this.lineNumber);
  }
}

function startsWith(bytes: Uint8Array, at: number, end: number, prefix: string): boolean {
  if (end - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix.charCodeAt(i)) return false;
  return true;
}

function endsWithPack(bytes: Uint8Array, start: number, end: number): boolean {
  return (
    end - start > 5 &&
    bytes[end - 5] === Char.Dot &&
    bytes[end - 4] === 112 &&
    bytes[end - 3] === 97 &&
    bytes[end - 2] === 99 &&
    bytes[end - 1] === 107
  );
}

/** Streams a trace file (any size: it is read in 1 MiB chunks, never whole). */
export function parseTraceFile(file: string, onProgress?: (bytes: number, total: number) => void): TraceLog {
  // A FIFO or a device (/dev/zero) where a trace should be is refused here: it would block the
  // open or never end.
  const { fd, stat } = openRegularFile(file);
  try {
    const total = stat.size;
    const builder = new TraceLogBuilder(file);
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES + MAX_LINE_BYTES);
    let carried = 0; // bytes of an unfinished line at the start of `chunk`
    let skippingOverlong = false;
    let position = 0;
    let unterminatedLine: number | undefined;
    for (;;) {
      // Only the bytes there at open time: a trace that keeps growing is not followed.
      const got =
        position < total ? fs.readSync(fd, chunk, carried, Math.min(CHUNK_BYTES, total - position), position) : 0;
      position += got;
      const filled = carried + got;
      let lineStart = 0;
      for (;;) {
        const newline = chunk.indexOf(Char.Newline, lineStart);
        if (newline < 0 || newline >= filled) break;
        if (skippingOverlong) skippingOverlong = false;
        else builder.addLine(chunk, lineStart, newline);
        lineStart = newline + 1;
      }
      carried = filled - lineStart;
      if (got === 0) {
        if (carried > 0 && !skippingOverlong) {
          // Git writes whole lines: a last line without its newline was cut short. A cut header
          // cannot be read at all; a cut trace line is left out (its offset may be missing digits).
          if (builder.lines === 0 && chunk.subarray(lineStart, filled).toString('latin1').startsWith(RECORDING_MAGIC)) {
            throw fail('truncated', file, 0, 'the file ends inside its recording header line (was it cut short?)');
          }
          builder.addUnterminatedLine();
          unterminatedLine = builder.lines;
        }
        break;
      }
      if (carried > MAX_LINE_BYTES) {
        if (!skippingOverlong) builder.addOverlongLine();
        skippingOverlong = true;
        carried = 0;
      } else {
        chunk.copy(chunk, 0, lineStart, filled);
      }
      onProgress?.(position, total);
    }
    const log = builder.finish(position);
    return unterminatedLine === undefined ? log : { ...log, unterminatedLine };
  } finally {
    fs.closeSync(fd);
  }
}
