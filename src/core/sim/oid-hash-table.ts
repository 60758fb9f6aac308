/**
 * An open-addressing hash set of object ids laid out the way libgit2's khash-derived map lays out
 * its buckets (git-internals §4.1), because libgit2's object-cache eviction removes "the first
 * occupied buckets from bucket 0": which objects go depends on exactly where each key sits.
 * Written from the §4.1 description:
 *
 * - power-of-two bucket counts, at least 4;
 * - home bucket = hash & mask, then triangular probing i = (i + ++step) & mask;
 * - a bucket is empty, live or deleted; deletes leave a tombstone that a later put may reuse;
 * - upper bound = floor(n_buckets × 0.77 + 0.5), compared with live + deleted buckets before a put;
 *   on reaching it the table is rebuilt at the same size when n_buckets > 2 × live (dropping the
 *   tombstones), otherwise at double the size; the rebuild moves keys with kick-out, so that it can
 *   work inside the old bucket array.
 *
 * Keys are dense non-negative ids; `hashes[id]` is the key's 32-bit hash. Two keys are equal when
 * their ids are equal.
 */

const EMPTY = 0;
const LIVE = 1;
const DELETED = 2;
const MIN_BUCKETS = 4;
/** §4.1: load factor 0.77. */
const LOAD_FACTOR = 0.77;

function upperBoundFor(buckets: number): number {
  return Math.floor(buckets * LOAD_FACTOR + 0.5);
}

function roundUpToPowerOfTwo(n: number): number {
  let power = 1;
  while (power < n) power *= 2;
  return power;
}

export class OidHashTable {
  private keys = new Int32Array(0);
  private flags = new Uint8Array(0);
  private buckets = 0;
  private live = 0;
  /** Live + deleted buckets: what the upper bound is compared with. */
  private occupied = 0;
  private upperBound = 0;
  /** How many times the table was rebuilt (same size or doubled). */
  rebuilds = 0;

  constructor(private readonly hashes: Uint32Array) {}

  get bucketCount(): number {
    return this.buckets;
  }

  get size(): number {
    return this.live;
  }

  get occupiedCount(): number {
    return this.occupied;
  }

  /** The bucket holding `id`, or −1. */
  find(id: number): number {
    if (this.buckets === 0) return -1;
    const mask = this.buckets - 1;
    let i = this.hashes[id]! & mask;
    const last = i;
    let step = 0;
    while (this.flags[i] !== EMPTY && (this.flags[i] === DELETED || this.keys[i] !== id)) {
      i = (i + ++step) & mask;
      if (i === last) return -1;
    }
    return this.flags[i] === LIVE ? i : -1;
  }

  has(id: number): boolean {
    return this.find(id) >= 0;
  }

  /** Inserts `id`; false when it was already present. */
  put(id: number): boolean {
    if (this.occupied >= this.upperBound) {
      // §4.1: rebuild in place when at most half the buckets are live, else double.
      this.resize(this.buckets > this.live * 2 ? this.buckets - 1 : this.buckets + 1);
    }
    const mask = this.buckets - 1;
    let i = this.hashes[id]! & mask;
    let target = this.buckets;
    if (this.flags[i] === EMPTY) {
      target = i;
    } else {
      // Remember the last tombstone on the probe path: a new key goes there rather than to the
      // empty bucket that ends the path.
      let site = this.buckets;
      const last = i;
      let step = 0;
      while (this.flags[i] !== EMPTY && (this.flags[i] === DELETED || this.keys[i] !== id)) {
        if (this.flags[i] === DELETED) site = i;
        i = (i + ++step) & mask;
        if (i === last) {
          target = site;
          break;
        }
      }
      if (target === this.buckets) target = this.flags[i] === EMPTY && site !== this.buckets ? site : i;
    }
    if (target === this.buckets) throw new Error('OidHashTable: no free bucket (the load factor keeps one free)');
    const state = this.flags[target]!;
    if (state === LIVE) return false;
    this.keys[target] = id;
    this.flags[target] = LIVE;
    this.live++;
    if (state === EMPTY) this.occupied++;
    return true;
  }

  /** Removes `id` (leaving a tombstone); false when absent. */
  delete(id: number): boolean {
    const bucket = this.find(id);
    if (bucket < 0) return false;
    this.deleteAt(bucket);
    return true;
  }

  deleteAt(bucket: number): void {
    if (this.flags[bucket] !== LIVE) throw new Error(`OidHashTable: bucket ${bucket} is not live`);
    this.flags[bucket] = DELETED;
    this.live--;
  }

  /** The first live bucket at or after `from`, or −1 (the libgit2 map iterator). */
  nextLive(from: number): number {
    for (let i = from; i < this.buckets; i++) if (this.flags[i] === LIVE) return i;
    return -1;
  }

  keyAt(bucket: number): number {
    return this.keys[bucket]!;
  }

  /** Empties every bucket and keeps the bucket count (khash's clear). */
  clear(): void {
    this.flags.fill(EMPTY);
    this.live = 0;
    this.occupied = 0;
  }

  /**
   * Rebuilds the table with `requested` buckets (rounded up to a power of two, at least 4); nothing
   * happens when the live keys would already reach the new upper bound. Keys are re-placed in
   * bucket order; a key whose new bucket still holds a not-yet-moved old key takes it and carries
   * on with the displaced key (kick-out), exactly as an in-place rebuild must.
   */
  private resize(requested: number): void {
    const buckets = Math.max(MIN_BUCKETS, roundUpToPowerOfTwo(requested));
    if (this.live >= upperBoundFor(buckets)) return;
    const oldBuckets = this.buckets;
    const oldFlags = this.flags;
    const newFlags = new Uint8Array(buckets);
    if (buckets > this.keys.length) {
      const grown = new Int32Array(buckets);
      grown.set(this.keys);
      this.keys = grown;
    }
    const keys = this.keys;
    const mask = buckets - 1;
    for (let j = 0; j < oldBuckets; j++) {
      if (oldFlags[j] !== LIVE) continue;
      let key = keys[j]!;
      oldFlags[j] = DELETED;
      for (;;) {
        let i = this.hashes[key]! & mask;
        let step = 0;
        while (newFlags[i] !== EMPTY) i = (i + ++step) & mask;
        newFlags[i] = LIVE;
        if (i < oldBuckets && oldFlags[i] === LIVE) {
          const displaced = keys[i]!;
          keys[i] = key;
          oldFlags[i] = DELETED;
          key = displaced;
        } else {
          keys[i] = key;
          break;
        }
      }
    }
    if (buckets < keys.length) this.keys = keys.slice(0, buckets);
    this.flags = newFlags;
    this.buckets = buckets;
    this.occupied = this.live;
    this.upperBound = upperBoundFor(buckets);
    this.rebuilds++;
  }
}
