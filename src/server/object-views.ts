import * as path from 'node:path';
import { TYPE_NAMES } from '../core/format/pack-file.ts';
import type { PackModel } from '../core/model/pack-model.ts';
import type { ObjectDetails, ObjectItem, ObjectListKind, ObjectListResult } from '../protocol/server-protocol.ts';
import type { ObjectLocation } from '../core/model/object-store.ts';

export function objectItem(model: PackModel, n: number): ObjectItem {
  const c = model.columns;
  return {
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

/**
 * Whole-pack orders for the paged lists, built once per model and list kind. Sorting 849k numbers
 * takes tens of milliseconds; keys are packed into one Float64Array so the engine's native numeric
 * sort does the work (no comparator callback per pair).
 */
const orders = new WeakMap<PackModel, Map<ObjectListKind, Uint32Array>>();

export function listObjects(model: PackModel, kind: Exclude<ObjectListKind, 'children'>, start: number, count: number): ObjectListResult {
  let byKind = orders.get(model);
  if (!byKind) orders.set(model, (byKind = new Map()));
  let order = byKind.get(kind);
  if (!order) byKind.set(kind, (order = buildOrder(model, kind)));
  return page(model, order, start, count);
}

export function listChildren(model: PackModel, n: number, start: number, count: number): ObjectListResult {
  return page(model, model.children(n), start, count);
}

function page(model: PackModel, order: Uint32Array, start: number, count: number): ObjectListResult {
  const from = Math.max(0, Math.min(Math.floor(start), order.length));
  const to = Math.min(order.length, from + Math.max(0, Math.floor(count)));
  const items: ObjectItem[] = [];
  for (let i = from; i < to; i++) items.push(objectItem(model, order[i]!));
  return { total: order.length, items };
}

/** Object numbers ordered by value, largest first; ties by object number (idx order). */
function buildOrder(model: PackModel, kind: Exclude<ObjectListKind, 'children'>): Uint32Array {
  const c = model.columns;
  const count = model.count;
  const valueOf: (n: number) => number =
    kind === 'families' ? (n) => (c.base[n]! < 0 ? model.familySize(n) : -1)
    : kind === 'deepest' ? (n) => c.depth[n]!
    : kind === 'largest' ? (n) => c.resultSize.get(n)
    : (n) => c.diskSize.get(n);
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
