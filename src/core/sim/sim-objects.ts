import { OBJ_BLOB } from '../format/pack-file.ts';
import type { PackModel } from '../model/pack-model.ts';

/**
 * The objects of every pack a recording touches, flattened into one id space (pack k's object n is
 * `packBase[k] + n`) so that the read path and the caches work on typed arrays only.
 */
export interface SimObjects {
  count: number;
  packBase: number[];
  /** Pack (index into the recording's packs) of each object. */
  pack: Uint32Array;
  /** Offset of each object in its pack (the delta base cache key is (pack, offset), §1.2). */
  offset: Float64Array;
  /** Global id of the delta base, −1 for non-deltas. */
  base: Int32Array;
  /** Inflated size of the object: what a cached base counts toward the limit (§1.2). */
  size: Float64Array;
  /** Bytes inflated to read the entry itself: the object's size, or for a delta the delta's size. */
  payloadSize: Float64Array;
  /** Resolved type is blob (the pre-2016 cache evicts blobs first, §3). */
  isBlob: Uint8Array;
  /** Deltas above the root. */
  depth: Uint32Array;
  /**
   * First 4 bytes of the object id read as a little-endian uint32: libgit2's object-cache hash
   * (git-internals §4.1, a memcpy into a uint32_t on x86).
   */
  oidPrefix: Uint32Array;
}

export function simObjectsFrom(models: PackModel[]): SimObjects {
  const packBase: number[] = [];
  let count = 0;
  for (const model of models) {
    packBase.push(count);
    count += model.count;
  }
  const pack = new Uint32Array(count);
  const offset = new Float64Array(count);
  const base = new Int32Array(count);
  const size = new Float64Array(count);
  const payloadSize = new Float64Array(count);
  const isBlob = new Uint8Array(count);
  const depth = new Uint32Array(count);
  const oidPrefix = new Uint32Array(count);
  models.forEach((model, k) => {
    const c = model.columns;
    const first = packBase[k]!;
    const idxBytes = model.index.bytes;
    for (let n = 0; n < model.count; n++) {
      const g = first + n;
      pack[g] = k;
      offset[g] = c.offset[n]!;
      const b = c.base[n]!;
      base[g] = b < 0 ? -1 : first + b;
      size[g] = c.resultSize.get(n);
      payloadSize[g] = c.size.get(n);
      isBlob[g] = c.type[n] === OBJ_BLOB ? 1 : 0;
      depth[g] = c.depth[n]!;
      oidPrefix[g] = idxBytes.readUInt32LE(model.index.namePosition(n));
    }
  });
  return { count, packBase, pack, offset, base, size, payloadSize, isBlob, depth, oidPrefix };
}

/**
 * Keeps only the objects the reads can touch (each read's chain down to its root), renumbered in
 * order of first use, and the reads mapped to the new ids. A replay then works on arrays sized by
 * the workload instead of the packs, touched mostly in order: on an 849k-object pack, random
 * access to pack-sized arrays cost a cache miss per step.
 */
export function compactForReads(objects: SimObjects, reads: Int32Array): { objects: SimObjects; reads: Int32Array } {
  const newId = new Int32Array(objects.count).fill(-1);
  const order: number[] = [];
  const remapped = new Int32Array(reads.length);
  for (let r = 0; r < reads.length; r++) {
    const id = reads[r]!;
    for (let x = id; x >= 0 && newId[x] === -1; x = objects.base[x]!) {
      newId[x] = order.length;
      order.push(x);
    }
    remapped[r] = newId[id]!;
  }
  const count = order.length;
  const pick = <T extends Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array>(
    source: T,
    Constructor: new (n: number) => T,
  ): T => {
    const out = new Constructor(count);
    for (let i = 0; i < count; i++) out[i] = source[order[i]!]!;
    return out;
  };
  const base = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const b = objects.base[order[i]!]!;
    base[i] = b < 0 ? -1 : newId[b]!;
  }
  return {
    objects: {
      count,
      packBase: objects.packBase,
      pack: pick(objects.pack, Uint32Array),
      offset: pick(objects.offset, Float64Array),
      base,
      size: pick(objects.size, Float64Array),
      payloadSize: pick(objects.payloadSize, Float64Array),
      isBlob: pick(objects.isBlob, Uint8Array),
      depth: pick(objects.depth, Uint32Array),
      oidPrefix: pick(objects.oidPrefix, Uint32Array),
    },
    reads: remapped,
  };
}
