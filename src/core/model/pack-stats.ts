import { TYPE_NAMES } from '../format/pack-file.ts';
import type { CombinedStats, ObjectNames, ObjectSummary, PackStats, Totals } from '../documents/stats-document.ts';
import type { PackModel } from './pack-model.ts';
import { topRanked } from './rankings.ts';

/** Names of object `n` for the lists (its path, a commit's subject); none when absent. */
export type NameObject = (n: number) => ObjectNames;

export function objectSummary(model: PackModel, n: number, names?: NameObject): ObjectSummary {
  const c = model.columns;
  return {
    oid: model.oidHex(n),
    type: TYPE_NAMES[c.type[n]!]!,
    size: c.resultSize.get(n),
    diskSize: c.diskSize.get(n),
    depth: c.depth[n]!,
    ...names?.(n),
  };
}

export function packStats(model: PackModel, top: number, names?: NameObject): PackStats {
  const counts = model.counts();
  const histogram = model.depthHistogram();
  const bytes = model.byteTotals();
  const totals = totalsFrom(
    model.count,
    counts.byType as Totals['byType'],
    { ofs: counts.ofsDeltas, ref: counts.refDeltas },
    histogram,
    bytes,
    model.familyCount(),
  );
  return {
    pack: model.files.pack,
    checksum: model.checksumHex,
    packVersion: model.packVersion,
    idxVersion: model.index.version,
    hasRev: model.files.rev !== undefined,
    objectFormat: model.hash.name,
    packFileBytes: model.packSize,
    ...totals,
    largestFamilies: topRanked(model, 'families', top).map(({ object, value }) => ({
      root: model.oidHex(object),
      type: model.typeName(object),
      objects: value,
      ...names?.(object),
    })),
    largestObjects: topRanked(model, 'largest', top).map(({ object }) => objectSummary(model, object, names)),
    largestOnDisk: topRanked(model, 'largestOnDisk', top).map(({ object }) => objectSummary(model, object, names)),
    deepestObjects: topRanked(model, 'deepest', top).map(({ object }) => objectSummary(model, object, names)),
  };
}

function totalsFrom(
  objects: number,
  byType: Totals['byType'],
  deltas: Totals['deltas'],
  depthHistogram: number[],
  bytes: Totals['bytes'],
  families: number,
): Totals {
  let depthSum = 0;
  for (let d = 1; d < depthHistogram.length; d++) depthSum += d * depthHistogram[d]!;
  const deltaCount = objects - (depthHistogram[0] ?? 0);
  return {
    objects,
    byType,
    deltas,
    depthHistogram,
    maxDepth: depthHistogram.length - 1,
    meanDepth: objects === 0 ? 0 : round3(depthSum / objects),
    meanDeltaDepth: deltaCount === 0 ? 0 : round3(depthSum / deltaCount),
    bytes,
    families,
  };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Sums per-pack statistics; the top lists are merged across packs. */
export function combineStats(packs: PackStats[], top: number): CombinedStats {
  const byType = { commit: 0, tree: 0, blob: 0, tag: 0 };
  const deltas = { ofs: 0, ref: 0 };
  const histogram: number[] = [0];
  const bytes = { inflated: 0, onDisk: 0 };
  let objects = 0;
  let families = 0;
  for (const p of packs) {
    objects += p.objects;
    families += p.families;
    for (const key of Object.keys(byType) as (keyof typeof byType)[]) byType[key] += p.byType[key];
    deltas.ofs += p.deltas.ofs;
    deltas.ref += p.deltas.ref;
    bytes.inflated += p.bytes.inflated;
    bytes.onDisk += p.bytes.onDisk;
    p.depthHistogram.forEach((n, d) => {
      while (histogram.length <= d) histogram.push(0);
      histogram[d]! += n;
    });
  }
  const byValue = <T>(items: T[], value: (t: T) => number): T[] =>
    [...items].sort((a, b) => value(b) - value(a)).slice(0, top);
  return {
    ...totalsFrom(objects, byType, deltas, histogram, bytes, families),
    largestObjects: byValue(
      packs.flatMap((p) => p.largestObjects),
      (o) => o.size,
    ),
    deepestObjects: byValue(
      packs.flatMap((p) => p.deepestObjects),
      (o) => o.depth,
    ),
    largestFamilies: byValue(
      packs.flatMap((p) => p.largestFamilies),
      (f) => f.objects,
    ),
  };
}
