import type { PackModel } from '../model/pack-model.ts';
import type { ObjectStore, PackLocation } from '../model/object-store.ts';
import { combineStats, packStats } from '../model/pack-stats.ts';
import type { PackOverview, PackStats, StatsDocument } from './stats-document.ts';

/** `packscope stats --json`: every pack of the store, in git's search order, then the totals. `measure` wraps each pack's work (the CLI's progress). */
export function statsDocument(store: ObjectStore, top: number, measure: (pack: PackLocation, work: () => PackStats) => PackStats = (_, work) => work()): StatsDocument {
  const packs = store.packs.map((pack) => measure(pack, () => packStats(store.model(pack), top)));
  return {
    schema: 'packscope.stats/1',
    repository: { gitDir: store.repository.gitDir, objectFormat: store.repository.hash.name },
    packs,
    total: combineStats(packs, top),
  };
}

/** The Packs view's summary of one pack's model. */
export function packOverview(model: PackModel): PackOverview {
  const counts = model.counts();
  const histogram = model.depthHistogram();
  let depthSum = 0;
  histogram.forEach((objects, depth) => (depthSum += objects * depth));
  return {
    objects: model.count,
    byType: counts.byType as PackOverview['byType'],
    deltas: { ofs: counts.ofsDeltas, ref: counts.refDeltas },
    depthHistogram: histogram,
    maxDepth: histogram.length - 1,
    meanDepth: model.count === 0 ? 0 : depthSum / model.count,
    bytes: model.byteTotals(),
    packFileBytes: model.packSize,
    families: model.familyCount(),
    packVersion: model.packVersion,
    idxVersion: model.index.version,
    hasRev: model.files.rev !== undefined,
    checksum: model.checksumHex,
  };
}
