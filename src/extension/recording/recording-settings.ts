import vscode = require('vscode');
import type { RecordingMode } from '../../common/recording-environment.ts';

export interface RecordingSettings {
  /** `packscope.recording.mode`: exact (core.deltaBaseCacheLimit=0, git-internals §8) or passive. */
  mode: RecordingMode;
  /** `packscope.recording.maxFileMiB`, in bytes: a terminal recording file is rotated past this size. */
  maxFileBytes: number;
}

export const DEFAULT_MAX_FILE_MIB = 256;

export function readRecordingSettings(): RecordingSettings {
  const config = vscode.workspace.getConfiguration('packscope.recording');
  const mode = config.get<unknown>('mode');
  const mib = config.get<unknown>('maxFileMiB');
  const validMib =
    typeof mib === 'number' && Number.isFinite(mib) && mib > 0 ? Math.min(mib, 1 << 20) : DEFAULT_MAX_FILE_MIB;
  return {
    mode: mode === 'passive' ? 'passive' : 'exact',
    maxFileBytes: Math.round(validMib * 1024 * 1024),
  };
}

export function affectsRecordingSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration('packscope.recording');
}
