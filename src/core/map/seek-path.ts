/**
 * A recording's reads of one pack as a path over the Pack Map: the offsets in the order
 * git read them, which seeks go backward, which reads fault in a cold page cache, and the
 * locality figures `packscope locality` prints for the same reads (packLocalityWithQuantiles, one
 * implementation). A path longer than `maxPoints` is sampled: every `stride`-th read, the first and
 * the last kept, and a sampled point is marked as faulting when any read it stands for faulted. The
 * figures are always of every read.
 */
import { packLocality, replayPageCache, type LocalityInput } from '../locality/locality.ts';
import type { PageCacheOptions } from '../documents/simulation-documents.ts';
import type { SeekPath } from '../documents/seek-path-document.ts';

export type { SeekPath } from '../documents/seek-path-document.ts';

/** Points the server sends at most: a path is drawn as one polyline per frame. */
export const MAX_SEEK_POINTS = 20_000;

export function seekPath(input: LocalityInput, cache: PageCacheOptions, maxPoints = MAX_SEEK_POINTS): SeekPath {
  const reads = input.offsets.length;
  if (!Number.isInteger(maxPoints) || maxPoints < 2)
    throw new RangeError(`maxPoints must be an integer of at least 2, not ${maxPoints}`);
  const faulted = new Uint8Array(reads);
  replayPageCache(input.offsets, input.entryBytes, cache, faulted);
  const locality = packLocality(input, cache);
  const stride = reads <= maxPoints ? 1 : Math.ceil((reads - 1) / (maxPoints - 1));
  const offsets: number[] = [];
  const faults: number[] = [];
  let backwardSeeks = 0;
  for (let i = 1; i < reads; i++) if (input.offsets[i]! < input.offsets[i - 1]!) backwardSeeks++;
  // Point k stands for the reads (previous point, this one]: the first point for read 0 alone.
  let previous = -1;
  const addPoint = (read: number): void => {
    let any = 0;
    for (let r = previous + 1; r <= read; r++) any |= faulted[r]!;
    if (any) faults.push(offsets.length);
    offsets.push(input.offsets[read]!);
    previous = read;
  };
  for (let read = 0; read < reads; read += stride) addPoint(read);
  if (reads > 0 && previous !== reads - 1) addPoint(reads - 1);
  return { pack: input.pack, reads, stride, offsets, faults, seeks: Math.max(0, reads - 1), backwardSeeks, locality };
}
