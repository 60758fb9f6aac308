import { COST_BYTES, COST_DELTAS, COST_INFLATIONS, COST_LOGGED } from './git-read-path.ts';
import type { LruShape } from './cache-policy.ts';
import { IndexedMinHeap } from './indexed-heap.ts';
import type { SimObjects } from './sim-objects.ts';

/**
 * Sums of entry sizes by stamp (a Fenwick tree): the bytes of entries stamped after a given one in
 * O(log n). Sizes are whole numbers well under 2^53, so the sums are exact.
 */
class StampSums {
  private readonly tree: Float64Array;
  total = 0;

  constructor(capacity: number) {
    this.tree = new Float64Array(capacity + 1);
  }

  add(stamp: number, bytes: number): void {
    this.total += bytes;
    for (let i = stamp; i < this.tree.length; i += i & -i) this.tree[i]! += bytes;
  }

  /** Bytes of the entries stamped after `stamp`. */
  after(stamp: number): number {
    let upTo = 0;
    for (let i = stamp; i > 0; i -= i & -i) upTo += this.tree[i]!;
    return this.total - upTo;
  }

  clear(): void {
    this.tree.fill(0);
    this.total = 0;
  }
}

/**
 * An envelope of every state Git's cache (an LruShape) can be in across the runs a limit-0
 * recording allows, when there are too many to follow one by one (hidden-reads.ts (e)). The spec is
 * docs/git-internals.md §8.3; in brief, per object x:
 *
 * - may(x): x is in the cache in some run; must(x): in every run. Not may means in none.
 * - lo(x) ≤ hi(x): stamps bounding when x was last added, in every run where it is present. Each
 *   add of every read gets a stamp of its own, the same in every run that makes that add (a read's
 *   chain adds its bases innermost first, so e_1 is stamped last), so "y is newer than x" in a run
 *   implies hi(y) > lo(x), and lo(y) > hi(x) implies y is newer than x in every run with both.
 * - N(x), the bytes of the entries newer than x, is then at most Nhi(x) = Σ size(y) over may y ≠ x
 *   with hi(y) > lo(x), and, in every run that holds x, at least Nlo(x) = Σ size(y) over may y that
 *   every run added at a stamp after hi(x): newer than x, such a y leaves only after x does.
 *
 * Two facts of §1.5 decide what leaves: (E) an add evicts x exactly when size(x) + N(x) > L just
 * after it (oldest first, so x goes iff the total is still over L once only x and newer remain); and
 * (I) so in every state every entry but the last one added has size(x) + N(x) ≤ L (N grows only by
 * adds, and each add checked it). Hence a must entry stays must while size + Nhi ≤ L (checked at
 * the end of a read once the bytes added since its last check could exceed its slack; a read's
 * adds come after its takes, so N only grows during them); a may entry with size + Nlo > L and
 * Nlo > 0 (something surely newer, so not the last added) is in no run, and then neither is any
 * entry whose last add, in every run, came before that one's sure add (hi below it).
 * Each read's cost is bounded by where its chain can stop: at the first may base at the least, at
 * the first must base (or the root) at the most, and nothing when the read may be a top-level hit
 * or may not happen at all (a hidden read).
 */
export class CacheEnvelope {
  private readonly may: Uint8Array;
  private readonly must: Uint8Array;
  private readonly lo: Float64Array;
  private readonly hi: Float64Array;
  /** Every may entry, for renumbering stamps and for rebuilding one cache when the state is known. */
  private readonly members: Int32Array;
  private readonly memberAt: Int32Array;
  private memberCount = 0;
  /**
   * A stamp at which every run added x (0: none known). Entries added after x in every run stay
   * cached while x is (they are newer: eviction takes x first; a take is re-added), so they count
   * toward N(x) whether or not they are must.
   */
  private readonly added: Float64Array;
  /** may entries' sizes at hi (for Nhi); at `added`, where known (for Nlo). */
  private readonly hiSums: StampSums;
  private readonly addedSums: StampSums;
  /** Every entry last added before this stamp in every run is in no run: one added after it in every run has left them all. */
  private goneBefore = 0;
  private readonly stampCapacity: number;
  private clock = 0;
  /** Bytes of every add made in some run: N of any entry grows by at most this between two checks. */
  private addedBytes = 0;
  /** must entries keyed by the addedBytes at which size + Nhi may first exceed the limit. */
  private readonly deadlines: IndexedMinHeap;
  private mayOnly = 0;
  /** must entries with lo < hi: their place in the order differs run to run. */
  private inexact = 0;
  /** The entry every run added last, or −1: (I) keeps it even when it alone exceeds the limit. */
  private newest = -1;
  private readonly chain: Int32Array;
  /**
   * Bytes of every add all runs made: Nlo of any entry grows by at most this between two checks
   * (only such adds count toward it), so a may-only entry is checked again only once it may be gone.
   */
  private definiteBytes = 0;
  /** may-only entries keyed by the definiteBytes at which they may first be gone (docs/git-internals.md §8.3, 4). */
  private readonly dropChecks: IndexedMinHeap;
  /** may-only entries keyed by hi: those under goneBefore are gone. */
  private readonly byHi: IndexedMinHeap;

  constructor(
    private readonly objects: SimObjects,
    private readonly shape: LruShape,
    maxChain: number,
  ) {
    const n = objects.count;
    this.may = new Uint8Array(n);
    this.must = new Uint8Array(n);
    this.lo = new Float64Array(n);
    this.hi = new Float64Array(n);
    this.added = new Float64Array(n);
    this.members = new Int32Array(n);
    this.memberAt = new Int32Array(n).fill(-1);
    // Live stamps are at most 3 per entry (and goneBefore); compaction renumbers them, leaving ≥ n + 4096 free.
    this.stampCapacity = 4 * n + 4097;
    this.hiSums = new StampSums(this.stampCapacity);
    this.addedSums = new StampSums(this.stampCapacity);
    this.deadlines = new IndexedMinHeap(n);
    this.chain = new Int32Array(maxChain + 1);
    this.dropChecks = new IndexedMinHeap(n);
    this.byHi = new IndexedMinHeap(n);
  }

  /**
   * One top-level read of `id`, or with `optional` one that may not happen (a place's hidden read):
   * its least and greatest cost over every state go into `low` and `high` (logged, inflations, delta
   * applications, inflated bytes), and the envelope moves on to cover every state after it. Returns
   * whether the read may miss.
   */
  // Stays long: one read through the envelope, in the order of unpack_entry's phases (§1.4); the chain walk, its two costs and its adds share locals.
  read(id: number, optional: boolean, low: Float64Array, high: Float64Array): boolean {
    if (this.must[id] === 1) return false;
    const { base, size, payloadSize } = this.objects;
    const noop = optional || this.may[id] === 1;
    const chain = this.chain;
    let depth = 0;
    chain[0] = id;
    for (let x = base[id]!; x >= 0; x = base[x]!) chain[++depth] = x;
    let firstMay = -1;
    let firstMust = -1;
    for (let i = 1; i <= depth; i++) {
      const x = chain[i]!;
      if (this.must[x] === 1) {
        firstMust = i;
        if (firstMay < 0) firstMay = i;
        break;
      }
      if (firstMay < 0 && this.may[x] === 1) firstMay = i;
    }
    if (!noop) addStopCost(chain, depth, firstMay, payloadSize, size, low);
    addStopCost(chain, depth, firstMust, payloadSize, size, high);
    // Every run that misses adds e_stop … e_1; the stop is at least firstMay (or the root) and at most firstMust (or the root).
    const top = firstMust >= 1 ? firstMust : depth;
    const bottom = noop ? 0 : firstMay >= 1 ? firstMay : depth;
    let last = -1;
    let lastDefinite = false;
    for (let i = top; i >= 1; i--) {
      const x = chain[i]!;
      if (size[x]! > this.shape.admitMax) continue;
      const stamp = this.nextStamp();
      this.addedBytes += size[x]!;
      if (i <= bottom) {
        this.place(x, stamp, stamp, true, stamp);
        this.definiteBytes += size[x]!;
      } else if (this.may[x] === 1) this.place(x, this.lo[x]!, stamp, this.must[x] === 1, this.added[x]!);
      else this.place(x, stamp, stamp, false, 0);
      last = x;
      lastDefinite = i <= bottom;
    }
    if (last >= 0) {
      const before = this.newest;
      this.newest = lastDefinite ? last : -1;
      if (before >= 0 && before !== this.newest && this.must[before] === 1) this.deadlines.set(before, -Infinity);
    }
    this.settle();
    return true;
  }

  /** No may-only entry and every must entry in one place in the order: every run's cache is the same. */
  determined(): boolean {
    return this.mayOnly === 0 && this.inexact === 0;
  }

  /** The entries oldest first: with determined(), the one state every run is in. */
  entriesOldestFirst(): Int32Array {
    const ids = this.members.slice(0, this.memberCount);
    return ids.sort((a, b) => this.hi[a]! - this.hi[b]!);
  }

  private nextStamp(): number {
    if (this.clock + 1 >= this.stampCapacity) this.compactStamps();
    return ++this.clock;
  }

  /** Puts x in the envelope with stamps [lo, hi] (and `added`), must or may only, replacing what it had. */
  private place(x: number, lo: number, hi: number, must: boolean, added: number): void {
    if (this.may[x] === 1) this.forget(x);
    const bytes = this.objects.size[x]!;
    this.may[x] = 1;
    this.lo[x] = lo;
    this.hi[x] = hi;
    this.added[x] = added;
    this.memberAt[x] = this.memberCount;
    this.members[this.memberCount++] = x;
    this.hiSums.add(hi, bytes);
    if (added > 0) this.addedSums.add(added, bytes);
    if (must) {
      this.must[x] = 1;
      if (lo !== hi) this.inexact++;
      this.deadlines.set(x, -Infinity);
    } else {
      this.becomeMayOnly(x);
    }
  }

  /** Takes x out of the envelope: in no run's cache. */
  private forget(x: number): void {
    const bytes = this.objects.size[x]!;
    this.hiSums.add(this.hi[x]!, -bytes);
    if (this.added[x]! > 0) this.addedSums.add(this.added[x]!, -bytes);
    if (this.must[x] === 1) this.dropMust(x);
    else {
      this.mayOnly--;
      this.dropChecks.remove(x);
      this.byHi.remove(x);
    }
    this.may[x] = 0;
    const at = this.memberAt[x]!;
    const moved = this.members[--this.memberCount]!;
    this.members[at] = moved;
    this.memberAt[moved] = at;
    this.memberAt[x] = -1;
  }

  private dropMust(x: number): void {
    this.must[x] = 0;
    if (this.lo[x] !== this.hi[x]) this.inexact--;
    this.deadlines.remove(x);
  }

  /**
   * After a read's adds: must entries whose deadline passed are checked first, then may-only ones
   * that may be gone. Every check comes before any drop: an entry newer than x that this read
   * evicted still counted toward N(x) when x was checked (E).
   */
  private settle(): void {
    for (let top = this.deadlines.peek(); top >= 0; top = this.deadlines.peek()) {
      if (this.deadlines.keyOf(top) >= this.addedBytes) break;
      if (this.keepsMust(top)) continue;
      this.dropMust(top);
      this.becomeMayOnly(top);
    }
    for (;;) {
      const old = this.byHi.peek();
      if (old >= 0 && this.byHi.keyOf(old) < this.goneBefore) {
        this.gone(old);
        continue;
      }
      const due = this.dropChecks.peek();
      if (due >= 0 && this.dropChecks.keyOf(due) < this.definiteBytes) {
        this.checkGone(due);
        continue;
      }
      break;
    }
  }

  /** x is may only from now: checked at the next settle, and by its hi against goneBefore. */
  private becomeMayOnly(x: number): void {
    this.mayOnly++;
    this.dropChecks.set(x, -Infinity);
    this.byHi.set(x, this.hi[x]!);
  }

  /**
   * A must entry stays must while size + Nhi ≤ L (its next deadline is set), or while it is the last
   * entry every run added (I); false when it may have been evicted.
   */
  private keepsMust(x: number): boolean {
    const bytes = this.objects.size[x]!;
    const newer = this.hiSums.after(this.lo[x]!) - (this.hi[x]! > this.lo[x]! ? bytes : 0);
    const slack = this.shape.limit - bytes - newer;
    if (slack >= 0) {
      this.deadlines.set(x, this.addedBytes + slack);
      return true;
    }
    if (x === this.newest) {
      // Rechecked when something else is added (read() resets its deadline).
      this.deadlines.set(x, Infinity);
      return true;
    }
    return false;
  }

  /**
   * A may-only entry is in no run by (I) when the entries added after it in every run (Nlo) are not
   * empty and size + Nlo > L; else it is checked again once the sure adds since may have made it so.
   */
  private checkGone(x: number): void {
    const newer = this.addedSums.after(this.hi[x]!);
    const threshold = Math.max(this.shape.limit - this.objects.size[x]!, 0);
    if (newer > threshold) this.gone(x);
    else this.dropChecks.set(x, this.definiteBytes + threshold - newer);
  }

  /** x is in no run; nor then is any entry every run last added before x's sure add (docs/git-internals.md §8.3, 4). */
  private gone(x: number): void {
    if (this.added[x]! > this.goneBefore) this.goneBefore = this.added[x]!;
    this.forget(x);
  }

  /** Renumbers the live stamps 1, 2, … in their order, so that the sums stay within their capacity. */
  private compactStamps(): void {
    const live = new Float64Array(3 * this.memberCount + 1);
    for (let i = 0; i < this.memberCount; i++) {
      const x = this.members[i]!;
      live[3 * i] = this.lo[x]!;
      live[3 * i + 1] = this.hi[x]!;
      live[3 * i + 2] = this.added[x]!;
    }
    live[3 * this.memberCount] = this.goneBefore;
    live.sort();
    // 0 stays 0: "no stamp" for `added` and goneBefore.
    const renumbered = new Map<number, number>([[0, 0]]);
    for (const stamp of live) if (!renumbered.has(stamp)) renumbered.set(stamp, renumbered.size);
    this.hiSums.clear();
    this.addedSums.clear();
    for (let i = 0; i < this.memberCount; i++) {
      const x = this.members[i]!;
      this.lo[x] = renumbered.get(this.lo[x]!)!;
      this.hi[x] = renumbered.get(this.hi[x]!)!;
      this.added[x] = renumbered.get(this.added[x]!)!;
      this.hiSums.add(this.hi[x]!, this.objects.size[x]!);
      if (this.added[x]! > 0) this.addedSums.add(this.added[x]!, this.objects.size[x]!);
      if (this.must[x] === 0) this.byHi.set(x, this.hi[x]!);
    }
    this.goneBefore = renumbered.get(this.goneBefore)!;
    this.clock = renumbered.size;
  }
}

/**
 * Adds the cost of a read that stops at chain[stop] (a cached base: `stop` inflations and delta
 * applications), or with stop < 1 at the root (inflated: one more inflation), to `into`.
 */
function addStopCost(
  chain: Int32Array,
  depth: number,
  stop: number,
  payloadSize: Float64Array,
  size: Float64Array,
  into: Float64Array,
): void {
  const atRoot = stop < 1;
  const deltas = atRoot ? depth : stop;
  let bytes = 0;
  for (let i = 0; i < deltas; i++) bytes += payloadSize[chain[i]!]!;
  if (atRoot) bytes += size[chain[depth]!]!;
  into[COST_LOGGED]! += 1;
  into[COST_INFLATIONS]! += atRoot ? depth + 1 : stop;
  into[COST_DELTAS]! += deltas;
  into[COST_BYTES]! += bytes;
}
