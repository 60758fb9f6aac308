import type { RankedObject, RankingHead } from './pack-columns.ts';
import type { PackModel } from './pack-model.ts';

/**
 * The rankings of a pack's objects that the CLI's `stats` lists and the Packs view pages through:
 * each gives the value an object is ranked by, larger first; a negative value leaves the object out
 * (a non-root in `families`). Ties keep idx (object id) order. A new list is one entry here.
 */
export const RANKINGS = {
  /** Chain roots by the number of objects in their family. */
  families: (model: PackModel) => {
    const { base } = model.columns;
    return (n: number) => (base[n]! < 0 ? model.familySize(n) : -1);
  },
  deepest: (model: PackModel) => {
    const { depth } = model.columns;
    return (n: number) => depth[n]!;
  },
  /** By the object's own size (for a delta, the size of the object it rebuilds). */
  largest: (model: PackModel) => {
    const { resultSize } = model.columns;
    return (n: number) => resultSize.get(n);
  },
  /** By the bytes its entry takes in the pack. */
  largestOnDisk: (model: PackModel) => {
    const { diskSize } = model.columns;
    return (n: number) => diskSize.get(n);
  },
  /** By the number of direct delta children: the bases a delta base cache most wants to keep. */
  mostUsedBases: (model: PackModel) => (n: number) => model.children(n).length,
} satisfies Record<string, (model: PackModel) => (n: number) => number>;

export type RankingName = keyof typeof RANKINGS;

/** Whether `name` is a ranking of the table (own keys only: `toString` is not a ranking). */
export function isRankingName(name: string): name is RankingName {
  return Object.hasOwn(RANKINGS, name);
}

export type TopEntry = RankedObject;

/**
 * How many of each ranking a model file keeps (model-store.ts): `stats` lists 10 by default, and a
 * larger --top scans the columns as before.
 */
export const STORED_RANKING_HEAD = 100;
/** The rankings `stats` lists: the ones whose heads a model file keeps. */
export const STATS_RANKINGS = ['families', 'largest', 'largestOnDisk', 'deepest'] as const satisfies RankingName[];

/** The head of a ranking to keep with a model: its first `limit` objects. */
export function rankingHead(model: PackModel, ranking: RankingName, limit: number): RankingHead {
  return { limit, entries: topRanked(model, ranking, limit) };
}

/**
 * The k highest-ranked objects with their values (a sorted buffer of k: plenty for the small k the
 * CLI asks for), from the model's stored head of the ranking when it holds k.
 */
export function topRanked(model: PackModel, ranking: RankingName, k: number): TopEntry[] {
  if (k <= 0) return [];
  const head = model.rankingHead(ranking);
  // The head is the ranking's first `limit` objects, ties in idx order as below: its first k are these.
  if (head && k <= head.limit) return head.entries.slice(0, k).map((entry) => ({ ...entry }));
  const valueOf = RANKINGS[ranking](model);
  const best: TopEntry[] = [];
  for (let n = 0; n < model.count; n++) {
    const value = valueOf(n);
    if (value < 0) continue;
    if (best.length === k && value <= best[k - 1]!.value) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]!.value < value) at--;
    best.splice(at, 0, { object: n, value });
    if (best.length > k) best.pop();
  }
  return best;
}

/**
 * Every ranked object, highest first (the Packs view's paged lists). Sorting 849k numbers takes
 * tens of milliseconds; keys are packed into one Float64Array so the engine's native numeric sort
 * does the work (no comparator callback per pair).
 */
export function rankedOrder(model: PackModel, ranking: RankingName): Uint32Array {
  const valueOf = RANKINGS[ranking](model);
  const count = model.count;
  const members: number[] = [];
  let maxValue = 0;
  for (let n = 0; n < count; n++) {
    const value = valueOf(n);
    if (value < 0) continue;
    members.push(n);
    if (value > maxValue) maxValue = value;
  }
  const tieRange = Math.max(1, count);
  if ((maxValue + 1) * tieRange < Number.MAX_SAFE_INTEGER) {
    // key = (maxValue − value) · N + n: ascending keys are descending values, ties in idx order.
    const keys = new Float64Array(members.length);
    for (let i = 0; i < members.length; i++) {
      const n = members[i]!;
      keys[i] = (maxValue - valueOf(n)) * tieRange + n;
    }
    keys.sort();
    const order = new Uint32Array(keys.length);
    for (let i = 0; i < keys.length; i++) order[i] = keys[i]! % tieRange;
    return order;
  }
  members.sort((a, b) => valueOf(b) - valueOf(a) || a - b);
  return Uint32Array.from(members);
}
