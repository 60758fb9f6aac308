import { OBJ_OFS_DELTA, OBJ_REF_DELTA, PACK_HEADER_BYTES } from '../format/pack-file.ts';
import type { PackIndex } from '../format/idx.ts';
import type { PackColumns, StoredDerivedColumns } from './pack-columns.ts';
import type { SizeColumn } from './size-column.ts';

/** The columns of a model file, before they are trusted (the offsets are the idx's own). */
export type StoredColumns = Omit<PackColumns, 'offset'>;

/**
 * A model file is keyed, but the key sits beside it: these are the invariants every model built
 * from this idx and pack has (build-pack-model.ts), checked in O(count) so that no stored value can
 * index out of range, loop, or claim an object layout the idx does not have. Throws with the first
 * one broken; the caller rebuilds.
 */
export function checkStoredColumns(index: PackIndex, packSize: number, columns: StoredColumns): Float64Array {
  const count = index.count;
  const { inPackType, type, size, resultSize, diskSize, base, depth, byOffset } = columns;
  const offsets = index.offsets;
  const dataEnd = packSize - index.hash.size;
  // Pack order: strictly increasing offsets inside the pack's objects, so byOffset is a permutation.
  // (One pass in pack order, each offset read once; the low size column read directly, the side map
  // only for a flagged value: this check runs on every reopen of a persisted model.)
  const diskLow = diskSize.low;
  // The pass reads every offset in pack order anyway: what objectAt searches, for free.
  const inPackOrder = new Float64Array(count);
  let previous = -1;
  let previousOffset = 0;
  for (let p = 0; p < count; p++) {
    const n = byOffset[p]!;
    if (n >= count) throw new Error('model pack order names an object out of range');
    const offset = offsets[n]!;
    if (offset < PACK_HEADER_BYTES || offset >= dataEnd)
      throw new Error('model pack order names an offset outside the pack');
    inPackOrder[p] = offset;
    if (previous >= 0) {
      if (offset <= previousOffset) throw new Error('model pack order is not in offset order');
      checkDiskSize(diskLow, diskSize, previous, offset - previousOffset);
    }
    previous = n;
    previousOffset = offset;
  }
  if (previous >= 0) checkDiskSize(diskLow, diskSize, previous, dataEnd - previousOffset);
  const resultLow = resultSize.low;
  const sizeLow = size.low;
  let maxDepth = 0;
  for (let n = 0; n < count; n++) {
    const stored = inPackType[n]!;
    const b = base[n]!;
    if (stored === OBJ_OFS_DELTA || stored === OBJ_REF_DELTA) {
      if (b < 0 || b >= count || b === n) throw new Error('model delta base out of range');
      // depth = base's depth + 1 everywhere rules out cycles: the depths would have to rise for ever.
      if (depth[n] !== depth[b]! + 1) throw new Error('model depth does not follow its base');
      if (type[n] !== type[b]) throw new Error('model type differs from its base');
      if (stored === OBJ_OFS_DELTA && offsets[b]! >= offsets[n]!)
        throw new Error('model OFS_DELTA base is not before its delta');
      if (depth[n]! > maxDepth) maxDepth = depth[n]!;
    } else {
      if (stored < 1 || stored > 4) throw new Error('model type column out of range');
      if (b !== -1 || depth[n] !== 0 || type[n] !== stored)
        throw new Error('model base, depth or type of a non-delta is wrong');
      if ((resultLow[n] !== sizeLow[n] || resultLow[n] === 0xffffffff) && resultSize.get(n) !== size.get(n))
        throw new Error('model result size of a non-delta differs from its size');
    }
  }
  if (maxDepth >= count && count > 0) throw new Error('model depth exceeds the object count');
  // A build stores depths in 2 bytes whenever they fit (resolveChains); another width is not a build's.
  if ((depth.BYTES_PER_ELEMENT === 2) !== maxDepth <= 0xffff) throw new Error('model depth column has the wrong width');
  for (const column of [size, resultSize, diskSize]) checkOverflow(column, count);
  return inPackOrder;
}

/**
 * Whether a model file's derived columns are exactly what PackModel would build from this (already
 * checked) base column: undefined when they are, else the first difference. Two sequential passes:
 *
 * - the child lists: childStart starts at 0, never falls, and ends at the number of deltas; every
 *   entry of object b's segment is an object whose base is b, and a segment's entries rise strictly
 *   in pack offset (git's resolving order, and no entry twice). Then the list holds as many distinct
 *   deltas as there are, each in its base's segment: it is every delta, each segment exactly its
 *   base's children in pack order, with nothing to count.
 * - the roots: a non-delta is its own root, a delta has its base's root. With depth = base's depth
 *   + 1 already checked (no cycles), induction on depth makes every entry its chain's root.
 */
export function checkStoredDerived(columns: PackColumns, stored: StoredDerivedColumns): string | undefined {
  const { base, offset } = columns;
  const count = base.length;
  const { childStart, childList, roots } = stored;
  if (childStart.length !== count + 1 || roots.length !== count) return 'stored derived columns have the wrong length';
  let deltas = 0;
  for (let n = 0; n < count; n++) if (base[n]! >= 0) deltas++;
  if (childStart[0] !== 0 || childStart[count] !== deltas || childList.length !== deltas)
    return 'stored child lists do not count the deltas';
  for (let b = 0; b < count; b++) {
    const start = childStart[b]!;
    const end = childStart[b + 1]!;
    if (end < start || end > deltas) return 'stored child list bounds are out of order';
    let previousOffset = -1;
    for (let i = start; i < end; i++) {
      const child = childList[i]!;
      if (child >= count || base[child] !== b)
        return 'stored child list names an object that is not a delta of its base';
      const at = offset[child]!;
      if (at <= previousOffset) return 'stored child list is not in pack order';
      previousOffset = at;
    }
  }
  for (let n = 0; n < count; n++) {
    const r = roots[n]!;
    const b = base[n]!;
    if (b < 0 ? r !== n : r !== roots[b]) return 'stored roots do not follow the bases';
  }
  return undefined;
}

function checkDiskSize(low: Uint32Array, column: SizeColumn, n: number, expected: number): void {
  const stored = low[n]!;
  if (stored !== expected && (stored !== 0xffffffff || column.get(n) !== expected))
    throw new Error('model disk size does not match the offsets');
}

/** Values of 4 GiB or more live in the side map, flagged by 0xffffffff in the low column, and nowhere else. */
function checkOverflow(column: SizeColumn, count: number): void {
  let flagged = 0;
  for (let n = 0; n < count; n++) if (column.low[n] === 0xffffffff) flagged++;
  if (flagged !== column.overflow.size) throw new Error('model size overflow map does not match its column');
  for (const [n, value] of column.overflow) {
    if (!Number.isInteger(n) || n < 0 || n >= count || column.low[n] !== 0xffffffff)
      throw new Error('model size overflow map names a wrong object');
    if (!Number.isSafeInteger(value) || value < 0xffffffff) throw new Error('model size overflow value out of range');
  }
}
