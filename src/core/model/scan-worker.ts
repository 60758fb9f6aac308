/**
 * Worker thread entry of a parallel model build (parallel-scan.ts): claims chunks of the pack's
 * positions and writes their columns into the shared arrays it was given; posts each chunk's sizes
 * of 4 GiB or more, or its error, on its port before marking the chunk finished.
 */
import { encodeWorkerError } from '../worker-error.ts';
import { workerData } from 'node:worker_threads';
import { fail } from '../errors.ts';
import { PackIndex } from '../format/idx.ts';
import { RandomAccessFile } from '../format/random-access-file.ts';
import { claimAndScan, type ScanWorkerMessage, type ScanWorkerTask } from './parallel-scan.ts';
import { RangeScanner } from './scan-range.ts';

const task = workerData as ScanWorkerTask;
const post = (message: ScanWorkerMessage): void => task.port.postMessage(message);

function describe(chunk: number, error: unknown): ScanWorkerMessage {
  return { kind: 'failed', chunk, error: encodeWorkerError(error) };
}

let pack: RandomAccessFile | undefined;
try {
  pack = RandomAccessFile.open(task.packFile);
  // The path may name another file by now: scan only the one the build opened.
  if (pack.identity !== task.packIdentity)
    throw fail('changed', task.packFile, undefined, 'file was replaced or rewritten while it was being read');
} catch (error) {
  // Nothing claimed: the other scanners take every chunk. Say why, for the log of a slow build.
  pack?.close();
  pack = undefined;
  post(describe(-1, error));
}
if (pack) {
  try {
    const index = PackIndex.fromTransfer(task.index);
    const scanner = new RangeScanner(
      {
        packFile: task.packFile,
        index,
        byOffset: task.byOffset,
        sortedOffsets: task.sortedOffsets,
        dataEnd: task.dataEnd,
        wantResultSizes: task.wantResultSizes,
      },
      task.output,
      pack,
    );
    let sizeSeen = 0;
    let resultSeen = 0;
    claimAndScan(
      task.control,
      task.chunkCount,
      task.chunkEntries,
      task.sortedOffsets.length,
      scanner,
      (chunk, error) => {
        if (error !== undefined) {
          post(describe(chunk, error));
          return;
        }
        // Only what this chunk added to the scanner's maps (they are rarely more than empty).
        const sizes = [...scanner.sizeOverflow].slice(sizeSeen);
        const results = [...scanner.resultSizeOverflow].slice(resultSeen);
        sizeSeen += sizes.length;
        resultSeen += results.length;
        post({ kind: 'chunk', chunk, sizeOverflow: sizes, resultSizeOverflow: results });
      },
    );
  } finally {
    pack.close();
  }
}
