import { EXACT_RECORDING_LIMIT, type RecordingMode } from './recording-environment.ts';

/**
 * The JSON file next to each recording the extension keeps (`<file>.json`): what a raw terminal
 * trace cannot say itself (the mode and limit PackScope's environment gave its git processes, when
 * it started) and what the user chose (the name). Defined here because both sides read it: the
 * extension writes and lists it, and the engine reads the limit of a terminal recording from it.
 */
export const SIDECAR_VERSION = 1;

export interface RecordingSidecar {
  version: number;
  source: 'terminal' | 'command';
  mode: RecordingMode;
  /** core.deltaBaseCacheLimit the git commands ran with, in bytes; null when unknown (passive terminal recordings: each repository's own). */
  recordedLimit: number | null;
  startedAt: string;
  endedAt?: string;
  /** The name the user gave it (Rename); absent: a name made from the command or the time. */
  label?: string;
  /** Terminal recordings: the recording session and the part (1 + the number of rotations before it). */
  session?: string;
  part?: number;
  /** Live files: the extension host recording into it (its file is not adopted while that process runs). */
  hostPid?: number;
  /** "Record a git command…": the repository (its id, the git directory) and git's arguments. */
  repository?: string;
  args?: string[];
  /**
   * A completed recording (the Cache Lab's Complete, or the command record-command.ts runs with
   * limits): the limits it was completed at, as its header says, so that the Recordings view and
   * the Cache Lab name them without opening the file. The header stays what replays trust: it
   * holds the hidden reads that make those cells exact.
   */
  completeAt?: number[];
}

export function sidecarPath(file: string): string {
  return `${file}.json`;
}

/**
 * Where a recording keeps the standard input its command read (its header's `input`): beside it,
 * as its sidecar is, so that whatever deletes a recording deletes it too.
 */
export function inputPath(file: string): string {
  return `${file}.input`;
}

/**
 * The limit every git process of a terminal recording ran with, when its sidecar says the recording
 * was made in exact mode: the terminals' environment then held core.deltaBaseCacheLimit=0 through
 * GIT_CONFIG_COUNT (recording-environment.ts) for every git started in them. Undefined otherwise
 * (passive mode: each repository's own limit; or not a terminal recording's sidecar).
 */
export function terminalRecordingLimit(sidecar: unknown): number | undefined {
  if (typeof sidecar !== 'object' || sidecar === null) return undefined;
  const value = sidecar as Partial<RecordingSidecar>;
  if (value.source !== 'terminal' || value.mode !== 'exact' || value.recordedLimit !== EXACT_RECORDING_LIMIT)
    return undefined;
  return EXACT_RECORDING_LIMIT;
}
