import type { LoadedRecording } from '../trace/load-recording.ts';
import type { RecordingInfo, RecordingSummary } from '../documents/recording-document.ts';

/** `recording` of every CLI document that replays one (docs/json.md). */
export function recordingSummary(loaded: LoadedRecording): RecordingSummary {
  return {
    file: loaded.log.file,
    repository: loaded.store.repository.gitDir,
    mode: loaded.readList
      ? 'read-list'
      : (loaded.log.metadata?.mode ?? (loaded.environmentLimit !== undefined ? 'exact' : 'raw')),
    recordedLimit: loaded.log.metadata?.cacheLimit ?? loaded.environmentLimit ?? null,
    recordedLimitFrom: loaded.log.metadata
      ? 'header'
      : loaded.environmentLimit !== undefined
        ? 'terminal environment'
        : null,
    singleThreaded: loaded.log.metadata?.singleThreaded ?? null,
    check: loaded.log.metadata?.check
      ? { identical: loaded.log.metadata.check.identical, lines: loaded.log.metadata.check.lines }
      : null,
    command: loaded.log.metadata ? ['git', ...loaded.log.metadata.command].join(' ') : null,
    traceLines: loaded.log.readPack.length,
    reads: loaded.reads.length,
    segments: loaded.segments.length,
    packs: loaded.resolved.packs.map((p) => ({ path: p.location.files.pack, checksum: p.model.checksumHex })),
  };
}

/** The server's description of a recording; `segment` is the one kept (1-based), when one was chosen. */
export function recordingInfo(loaded: LoadedRecording, segment: number | undefined): RecordingInfo {
  const summary = recordingSummary(loaded);
  const metadata = loaded.log.metadata;
  // Read lists come from the CLI's `simulate --reads` only; the server loads recordings.
  if (summary.mode === 'read-list') throw new Error('recordingInfo: a read list is not a recording');
  return {
    file: summary.file,
    repository: summary.repository,
    mode: summary.mode,
    recordedLimit: summary.recordedLimit,
    recordedLimitFrom: summary.recordedLimitFrom,
    singleThreaded: summary.singleThreaded,
    check: summary.check,
    command: summary.command,
    args: metadata ? [...metadata.command] : null,
    cwd: metadata?.cwd ?? null,
    gitVersion: metadata?.gitVersion ?? null,
    startedAt: metadata?.startedAt ?? null,
    exitStatus: metadata?.exitStatus ?? null,
    completeAt: metadata?.completeAt ? [...metadata.completeAt] : null,
    traceLines: summary.traceLines,
    reads: summary.reads,
    segments: loaded.segments.map((s, i) => ({
      index: segment ?? i + 1,
      command: s.command ?? null,
      reads: s.endRead - s.firstRead,
    })),
    packs: summary.packs,
    warnings: [...loaded.warnings],
    elsewhere: loaded.elsewhere.map((process) => ({
      command: process.command ?? null,
      reads: process.reads,
      gitDir: process.gitDir,
    })),
  };
}
