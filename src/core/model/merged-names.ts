import type { PackIndex } from '../format/idx.ts';

/**
 * From this many indexes on, forEachDistinctName files every name by its first two bytes instead of
 * merging on a heap: 3,000 one-object packs made 72,000 name comparisons on the heap (a fifth of
 * `objects`' time there), where the buckets need one pass to count, one to file and almost no
 * comparison (ids are hashes: a bucket rarely holds two).
 */
export const BUCKETED_MERGE_MIN_INDEXES = 64;

/** Above this many entries a bucket (hostile names sharing their first two bytes) is sorted by sort(), not by insertion. */
const INSERTION_SORT_MAX = 16;

/**
 * Visits every distinct object id of several idx name tables in ascending order, with the indexes
 * that hold it (positions into `indexes`, ascending) and its object number in each. A k-way merge
 * on a binary heap of cursors: O(log N) comparisons per id for N indexes, where scanning every
 * index's head for the smallest costs O(N) per id (3,000 one-object packs: 9 million steps); from
 * BUCKETED_MERGE_MIN_INDEXES indexes on, a bucket sort of every name by its first two bytes.
 * `holders` and `objects` are reused between calls; copy them to keep them.
 */
export function forEachDistinctName(
  indexes: readonly PackIndex[],
  visit: (holders: number[], objects: number[]) => void,
): void {
  if (indexes.length >= BUCKETED_MERGE_MIN_INDEXES) forEachDistinctNameBucketed(indexes, visit);
  else forEachDistinctNameOnHeap(indexes, visit);
}

function forEachDistinctNameOnHeap(
  indexes: readonly PackIndex[],
  visit: (holders: number[], objects: number[]) => void,
): void {
  const cursor = new Uint32Array(indexes.length);
  const heap: number[] = [];
  const before = (a: number, b: number): boolean => {
    const order = compareNames(indexes[a]!, cursor[a]!, indexes[b]!, cursor[b]!);
    return order < 0 || (order === 0 && a < b);
  };
  const siftDown = (from: number): void => {
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= heap.length) return;
      const right = left + 1;
      const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
      if (!before(heap[child]!, heap[at]!)) return;
      [heap[at], heap[child]] = [heap[child]!, heap[at]!];
      at = child;
    }
  };
  const siftUp = (from: number): void => {
    let at = from;
    while (at > 0) {
      const parent = (at - 1) >>> 1;
      if (!before(heap[at]!, heap[parent]!)) return;
      [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
      at = parent;
    }
  };
  for (let i = 0; i < indexes.length; i++) {
    if (indexes[i]!.count === 0) continue;
    heap.push(i);
    siftUp(heap.length - 1);
  }
  const holders: number[] = [];
  const objects: number[] = [];
  while (heap.length > 0) {
    const top = heap[0]!;
    const topIndex = indexes[top]!;
    const topObject = cursor[top]!;
    holders.length = 0;
    objects.length = 0;
    // Every index whose head is the smallest id comes to the top in turn (the first is `top`).
    while (heap.length > 0 && compareNames(indexes[heap[0]!]!, cursor[heap[0]!]!, topIndex, topObject) === 0) {
      const i = heap[0]!;
      holders.push(i);
      objects.push(cursor[i]!);
      cursor[i]!++;
      if (cursor[i]! >= indexes[i]!.count) {
        heap[0] = heap[heap.length - 1]!;
        heap.pop();
      }
      siftDown(0);
    }
    sortTogether(holders, objects);
    visit(holders, objects);
  }
}

/**
 * forEachDistinctName by a bucket sort: every (index, object) filed by its name's first two bytes, in
 * index order, then each bucket sorted stably by the whole name, so that equal names come out with
 * their indexes ascending.
 */
// Stays long: one sort in three passes (count, file, sort and visit) over the same counters and entry arrays.
function forEachDistinctNameBucketed(
  indexes: readonly PackIndex[],
  visit: (holders: number[], objects: number[]) => void,
): void {
  let total = 0;
  for (const index of indexes) total += index.count;
  const start = new Uint32Array(65536 + 1);
  for (const index of indexes) {
    const bytes = index.bytes;
    for (let n = 0; n < index.count; n++) {
      const at = index.namePosition(n);
      start[((bytes[at]! << 8) | bytes[at + 1]!) + 1]!++;
    }
  }
  for (let b = 1; b <= 65536; b++) start[b]! += start[b - 1]!;
  const entryIndex = new Uint32Array(total);
  const entryObject = new Uint32Array(total);
  const fill = start.slice(0, 65536);
  for (let i = 0; i < indexes.length; i++) {
    const index = indexes[i]!;
    const bytes = index.bytes;
    for (let n = 0; n < index.count; n++) {
      const at = index.namePosition(n);
      const slot = fill[(bytes[at]! << 8) | bytes[at + 1]!]!++;
      entryIndex[slot] = i;
      entryObject[slot] = n;
    }
  }
  const holders: number[] = [];
  const objects: number[] = [];
  for (let b = 0; b < 65536; b++) {
    const from = start[b]!;
    const to = start[b + 1]!;
    if (to - from > 1) sortBucket(indexes, entryIndex, entryObject, from, to);
    for (let e = from; e < to;) {
      holders.length = 0;
      objects.length = 0;
      const first = indexes[entryIndex[e]!]!;
      const firstObject = entryObject[e]!;
      do {
        holders.push(entryIndex[e]!);
        objects.push(entryObject[e]!);
        e++;
      } while (e < to && compareNames(indexes[entryIndex[e]!]!, entryObject[e]!, first, firstObject) === 0);
      visit(holders, objects);
    }
  }
}

/** Sorts entries [from, to) by name, stably (they were filed in index order: ties stay so). */
function sortBucket(
  indexes: readonly PackIndex[],
  entryIndex: Uint32Array,
  entryObject: Uint32Array,
  from: number,
  to: number,
): void {
  if (to - from <= INSERTION_SORT_MAX) {
    for (let e = from + 1; e < to; e++) {
      const i = entryIndex[e]!;
      const n = entryObject[e]!;
      let j = e - 1;
      for (; j >= from && compareNames(indexes[entryIndex[j]!]!, entryObject[j]!, indexes[i]!, n) > 0; j--) {
        entryIndex[j + 1] = entryIndex[j]!;
        entryObject[j + 1] = entryObject[j]!;
      }
      entryIndex[j + 1] = i;
      entryObject[j + 1] = n;
    }
    return;
  }
  // Array.prototype.sort is stable (ES2019).
  const order = Array.from({ length: to - from }, (_, k) => from + k).sort((x, y) =>
    compareNames(indexes[entryIndex[x]!]!, entryObject[x]!, indexes[entryIndex[y]!]!, entryObject[y]!),
  );
  const sortedIndex = order.map((e) => entryIndex[e]!);
  const sortedObject = order.map((e) => entryObject[e]!);
  entryIndex.set(sortedIndex, from);
  entryObject.set(sortedObject, from);
}

function compareNames(a: PackIndex, n: number, b: PackIndex, m: number): number {
  const size = a.hash.size;
  const aAt = a.namePosition(n);
  const bAt = b.namePosition(m);
  const aBytes = a.bytes;
  const bBytes = b.bytes;
  for (let i = 0; i < size; i++) {
    const d = aBytes[aAt + i]! - bBytes[bAt + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** Insertion sort of the (usually one or two) holders by index position, objects alongside. */
function sortTogether(holders: number[], objects: number[]): void {
  for (let i = 1; i < holders.length; i++) {
    const holder = holders[i]!;
    const object = objects[i]!;
    let j = i - 1;
    for (; j >= 0 && holders[j]! > holder; j--) {
      holders[j + 1] = holders[j]!;
      objects[j + 1] = objects[j]!;
    }
    holders[j + 1] = holder;
    objects[j + 1] = object;
  }
}

/**
 * One sorted table of the distinct ids of many packs, built once from their idx name tables, so that
 * a lookup is one binary search instead of one per pack. `holder` is the position (in the list the
 * table was built from) of the first pack holding the id, or −1 when `eligible` excluded every holder.
 */
export class MergedNameIndex {
  private constructor(
    private readonly names: Buffer,
    private readonly hashSize: number,
    private readonly fanout: Uint32Array,
    private readonly holder: Int32Array,
    private readonly object: Uint32Array,
  ) {}

  /** `eligible(position)` says which packs may be a lookup's answer; all of them count for prefixes. */
  static build(
    indexes: readonly PackIndex[],
    hashSize: number,
    eligible: (position: number) => boolean,
  ): MergedNameIndex {
    let total = 0;
    for (const index of indexes) total += index.count;
    const names = Buffer.allocUnsafe(total * hashSize);
    const holder = new Int32Array(total);
    const object = new Uint32Array(total);
    const fanout = new Uint32Array(256);
    let count = 0;
    forEachDistinctName(indexes, (holders, objects) => {
      const first = indexes[holders[0]!]!;
      const at = first.namePosition(objects[0]!);
      first.bytes.copy(names, count * hashSize, at, at + hashSize);
      fanout[first.bytes[at]!]!++;
      holder[count] = -1;
      for (let h = 0; h < holders.length; h++) {
        if (!eligible(holders[h]!)) continue;
        holder[count] = holders[h]!;
        object[count] = objects[h]!;
        break;
      }
      count++;
    });
    for (let i = 1; i < 256; i++) fanout[i]! += fanout[i - 1]!;
    return new MergedNameIndex(
      names.subarray(0, count * hashSize),
      hashSize,
      fanout,
      holder.subarray(0, count),
      object.subarray(0, count),
    );
  }

  get count(): number {
    return this.holder.length;
  }

  /** The first eligible holder of `oid` and its object number there, or undefined. */
  find(oid: Uint8Array): { holder: number; object: number } | undefined {
    const first = oid[0]!;
    let low = first === 0 ? 0 : this.fanout[first - 1]!;
    let high = this.fanout[first]!;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const cmp = this.names.compare(oid, 0, this.hashSize, mid * this.hashSize, (mid + 1) * this.hashSize);
      if (cmp === 0)
        return this.holder[mid]! < 0 ? undefined : { holder: this.holder[mid]!, object: this.object[mid]! };
      if (cmp < 0) low = mid + 1;
      else high = mid;
    }
    return undefined;
  }

  /** Up to `limit` ids (hex) starting with `prefixHex`, in any pack the table was built from. */
  idsWithPrefix(prefixHex: string, limit: number): string[] {
    const padded = prefixHex.padEnd(this.hashSize * 2, '0');
    const low = Buffer.from(padded, 'hex');
    let lowIndex = 0;
    let highIndex = this.count;
    while (lowIndex < highIndex) {
      const mid = (lowIndex + highIndex) >>> 1;
      if (this.names.compare(low, 0, this.hashSize, mid * this.hashSize, (mid + 1) * this.hashSize) < 0)
        lowIndex = mid + 1;
      else highIndex = mid;
    }
    const found: string[] = [];
    for (let n = lowIndex; n < this.count && found.length < limit; n++) {
      const hex = this.names.toString('hex', n * this.hashSize, (n + 1) * this.hashSize);
      if (!hex.startsWith(prefixHex)) break;
      found.push(hex);
    }
    return found;
  }
}
