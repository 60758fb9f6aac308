/**
 * Ids filed under integer times 0..maxTime (one list per time), with O(1) insert, move and
 * remove, and the latest non-empty time found through a three-level bitmap. The offline policy
 * keys cached bases by their next use, an integer read index: this replaces two heaps and their
 * log(n) updates on every use.
 */
export class TimeBuckets {
  private readonly head: Int32Array;
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private readonly timeOf: Int32Array;
  /** Bit t of level 0: time t has entries; bit w of level 1: word w of level 0 is non-zero; and so on. */
  private readonly level0: Uint32Array;
  private readonly level1: Uint32Array;
  private readonly level2: Uint32Array;
  size = 0;

  constructor(
    capacity: number,
    readonly maxTime: number,
  ) {
    this.head = new Int32Array(maxTime + 1).fill(-1);
    this.next = new Int32Array(capacity);
    this.prev = new Int32Array(capacity);
    this.timeOf = new Int32Array(capacity).fill(-1);
    this.level0 = new Uint32Array((maxTime >>> 5) + 1);
    this.level1 = new Uint32Array((this.level0.length >>> 5) + 1);
    this.level2 = new Uint32Array((this.level1.length >>> 5) + 1);
  }

  has(id: number): boolean {
    return this.timeOf[id]! >= 0;
  }

  timeOfId(id: number): number {
    return this.timeOf[id]!;
  }

  /** Files `id` under `time` (moving it if it is filed elsewhere). */
  set(id: number, time: number): void {
    if (this.timeOf[id]! >= 0) this.remove(id);
    const first = this.head[time]!;
    this.next[id] = first;
    this.prev[id] = -1;
    if (first >= 0) this.prev[first] = id;
    else this.mark(time);
    this.head[time] = id;
    this.timeOf[id] = time;
    this.size++;
  }

  remove(id: number): void {
    const time = this.timeOf[id]!;
    if (time < 0) return;
    const before = this.prev[id]!;
    const after = this.next[id]!;
    if (before >= 0) this.next[before] = after;
    else this.head[time] = after;
    if (after >= 0) this.prev[after] = before;
    if (this.head[time]! < 0) this.unmark(time);
    this.timeOf[id] = -1;
    this.size--;
  }

  /** Some id filed under `time`, or −1. */
  first(time: number): number {
    return this.head[time]!;
  }

  /** The latest time that has entries, or −1. */
  latest(): number {
    for (let w2 = this.level2.length - 1; w2 >= 0; w2--) {
      const bits2 = this.level2[w2]!;
      if (bits2 === 0) continue;
      const w1 = (w2 << 5) + 31 - Math.clz32(bits2);
      const w0 = (w1 << 5) + 31 - Math.clz32(this.level1[w1]!);
      return (w0 << 5) + 31 - Math.clz32(this.level0[w0]!);
    }
    return -1;
  }

  private mark(time: number): void {
    const w0 = time >>> 5;
    this.level0[w0]! |= 1 << (time & 31);
    const w1 = w0 >>> 5;
    this.level1[w1]! |= 1 << (w0 & 31);
    this.level2[w1 >>> 5]! |= 1 << (w1 & 31);
  }

  private unmark(time: number): void {
    const w0 = time >>> 5;
    this.level0[w0]! &= ~(1 << (time & 31));
    if (this.level0[w0] !== 0) return;
    const w1 = w0 >>> 5;
    this.level1[w1]! &= ~(1 << (w0 & 31));
    if (this.level1[w1] !== 0) return;
    this.level2[w1 >>> 5]! &= ~(1 << (w1 & 31));
  }
}
