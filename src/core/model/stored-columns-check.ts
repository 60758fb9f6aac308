import { OBJ_OFS_DELTA, OBJ_REF_DELTA, PACK_HEADER_BYTES } from '../format/pack-file.ts';
import type { PackIndex } from '../format/idx.ts';
import type { PackColumns } from './pack-model.ts';
import type { SizeColumn } from './size-column.ts';

/** The columns of a model file, before they are trusted (the offsets are the idx's own). */
export type StoredColumns = Omit<PackColumns, 'offset'>;

/**
 * A model file is keyed, but the key sits beside it: these are the invariants every model built
 * from this idx and pack has (build-pack-model.ts), checked in O(count) so that no stored value can
 * index out of range, loop, or claim an object layout the idx does not have. Throws with the first
 * one broken; the caller rebuilds.
 */
export function checkStoredColumns(index: PackIndex, packSize: number, columns: StoredColumns): void {
  const count = index.count;
  const { inPackType, type, size, resultSize, diskSize, base, depth, byOffset } = columns;
  const offsets = index.offsets;
  const dataEnd = packSize - index.hash.size;
  // Pack order: strictly increasing offsets inside the pack's objects, so byOffset is a permutation.
  // (One pass in pack order, each offset read once; the low size column read directly, the side map
  // only for a flagged value: this check runs on every reopen of a persisted model.)
  const diskLow = diskSize.low;
  let previous = -1;
  let previousOffset = 0;
  for (let p = 0; p < count; p++) {
    const n = byOffset[p]!;
    if (n >= count) throw new Error('model pack order names an object out of range');
    const offset = offsets[n]!;
    if (offset < PACK_HEADER_BYTES || offset >= dataEnd) throw new Error('model pack order names an offset outside the pack');
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
      if (stored === OBJ_OFS_DELTA && offsets[b]! >= offsets[n]!) throw new Error('model OFS_DELTA base is not before its delta');
      if (depth[n]! > maxDepth) maxDepth = depth[n]!;
    } else {
      if (stored < 1 || stored > 4) throw new Error('model type column out of range');
      if (b !== -1 || depth[n] !== 0 || type[n] !== stored) throw new Error('model base, depth or type of a non-delta is wrong');
      if ((resultLow[n] !== sizeLow[n] || resultLow[n] === 0xffffffff) && resultSize.get(n) !== size.get(n)) throw new Error('model result size of a non-delta differs from its size');
    }
  }
  if (maxDepth >= count && count > 0) throw new Error('model depth exceeds the object count');
  // A build stores depths in 2 bytes whenever they fit (resolveChains); another width is not a build's.
  if ((depth.BYTES_PER_ELEMENT === 2) !== maxDepth <= 0xffff) throw new Error('model depth column has the wrong width');
  for (const column of [size, resultSize, diskSize]) checkOverflow(column, count);
}

function checkDiskSize(low: Uint32Array, column: SizeColumn, n: number, expected: number): void {
  const stored = low[n]!;
  if (stored !== expected && (stored !== 0xffffffff || column.get(n) !== expected)) throw new Error('model disk size does not match the offsets');
}

/** Values of 4 GiB or more live in the side map, flagged by 0xffffffff in the low column, and nowhere else. */
function checkOverflow(column: SizeColumn, count: number): void {
  let flagged = 0;
  for (let n = 0; n < count; n++) if (column.low[n] === 0xffffffff) flagged++;
  if (flagged !== column.overflow.size) throw new Error('model size overflow map does not match its column');
  for (const [n, value] of column.overflow) {
    if (!Number.isInteger(n) || n < 0 || n >= count || column.low[n] !== 0xffffffff) throw new Error('model size overflow map names a wrong object');
    if (!Number.isSafeInteger(value) || value < 0xffffffff) throw new Error('model size overflow value out of range');
  }
}
