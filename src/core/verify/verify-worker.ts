import { errorMessage } from '../../common/error-message.ts';
import { parentPort, workerData } from 'node:worker_threads';
import { PackFormatError } from '../errors.ts';
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
  WorkerCrash,
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

function failure(
  error: unknown,
):
  { kind: 'failed'; code: string; file: string | undefined; offset: number | undefined; detail: string } | WorkerCrash {
  if (error instanceof PackFormatError)
    return { kind: 'failed', code: error.code, file: error.file, offset: error.offset, detail: error.detail };
  return {
    kind: 'crashed',
    message: errorMessage(error),
    stack: error instanceof Error ? error.stack : undefined,
  };
}

const task = workerData as VerifyWorkerTask;
parentPort!.postMessage(task.kind === 'checksums' ? checkSums(task) : resolveFamilies(task));
