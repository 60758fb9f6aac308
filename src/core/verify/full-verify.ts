import { decodeWorkerError, isWorkerCrash } from '../worker-error.ts';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { fail, PackFormatError } from '../errors.ts';
import type { PackIndex } from '../format/idx.ts';
import type { PackModel } from '../model/pack-model.ts';
import type {
  ChecksumMessage,
  ChecksumTask,
  FullVerifyMessage,
  FullVerifyTask,
  HashMismatch,
  WorkerFailure,
} from './full-verify-protocol.ts';

export interface FullVerifyOptions {
  /** Path of the bundled worker (dist/verify-worker.js). */
  workerScript: string;
  threads?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface FullVerifyReport {
  objects: number;
  inflatedBytes: number;
  threads: number;
}

/**
 * `verify-pack --full`: every object inflated, every delta applied, every result hashed and
 * compared with the idx, as `git index-pack --verify` does. Families are dealt to worker threads,
 * balanced by their bytes in the pack.
 */
/**
 * What every worker needs besides its roots: the columns as plain arrays, the children as one
 * adjacency list, and the idx names. Built once; the workers share it.
 */
export function buildFamilyTask(model: PackModel, roots: Uint32Array): FullVerifyTask {
  const count = model.count;
  const c = model.columns;
  const size = new Float64Array(count);
  const diskSize = new Float64Array(count);
  for (let n = 0; n < count; n++) {
    size[n] = c.size.get(n);
    diskSize[n] = c.diskSize.get(n);
  }
  const childStart = new Uint32Array(count + 1);
  for (let n = 0; n < count; n++) childStart[n + 1] = childStart[n]! + model.children(n).length;
  const childList = new Uint32Array(childStart[count]!);
  for (let n = 0; n < count; n++) childList.set(model.children(n), childStart[n]!);
  const hashSize = model.hash.size;
  const names = new Uint8Array(count * hashSize);
  for (let n = 0; n < count; n++) names.set(model.index.oidBytes(n), n * hashSize);
  return {
    kind: 'families',
    packPath: model.files.pack,
    hashName: model.hash.name,
    hashSize,
    names,
    offset: c.offset,
    inPackType: c.inPackType,
    type: c.type,
    size,
    diskSize,
    childStart,
    childList,
    roots,
  };
}

export async function verifyFull(model: PackModel, options: FullVerifyOptions): Promise<FullVerifyReport> {
  const threads = Math.max(1, Math.min(options.threads ?? availableParallelism(), 64));
  const count = model.count;
  const c = model.columns;
  const shared = buildFamilyTask(model, new Uint32Array(0));

  const familyBytes = new Float64Array(count);
  for (let n = 0; n < count; n++) familyBytes[model.rootOf(n)]! += shared.diskSize[n]!;
  const roots: number[] = [];
  for (let n = 0; n < count; n++) if (c.base[n]! < 0) roots.push(n);
  roots.sort((a, b) => familyBytes[b]! - familyBytes[a]!);
  const shares: number[][] = Array.from({ length: threads }, () => []);
  const load = new Float64Array(threads);
  for (const root of roots) {
    let least = 0;
    for (let t = 1; t < threads; t++) if (load[t]! < load[least]!) least = t;
    shares[least]!.push(root);
    load[least]! += familyBytes[root]! + 1;
  }
  // Within a share, pack order keeps each worker's reads mostly forward.
  for (const share of shares) share.sort((a, b) => c.offset[a]! - c.offset[b]!);

  let done = 0;
  const results = await Promise.all(
    shares.map(
      (share) =>
        new Promise<FullVerifyMessage>((resolve, reject) => {
          const task: FullVerifyTask = { ...shared, roots: Uint32Array.from(share) };
          const worker = new Worker(options.workerScript, { workerData: task });
          worker.on('message', (message: FullVerifyMessage) => {
            if (message.kind === 'progress') {
              done += message.objects;
              options.onProgress?.(done, count);
            } else {
              resolve(message);
            }
          });
          worker.on('error', reject);
          worker.on('exit', (code) => {
            if (code !== 0) reject(new Error(`verify worker exited with status ${code}`));
          });
        }),
    ),
  );

  const failures = results.filter((r): r is WorkerFailure => r.kind === 'failed');
  const crash = failures.find((f) => isWorkerCrash(f.error));
  if (crash) throw decodeWorkerError(crash.error, 'verify worker');
  let objects = 0;
  let inflatedBytes = 0;
  if (failures.length > 0) {
    // Report the failure earliest in the pack, so the result does not depend on thread timing.
    failures.sort((a, b) => (a.error.offset ?? Infinity) - (b.error.offset ?? Infinity));
    throw decodeWorkerError(failures[0]!.error);
  }
  const mismatches: HashMismatch[] = [];
  for (const r of results) {
    if (r.kind === 'done') {
      objects += r.objects;
      inflatedBytes += r.inflatedBytes;
      mismatches.push(...r.mismatches);
    }
  }
  if (objects !== count) throw fail('hash', model.files.pack, undefined, `resolved ${objects} of ${count} objects`);
  if (mismatches.length > 0) throw new IdMismatchError(model, mismatches);
  return { objects, inflatedBytes, threads };
}

/**
 * The pack is sound but the idx names objects by other ids than their contents hash to (git's
 * "sha1 file … validation error"). Carries the computed ids, which git's listing shows.
 */
export class IdMismatchError extends PackFormatError {
  readonly computed: Map<number, string>;
  constructor(model: PackModel, mismatches: HashMismatch[]) {
    mismatches.sort((a, b) => a.offset - b.offset);
    const first = mismatches[0]!;
    super(
      'hash',
      model.files.idx,
      model.index.nameFilePosition(first.object),
      `names the object at pack offset ${first.offset} ${model.oidHex(first.object)}, but it rebuilds to ${first.oid}${mismatches.length > 1 ? ` (and ${mismatches.length - 1} more objects differ)` : ''}`,
    );
    this.computed = new Map(mismatches.map((m) => [m.object, m.oid]));
  }
}

/**
 * Starts the checksum pass (verifyChecksums) in a worker thread, so that it runs while the main
 * thread builds the model; the promise settles with its report or rejects with its PackFormatError.
 */
export function checksumsInWorker(
  workerScript: string,
  files: { pack: string; idx: string },
  hashName: 'sha1' | 'sha256',
  index?: PackIndex,
): { result: Promise<{ packChecksum: string; idxChecksum: string; crcChecked: number }>; cancel: () => void } {
  // Given the parsed idx, the worker checks those very bytes: re-reading and re-parsing the idx
  // (its name-order check included) was a fifth of the worker's time on the generated pack.
  const task: ChecksumTask = index
    ? { kind: 'checksums', pack: files.pack, idx: files.idx, hashName, index: index.toTransfer() }
    : { kind: 'checksums', pack: files.pack, idx: files.idx, hashName };
  const worker = new Worker(workerScript, { workerData: task });
  const result = new Promise<{ packChecksum: string; idxChecksum: string; crcChecked: number }>((resolve, reject) => {
    worker.on('message', (message: ChecksumMessage) => {
      if (message.kind === 'checksums') resolve(message.report);
      // A bug inside a worker stays a bug (an internal error), not a complaint about the pack.
      else reject(decodeWorkerError(message.error, 'verify worker'));
    });
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (code !== 0) reject(new Error(`checksum worker exited with status ${code}`));
    });
  });
  // A caller that gives up (the model build failed) must not wait for the pass to finish.
  result.catch(() => undefined);
  return { result, cancel: () => void worker.terminate() };
}
