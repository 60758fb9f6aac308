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

/** A cache limit as git writes it in config: `0`, `16k`, `96m`, `1g`, or bytes. */
export function formatGitSize(bytes: number): string {
  if (bytes === 0) return '0';
  for (const [unit, size] of [
    ['g', 1 << 30],
    ['m', 1 << 20],
    ['k', 1 << 10],
  ] as const) {
    if (bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}
