import { fail } from '../errors.ts';

/**
 * A recording is a GIT_TRACE_PACK_ACCESS log with one header line of metadata in front:
 *   #packscope-recording 1 {"command":[…],…}
 * followed by the trace lines exactly as git wrote them, so any tool that reads trace files can
 * read the rest, and PackScope reads raw trace files as well (they simply have no header).
 */
export const RECORDING_MAGIC = '#packscope-recording ';
export const RECORDING_VERSION = 1;

export interface RecordedPack {
  /** The pack path as git prints it in trace lines (relative to `cwd` when relative). */
  path: string;
  /** The pack's trailing checksum, hex. */
  checksum: string;
  objects: number;
}

export interface RecordingMetadata {
  version: number;
  /** git's arguments, without the leading "git". */
  command: string[];
  /** Where git ran. */
  cwd: string;
  /** The repository's git directory. */
  gitDir: string;
  gitVersion: string;
  /** `exact`: core.deltaBaseCacheLimit=0 was forced (git-internals §8); `passive`: the user's own limit. */
  mode: 'exact' | 'passive';
  /** The delta base cache limit git ran with, in bytes. */
  cacheLimit: number;
  packs: RecordedPack[];
  /**
   * `record --complete`: the limits the command was run again at, to find the reads the limit-0
   * trace hides (git-internals §8.1); the replay is exact at each. Absent in older recordings.
   */
  completeAt?: number[];
  /**
   * The hidden reads those runs found, as [read index, count]: `count` reads of the object the
   * limit-0 cache holds right after the read-index-th trace read (src/core/sim/hidden-reads.ts).
   */
  hiddenReads?: [number, number][];
  /**
   * Trace read indices whose places more than one reading of the runs explains (hidden reads there
   * differ between readings): their hidden reads are left out and the replay bounds them instead.
   * Absent when the runs allow one reading only.
   */
  ambiguousReads?: number[];
  /**
   * The config `record` gave the command so that it reads in one thread (`grep.threads=1`): it
   * reads in threads by default (src/common/threaded-readers.ts), and a run with threads reads in
   * another order. Absent when the command was recorded as it runs.
   */
  singleThreaded?: string;
  /**
   * `record --check` (automatic for a command known to read in threads): the command ran twice at
   * the recorded limit; `identical` when both runs read the same objects in the same order (and
   * ended alike), `lines` each run's pack reads, `firstDifference` the first read (0-based) where
   * they part.
   */
  check?: { identical: boolean; lines: [number, number]; firstDifference?: number };
  /**
   * The standard input git was given (a command that reads its work from it, e.g. `cat-file
   * --batch`: src/common/standard-input.ts), kept beside the recording in `inputPath(file)`
   * (src/common/recording-sidecar.ts), so
   * that completing it later runs the command on the same input; its size and SHA-256 tell a
   * changed or missing file from it. Absent when git read no input of `record`'s.
   */
  input?: { bytes: number; sha256: string };
  startedAt: string;
  endedAt: string;
  exitStatus: number | null;
  signal: string | null;
}

export function recordingHeader(metadata: RecordingMetadata): string {
  return `${RECORDING_MAGIC}${RECORDING_VERSION} ${JSON.stringify(metadata)}\n`;
}

export function parseRecordingHeader(file: string, line: string): RecordingMetadata {
  const match = /^#packscope-recording (\d+) (\{.*\})$/.exec(line);
  if (!match) throw fail('bad-header', file, 0, 'recording header line is malformed');
  if (Number(match[1]) !== RECORDING_VERSION)
    throw fail('bad-version', file, 0, `recording version ${match[1]} is not ${RECORDING_VERSION}`);
  let value: unknown;
  try {
    value = JSON.parse(match[2]!);
  } catch {
    throw fail('bad-header', file, 0, 'recording metadata is not valid JSON');
  }
  const m = value as Partial<RecordingMetadata>;
  if (
    !Array.isArray(m.command) ||
    typeof m.cwd !== 'string' ||
    typeof m.cacheLimit !== 'number' ||
    !Array.isArray(m.packs)
  ) {
    throw fail('bad-header', file, 0, 'recording metadata lacks command, cwd, cacheLimit or packs');
  }
  return { ...m, version: RECORDING_VERSION } as RecordingMetadata;
}
