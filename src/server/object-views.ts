import * as path from 'node:path';
import { TYPE_NAMES } from '../core/format/pack-file.ts';
import type { PackModel } from '../core/model/pack-model.ts';
import { rankedOrder, type RankingName } from '../core/model/rankings.ts';
import type {
  ObjectDetails,
  ObjectItem,
  ObjectListFilter,
  ObjectListKind,
  ObjectListResult,
} from '../protocol/server-protocol.ts';
import type { ObjectLocation } from '../core/model/object-store.ts';
import type { ObjectNames } from '../core/documents/stats-document.ts';

/** Names of object `n` (its path, a commit's subject) for a list row. */
type NameObject = (n: number) => ObjectNames;

export function objectItem(model: PackModel, n: number, names?: NameObject): ObjectItem {
  const c = model.columns;
  return {
    ...names?.(n),
    oid: model.oidHex(n),
    type: TYPE_NAMES[c.type[n]!]!,
    inPackType: TYPE_NAMES[c.inPackType[n]!]!,
    size: c.resultSize.get(n),
    diskSize: c.diskSize.get(n),
    offset: c.offset[n]!,
    depth: c.depth[n]!,
    children: model.children(n).length,
    familySize: model.familySize(n),
  };
}

export function objectDetails(location: ObjectLocation, repository: { id: string; name: string }): ObjectDetails {
  const { model, object, pack } = location;
  const chain = model.chain(object).map((n) => objectItem(model, n));
  return {
    ...chain[0]!,
    repository: repository.id,
    repositoryName: repository.name,
    pack: pack.files.pack,
    packName: path.basename(pack.files.pack),
    chain,
    root: chain[chain.length - 1]!.oid,
  };
}

/** Whole-pack orders for the paged lists (core/model/rankings.ts), built once per model and list kind. */
export class RankedLists {
  private orders = new WeakMap<PackModel, Map<RankingName, Uint32Array>>();

  clear(): void {
    this.orders = new WeakMap();
  }

  /** One filtered order is kept per list beside the whole one: paging a filtered list re-filters nothing. */
  private filtered = new WeakMap<Uint32Array, { key: string; order: Uint32Array }>();

  list(
    model: PackModel,
    kind: Exclude<ObjectListKind, 'children'>,
    start: number,
    count: number,
    filter?: ObjectListFilter,
    names?: NameObject,
  ): ObjectListResult {
    let byKind = this.orders.get(model);
    if (!byKind) this.orders.set(model, (byKind = new Map()));
    let order = byKind.get(kind);
    if (!order) byKind.set(kind, (order = rankedOrder(model, kind)));
    if (filter === undefined || isEmptyFilter(filter)) return page(model, order, start, count, names);
    const key = JSON.stringify([filter.types ?? null, filter.minDepth ?? null, filter.maxDepth ?? null]);
    let kept = this.filtered.get(order);
    if (kept?.key !== key) this.filtered.set(order, (kept = { key, order: filterOrder(model, order, filter) }));
    return page(model, kept.order, start, count, names);
  }
}

function isEmptyFilter(filter: ObjectListFilter): boolean {
  return filter.types === undefined && filter.minDepth === undefined && filter.maxDepth === undefined;
}

/** The members of `order` (kept in its order) whose type and depth pass `filter`. */
export function filterOrder(model: PackModel, order: Uint32Array, filter: ObjectListFilter): Uint32Array {
  const { type, depth } = model.columns;
  const types = filter.types === undefined ? undefined : new Set<string>(filter.types);
  const minDepth = filter.minDepth ?? 0;
  const maxDepth = filter.maxDepth ?? Number.POSITIVE_INFINITY;
  const kept: number[] = [];
  for (const n of order) {
    const d = depth[n]!;
    if (d < minDepth || d > maxDepth) continue;
    if (types !== undefined && !types.has(TYPE_NAMES[type[n]!]!)) continue;
    kept.push(n);
  }
  return Uint32Array.from(kept);
}

export function listChildren(
  model: PackModel,
  n: number,
  start: number,
  count: number,
  names?: NameObject,
): ObjectListResult {
  return page(model, model.children(n), start, count, names);
}

function page(
  model: PackModel,
  order: Uint32Array,
  start: number,
  count: number,
  names?: NameObject,
): ObjectListResult {
  const from = Math.max(0, Math.min(Math.floor(start), order.length));
  const to = Math.min(order.length, from + Math.max(0, Math.floor(count)));
  const items: ObjectItem[] = [];
  for (let i = from; i < to; i++) items.push(objectItem(model, order[i]!, names));
  return { total: order.length, items };
}
