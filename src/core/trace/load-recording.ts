import { fail } from '../errors.ts';
import type { ObjectStore } from '../model/object-store.ts';
import { compactForReads, simObjectsFrom, type SimObjects } from '../sim/sim-objects.ts';
import { withHiddenReads } from './complete-recording.ts';
import { resolveReads, type ResolvedReads } from './resolve-reads.ts';
import type { TraceLog, TraceSegment } from './trace-log.ts';

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
  /** Per kept read: 1 where a complete recording holds every read hidden after it (see RecordingBasis). */
  knownPlaces?: Uint8Array | undefined;
  /** Per kept read: 1 for a hidden read a complete recording found (a cache hit at limit 0). */
  insertedReads?: Uint8Array | undefined;
  /** The limits a complete recording is exact at (its header's completeAt), when its hidden reads were applied. */
  completeAt?: number[] | undefined;
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
 * Maps a parsed trace's reads to the objects of `store` (whose models of the packs the trace names
 * are built or loaded on the calling thread: the server loads them in a worker first) and keeps the
 * chosen segment. Reads that cannot be mapped are left out and described in `warnings`.
 */
export function resolveRecording(log: TraceLog, store: ObjectStore, options: ResolveRecordingOptions = {}): LoadedRecording {
  const warnings: string[] = [];
  const empty = noReadsWarning(log);
  if (empty !== undefined) warnings.push(empty);
  const resolved = resolveReads(log, store);
  for (const unknown of resolved.unknownPacks) warnings.push(`${unknown.reads} reads of ${unknown.path} left out: ${unknown.reason}`);
  if (resolved.badOffsets.length > 0) warnings.push(`${resolved.badOffsets.length}${resolved.badOffsets.length === 100 ? '+' : ''} reads left out: their offset is not the start of an object (first: ${resolved.badOffsets[0]!.path} ${resolved.badOffsets[0]!.offset})`);
  if (log.malformed.count > 0) warnings.push(`${log.malformed.count} malformed lines skipped (lines ${log.malformed.firstLines.join(', ')}${log.malformed.count > log.malformed.firstLines.length ? ', …' : ''})`);
  const objects = simObjectsFrom(resolved.packs.map((p) => p.model));
  const global = new Int32Array(resolved.readObject.length);
  for (let i = 0; i < global.length; i++) global[i] = objects.packBase[resolved.readPack[i]!]! + resolved.readObject[i]!;
  let segments = resolved.segments;
  const complete = applyHiddenReads(log, objects, global, segments, warnings);
  const all = complete?.reads ?? global;
  if (complete) segments = complete.segments;
  let range = { start: 0, end: all.length };
  if (options.segment !== undefined) {
    const chosen = segments[options.segment - 1];
    if (!chosen || !Number.isInteger(options.segment)) throw fail('usage', log.file, undefined, `there is no segment ${options.segment} (the recording has ${segments.length})`);
    range = { start: chosen.firstRead, end: chosen.endRead };
    segments = [{ ...chosen, firstRead: 0, endRead: chosen.endRead - chosen.firstRead }];
  }
  const compact = compactForReads(objects, all.subarray(range.start, range.end));
  const extras = complete ? { knownPlaces: complete.known.slice(range.start, range.end), insertedReads: complete.inserted.slice(range.start, range.end), completeAt: log.metadata?.completeAt } : {};
  return { log, store, resolved, objects: compact.objects, reads: compact.reads, range, segments, warnings, ...extras };
}

/**
 * A complete recording (`record --complete`, complete-recording.ts): its trace is the limit-0 run;
 * the header lists the hidden reads the runs at other limits found. Inserted here, each process on
 * its own, with where no more reads can hide. Only when every trace read was mapped (the header's
 * indices count them all); otherwise the recording is replayed as a plain limit-0 one, with a warning.
 */
function applyHiddenReads(log: TraceLog, objects: SimObjects, global: Int32Array, segments: TraceSegment[], warnings: string[]): { reads: Int32Array; known: Uint8Array; inserted: Uint8Array; segments: TraceSegment[] } | undefined {
  const metadata = log.metadata;
  if (!metadata?.completeAt || !metadata.hiddenReads) return undefined;
  if (global.length !== log.readPack.length) {
    warnings.push('the recording\'s hidden reads are not applied: some of its reads are not in the repository (replayed as a plain limit-0 recording)');
    return undefined;
  }
  const byRead = new Map<number, number>();
  for (const entry of metadata.hiddenReads) {
    const [after, count] = Array.isArray(entry) ? entry : [];
    if (!Number.isSafeInteger(after) || !Number.isSafeInteger(count) || after! < 0 || after! >= global.length || count! < 1 || count! > global.length) throw fail('bad-header', log.file, 0, `recording header: hidden read ${JSON.stringify(entry)} is not [read index, count] within the trace`);
    byRead.set(after!, count!);
  }
  const parts: { reads: Int32Array; known: Uint8Array; inserted: Uint8Array }[] = [];
  const out: TraceSegment[] = [];
  let at = 0;
  const spans = segments.length > 0 ? segments : [{ command: undefined, line: 1, firstRead: 0, endRead: global.length }];
  for (const segment of spans) {
    const hidden = new Map<number, number>();
    for (const [after, count] of byRead) if (after >= segment.firstRead && after < segment.endRead) hidden.set(after - segment.firstRead, count);
    const part = withHiddenReads(objects, global.subarray(segment.firstRead, segment.endRead), hidden, metadata.completeAt);
    parts.push(part);
    out.push({ ...segment, firstRead: at, endRead: at + part.reads.length });
    at += part.reads.length;
  }
  const join = <T extends Int32Array | Uint8Array>(pick: (part: (typeof parts)[number]) => T, make: (n: number) => T): T => {
    const result = make(at);
    let offset = 0;
    for (const part of parts) {
      result.set(pick(part) as never, offset);
      offset += pick(part).length;
    }
    return result;
  };
  return { reads: join((p) => p.reads, (n) => new Int32Array(n)), known: join((p) => p.known, (n) => new Uint8Array(n)), inserted: join((p) => p.inserted, (n) => new Uint8Array(n)), segments: out };
}
