import { parentPort, workerData } from 'node:worker_threads';
import { PackFormatError } from '../errors.ts';
import { hashAlgorithmByName } from '../format/hash-algorithm.ts';
import { loadIdx, packFilesFor, packOrder } from '../model/build-pack-model.ts';
import { verifyChecksums } from './checksums.ts';
import type { ChecksumMessage, ChecksumTask, FullVerifyMessage, FullVerifyTask, VerifyWorkerTask } from './full-verify-protocol.ts';
import { FamilyResolver } from './resolve-family.ts';

/** Worker thread entry for verify-pack: the checksum pass, or resolving families for --full. */
function resolveFamilies(task: FullVerifyTask): FullVerifyMessage {
  const resolver = new FamilyResolver(task);
  try {
    let sinceProgress = 0;
    for (const root of task.roots) {
      resolver.resolveFamily(root);
      if (resolver.objects - sinceProgress >= 4096) {
        parentPort!.postMessage({ kind: 'progress', objects: resolver.objects - sinceProgress } satisfies FullVerifyMessage);
        sinceProgress = resolver.objects;
      }
    }
    parentPort!.postMessage({ kind: 'progress', objects: resolver.objects - sinceProgress } satisfies FullVerifyMessage);
    return { kind: 'done', objects: resolver.objects, inflatedBytes: resolver.inflatedBytes };
  } catch (error) {
    return failure(error, task.packPath);
  } finally {
    resolver.close();
  }
}

function checkSums(task: ChecksumTask): ChecksumMessage {
  try {
    const files = packFilesFor(task.pack);
    const index = loadIdx(files, hashAlgorithmByName(task.hashName));
    return { kind: 'checksums', report: verifyChecksums(files, index, packOrder(files, index, false)) };
  } catch (error) {
    return failure(error, task.pack);
  }
}

function failure(error: unknown, file: string): { kind: 'failed'; code: string; file: string | undefined; offset: number | undefined; detail: string } {
  if (error instanceof PackFormatError) return { kind: 'failed', code: error.code, file: error.file, offset: error.offset, detail: error.detail };
  return { kind: 'failed', code: 'io', file, offset: undefined, detail: error instanceof Error ? error.message : String(error) };
}

const task = workerData as VerifyWorkerTask;
parentPort!.postMessage(task.kind === 'checksums' ? checkSums(task) : resolveFamilies(task));
