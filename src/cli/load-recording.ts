import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail } from '../core/errors.ts';
import type { ObjectStore } from '../core/model/object-store.ts';
import { ObjectStore as Store } from '../core/model/object-store.ts';
import { discoverRepository } from '../core/model/repository.ts';
import { compactForReads, simObjectsFrom, type SimObjects } from '../core/sim/sim-objects.ts';
import { resolveReads, type ResolvedReads } from '../core/trace/resolve-reads.ts';
import { parseTraceFile, type TraceLog, type TraceSegment } from '../core/trace/trace-log.ts';
import { modelStoreFor, type CacheOptions } from './open-target.ts';
import type { Progress } from './progress.ts';

export interface LoadedRecording {
  log: TraceLog;
  store: ObjectStore;
  resolved: ResolvedReads;
  /** The objects the kept reads can touch, compacted (see compactForReads). */
  objects: SimObjects;
  /** The kept reads, as ids of `objects`. */
  reads: Int32Array;
  /** The kept reads' range in `resolved`'s per-read arrays (all of them unless --segment). */
  range: { start: number; end: number };
  /** Segments with read indices relative to `reads`. */
  segments: TraceSegment[];
}

export interface LoadOptions extends CacheOptions {
  /** -C DIR: where the repository is (default: the recording's own, else the current directory). */
  repository?: string | undefined;
  /** 1-based segment number to keep (all segments when undefined). */
  segment?: number | undefined;
}

/**
 * Reads a recording (or a raw GIT_TRACE_PACK_ACCESS file), finds its repository, maps its reads to
 * objects, and says on stderr what it had to leave out (never silently).
 */
export function loadRecording(file: string, options: LoadOptions, progress: Progress): LoadedRecording {
  if (!fs.existsSync(file)) throw fail('io', file, undefined, 'no such recording or trace file');
  const log = progress.track(`Parsing ${path.basename(file)}`, (onProgress) => parseTraceFile(file, onProgress));
  if (log.readPack.length === 0) warn(`no pack reads in ${file} (is it a GIT_TRACE_PACK_ACCESS file or a recording?)`);
  const where = options.repository ?? log.metadata?.cwd ?? process.cwd();
  let repository: ReturnType<typeof discoverRepository>;
  try {
    repository = discoverRepository(where);
  } catch (error) {
    if (options.repository === undefined && log.metadata) {
      throw fail('not-a-repository', file, undefined, `the repository it was recorded in (${where}) is gone; name one with -C DIR`);
    }
    throw error;
  }
  const store = new Store(repository, modelStoreFor(options, repository));
  const resolved = progress.track('Reading packs', () => resolveReads(log, store));
  for (const unknown of resolved.unknownPacks) warn(`${unknown.reads} reads of ${unknown.path} left out: ${unknown.reason}`);
  if (resolved.badOffsets.length > 0) warn(`${resolved.badOffsets.length}${resolved.badOffsets.length === 100 ? '+' : ''} reads left out: their offset is not the start of an object (first: ${resolved.badOffsets[0]!.path} ${resolved.badOffsets[0]!.offset})`);
  if (log.malformed.count > 0) warn(`${log.malformed.count} malformed lines skipped (lines ${log.malformed.firstLines.join(', ')}${log.malformed.count > log.malformed.firstLines.length ? ', …' : ''})`);
  const objects = simObjectsFrom(resolved.packs.map((p) => p.model));
  const global = new Int32Array(resolved.readObject.length);
  for (let i = 0; i < global.length; i++) global[i] = objects.packBase[resolved.readPack[i]!]! + resolved.readObject[i]!;
  let segments = resolved.segments;
  let range = { start: 0, end: global.length };
  if (options.segment !== undefined) {
    const chosen = segments[options.segment - 1];
    if (!chosen) throw fail('usage', file, undefined, `there is no segment ${options.segment} (the recording has ${segments.length})`);
    range = { start: chosen.firstRead, end: chosen.endRead };
    segments = [{ ...chosen, firstRead: 0, endRead: chosen.endRead - chosen.firstRead }];
  }
  const compact = compactForReads(objects, global.subarray(range.start, range.end));
  return { log, store, resolved, objects: compact.objects, reads: compact.reads, range, segments };
}

function warn(message: string): void {
  process.stderr.write(`packscope: warning: ${message}\n`);
}

/** Human form of a byte limit: 0, 512k, 16m, 96m, 1g, or bytes. */
export function formatLimit(bytes: number): string {
  if (bytes === 0) return '0';
  for (const [unit, scale] of [['g', 1024 ** 3], ['m', 1024 ** 2], ['k', 1024]] as const) {
    if (bytes % scale === 0) return `${bytes / scale}${unit}`;
  }
  return String(bytes);
}

export function recordingSummary(loaded: LoadedRecording): Record<string, unknown> {
  return {
    file: loaded.log.file,
    repository: loaded.store.repository.gitDir,
    mode: loaded.log.metadata?.mode ?? 'raw',
    recordedLimit: loaded.log.metadata?.cacheLimit ?? null,
    command: loaded.log.metadata ? ['git', ...loaded.log.metadata.command].join(' ') : null,
    traceLines: loaded.log.readPack.length,
    reads: loaded.reads.length,
    segments: loaded.segments.length,
    packs: loaded.resolved.packs.map((p) => ({ path: p.location.files.pack, checksum: p.model.checksumHex })),
  };
}
