import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail } from '../core/errors.ts';
import { ObjectStore as Store } from '../core/model/object-store.ts';
import { discoverRepository } from '../core/model/repository.ts';
import {
  firstRepositoryOf,
  noReadsWarning,
  parseRecordingFile,
  recordingRepositoryPlaces,
  resolveRecording,
  segmentRepositories,
  type LoadedRecording,
} from '../core/trace/load-recording.ts';
import { parseReadList } from '../core/trace/read-list.ts';
import { modelStoreFor, type CacheOptions } from './open-target.ts';
import type { Progress } from './progress.ts';

export type { LoadedRecording } from '../core/trace/load-recording.ts';

export interface LoadOptions extends CacheOptions {
  /** -C DIR: where the repository is (default: the recording's own, else the current directory). */
  repository?: string | undefined;
  /** Where a raw trace without a header that names none of its repositories is read (default: the current directory). */
  defaultRepository?: string | undefined;
  /** 1-based segment number to keep (all segments when undefined). */
  segment?: number | undefined;
}

/**
 * Reads a recording (or a raw GIT_TRACE_PACK_ACCESS file), finds its repository, maps its reads to
 * objects (src/core/trace/load-recording.ts), and says on stderr what it had to leave out (never silently).
 */
export function loadRecording(file: string, options: LoadOptions, progress: Progress): LoadedRecording {
  if (!fs.existsSync(file)) throw fail('io', file, undefined, 'no such recording or trace file');
  // A file that is no recording is refused here, before its repository is looked for.
  const log = progress.track(`Parsing ${path.basename(file)}`, (onProgress) => parseRecordingFile(file, onProgress));
  const empty = noReadsWarning(log);
  if (empty !== undefined) warn(empty);
  // The repository it was recorded in, as the server opens it (recordingRepositoryPlaces).
  const { places } = recordingRepositoryPlaces({
    metadata: log.metadata,
    gitDirs: segmentRepositories(log),
    packPaths: log.packPaths,
  });
  const where = options.repository ?? log.metadata?.cwd ?? options.defaultRepository ?? process.cwd();
  let repository: ReturnType<typeof discoverRepository>;
  try {
    repository =
      (options.repository === undefined ? firstRepositoryOf(places) : undefined) ?? discoverRepository(where);
  } catch (error) {
    if (options.repository === undefined && log.metadata) {
      throw fail(
        'not-a-repository',
        file,
        undefined,
        `the repository it was recorded in (${where}) is gone; name one with -C DIR`,
      );
    }
    if (options.repository === undefined) {
      throw fail(
        'not-a-repository',
        file,
        undefined,
        `a raw trace (no recording header) whose packs name no repository, and the current directory is not inside one; name its repository with -C DIR`,
      );
    }
    throw error;
  }
  const store = new Store(repository, modelStoreFor(options, repository));
  const loaded = progress.track('Reading packs', () => resolveRecording(log, store, { segment: options.segment }));
  // The empty-file warning was printed above, before looking for the repository.
  for (const message of empty === undefined ? loaded.warnings : loaded.warnings.slice(1)) warn(message);
  return loaded;
}

/**
 * Reads a read list (`simulate --reads`, src/core/trace/read-list.ts) in the repository of -C DIR or
 * the current directory: every line must be a read of it, or the load fails naming the line.
 */
export function loadReadList(file: string, options: LoadOptions, progress: Progress): LoadedRecording {
  if (!fs.existsSync(file)) throw fail('io', file, undefined, 'no such read list');
  const repository = discoverRepository(options.repository ?? process.cwd());
  const store = new Store(repository, modelStoreFor(options, repository));
  const log = progress.track(`Reading ${path.basename(file)}`, () => parseReadList(file, store));
  if (log.readPack.length === 0) throw fail('truncated', file, undefined, 'the read list lists no reads');
  const loaded = progress.track('Reading packs', () => resolveRecording(log, store, { segment: options.segment }));
  for (const message of loaded.warnings) warn(message);
  return { ...loaded, readList: true };
}

function warn(message: string): void {
  process.stderr.write(`packscope: warning: ${message}\n`);
}
