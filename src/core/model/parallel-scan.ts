/**
 * One pack's scan split across threads, so that a model build uses every core it may have. The
 * pack's positions are cut into chunks; this thread and the scan workers
 * claim chunks in increasing order from a shared counter and write the same shared columns
 * (scan-range.ts), so a worker that starts late, or a core that is busy, only takes fewer chunks.
 *
 * It stays synchronous, like buildPackModel and every caller of it: this thread scans chunks itself,
 * then waits on shared memory (Atomics.wait, which Node allows on any thread) for the chunks workers
 * still hold, and reads their messages with receiveMessageOnPort. A worker that makes no progress
 * for STALL_MS (it could not start, or died) has its chunks scanned again here: the values written
 * are the same whoever writes them, so doing a chunk twice is only slower, never wrong.
 *
 * Errors come out as the one-thread scan's would: a scanner stops at the first bad entry of its
 * chunk, chunks are claimed in order, so the error of the lowest failed chunk is the first bad entry
 * in pack order.
 */
import { decodeWorkerError, type WorkerError } from '../worker-error.ts';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { TransferredIndex } from '../format/idx.ts';
import type { RandomAccessFile } from '../format/random-access-file.ts';
import type { RangeScanner, ScanOutput } from './scan-range.ts';

/** Entries per chunk: large enough that claiming costs nothing, small enough to balance two threads. */
export const SCAN_CHUNK_ENTRIES = 1 << 16;
/** A worker silent this long (no entry scanned by anyone) has its chunks scanned again here. */
const STALL_MS = 5000;
/** Progress is published every this many entries (and checked for cancellation). */
const PUBLISH_EVERY = 4096;

const NEXT_CHUNK = 0;
const FINISHED_CHUNKS = 1;
const ENTRIES_DONE = 2;
/** Set when a chunk failed: nobody claims further chunks (chunks before it are already claimed). */
const STOP_CLAIMING = 3;
/** Set when the build is cancelled or over: scanners stop at once. */
const CANCELLED = 4;
const CHUNK_STATES = 5;
const UNCLAIMED = 0;
const CLAIMED = 1;
const FINISHED = 2;

/** What a scan worker is given (workerData). */
export interface ScanWorkerTask {
  kind: 'scan';
  packFile: string;
  /** The pack file's identity as this thread opened it (RandomAccessFile.identity). */
  packIdentity: string;
  index: TransferredIndex;
  byOffset: Uint32Array;
  sortedOffsets: Float64Array;
  dataEnd: number;
  wantResultSizes: boolean;
  output: ScanOutput;
  control: Int32Array;
  chunkCount: number;
  chunkEntries: number;
  port: MessagePort;
}

/** What a worker posts for each chunk it finishes, before marking it finished. */
export type ScanWorkerMessage =
  | { kind: 'chunk'; chunk: number; sizeOverflow: [number, number][]; resultSizeOverflow: [number, number][] }
  /** The chunk's PackScopeError, or the worker's own bug. */
  | { kind: 'failed'; chunk: number; error: WorkerError };

function allocateScanControl(chunkCount: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer((CHUNK_STATES + chunkCount) * 4));
}

function chunkRange(chunk: number, chunkEntries: number, count: number): [number, number] {
  const from = chunk * chunkEntries;
  return [from, Math.min(count, from + chunkEntries)];
}

class ScanCancelled extends Error {}

/**
 * Marks a chunk finished exactly once, whoever finishes it first (its claimer, or this thread
 * scanning a stalled worker's chunk again); true if this call did. FINISHED is final: a claimer that
 * comes after finds the chunk taken (claimAndScan) and skips it.
 */
function finishChunk(control: Int32Array, chunk: number): boolean {
  const at = CHUNK_STATES + chunk;
  for (;;) {
    const state = Atomics.load(control, at);
    if (state === FINISHED) return false;
    if (Atomics.compareExchange(control, at, state, FINISHED) === state) break;
  }
  Atomics.add(control, FINISHED_CHUNKS, 1);
  Atomics.notify(control, FINISHED_CHUNKS);
  return true;
}

/**
 * Claims and scans chunks until none is left (or claiming stops); the claim loop of every scanner,
 * this thread's and the workers'. `onChunk` hears each chunk scanned or failed, before it is marked
 * finished; `onPublish` is called at each progress step and may throw to cancel.
 */
export function claimAndScan(
  control: Int32Array,
  chunkCount: number,
  chunkEntries: number,
  count: number,
  scanner: RangeScanner,
  onChunk: (chunk: number, error?: unknown) => void,
  onPublish?: () => void,
): void {
  // What onPublish threw (the caller's cancellation): it ends every scanner, and is rethrown here.
  let publishError: { error: unknown } | undefined;
  const publish = (entries: number): void => {
    Atomics.add(control, ENTRIES_DONE, entries);
    if (Atomics.load(control, CANCELLED)) throw new ScanCancelled();
    try {
      onPublish?.();
    } catch (error) {
      publishError = { error };
      Atomics.store(control, CANCELLED, 1);
      throw new ScanCancelled();
    }
  };
  while (!Atomics.load(control, STOP_CLAIMING) && !Atomics.load(control, CANCELLED)) {
    const chunk = Atomics.add(control, NEXT_CHUNK, 1);
    if (chunk >= chunkCount) return;
    // Taken already only if this thread scanned it again after its claimer went silent.
    if (Atomics.compareExchange(control, CHUNK_STATES + chunk, UNCLAIMED, CLAIMED) !== UNCLAIMED) continue;
    const [from, to] = chunkRange(chunk, chunkEntries, count);
    try {
      scanner.scan(from, to, publish, PUBLISH_EVERY);
    } catch (error) {
      if (error instanceof ScanCancelled) {
        if (publishError) throw publishError.error;
        return;
      }
      Atomics.store(control, STOP_CLAIMING, 1);
      onChunk(chunk, error);
      finishChunk(control, chunk);
      return;
    }
    onChunk(chunk);
    finishChunk(control, chunk);
  }
}

export interface ParallelScanRun {
  /** Sizes of 4 GiB or more by pack position, from every scanner. */
  sizeOverflow: Map<number, number>;
  resultSizeOverflow: Map<number, number>;
}

/**
 * Scans every position of the pack with this thread's scanner and `workers` scan workers started
 * from `workerScript`. Throws the first error in pack order, or what `onProgress` throws.
 */
// Stays long: one coordinator: the workers, the chunk claims and the failures share its state, which split steps would
// pass around.
export function scanInParallel(options: {
  workerScript: string;
  workers: number;
  /** Entries per chunk (default SCAN_CHUNK_ENTRIES; tests use small chunks on small packs). */
  chunkEntries?: number | undefined;
  /** false: this thread claims nothing and only waits (tests: the workers' own paths, the stall rule). */
  thisThreadScans?: boolean | undefined;
  count: number;
  scanner: RangeScanner;
  pack: RandomAccessFile;
  task: Omit<ScanWorkerTask, 'kind' | 'control' | 'chunkCount' | 'chunkEntries' | 'port' | 'packIdentity'>;
  onProgress?: ((done: number, total: number) => void) | undefined;
}): ParallelScanRun {
  const { count, scanner, task, onProgress } = options;
  const chunkEntries = Math.max(1, options.chunkEntries ?? SCAN_CHUNK_ENTRIES);
  const chunkCount = Math.ceil(count / chunkEntries);
  const control = allocateScanControl(chunkCount);
  const sizeOverflow = new Map<number, number>();
  const resultSizeOverflow = new Map<number, number>();
  const failures = new Map<number, unknown>();
  const ports: MessagePort[] = [];
  const workers: Worker[] = [];
  const absorb = (message: ScanWorkerMessage): void => {
    // A worker that could not open the pack claimed nothing: the other scanners take its share.
    if (message.chunk < 0) return;
    if (message.kind === 'chunk') {
      for (const [p, value] of message.sizeOverflow) sizeOverflow.set(p, value);
      for (const [p, value] of message.resultSizeOverflow) resultSizeOverflow.set(p, value);
    } else {
      failures.set(message.chunk, decodeWorkerError(message.error, 'scan worker'));
    }
  };
  const drain = (): void => {
    for (const port of ports) {
      for (let received = receiveMessageOnPort(port); received; received = receiveMessageOnPort(port))
        absorb(received.message as ScanWorkerMessage);
    }
  };
  let lastReported = -1;
  const report = (): void => {
    if (!onProgress) return;
    const done = Atomics.load(control, ENTRIES_DONE);
    if (done === lastReported) return;
    lastReported = done;
    onProgress(Math.min(done, count), count);
  };
  try {
    for (let w = 0; w < options.workers; w++) {
      const { port1, port2 } = new MessageChannel();
      ports.push(port1);
      const workerTask: ScanWorkerTask = {
        kind: 'scan',
        ...task,
        packIdentity: options.pack.identity,
        control,
        chunkCount,
        chunkEntries,
        port: port2,
      };
      const worker = new Worker(options.workerScript, { workerData: workerTask, transferList: [port2] });
      // Never keeps the process alive: everything it does is waited for here, synchronously.
      worker.unref();
      worker.on('error', () => undefined);
      workers.push(worker);
    }
    const onChunk = (chunk: number, error?: unknown): void => {
      if (error !== undefined) failures.set(chunk, error);
    };
    if (options.thisThreadScans !== false)
      claimAndScan(control, chunkCount, chunkEntries, count, scanner, onChunk, report);

    // The chunks workers hold: wait for them, and scan again here those of a worker gone silent.
    let seenEntries = Atomics.load(control, ENTRIES_DONE);
    let quietSince = performance.now();
    for (;;) {
      drain();
      const finished = Atomics.load(control, FINISHED_CHUNKS);
      if (everyChunkFinished(control, chunkCount)) break;
      Atomics.wait(control, FINISHED_CHUNKS, finished, 100);
      report();
      const entries = Atomics.load(control, ENTRIES_DONE);
      if (entries !== seenEntries) {
        seenEntries = entries;
        quietSince = performance.now();
      } else if (performance.now() - quietSince > STALL_MS) {
        rescanStalled(control, chunkCount, chunkEntries, count, scanner, failures);
        quietSince = performance.now();
      }
    }
    drain();
  } finally {
    // Done, failed or cancelled: scanners stop at once; the workers are ended without waiting.
    Atomics.store(control, CANCELLED, 1);
    for (const worker of workers) void worker.terminate();
    for (const port of ports) port.close();
  }
  for (const [p, value] of scanner.sizeOverflow) sizeOverflow.set(p, value);
  for (const [p, value] of scanner.resultSizeOverflow) resultSizeOverflow.set(p, value);
  if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
  return { sizeOverflow, resultSizeOverflow };
}

/**
 * True when every chunk is finished, or after a failure every chunk claimed (claims stop at the
 * first failure; the chunks before it were all claimed earlier, and the error is theirs or its).
 */
function everyChunkFinished(control: Int32Array, chunkCount: number): boolean {
  const bound = Atomics.load(control, STOP_CLAIMING)
    ? Math.min(Atomics.load(control, NEXT_CHUNK), chunkCount)
    : chunkCount;
  for (let chunk = 0; chunk < bound; chunk++)
    if (Atomics.load(control, CHUNK_STATES + chunk) !== FINISHED) return false;
  return true;
}

/**
 * Scans here every chunk not finished (a worker that stopped making progress, or none that started),
 * up to the first failure: claims stop there, and the chunks after it do not change the error.
 */
function rescanStalled(
  control: Int32Array,
  chunkCount: number,
  chunkEntries: number,
  count: number,
  scanner: RangeScanner,
  failures: Map<number, unknown>,
): void {
  const last = Atomics.load(control, STOP_CLAIMING)
    ? Math.min(Atomics.load(control, NEXT_CHUNK), chunkCount)
    : chunkCount;
  for (let chunk = 0; chunk < last; chunk++) {
    if (failures.size > 0 && chunk > Math.min(...failures.keys())) break;
    if (Atomics.load(control, CHUNK_STATES + chunk) === FINISHED) continue;
    const [from, to] = chunkRange(chunk, chunkEntries, count);
    try {
      scanner.scan(from, to);
    } catch (error) {
      failures.set(chunk, error);
    }
    finishChunk(control, chunk);
  }
}
