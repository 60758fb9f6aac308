/**
 * Ids filed under integer times 0..maxTime (one list per time), with O(1) insert, move and
 * remove, and the latest non-empty time found through a bitmap of bitmaps, as many levels as it
 * takes to reach one word (5 for 5 M reads): finding it reads one word per level. The offline
 * policy keys cached bases by their next use, an integer read index: this replaces two heaps and
 * their log(n) updates on every use.
 */
export class TimeBuckets {
  private readonly head: Int32Array;
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private readonly timeOf: Int32Array;
  /**
   * Bit t of levels[0]: time t has entries; bit w of levels[k + 1]: word w of levels[k] is
   * non-zero. The last level is one word. (A fixed three levels left 153 words to scan from the
   * top at 5 M reads: a quarter of a Belady replay's time.)
   */
  private readonly levels: Uint32Array[] = [];
  size = 0;

  constructor(
    capacity: number,
    readonly maxTime: number,
  ) {
    this.head = new Int32Array(maxTime + 1).fill(-1);
    this.next = new Int32Array(capacity);
    this.prev = new Int32Array(capacity);
    this.timeOf = new Int32Array(capacity).fill(-1);
    for (let bits = maxTime + 1; ; bits = this.levels.at(-1)!.length) {
      this.levels.push(new Uint32Array((bits + 31) >>> 5));
      if (this.levels.at(-1)!.length === 1) break;
    }
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
    const levels = this.levels;
    let top = levels.length - 1;
    if (levels[top]![0] === 0) return -1;
    let word = 0;
    for (; top >= 0; top--) word = (word << 5) + 31 - Math.clz32(levels[top]![word]!);
    return word;
  }

  private mark(time: number): void {
    const levels = this.levels;
    let at = time;
    for (let k = 0; k < levels.length; k++) {
      const level = levels[k]!;
      const word = at >>> 5;
      const before = level[word]!;
      level[word] = before | (1 << (at & 31));
      // A word that was non-zero is already marked above.
      if (before !== 0) return;
      at = word;
    }
  }

  private unmark(time: number): void {
    const levels = this.levels;
    let at = time;
    for (let k = 0; k < levels.length; k++) {
      const level = levels[k]!;
      const word = at >>> 5;
      const after = level[word]! & ~(1 << (at & 31));
      level[word] = after;
      if (after !== 0) return;
      at = word;
    }
  }
}
