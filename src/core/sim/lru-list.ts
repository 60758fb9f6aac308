/**
 * An intrusive doubly linked list over object ids, in typed arrays: O(1) append, unlink and
 * oldest, no allocation per entry. Git's cache is "one list plus one map" (packfile.c); here the
 * list is the map too, because ids are dense.
 */
export class LruList {
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  readonly member: Uint8Array;
  private readonly head: number;
  size = 0;

  constructor(capacity: number, copyOf?: LruList) {
    if (copyOf !== undefined) {
      this.next = copyOf.next.slice();
      this.prev = copyOf.prev.slice();
      this.member = copyOf.member.slice();
      this.head = copyOf.head;
      this.size = copyOf.size;
      return;
    }
    this.next = new Int32Array(capacity + 1);
    this.prev = new Int32Array(capacity + 1);
    this.member = new Uint8Array(capacity);
    this.head = capacity;
    this.next[this.head] = this.head;
    this.prev[this.head] = this.head;
  }

  /** An independent copy (the hidden-read bounds follow several cache states at once). */
  copy(): LruList {
    return new LruList(0, this);
  }

  /** The same ids in the same order. */
  sameOrder(other: LruList): boolean {
    if (other.size !== this.size) return false;
    for (
      let a = this.next[this.head]!, b = other.next[other.head]!;
      a !== this.head;
      a = this.next[a]!, b = other.next[b]!
    )
      if (a !== b) return false;
    return true;
  }

  /** A hash of the ids in order: equal lists hash equally (sameOrder decides). */
  orderHash(): number {
    let hash = this.size | 0;
    for (let a = this.next[this.head]!; a !== this.head; a = this.next[a]!)
      hash = (Math.imul(hash, 0x01000193) ^ a) | 0;
    return hash;
  }

  /** The most recently added id, or −1 when empty. */
  newest(): number {
    const last = this.prev[this.head]!;
    return last === this.head ? -1 : last;
  }

  has(id: number): boolean {
    return this.member[id] === 1;
  }

  /** Appends at the most-recent end. */
  append(id: number): void {
    const last = this.prev[this.head]!;
    this.next[last] = id;
    this.prev[id] = last;
    this.next[id] = this.head;
    this.prev[this.head] = id;
    this.member[id] = 1;
    this.size++;
  }

  remove(id: number): void {
    const before = this.prev[id]!;
    const after = this.next[id]!;
    this.next[before] = after;
    this.prev[after] = before;
    this.member[id] = 0;
    this.size--;
  }

  /** The least recently added id, or −1 when empty. */
  oldest(): number {
    const first = this.next[this.head]!;
    return first === this.head ? -1 : first;
  }

  /** The id after `id` towards the most recent end, or −1. */
  after(id: number): number {
    const n = this.next[id]!;
    return n === this.head ? -1 : n;
  }
}
