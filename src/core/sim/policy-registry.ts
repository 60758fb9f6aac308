import { fail } from '../errors.ts';
import type { DeltaBaseCache, SimCounts } from './cache-policy.ts';
import { replayGitReads } from './git-read-path.ts';
import { BeladyCache } from './policies/belady.ts';
import { GdsfCache } from './policies/gdsf.ts';
import { DEFAULT_LEGACY_SEED, GitLegacyCache } from './policies/git-legacy.ts';
import { GitLruCache } from './policies/git-lru.ts';
import { SeparateBlobLruCache } from './policies/separate-blob-lru.ts';
import { LIBGIT2_PACK_CACHE_LIMIT, replayLibgit2Reads } from './policies/libgit2.ts';
import type { SimObjects } from './sim-objects.ts';
import { limitListItems, parseGitSize } from '../../shared/git-size.ts';

/** One policy, ready to replay reads at a limit. `name` is the spec it was parsed from. */
export interface PolicyRunner {
  name: string;
  /** Shown next to results: what the policy is and where its rules come from. */
  description: string;
  /** A reference bound rather than something Git could run. */
  referenceBound: boolean;
  run(objects: SimObjects, reads: Int32Array, limit: number): SimCounts;
}

function onGitReadPath(name: string, description: string, makeCache: (objects: SimObjects, reads: Int32Array, limit: number) => DeltaBaseCache, referenceBound = false): PolicyRunner {
  return { name, description, referenceBound, run: (objects, reads, limit) => replayGitReads(objects, reads, makeCache(objects, reads, limit)) };
}

export const POLICY_HELP = `policies:
  git                      Git's delta base cache today: one LRU, evict oldest while over the limit (git-internals §1.6)
  git-legacy[:SEED]        Git v1.5.1–v2.10: 256 direct-mapped slots, blob-first two-pass eviction (§3); SEED = assumed pack address
  separate-blob-lru        blobs and other objects in separate LRUs, blobs evicted first (benchmarked in 2016, never merged)
  admit-max:SIZE           Git's LRU, but bases larger than SIZE (e.g. 1m) are not cached
  keep-on-hit              Git's LRU, but a chain hit keeps the entry (refreshed) instead of detaching it
  gdsf                     GreedyDual-Size-Frequency eviction: frequency x rebuild cost / size, with ageing
  libgit2                  libgit2's read path: a cache per pack, bases over 1 MiB never cached, flush all when full (§4.2);
                           the limit is the per-pack cache size (libgit2 itself uses 16m)
  libgit2-objcache:evict8|scaled
                           libgit2's object cache (§4.1: commits, trees, tags under 4 KiB; evicts 8, or max(8, n/2048),
                           buckets in hash order) in front of its 16m pack cache; the limit is the object cache's size
  belady                   offline furthest-next-use: a reference bound (not a proven optimum with variable sizes)`;

/** The policy specs parsePolicy takes, as shown in errors. */
export const POLICY_NAMES = ['git', 'git-legacy[:SEED]', 'separate-blob-lru', 'admit-max:SIZE', 'keep-on-hit', 'gdsf', 'libgit2', 'libgit2-objcache:evict8|scaled', 'belady'];

/** Parses a policy spec such as `git`, `admit-max:1m` or `git-legacy:0x5555`. */
export function parsePolicy(spec: string): PolicyRunner {
  const [kind, argument] = spec.split(/:(.*)/s) as [string, string | undefined];
  switch (kind) {
    case 'git':
      return onGitReadPath(spec, "Git's LRU (§1.6)", (o, _r, limit) => new GitLruCache(o.count, o.size, limit));
    case 'git-legacy': {
      const seed = argument === undefined ? DEFAULT_LEGACY_SEED : Number(argument);
      if (!Number.isSafeInteger(seed) || seed < 0 || seed > 2 ** 48) throw fail('usage', undefined, undefined, `git-legacy seed "${argument}" must be an integer below 2^48 (e.g. 0x55d4a0c0)`);
      return onGitReadPath(spec, `Git ≤ 2.10: 256 slots, blob-first eviction (§3), pack address ${'0x' + seed.toString(16)}`, (o, _r, limit) => new GitLegacyCache(o.count, o.size, o.isBlob, o.pack, o.offset, limit, seed));
    }
    case 'separate-blob-lru':
      return onGitReadPath(spec, 'separate blob LRU, blobs evicted first', (o, _r, limit) => new SeparateBlobLruCache(o.count, o.size, o.isBlob, limit));
    case 'admit-max': {
      const max = argument === undefined ? undefined : parseGitSize(argument);
      if (max === undefined) throw fail('usage', undefined, undefined, `admit-max needs a size, e.g. admit-max:1m (got "${spec}")`);
      return onGitReadPath(spec, `Git's LRU, bases over ${argument} not cached`, (o, _r, limit) => new GitLruCache(o.count, o.size, limit, { admitMax: max }));
    }
    case 'keep-on-hit':
      return onGitReadPath(spec, "Git's LRU, chain hits kept and refreshed", (o, _r, limit) => new GitLruCache(o.count, o.size, limit, { keepOnHit: true }));
    case 'gdsf':
      return onGitReadPath(spec, 'GreedyDual-Size-Frequency', (o, _r, limit) => new GdsfCache(o.count, o.size, o.depth, limit));
    case 'libgit2':
      return { name: spec, description: "libgit2's per-pack base cache (§4.2)", referenceBound: false, run: (o, reads, limit) => replayLibgit2Reads(o, reads, { limit }) };
    case 'libgit2-objcache': {
      if (argument !== 'evict8' && argument !== 'scaled') throw fail('usage', undefined, undefined, `libgit2-objcache needs evict8 or scaled (got "${spec}")`);
      const eviction = argument;
      return {
        name: spec,
        description: `libgit2's object cache (${eviction}, §4.1) over its 16m pack cache`,
        referenceBound: false,
        run: (o, reads, limit) => replayLibgit2Reads(o, reads, { limit: LIBGIT2_PACK_CACHE_LIMIT, objectCache: { eviction, maxStorage: limit } }),
      };
    }
    case 'belady':
      return onGitReadPath(spec, 'furthest next use (reference bound)', (o, reads, limit) => new BeladyCache(o.count, o.size, o.base, reads, limit), true);
    default:
      throw fail('usage', undefined, undefined, `unknown policy "${spec}" (known: ${POLICY_NAMES.join(', ')}; see packscope simulate --help)`);
  }
}

/** Parses `0,1m,16m,96m` into bytes. */
export function parseLimits(list: string): number[] {
  const limits = limitListItems(list);
  if (limits.length === 0) throw fail('usage', undefined, undefined, 'no limits given (e.g. --limits 0,1m,16m,96m)');
  return limits.map((item) => {
    const bytes = parseGitSize(item);
    if (bytes === undefined) throw fail('usage', undefined, undefined, `"${item}" is not a size (use bytes, or k, m, g suffixes)`);
    return bytes;
  });
}
