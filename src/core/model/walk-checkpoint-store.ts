import * as fs from 'node:fs';
import { makeDirectories, writeAll, writeFileAtomically } from '../atomic-file.ts';
import { readCacheKey, readOrCreateCacheKey } from './model-cache-key.ts';
import type { PathWalkSummary, StoreWalkInputs, WalkCheckpoint } from './object-paths.ts';
import { PathTable } from './path-table.ts';
import { largestSealedFile, openSealedFile, SealedBodyReader, sealFile, type SealedFormat } from './sealed-file.ts';

/**
 * A stopped walk's checkpoint (object-paths.ts, WalkCheckpoint) beside the repository's paths file,
 * under the same rules (object-paths-store.ts): in the model cache, written atomically, sealed
 * with the cache's key, every array checked before use, and used only for the walk it was made
 * from (the same `walkKey`: packs, refs, shallow list). The next walk of the same store goes on
 * from it; a finished walk (or git's names) removes it.
 */
const CHECKPOINT_FILE: SealedFormat = {
  magic: Buffer.from('PSWALKC\0', 'latin1'),
  version: 1,
  maxHeaderBytes: 64 << 20,
  what: 'stopped walk',
};
const MAX_POOL_BYTES = 1 << 30;

interface CheckpointHeader {
  walkKey: string;
  counts: number[];
  seenBytes: number;
  pendingCount: number;
  nodes: number;
  poolBytes: number;
  phase: 'commits' | 'trees';
  pendingAt: number;
  stack: number[];
  heap: number[];
  seq: number;
  tagNames: [number, string][];
  loose: string[];
  summary: PathWalkSummary;
}

/** The checkpoint's file: the paths file's name with its own extension. */
export function checkpointFileFor(pathsFile: string): string {
  return pathsFile.replace(/\.pspaths$/, '.pswalk');
}

export function saveCheckpoint(directory: string, file: string, walkKey: string, checkpoint: WalkCheckpoint): void {
  makeDirectories(directory, 0o700);
  const key = readOrCreateCacheKey(directory);
  const { table } = checkpoint;
  const header: CheckpointHeader = {
    walkKey,
    counts: checkpoint.pathOf.map((column) => column.length),
    seenBytes: checkpoint.seen.length,
    pendingCount: checkpoint.pending.length,
    nodes: table.count,
    poolBytes: table.pool.length,
    phase: checkpoint.phase,
    pendingAt: checkpoint.pendingAt,
    stack: checkpoint.stack,
    heap: checkpoint.heap,
    seq: checkpoint.seq,
    tagNames: checkpoint.tagNames,
    loose: checkpoint.loose,
    summary: checkpoint.summary,
  };
  const parts: Uint8Array[] = [];
  // Four-byte arrays first, the byte arrays last: every view stays aligned when read back.
  for (const column of [...checkpoint.pathOf, table.parent, table.start, checkpoint.pending])
    parts.push(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
  parts.push(table.pool, checkpoint.seen);
  const bytes = sealFile(CHECKPOINT_FILE, header, parts, key);
  writeFileAtomically(file, 0o600, (fd) => writeAll(fd, bytes));
}

export function removeCheckpoint(file: string): void {
  fs.rmSync(file, { force: true });
}

/** The checkpoint of a stopped walk of this very store, when a sound one is there; else undefined. */
export function loadCheckpoint(
  directory: string,
  file: string,
  walkKey: string,
  inputs: StoreWalkInputs,
): WalkCheckpoint | undefined {
  if (!fs.existsSync(file)) return undefined;
  const key = readCacheKey(directory);
  if (key === undefined) return undefined;
  try {
    return readCheckpoint(file, walkKey, inputs, key);
  } catch {
    // A checkpoint is only a head start: one that does not check out is walked from the start.
    return undefined;
  }
}

// Stays long: a reader that checks every field of the header and every array in file order.
function readCheckpoint(file: string, walkKey: string, inputs: StoreWalkInputs, key: Buffer): WalkCheckpoint {
  const objects = inputs.models.reduce((sum, model) => sum + model.count, 0);
  // Sized by the packs (and loose objects at most a packs' worth), not by the file.
  const largest = largestSealedFile(CHECKPOINT_FILE, objects * 16 + (objects + 2) * 8 + MAX_POOL_BYTES + (1 << 26));
  const sealed = openSealedFile(
    file,
    CHECKPOINT_FILE,
    key,
    largest,
    'checkpoint is larger than any walk of these packs',
  );
  const header = JSON.parse(sealed.headerText) as CheckpointHeader;
  if (header.walkKey !== walkKey) throw new Error('the refs or packs changed since the walk stopped');
  const counts = inputs.models.map((model) => model.count);
  const integers = (values: unknown, multiple: number): values is number[] =>
    Array.isArray(values) && values.length % multiple === 0 && values.every((v) => Number.isSafeInteger(v));
  if (
    !Array.isArray(header.counts) ||
    header.counts.join(',') !== counts.join(',') ||
    !Number.isInteger(header.seenBytes) ||
    header.seenBytes < objects ||
    header.seenBytes - objects !== header.loose?.length ||
    !header.loose.every((oid) => typeof oid === 'string' && /^[0-9a-f]+$/.test(oid)) ||
    !Number.isInteger(header.pendingCount) ||
    header.pendingCount < 0 ||
    header.pendingCount > header.seenBytes + 1 ||
    !Number.isInteger(header.nodes) ||
    header.nodes < 1 ||
    header.nodes > objects + 1 ||
    !Number.isInteger(header.poolBytes) ||
    header.poolBytes > MAX_POOL_BYTES ||
    (header.phase !== 'commits' && header.phase !== 'trees') ||
    !Number.isInteger(header.pendingAt) ||
    header.pendingAt < 0 ||
    header.pendingAt > header.pendingCount ||
    !integers(header.stack, 5) ||
    !integers(header.heap, 3) ||
    !Number.isSafeInteger(header.seq) ||
    !Array.isArray(header.tagNames) ||
    !header.tagNames.every(
      (t) =>
        Array.isArray(t) &&
        Number.isInteger(t[0]) &&
        t[0] >= 0 &&
        t[0] < header.pendingCount &&
        typeof t[1] === 'string',
    ) ||
    typeof header.summary !== 'object' ||
    header.summary === null ||
    !Array.isArray(header.summary.problems)
  )
    throw new Error('checkpoint header has missing or mistyped fields');
  const body = new SealedBodyReader(sealed, 'checkpoint');
  const pathOf = counts.map((count) => body.int32(count));
  const parent = body.int32(header.nodes);
  const start = body.uint32(header.nodes + 1);
  const pending = body.int32(header.pendingCount);
  const pool = body.bytes(header.poolBytes);
  const seen = body.bytes(header.seenBytes);
  body.end();
  PathTable.check(parent, start, pool);
  PathTable.checkNodes(pathOf, header.nodes, 'checkpoint');
  const ids = header.seenBytes;
  for (const id of pending) if (id < 0 || id >= ids) throw new Error('checkpoint lists an object out of range');
  for (let i = 0; i < header.heap.length; i += 3)
    if (header.heap[i]! < 0 || header.heap[i]! >= objects) throw new Error('checkpoint queues a commit out of range');
  for (let i = 0; i < header.stack.length; i += 5) {
    const [id, offset, node, depth] = header.stack.slice(i, i + 4) as [number, number, number, number];
    if (id < 0 || id >= ids || offset < 0 || node < 0 || node >= header.nodes || depth < 0 || depth > 1 << 16)
      throw new Error('checkpoint reads a tree out of range');
  }
  return {
    phase: header.phase,
    seen,
    pathOf,
    table: new PathTable(parent, start, pool),
    pending,
    tagNames: header.tagNames,
    pendingAt: header.pendingAt,
    stack: header.stack,
    heap: header.heap,
    seq: header.seq,
    loose: header.loose,
    summary: header.summary,
  };
}
