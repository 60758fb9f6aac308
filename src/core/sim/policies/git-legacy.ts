import { fail } from '../../errors.ts';
import { CountingCache } from '../cache-policy.ts';
import { LruList } from '../lru-list.ts';
import { replayGitReads } from '../git-read-path.ts';
import { onGitReadPath, type PolicyDefinition } from '../policy-definition.ts';
import type { SimObjects } from '../sim-objects.ts';

/** Default stand-in for the heap address of `struct packed_git` (§3: not reproducible; a parameter). */
export const DEFAULT_LEGACY_SEED = 0x55d4a0c0;
/** §3: MAX_DELTA_CACHE. */
const SLOTS = 256;

/**
 * Git v1.5.1–v2.10 (git-internals §3): 256 direct-mapped slots hashed from the pack's address and
 * the offset, a collision replaces the occupant, and eviction is two LRU passes: blobs first, then
 * anything. `seed` is the assumed address of the first pack; pack k is assumed at seed + k·0x400.
 */
export class GitLegacyCache extends CountingCache {
  /** Every cached entry in LRU order (git's one list). */
  private readonly list: LruList;
  /**
   * The blobs of `list`, in the same relative order. Pass 1 of git's eviction walks the whole list
   * releasing blobs while over the limit: that is "release the oldest blobs", which this list
   * does in O(1) each instead of walking past the non-blobs every time.
   */
  private readonly blobs: LruList;
  private readonly slotOf: Uint8Array;
  private readonly occupant = new Int32Array(SLOTS).fill(-1);
  /** Evictions of the two passes over the limit; the others are slot collisions, whatever the limit. */
  limitEvictions = 0;

  constructor(
    capacity: number,
    size: Float64Array,
    private readonly isBlob: Uint8Array,
    pack: Uint32Array,
    offset: Float64Array,
    limit: number,
    seed = DEFAULT_LEGACY_SEED,
  ) {
    super(size, limit);
    this.list = new LruList(capacity);
    this.blobs = new LruList(capacity);
    this.slotOf = new Uint8Array(capacity);
    for (let id = 0; id < capacity; id++) this.slotOf[id] = legacySlot(seed + pack[id]! * 0x400, offset[id]!);
  }

  serveTopLevel(id: number): boolean {
    return this.occupant[this.slotOf[id]!] === id;
  }

  takeBase(id: number): boolean {
    const slot = this.slotOf[id]!;
    if (this.occupant[slot] !== id) return false;
    this.release(slot);
    return true;
  }

  add(id: number): void {
    const slot = this.slotOf[id]!;
    // "release_delta_base_cache(ent)": the slot's occupant goes first, collision or not.
    if (this.occupant[slot]! >= 0) {
      this.release(slot);
      this.evictions++;
    }
    this.usedBytes += this.size[id]!;
    for (let blob = this.blobs.oldest(); blob >= 0 && this.usedBytes > this.limit; blob = this.blobs.oldest()) {
      this.release(this.slotOf[blob]!);
      this.evictions++;
      this.limitEvictions++;
    }
    for (let entry = this.list.oldest(); entry >= 0 && this.usedBytes > this.limit; entry = this.list.oldest()) {
      this.release(this.slotOf[entry]!);
      this.evictions++;
      this.limitEvictions++;
    }
    this.occupant[slot] = id;
    this.list.append(id);
    if (this.isBlob[id]) this.blobs.append(id);
    this.notePeak();
  }

  private release(slot: number): void {
    const id = this.occupant[slot]!;
    this.occupant[slot] = -1;
    this.list.remove(id);
    if (this.isBlob[id]) this.blobs.remove(id);
    this.usedBytes -= this.size[id]!;
  }
}

/**
 * §3 pack_entry_hash: hash = p + offset; hash += (hash >> 8) + (hash >> 16); hash % 256, in 64-bit
 * unsigned long. With p below 2^48 and offsets below 2^48 no step exceeds 2^53 or wraps, so
 * double arithmetic is exact.
 */
export function legacySlot(packAddress: number, offset: number): number {
  const hash = packAddress + offset;
  const mixed = hash + Math.floor(hash / 256) + Math.floor(hash / 65536);
  return mixed % SLOTS;
}

export const gitLegacyPolicy: PolicyDefinition = {
  name: 'git-legacy',
  spec: 'git-legacy[:SEED]',
  help: ['Git v1.5.1–v2.10: 256 direct-mapped slots, blob-first two-pass eviction (§3); SEED = assumed pack address'],
  referenceBound: false,
  checkedAgainst: 'git 2.9.5, SEED its run’s pack address',
  cacheLab: 'git-legacy',
  sweepDefault: true,
  make(argument) {
    const seed = argument === undefined ? DEFAULT_LEGACY_SEED : Number(argument);
    if (!Number.isSafeInteger(seed) || seed < 0 || seed > 2 ** 48)
      throw fail(
        'usage',
        undefined,
        undefined,
        `git-legacy seed "${argument}" must be an integer below 2^48 (e.g. 0x55d4a0c0)`,
      );
    const makeCache = (o: SimObjects, limit: number): GitLegacyCache =>
      new GitLegacyCache(o.count, o.size, o.isBlob, o.pack, o.offset, limit, seed);
    return {
      ...onGitReadPath(
        `Git ≤ 2.10: 256 slots, blob-first eviction (§3), pack address ${'0x' + seed.toString(16)}`,
        (o, _r, limit) => makeCache(o, limit),
      ),
      replayWithLimitEvictions: (o, reads, limit) => {
        const cache = makeCache(o, limit);
        return { counts: replayGitReads(o, reads, cache), limitEvictions: cache.limitEvictions };
      },
    };
  },
};
