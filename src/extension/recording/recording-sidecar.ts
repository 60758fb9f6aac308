// A recording's sidecar (recording-store.ts says what it keeps): read and written here, without
// VS Code's API, so that node-level tests run the very code the extension writes it with.
import * as fs from 'node:fs';
import type { RecordingMode } from '../../common/recording-environment.ts';
import { writeTextFileAtomically } from '../atomic-file.ts';

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
}

export function sidecarPath(file: string): string {
  return `${file}.json`;
}

export function readSidecar(file: string): RecordingSidecar | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(sidecarPath(file), 'utf8')) as Partial<RecordingSidecar>;
    if (typeof value !== 'object' || value === null || (value.mode !== 'exact' && value.mode !== 'passive'))
      return undefined;
    return value as RecordingSidecar;
  } catch {
    return undefined;
  }
}

export function writeSidecar(file: string, sidecar: RecordingSidecar): void {
  writeTextFileAtomically(sidecarPath(file), `${JSON.stringify(sidecar, null, 2)}\n`, 0o644);
}
