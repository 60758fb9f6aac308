/**
 * A delta family over the Pack Map: every member's offset and, for each delta, the arc
 * from it to its base (the base git reads first when it rebuilds the delta), so that where a
 * family lies in the file and how far its chains jump can be seen. A family is the objects sharing
 * a chain root (PackModel.rootOf, as the Packs view's families); bases in another pack (REF_DELTA
 * across packs, thin packs) cannot be drawn and are counted.
 */
import type { PackModel } from '../model/pack-model.ts';

export interface FamilyArcs {
  /** Object number of the family's root. */
  root: number;
  /** Objects in the family (PackModel.familySize). */
  members: number;
  /** Offsets of the members drawn, in pack order. */
  memberOffsets: number[];
  /** [delta offset, base offset] per delta drawn. */
  arcs: [number, number][];
  /** Deltas drawn whose base is not in this pack (no arc). */
  externalBases: number;
  /** More members than `maxMembers`: the first ones in pack order are drawn. */
  truncated: boolean;
}

/** Members (and so arcs) sent at most. */
export const MAX_FAMILY_MEMBERS = 20_000;

export function familyArcs(model: PackModel, object: number, maxMembers = MAX_FAMILY_MEMBERS): FamilyArcs {
  if (!Number.isInteger(object) || object < 0 || object >= model.count)
    throw new RangeError(`object ${object} is not in the pack (${model.count} objects)`);
  const root = model.rootOf(object);
  const members = model.familySize(object);
  const { offset, base, byOffset } = model.columns;
  const memberOffsets: number[] = [];
  const arcs: [number, number][] = [];
  let truncated = false;
  let externalBases = 0;
  // In pack order, so that a truncated family shows its first members in the file.
  for (let p = 0; p < model.count; p++) {
    const n = byOffset[p]!;
    if (model.rootOf(n) !== root) continue;
    if (memberOffsets.length === maxMembers) {
      truncated = true;
      break;
    }
    memberOffsets.push(offset[n]!);
    if (!model.isDelta(n)) continue;
    const b = base[n]!;
    if (b >= 0) arcs.push([offset[n]!, offset[b]!]);
    else externalBases++;
  }
  return { root, members, memberOffsets, arcs, externalBases, truncated };
}
