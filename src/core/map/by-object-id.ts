/**
 * A recording over a pack it never read: a repack preview's pack (the Pack Map's before and after). The
 * recording's reads name objects of today's packs; the same objects, found by id in the other
 * pack, are where the same reads land in that layout (as core/repack/recording-layouts.ts replays
 * them). Reads of objects the other pack lacks are left out, and counted.
 */
import type { LocalityInput } from '../locality/locality.ts';
import type { PackModel } from '../model/pack-model.ts';
import type { LoadedRecording } from '../trace/load-recording.ts';

export interface ReadsInOtherPack {
  /** Per read kept, in recording order: the object (idx order of `model`), or −1 when it lacks it. */
  objects: Int32Array;
  /** Reads of objects `model` does not have. */
  missing: number;
}

/** Each read of the recording's kept range as an object of `model`, matched by object id. */
export function readsInOtherPack(loaded: LoadedRecording, model: PackModel): ReadsInOtherPack {
  const { resolved, range } = loaded;
  const objects = new Int32Array(range.end - range.start);
  // One id lookup per distinct (pack, object): recordings read the same objects many times.
  const found = new Map<number, number>();
  let missing = 0;
  for (let i = range.start; i < range.end; i++) {
    const k = resolved.readPack[i]!;
    const n = resolved.readObject[i]!;
    const key = k * 2 ** 32 + n;
    let there = found.get(key);
    if (there === undefined) {
      const source = resolved.packs[k]?.model;
      there = source === undefined ? -1 : model.findHex(source.oidHex(n));
      found.set(key, there);
    }
    objects[i - range.start] = there;
    if (there < 0) missing++;
  }
  return { objects, missing };
}

/** Reads per object (idx order of `model`), as readsPerObject counts them for a pack the recording read. */
export function countsInOtherPack(reads: ReadsInOtherPack, model: PackModel): Uint32Array {
  const counts = new Uint32Array(model.count);
  for (const n of reads.objects) if (n >= 0) counts[n]!++;
  return counts;
}

/** The reads as packscope locality takes them for `pack`: the matched objects' offsets and entry sizes in `model`, in recording order. */
export function localityInOtherPack(reads: ReadsInOtherPack, model: PackModel, pack: string): LocalityInput {
  const kept = reads.objects.filter((n) => n >= 0);
  const offsets = new Float64Array(kept.length);
  const entryBytes = new Float64Array(kept.length);
  kept.forEach((n, i) => {
    offsets[i] = model.columns.offset[n]!;
    entryBytes[i] = model.columns.diskSize.get(n);
  });
  return { pack, offsets, entryBytes };
}
