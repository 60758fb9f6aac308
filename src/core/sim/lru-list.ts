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

  constructor(capacity: number) {
    this.next = new Int32Array(capacity + 1);
    this.prev = new Int32Array(capacity + 1);
    this.member = new Uint8Array(capacity);
    this.head = capacity;
    this.next[this.head] = this.head;
    this.prev[this.head] = this.head;
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
