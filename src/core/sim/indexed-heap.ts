/**
 * A binary min-heap of ids with a position index, so an id's key can be changed or the id removed
 * in place: the heap holds exactly the cached entries, with no stale copies to skip. Used by the
 * size-aware (GDSF) and offline (Belady) policies, which re-key entries on every use. Equal keys
 * are ordered by a second key when one is given (GDSF: the order entries were added, as its patch
 * to git breaks ties); with none they come out in whatever order the heap holds them.
 */
export class IndexedMinHeap {
  private readonly heap: Int32Array;
  private readonly keys: Float64Array;
  private readonly ties: Float64Array;
  /** Position of each id in `heap`, −1 when absent. */
  private readonly position: Int32Array;
  size = 0;

  constructor(capacity: number) {
    this.heap = new Int32Array(capacity);
    this.keys = new Float64Array(capacity);
    this.ties = new Float64Array(capacity);
    this.position = new Int32Array(capacity).fill(-1);
  }

  has(id: number): boolean {
    return this.position[id]! >= 0;
  }

  /** Inserts `id`, or moves it to `key` when present; among equal keys the smaller `tie` comes first. */
  set(id: number, key: number, tie = 0): void {
    const at = this.position[id]!;
    this.keys[id] = key;
    this.ties[id] = tie;
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

  tieOf(id: number): number {
    return this.ties[id]!;
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

  /** Whether id `a` comes out before id `b`. */
  private before(a: number, b: number): boolean {
    const { keys, ties } = this;
    return keys[a]! < keys[b]! || (keys[a] === keys[b] && ties[a]! < ties[b]!);
  }

  private up(i: number): void {
    const { heap, position } = this;
    const id = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const parentId = heap[parent]!;
      if (!this.before(id, parentId)) break;
      heap[i] = parentId;
      position[parentId] = i;
      i = parent;
    }
    heap[i] = id;
    position[id] = i;
  }

  private down(i: number): void {
    const { heap, position } = this;
    const size = this.size;
    const id = heap[i]!;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && this.before(heap[child + 1]!, heap[child]!)) child++;
      const childId = heap[child]!;
      if (!this.before(childId, id)) break;
      heap[i] = childId;
      position[childId] = i;
      i = child;
    }
    heap[i] = id;
    position[id] = i;
  }
}
