import * as path from 'node:path';
import { TYPE_NAMES } from '../core/format/pack-file.ts';
import type { PackModel } from '../core/model/pack-model.ts';
import { rankedOrder, type RankingName } from '../core/model/rankings.ts';
import type { ObjectDetails, ObjectItem, ObjectListKind, ObjectListResult } from '../protocol/server-protocol.ts';
import type { ObjectLocation } from '../core/model/object-store.ts';
import type { ObjectNames } from '../core/report/stats-document.ts';

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

  list(model: PackModel, kind: Exclude<ObjectListKind, 'children'>, start: number, count: number, names?: NameObject): ObjectListResult {
    let byKind = this.orders.get(model);
    if (!byKind) this.orders.set(model, (byKind = new Map()));
    let order = byKind.get(kind);
    if (!order) byKind.set(kind, (order = rankedOrder(model, kind)));
    return page(model, order, start, count, names);
  }
}

export function listChildren(model: PackModel, n: number, start: number, count: number, names?: NameObject): ObjectListResult {
  return page(model, model.children(n), start, count, names);
}

function page(model: PackModel, order: Uint32Array, start: number, count: number, names?: NameObject): ObjectListResult {
  const from = Math.max(0, Math.min(Math.floor(start), order.length));
  const to = Math.min(order.length, from + Math.max(0, Math.floor(count)));
  const items: ObjectItem[] = [];
  for (let i = from; i < to; i++) items.push(objectItem(model, order[i]!, names));
  return { total: order.length, items };
}
