// A recording's sidecar (recording-store.ts says what it keeps): read and written here, without
// VS Code's API, so that node-level tests run the very code the extension writes it with.
import * as fs from 'node:fs';
import { sidecarPath, type RecordingSidecar } from '../common/recording-sidecar.ts';
import { writeTextFileAtomically } from './atomic-file.ts';

// The shape and the file name are common (the engine reads a terminal recording's limit from it).
export { SIDECAR_VERSION, sidecarPath, type RecordingSidecar } from '../common/recording-sidecar.ts';

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
