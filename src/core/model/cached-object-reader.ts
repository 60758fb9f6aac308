import { fail } from '../errors.ts';
import type { PackModel } from './pack-model.ts';
import { openPackEntries, type OpenPackEntries, type ReadLimits } from './read-object.ts';

export interface CachedReadLimits extends ReadLimits {
  /** Bytes of rebuilt objects kept for reuse as delta bases (git's core.deltaBaseCacheLimit is 96 MiB). */
  cacheBytes: number;
}

/**
 * Rebuilds many objects of a few packs, keeping each pack open and the most recently rebuilt
 * objects (bases and results alike) in one LRU of bounded bytes: a walk over every tree of a pack
 * rebuilds each delta from a cached base instead of from its chain's root (git-internals §1.4 does
 * the same with its delta base cache). `bytesRebuilt` counts every byte inflated or produced by a
 * delta, for the caller's budget.
 */
export class CachedObjectReader {
  private readonly entries: (OpenPackEntries | undefined)[];
  /** Key: pack position · 2^32 + object number; Map order is recency (oldest first). */
  private readonly cache = new Map<number, Buffer>();
  private cachedBytes = 0;
  bytesRebuilt = 0;

  constructor(
    private readonly models: readonly PackModel[],
    private readonly limits: CachedReadLimits,
  ) {
    this.entries = models.map(() => undefined);
  }

  /** The content of object `n` of pack `pack` (a position in the models given). */
  read(pack: number, n: number): Buffer {
    const model = this.models[pack]!;
    const hit = this.take(pack, n);
    if (hit) return hit;
    const entries = (this.entries[pack] ??= openPackEntries(model, this.limits));
    // Down the chain to the first object held (or the root), then back up, keeping every result.
    const chain = [n];
    let content: Buffer | undefined;
    for (let current = n; model.isDelta(current);) {
      const next = model.columns.base[current]!;
      if (next < 0)
        throw fail(
          'missing-base',
          model.files.pack,
          model.columns.offset[current],
          `delta base of ${model.oidHex(current)} is not in this pack (a thin pack?)`,
        );
      current = next;
      content = this.take(pack, current);
      if (content) break;
      chain.push(current);
    }
    if (!content) {
      const root = chain.pop()!;
      content = entries.inflate(root);
      this.count(content.length);
      this.keep(pack, root, content);
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const delta = chain[k]!;
      const payload = entries.inflate(delta);
      content = entries.applyDelta(delta, content, payload);
      this.count(payload.length + content.length);
      this.keep(pack, delta, content);
    }
    return content;
  }

  close(): void {
    for (const entries of this.entries) entries?.close();
    this.entries.fill(undefined);
    this.cache.clear();
    this.cachedBytes = 0;
  }

  private count(bytes: number): void {
    this.bytesRebuilt += bytes;
    if (this.limits.maxRebuiltBytes !== undefined && this.bytesRebuilt > this.limits.maxRebuiltBytes) {
      throw new ReadBudgetExceeded(`rebuilt more than the ${this.limits.maxRebuiltBytes}-byte budget`);
    }
  }

  private take(pack: number, n: number): Buffer | undefined {
    const k = key(pack, n);
    const hit = this.cache.get(k);
    if (hit) {
      this.cache.delete(k);
      this.cache.set(k, hit);
    }
    return hit;
  }

  private keep(pack: number, n: number, content: Buffer): void {
    // One object larger than a quarter of the cache would flush everything else for one reuse.
    if (content.length > this.limits.cacheBytes / 4) return;
    const k = key(pack, n);
    const old = this.cache.get(k);
    if (old) {
      this.cachedBytes -= old.length;
      this.cache.delete(k);
    }
    this.cache.set(k, content);
    this.cachedBytes += content.length;
    for (const [oldest, bytes] of this.cache) {
      if (this.cachedBytes <= this.limits.cacheBytes) break;
      this.cache.delete(oldest);
      this.cachedBytes -= bytes.length;
    }
  }
}

export class ReadBudgetExceeded extends Error {
  override readonly name = 'ReadBudgetExceeded';
}

function key(pack: number, n: number): number {
  return pack * 0x1_0000_0000 + n;
}
