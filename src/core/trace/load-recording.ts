import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail } from '../errors.ts';
import { RECORDING_MAGIC, RECORDING_VERSION, type RecordingMetadata } from './recording.ts';
import type { ObjectStore } from '../model/object-store.ts';
import { discoverRepository, type Repository } from '../model/repository.ts';
import { compactForReads, simObjectsFrom, type SimObjects } from '../sim/sim-objects.ts';
import { withHiddenReads } from './complete-recording.ts';
import { resolveReads, type ResolvedReads } from './resolve-reads.ts';
import { parseTraceFile, type TraceLog, type TraceSegment } from './trace-log.ts';
import { sidecarPath, terminalRecordingLimit } from '../../common/recording-sidecar.ts';

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
  /**
   * The kept reads' range in `resolved`'s per-read arrays (all of them unless a segment is chosen):
   * the trace's reads only, never the hidden reads a complete recording inserts (git made those as
   * cache hits, with no pack access; they are in `reads`, not in `resolved`).
   */
  range: { start: number; end: number };
  /** Segments with read indices relative to `reads`. */
  segments: TraceSegment[];
  /** What was left out and why, in the order the CLI prints them: never silent. */
  warnings: string[];
  /** The git processes of the trace that ran in another repository (left out of every replay of it; onlyRepository). */
  elsewhere: ElsewhereProcess[];
  /** Per kept read: 1 where a complete recording holds every read hidden after it (see RecordingBasis). */
  knownPlaces?: Uint8Array | undefined;
  /** Per kept read: 1 for a hidden read a complete recording found (a cache hit at limit 0). */
  insertedReads?: Uint8Array | undefined;
  /**
   * The limits a complete recording is exact at (its header's completeAt), when its hidden reads
   * were applied and none of the kept reads' places is ambiguous.
   */
  completeAt?: number[] | undefined;
  /**
   * A raw terminal trace made in exact mode: the limit every one of its git processes ran with, from
   * the environment PackScope set in the terminals (its sidecar says so; terminalEnvironmentLimit).
   * Undefined for recordings with a header (theirs says it) and for other raw traces.
   */
  environmentLimit?: number | undefined;
  /** Places of the kept reads whose hidden reads more than one reading of the runs explains (left open, bounded). */
  ambiguousPlaces?: number | undefined;
  /** A read list (read-list.ts): every read is listed, hits included, so none is hidden. */
  readList?: boolean | undefined;
}

/** A git process a trace holds that ran in another repository than the recording's. */
export interface ElsewhereProcess {
  command: string | undefined;
  reads: number;
  gitDir: string;
}

export interface ResolveRecordingOptions {
  /** 1-based segment number to keep (all segments when undefined). */
  segment?: number | undefined;
}

/** The warning for a file without a single pack read, or undefined. */
export function noReadsWarning(log: TraceLog): string | undefined {
  return log.readPack.length === 0
    ? `no pack reads in ${log.file} (is it a GIT_TRACE_PACK_ACCESS file or a recording?)`
    : undefined;
}

/**
 * What makes a parsed file no recording at all, as an error naming the file: said before anything
 * looks for the file's repository, so that a bad file is never reported as "not inside a git
 * repository". A file is a recording (a `#packscope-recording` header) or a raw trace (pack reads or
 * GIT_TRACE lines); anything else — empty, a text file, a damaged header — is refused.
 */
export function checkRecordingFile(log: TraceLog): void {
  if (log.metadata === undefined && log.foreignHeader !== undefined) {
    throw fail(
      'bad-magic',
      log.file,
      0,
      `line 1 is not a recording header (a recording starts with "${RECORDING_MAGIC}${RECORDING_VERSION} {…}", this one with ${JSON.stringify(log.foreignHeader)})`,
    );
  }
  if (log.metadata !== undefined || log.readPack.length > 0 || log.otherLines > 0) return;
  if (log.lines === 0)
    throw fail('truncated', log.file, undefined, 'the file is empty: not a recording or a GIT_TRACE_PACK_ACCESS trace');
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
  return log.unterminatedLine === undefined
    ? undefined
    : `${log.file} ends inside line ${log.unterminatedLine} (cut short?): that line was left out`;
}

/**
 * The git directories a trace's git processes ran in (GIT_TRACE_SETUP lines, TraceSegment.gitDir),
 * the one with the most reads first: a raw terminal trace has no header, and may hold commands of
 * several repositories.
 */
export function segmentRepositories(log: TraceLog): string[] {
  const reads = new Map<string, number>();
  for (const segment of log.segments) {
    if (segment.gitDir !== undefined)
      reads.set(segment.gitDir, (reads.get(segment.gitDir) ?? 0) + segment.endRead - segment.firstRead);
  }
  return [...reads].sort((a, b) => b[1] - a[1]).map(([gitDir]) => gitDir);
}

/**
 * The trace without the git processes that ran in another repository than `commonDir` (their
 * GIT_TRACE_SETUP lines say so): a terminal recording holds whatever the user ran, and reads of a
 * clone's same-named pack must not count as this repository's. Processes that do not say where
 * they ran are kept. Segment numbers are those of the whole trace minus the ones left out.
 */
export function onlyRepository(
  log: TraceLog,
  commonDir: string,
): { log: TraceLog; leftOut: { reads: number; processes: number; gitDirs: string[]; each: ElsewhereProcess[] } } {
  const ours = realpathOr(commonDir);
  const same = new Map<string, boolean>();
  const isOurs = (gitDir: string | undefined): boolean => {
    if (gitDir === undefined) return true;
    let answer = same.get(gitDir);
    if (answer === undefined) same.set(gitDir, (answer = realpathOr(gitDir) === ours));
    return answer;
  };
  const leftOut = { reads: 0, processes: 0, gitDirs: [] as string[], each: [] as ElsewhereProcess[] };
  if (log.segments.every((segment) => isOurs(segment.gitDir))) return { log, leftOut };
  const readPack: number[] = [];
  const readOffset: number[] = [];
  const segments: TraceSegment[] = [];
  for (const segment of log.segments) {
    const reads = segment.endRead - segment.firstRead;
    if (!isOurs(segment.gitDir)) {
      if (reads > 0) {
        leftOut.reads += reads;
        leftOut.processes += 1;
        if (!leftOut.gitDirs.includes(segment.gitDir!)) leftOut.gitDirs.push(segment.gitDir!);
        leftOut.each.push({ command: segment.command, reads, gitDir: segment.gitDir! });
      }
      continue;
    }
    const firstRead = readPack.length;
    for (let i = segment.firstRead; i < segment.endRead; i++) {
      readPack.push(log.readPack[i]!);
      readOffset.push(log.readOffset[i]!);
    }
    segments.push({ ...segment, firstRead, endRead: readPack.length });
  }
  if (segments.length === 0) segments.push({ command: undefined, line: 1, firstRead: 0, endRead: 0 });
  return {
    log: { ...log, readPack: Uint32Array.from(readPack), readOffset: Float64Array.from(readOffset), segments },
    leftOut,
  };
}

function realpathOr(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/**
 * Where to look for the repository a recording's reads belong to, best first: the one it was
 * recorded in (its header's cwd and git directory) when it has a header; else the git directories
 * its processes ran in (GIT_TRACE_SETUP), then those absolute pack paths lie in. Its reads are
 * mapped over that repository's packs, its alternates' included: a recording made in a `--shared`
 * clone reads the origin's pack file through alternates, and those are that pack's reads. The CLI
 * and the server both open recordings so (loadRecording, recording-opener.ts).
 */
export function recordingRepositoryPlaces(head: {
  metadata: RecordingMetadata | undefined;
  gitDirs: readonly string[];
  packPaths: readonly string[];
}): { places: string[]; fromHeader: boolean } {
  const { metadata } = head;
  if (metadata)
    return {
      places: [metadata.cwd, metadata.gitDir].filter((where): where is string => typeof where === 'string'),
      fromHeader: true,
    };
  const packDirs = head.packPaths
    .filter((tracePath) => path.isAbsolute(tracePath))
    .map((tracePath) => path.dirname(tracePath));
  return { places: [...head.gitDirs, ...packDirs], fromHeader: false };
}

/** The first of `places` that exists and is in a repository, opened; undefined when none is. */
export function firstRepositoryOf(places: readonly string[]): Repository | undefined {
  for (const where of places) {
    if (!fs.existsSync(where)) continue;
    try {
      return discoverRepository(where);
    } catch {
      // gone or no longer a repository: try the next
    }
  }
  return undefined;
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
export function resolveRecording(
  whole: TraceLog,
  store: ObjectStore,
  options: ResolveRecordingOptions = {},
): LoadedRecording {
  const warnings: string[] = [];
  const { log, leftOut } = onlyRepository(whole, store.repository.commonDir);
  if (leftOut.reads > 0) {
    warnings.push(
      `${leftOut.reads} reads of ${leftOut.processes} git ${leftOut.processes === 1 ? 'process' : 'processes'} in other repositories left out (${leftOut.gitDirs.slice(0, 3).join(', ')}${leftOut.gitDirs.length > 3 ? ', …' : ''})`,
    );
  }
  const environmentLimit = terminalEnvironmentLimit(log, warnings);
  const empty = noReadsWarning(log);
  if (empty !== undefined) warnings.push(empty);
  const cut = unterminatedLineWarning(log);
  if (cut !== undefined) warnings.push(cut);
  const resolved = resolveReads(log, store);
  for (const unknown of resolved.unknownPacks)
    warnings.push(`${unknown.reads} reads of ${unknown.path} left out: ${unknown.reason}`);
  if (resolved.badOffsets.length > 0)
    warnings.push(
      `${resolved.badOffsets.length}${resolved.badOffsets.length === 100 ? '+' : ''} reads left out: their offset is not the start of an object (first: ${resolved.badOffsets[0]!.path} ${resolved.badOffsets[0]!.offset})`,
    );
  if (log.malformed.count > 0)
    warnings.push(
      `${log.malformed.count} malformed lines skipped (lines ${log.malformed.firstLines.join(', ')}${log.malformed.count > log.malformed.firstLines.length ? ', …' : ''})`,
    );
  const objects = simObjectsFrom(resolved.packs.map((p) => p.model));
  const global = new Int32Array(resolved.readObject.length);
  for (let i = 0; i < global.length; i++)
    global[i] = objects.packBase[resolved.readPack[i]!]! + resolved.readObject[i]!;
  let segments = resolved.segments;
  const complete = applyHiddenReads(log, objects, global, segments, warnings);
  const all = complete?.reads ?? global;
  if (complete) segments = complete.segments;
  let range = { start: 0, end: all.length };
  if (options.segment !== undefined) {
    const chosen = segments[options.segment - 1];
    if (!chosen || !Number.isInteger(options.segment))
      throw fail(
        'usage',
        log.file,
        undefined,
        `there is no segment ${options.segment} (the recording has ${segments.length})`,
      );
    range = { start: chosen.firstRead, end: chosen.endRead };
    segments = [{ ...chosen, firstRead: 0, endRead: chosen.endRead - chosen.firstRead }];
  }
  const compact = compactForReads(objects, all.subarray(range.start, range.end));
  // Ambiguous places (complete-recording.ts) are bounded, not known: the replay is then exact at
  // the complete limits only if the bounds meet, so completeAt is not claimed for the kept reads.
  const ambiguousPlaces = complete
    ? options.segment !== undefined
      ? (complete.ambiguousPerSegment[options.segment - 1] ?? 0)
      : complete.ambiguousPerSegment.reduce((sum, n) => sum + n, 0)
    : 0;
  const extras = complete
    ? {
        knownPlaces: complete.known.slice(range.start, range.end),
        insertedReads: complete.inserted.slice(range.start, range.end),
        completeAt: ambiguousPlaces > 0 ? undefined : log.metadata?.completeAt,
        ambiguousPlaces,
      }
    : {};
  return {
    log,
    store,
    resolved,
    objects: compact.objects,
    reads: compact.reads,
    range: traceRangeOf(resolved.segments, options.segment, global.length),
    segments,
    warnings,
    elsewhere: leftOut.each,
    ...extras,
    ...(environmentLimit !== undefined ? { environmentLimit } : {}),
  };
}

/** Largest sidecar read: the extension writes a few hundred bytes. */
const MAX_SIDECAR_BYTES = 64 << 10;

/**
 * The limit a raw trace's git processes ran with, when the extension's terminal recording made it in
 * exact mode (its sidecar, `<file>.json`, says so): every git started in those terminals had
 * core.deltaBaseCacheLimit=0 through GIT_CONFIG_COUNT. Only `-c` on a command's own line (or a
 * GIT_CONFIG_PARAMETERS of the user's) overrides that; GIT_TRACE_PERFORMANCE's exit line shows the
 * `-c` options, so a process given `-c core.deltaBaseCacheLimit` makes the limit unknown, with a warning.
 */
function terminalEnvironmentLimit(log: TraceLog, warnings: string[]): number | undefined {
  if (log.metadata !== undefined) return undefined;
  const limit = terminalRecordingLimit(readSidecar(log.file));
  if (limit === undefined) return undefined;
  const overridden = log.segments.filter((segment) => {
    if (segment.givenCommand === undefined || segment.command === undefined) return false;
    const options = segment.givenCommand.slice(
      0,
      segment.givenCommand.length - (segment.command.length - 'git'.length),
    );
    return /deltabasecachelimit/i.test(options) || /--config-env/.test(options);
  });
  if (overridden.length > 0) {
    warnings.push(
      `${overridden.length} git ${overridden.length === 1 ? 'process was' : 'processes were'} given their own core.deltaBaseCacheLimit (${overridden[0]!.givenCommand}): the limit this terminal recording ran with is unknown, so it is replayed as a raw trace`,
    );
    return undefined;
  }
  return limit;
}

function readSidecar(file: string): unknown {
  try {
    const sidecar = sidecarPath(file);
    const stat = fs.statSync(sidecar);
    if (!stat.isFile() || stat.size > MAX_SIDECAR_BYTES) return undefined;
    return JSON.parse(fs.readFileSync(sidecar, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The kept reads' range among the trace's (resolved's arrays): the chosen segment's, else all `total`. */
function traceRangeOf(
  segments: readonly TraceSegment[],
  segment: number | undefined,
  total: number,
): { start: number; end: number } {
  const chosen = segment === undefined ? undefined : segments[segment - 1];
  return chosen === undefined ? { start: 0, end: total } : { start: chosen.firstRead, end: chosen.endRead };
}

/**
 * A complete recording (`record --complete`, complete-recording.ts): its trace is the limit-0 run;
 * the header lists the hidden reads the runs at other limits found. Inserted here, each process on
 * its own, with where no more reads can hide. Only when every trace read was mapped (the header's
 * indices count them all); otherwise the recording is replayed as a plain limit-0 one, with a warning.
 */
// Stays long: the header's hidden reads checked, then one pass per process inserting them; the output position carries
// from one process to the next.
function applyHiddenReads(
  log: TraceLog,
  objects: SimObjects,
  global: Int32Array,
  segments: TraceSegment[],
  warnings: string[],
):
  | {
      reads: Int32Array;
      known: Uint8Array;
      inserted: Uint8Array;
      segments: TraceSegment[];
      ambiguousPerSegment: number[];
    }
  | undefined {
  const metadata = log.metadata;
  if (!metadata?.completeAt || !metadata.hiddenReads) return undefined;
  if (global.length !== log.readPack.length) {
    warnings.push(
      "the recording's hidden reads are not applied: some of its reads are not in the repository (replayed as a plain limit-0 recording)",
    );
    return undefined;
  }
  const byRead = new Map<number, number>();
  for (const entry of metadata.hiddenReads) {
    const [after, count] = Array.isArray(entry) ? entry : [];
    if (
      !Number.isSafeInteger(after) ||
      !Number.isSafeInteger(count) ||
      after! < 0 ||
      after! >= global.length ||
      count! < 1 ||
      count! > global.length
    )
      throw fail(
        'bad-header',
        log.file,
        0,
        `recording header: hidden read ${JSON.stringify(entry)} is not [read index, count] within the trace`,
      );
    byRead.set(after!, count!);
  }
  const ambiguous = new Set<number>();
  for (const after of metadata.ambiguousReads ?? []) {
    if (!Number.isSafeInteger(after) || after < 0 || after >= global.length)
      throw fail(
        'bad-header',
        log.file,
        0,
        `recording header: ambiguous read ${JSON.stringify(after)} is not a read index within the trace`,
      );
    ambiguous.add(after);
  }
  const parts: { reads: Int32Array; known: Uint8Array; inserted: Uint8Array }[] = [];
  const ambiguousIn: number[] = [];
  const out: TraceSegment[] = [];
  let at = 0;
  const spans =
    segments.length > 0 ? segments : [{ command: undefined, line: 1, firstRead: 0, endRead: global.length }];
  for (const segment of spans) {
    const hidden = new Map<number, number>();
    for (const [after, count] of byRead)
      if (after >= segment.firstRead && after < segment.endRead) hidden.set(after - segment.firstRead, count);
    const open = new Set<number>();
    for (const after of ambiguous)
      if (after >= segment.firstRead && after < segment.endRead) open.add(after - segment.firstRead);
    const part = withHiddenReads(
      objects,
      global.subarray(segment.firstRead, segment.endRead),
      hidden,
      metadata.completeAt,
      open,
    );
    parts.push(part);
    ambiguousIn.push(open.size);
    out.push({ ...segment, firstRead: at, endRead: at + part.reads.length });
    at += part.reads.length;
  }
  const join = <T extends Int32Array | Uint8Array>(
    pick: (part: (typeof parts)[number]) => T,
    make: (n: number) => T,
  ): T => {
    const result = make(at);
    let offset = 0;
    for (const part of parts) {
      result.set(pick(part) as never, offset);
      offset += pick(part).length;
    }
    return result;
  };
  return {
    reads: join(
      (p) => p.reads,
      (n) => new Int32Array(n),
    ),
    known: join(
      (p) => p.known,
      (n) => new Uint8Array(n),
    ),
    inserted: join(
      (p) => p.inserted,
      (n) => new Uint8Array(n),
    ),
    segments: out,
    ambiguousPerSegment: ambiguousIn,
  };
}
