import { isUtf8 } from 'node:buffer';
import { readDeltaListing, readObjectContent, type ReadLimits } from '../core/model/read-object.ts';
import type { PackModel } from '../core/model/pack-model.ts';
import type { ObjectContent } from '../protocol/server-protocol.ts';

/**
 * Objects above this are not shown: the document would be unusable and reading one costs a worker
 * an inflate of that size.
 */
const MAX_OBJECT_BYTES = 256 << 20;

/**
 * Delta results one object document may rebuild, in total: a 70 KB pack of 200 chained deltas over
 * a 64 MiB blob would otherwise rebuild 12.8 GB for one document. Over it, the document says so.
 */
export const MAX_REBUILT_BYTES_PER_REQUEST = 256 << 20;

export const OBJECT_READ_LIMITS: ReadLimits = {
  maxObjectBytes: MAX_OBJECT_BYTES,
  maxRebuiltBytes: MAX_REBUILT_BYTES_PER_REQUEST,
};

/** What an object document shows besides its facts and chain (those come from the server's model). */
export type ObjectContentBody = Omit<ObjectContent, 'details'>;

/**
 * The delta instructions and (a prefix of) the content of object `object`, rebuilt from the pack:
 * CPU and memory up to the limits above, so it runs in a task worker, never on the server's thread.
 */
export function readObjectContentBody(
  model: PackModel,
  object: number,
  shownLimits: { maxContentBytes: number; maxInstructions: number },
): ObjectContentBody {
  const content = readObjectContent(model, object, OBJECT_READ_LIMITS);
  const shown = content.subarray(0, Math.max(0, shownLimits.maxContentBytes));
  // git's own test for binary content (buffer_is_binary) looks for a NUL in the first 8000 bytes.
  const binary = content.subarray(0, 8000).includes(0) || !isUtf8(shown);
  const result: ObjectContentBody = {
    contentBase64: shown.toString('base64'),
    contentBytes: content.length,
    binary,
    truncated: shown.length < content.length,
  };
  if (model.isDelta(object)) {
    const listing = readDeltaListing(model, object, {
      ...OBJECT_READ_LIMITS,
      maxInstructions: Math.max(0, shownLimits.maxInstructions),
    });
    result.delta = {
      base: model.oidHex(model.columns.base[object]!),
      baseSize: listing.baseSize,
      resultSize: listing.resultSize,
      deltaBytes: model.columns.size.get(object),
      instructions: listing.instructions.map((i) =>
        i.op === 'copy'
          ? { op: 'copy', baseOffset: i.baseOffset, length: i.length }
          : { op: 'insert', length: i.length, preview: i.preview, dataBase64: Buffer.from(i.data).toString('base64') },
      ),
      totalInstructions: listing.totalInstructions,
      copiedBytes: listing.copiedBytes,
      insertedBytes: listing.insertedBytes,
    };
  }
  return result;
}
