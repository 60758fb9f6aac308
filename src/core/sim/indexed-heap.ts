/**
 * A binary min-heap of ids with a position index, so an id's key can be changed or the id removed
 * in place: the heap holds exactly the cached entries, with no stale copies to skip. Used by the
 * size-aware (GDSF) and offline (Belady) policies, which re-key entries on every use.
 */
export class IndexedMinHeap {
  private readonly heap: Int32Array;
  private readonly keys: Float64Array;
  /** Position of each id in `heap`, −1 when absent. */
  private readonly position: Int32Array;
  size = 0;

  constructor(capacity: number) {
    this.heap = new Int32Array(capacity);
    this.keys = new Float64Array(capacity);
    this.position = new Int32Array(capacity).fill(-1);
  }

  has(id: number): boolean {
    return this.position[id]! >= 0;
  }

  /** Inserts `id`, or moves it to `key` when present. */
  set(id: number, key: number): void {
    const at = this.position[id]!;
    this.keys[id] = key;
    if (at < 0) {
      const i = this.size++;
      this.heap[i] = id;
      this.position[id] = i;
      this.up(i);
    } else {
      this.up(at);
      this.down(this.position[id]!);
    }
  }

  /** The id with the smallest key, or −1. */
  peek(): number {
    return this.size === 0 ? -1 : this.heap[0]!;
  }

  keyOf(id: number): number {
    return this.keys[id]!;
  }

  remove(id: number): void {
    const at = this.position[id]!;
    if (at < 0) return;
    this.position[id] = -1;
    const last = --this.size;
    if (at === last) return;
    const moved = this.heap[last]!;
    this.heap[at] = moved;
    this.position[moved] = at;
    this.up(at);
    this.down(this.position[moved]!);
  }

  private up(i: number): void {
    const { heap, keys, position } = this;
    const id = heap[i]!;
    const key = keys[id]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const parentId = heap[parent]!;
      if (keys[parentId]! <= key) break;
      heap[i] = parentId;
      position[parentId] = i;
      i = parent;
    }
    heap[i] = id;
    position[id] = i;
  }

  private down(i: number): void {
    const { heap, keys, position } = this;
    const size = this.size;
    const id = heap[i]!;
    const key = keys[id]!;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && keys[heap[child + 1]!]! < keys[heap[child]!]!) child++;
      const childId = heap[child]!;
      if (keys[childId]! >= key) break;
      heap[i] = childId;
      position[childId] = i;
      i = child;
    }
    heap[i] = id;
    position[id] = i;
  }
}
