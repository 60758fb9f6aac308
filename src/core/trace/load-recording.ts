import { fail } from '../errors.ts';
import { RECORDING_MAGIC, RECORDING_VERSION } from './recording.ts';
import type { ObjectStore } from '../model/object-store.ts';
import { compactForReads, simObjectsFrom, type SimObjects } from '../sim/sim-objects.ts';
import { resolveReads, type ResolvedReads } from './resolve-reads.ts';
import { parseTraceFile, type TraceLog, type TraceSegment } from './trace-log.ts';

/**
 * A parsed recording (or raw GIT_TRACE_PACK_ACCESS file) mapped onto a repository's objects: what
 * `packscope simulate / sweep / locality` and the server's recording requests replay. Shared by the
 * CLI (which prints the warnings on stderr) and the server (which returns them).
 */
export interface LoadedRecording {
  log: TraceLog;
  store: ObjectStore;
  resolved: ResolvedReads;
  /** The objects the kept reads can touch, compacted (see compactForReads). */
  objects: SimObjects;
  /** The kept reads, as ids of `objects`. */
  reads: Int32Array;
  /** The kept reads' range in `resolved`'s per-read arrays (all of them unless a segment is chosen). */
  range: { start: number; end: number };
  /** Segments with read indices relative to `reads`. */
  segments: TraceSegment[];
  /** What was left out and why, in the order the CLI prints them: never silent. */
  warnings: string[];
}

export interface ResolveRecordingOptions {
  /** 1-based segment number to keep (all segments when undefined). */
  segment?: number | undefined;
}

/** The warning for a file without a single pack read, or undefined. */
export function noReadsWarning(log: TraceLog): string | undefined {
  return log.readPack.length === 0 ? `no pack reads in ${log.file} (is it a GIT_TRACE_PACK_ACCESS file or a recording?)` : undefined;
}

/**
 * What makes a parsed file no recording at all, as an error naming the file: said before anything
 * looks for the file's repository, so that a bad file is never reported as "not inside a git
 * repository". A file is a recording (a `#packscope-recording` header) or a raw trace (pack reads or
 * GIT_TRACE lines); anything else — empty, a text file, a damaged header — is refused.
 */
export function checkRecordingFile(log: TraceLog): void {
  if (log.metadata === undefined && log.foreignHeader !== undefined) {
    throw fail('bad-magic', log.file, 0, `line 1 is not a recording header (a recording starts with "${RECORDING_MAGIC}${RECORDING_VERSION} {…}", this one with ${JSON.stringify(log.foreignHeader)})`);
  }
  if (log.metadata !== undefined || log.readPack.length > 0 || log.otherLines > 0) return;
  if (log.lines === 0) throw fail('truncated', log.file, undefined, 'the file is empty: not a recording or a GIT_TRACE_PACK_ACCESS trace');
  const malformed = log.malformed.count;
  throw fail(
    'bad-header',
    log.file,
    0,
    `not a recording or a GIT_TRACE_PACK_ACCESS trace: no recording header, and none of its ${log.lines} ${log.lines === 1 ? 'line is' : 'lines are'} a pack read or a git trace line` +
      (malformed > 0 ? ` (${malformed} malformed, first on line ${log.malformed.firstLines[0]})` : ''),
  );
}

/** The warning for a last line cut short (left out by the parser), or undefined. */
export function unterminatedLineWarning(log: TraceLog): string | undefined {
  return log.unterminatedLine === undefined ? undefined : `${log.file} ends inside line ${log.unterminatedLine} (cut short?): that line was left out`;
}

/** Parses a recording or raw trace and refuses a file that is neither (checkRecordingFile). */
export function parseRecordingFile(file: string, onProgress?: (bytes: number, total: number) => void): TraceLog {
  const log = parseTraceFile(file, onProgress);
  checkRecordingFile(log);
  return log;
}

/**
 * Maps a parsed trace's reads to the objects of `store` (whose models of the packs the trace names
 * are built or loaded on the calling thread: the server loads them in a worker first) and keeps the
 * chosen segment. Reads that cannot be mapped are left out and described in `warnings`.
 */
export function resolveRecording(log: TraceLog, store: ObjectStore, options: ResolveRecordingOptions = {}): LoadedRecording {
  const warnings: string[] = [];
  const empty = noReadsWarning(log);
  if (empty !== undefined) warnings.push(empty);
  const cut = unterminatedLineWarning(log);
  if (cut !== undefined) warnings.push(cut);
  const resolved = resolveReads(log, store);
  for (const unknown of resolved.unknownPacks) warnings.push(`${unknown.reads} reads of ${unknown.path} left out: ${unknown.reason}`);
  if (resolved.badOffsets.length > 0) warnings.push(`${resolved.badOffsets.length}${resolved.badOffsets.length === 100 ? '+' : ''} reads left out: their offset is not the start of an object (first: ${resolved.badOffsets[0]!.path} ${resolved.badOffsets[0]!.offset})`);
  if (log.malformed.count > 0) warnings.push(`${log.malformed.count} malformed lines skipped (lines ${log.malformed.firstLines.join(', ')}${log.malformed.count > log.malformed.firstLines.length ? ', …' : ''})`);
  const objects = simObjectsFrom(resolved.packs.map((p) => p.model));
  const global = new Int32Array(resolved.readObject.length);
  for (let i = 0; i < global.length; i++) global[i] = objects.packBase[resolved.readPack[i]!]! + resolved.readObject[i]!;
  let segments = resolved.segments;
  let range = { start: 0, end: global.length };
  if (options.segment !== undefined) {
    const chosen = segments[options.segment - 1];
    if (!chosen || !Number.isInteger(options.segment)) throw fail('usage', log.file, undefined, `there is no segment ${options.segment} (the recording has ${segments.length})`);
    range = { start: chosen.firstRead, end: chosen.endRead };
    segments = [{ ...chosen, firstRead: 0, endRead: chosen.endRead - chosen.firstRead }];
  }
  const compact = compactForReads(objects, global.subarray(range.start, range.end));
  return { log, store, resolved, objects: compact.objects, reads: compact.reads, range, segments, warnings };
}
