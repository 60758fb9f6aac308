/**
 * What the documents say about the recording they replayed: `recording` of the CLI's JSON
 * (docs/json.md, packscope.simulate/1) and the server's fuller description of it. Shapes only,
 * importing nothing (see stats-document.ts).
 */

/** `recording` of the CLI's JSON (docs/json.md). */
export interface RecordingSummary {
  file: string;
  repository: string;
  /** `read-list`: a list of reads given to `simulate --reads`, not made by git; every read is in it. */
  mode: 'exact' | 'passive' | 'raw' | 'read-list';
  recordedLimit: number | null;
  /**
   * Where recordedLimit comes from: the recording's header, or, for a raw trace recorded in the
   * extension's terminals in exact mode, the environment PackScope set there (the trace's sidecar).
   */
  recordedLimitFrom: 'header' | 'terminal environment' | null;
  /** The config `record` gave a command that reads in threads so that it read in one (`grep.threads=1`); null when none. */
  singleThreaded: string | null;
  /** `record --check`: whether a second run read the same objects in the same order, and each run's pack reads; null when not checked. */
  check: { identical: boolean; lines: [number, number] } | null;
  /** The recorded command as one line (`git log --raw`); arguments with spaces cannot be told apart in it (RecordingInfo's `args` can). */
  command: string | null;
  traceLines: number;
  reads: number;
  segments: number;
  packs: { path: string; checksum: string }[];
}

export interface RecordingSegment {
  /** 1-based, as `--segment N`. */
  index: number;
  /** The git command line of that process, when GIT_TRACE named it (`git log --raw`). */
  command: string | null;
  reads: number;
}

/** The server's description of a recording: the summary with its segments listed, plus what the Recordings view shows. */
export interface RecordingInfo extends Omit<RecordingSummary, 'segments' | 'mode'> {
  /** The server opens recordings and traces, never read lists. */
  mode: Exclude<RecordingSummary['mode'], 'read-list'>;
  /** git's arguments, without "git", exactly as recorded (the recording's metadata); null for a raw trace. */
  args: string[] | null;
  /** Where git ran (the recording's metadata); null for a raw trace. */
  cwd: string | null;
  gitVersion: string | null;
  startedAt: string | null;
  exitStatus: number | null;
  /** The limits `record --complete` made it exact at (the header's completeAt); null when none. */
  completeAt: number[] | null;
  segments: RecordingSegment[];
  /** What was left out and why (unknown packs, bad offsets, malformed lines): never silent. */
  warnings: string[];
  /**
   * The git processes of the file that ran in another repository (a terminal session that
   * changed directory): listed so the user sees every command, left out of every replay.
   */
  elsewhere: { command: string | null; reads: number; gitDir: string }[];
}
