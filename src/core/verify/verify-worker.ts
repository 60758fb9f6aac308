import { encodeWorkerError } from '../worker-error.ts';
import { parentPort, workerData } from 'node:worker_threads';
import { hashAlgorithmByName } from '../format/hash-algorithm.ts';
import { PackIndex } from '../format/idx.ts';
import { loadIdx, packFilesFor, packOrder } from '../model/build-pack-model.ts';
import { verifyChecksums } from './checksums.ts';
import type {
  ChecksumMessage,
  ChecksumTask,
  FullVerifyMessage,
  FullVerifyTask,
  VerifyWorkerTask,
  WorkerFailure,
} from './full-verify-protocol.ts';
import { FamilyResolver } from './resolve-family.ts';

/** Worker thread entry for verify-pack: the checksum pass, or resolving families for --full. */
function resolveFamilies(task: FullVerifyTask): FullVerifyMessage {
  let resolver: FamilyResolver;
  try {
    // Opening the pack can fail too (deleted since the model build): report it like the rest.
    resolver = new FamilyResolver(task);
  } catch (error) {
    return failure(error);
  }
  try {
    let sinceProgress = 0;
    for (const root of task.roots) {
      resolver.resolveFamily(root);
      if (resolver.objects - sinceProgress >= 4096) {
        parentPort!.postMessage({
          kind: 'progress',
          objects: resolver.objects - sinceProgress,
        } satisfies FullVerifyMessage);
        sinceProgress = resolver.objects;
      }
    }
    parentPort!.postMessage({
      kind: 'progress',
      objects: resolver.objects - sinceProgress,
    } satisfies FullVerifyMessage);
    return {
      kind: 'done',
      objects: resolver.objects,
      inflatedBytes: resolver.inflatedBytes,
      mismatches: resolver.mismatches,
    };
  } catch (error) {
    return failure(error);
  } finally {
    resolver.close();
  }
}

function checkSums(task: ChecksumTask): ChecksumMessage {
  try {
    const files = packFilesFor(task.pack);
    const index = task.index ? PackIndex.fromTransfer(task.index) : loadIdx(files, hashAlgorithmByName(task.hashName));
    return { kind: 'checksums', report: verifyChecksums(files, index, packOrder(files, index, false)) };
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): WorkerFailure {
  return { kind: 'failed', error: encodeWorkerError(error) };
}

const task = workerData as VerifyWorkerTask;
parentPort!.postMessage(task.kind === 'checksums' ? checkSums(task) : resolveFamilies(task));
