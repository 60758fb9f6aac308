import { isUtf8 } from 'node:buffer';
import { readDeltaListing, readObjectContent } from '../core/model/read-object.ts';
import type { ObjectContent, ObjectContentParams } from '../protocol/server-protocol.ts';
import type { Found } from './object-lookup.ts';
import { objectDetails } from './object-views.ts';

/**
 * Objects above this are not shown: the document would be unusable and reading one costs the
 * server thread an inflate of that size (a chain of deltas over a huge blob).
 */
const MAX_OBJECT_BYTES = 256 << 20;

/** Everything an object document shows: facts, chain, delta instructions, (a prefix of) the content. */
export function readObjectDocument(found: Found, params: ObjectContentParams): ObjectContent {
  const { model, object } = found.location;
  const details = objectDetails(found.location, found.state);
  const limits = { maxObjectBytes: MAX_OBJECT_BYTES };
  const content = readObjectContent(model, object, limits);
  const shown = content.subarray(0, Math.max(0, params.maxContentBytes));
  // git's own test for binary content (buffer_is_binary) looks for a NUL in the first 8000 bytes.
  const binary = content.subarray(0, 8000).includes(0) || !isUtf8(shown);
  const result: ObjectContent = {
    details,
    contentBase64: shown.toString('base64'),
    contentBytes: content.length,
    binary,
    truncated: shown.length < content.length,
  };
  if (model.isDelta(object)) {
    const listing = readDeltaListing(model, object, { ...limits, maxInstructions: Math.max(0, params.maxInstructions) });
    result.delta = {
      base: model.oidHex(model.columns.base[object]!),
      baseSize: listing.baseSize,
      resultSize: listing.resultSize,
      deltaBytes: model.columns.size.get(object),
      instructions: listing.instructions.map((i) => (i.op === 'copy' ? { op: 'copy', baseOffset: i.baseOffset, length: i.length } : { op: 'insert', length: i.length, preview: i.preview })),
      totalInstructions: listing.totalInstructions,
      copiedBytes: listing.copiedBytes,
      insertedBytes: listing.insertedBytes,
    };
  }
  return result;
}
