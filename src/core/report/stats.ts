import type { PackModel } from '../model/pack-model.ts';
import type { ObjectStore, PackLocation } from '../model/object-store.ts';
import { readSubject } from '../model/commit-subject.ts';
import type { ObjectPaths } from '../model/object-paths.ts';
import { repositoryLayout } from '../model/repository-layout.ts';
import { combineStats, packStats, type NameObject } from '../model/pack-stats.ts';
import type { ObjectNames, PackOverview, PackStats, StatsDocument } from '../documents/stats-document.ts';

/** The walk's names, for the packs it walked (`packs[i]` is `paths.pathOf[i]`'s). */
export interface StatsPaths {
  packs: PackLocation[];
  paths: ObjectPaths;
}

/**
 * `packscope stats --json`: every pack of the store, in git's search order, then the totals.
 * `measure` wraps each pack's work (the CLI's progress); with `walked`, every listed object
 * carries its path and every listed commit or tag its subject.
 */
export function statsDocument(
  store: ObjectStore,
  top: number,
  measure: (pack: PackLocation, work: () => PackStats) => PackStats = (_, work) => work(),
  walked?: StatsPaths,
): StatsDocument {
  const packs = store.packs.map((pack) =>
    measure(pack, () =>
      packStats(store.model(pack), top, walked && namesIn(store.model(pack), walked.paths, walked.packs.indexOf(pack))),
    ),
  );
  return {
    schema: 'packscope.stats/1',
    repository: { gitDir: store.repository.gitDir, objectFormat: store.repository.hash.name },
    packs,
    total: combineStats(packs, top),
    // Every model is loaded by now, so prune-packable is exact.
    ...(store.singlePack ? {} : { layout: repositoryLayout(store, (oid) => store.locate(oid) !== undefined) }),
    ...(walked ? { pathWalk: withoutTiming(walked.paths.summary) } : {}),
  };
}

/**
 * Names the objects a stats document lists (built without `walked`), in place: what statsDocument
 * with `walked` would have built, key for key, without measuring the packs again (on git/git that
 * is a second or more, which the CLI spends while git names the objects). The totals' lists hold
 * the packs' own entries, so naming those names them too.
 */
export function addNames(document: StatsDocument, store: ObjectStore, walked: StatsPaths): void {
  store.packs.forEach((pack, i) => {
    const model = store.model(pack);
    const names = namesIn(model, walked.paths, walked.packs.indexOf(pack));
    const listed = document.packs[i]!;
    const name = (oid: string, entry: object): void => {
      const n = model.index.find(Buffer.from(oid, 'hex'));
      if (n >= 0) Object.assign(entry, names(n));
    };
    for (const family of listed.largestFamilies) name(family.root, family);
    for (const list of [listed.largestObjects, listed.largestOnDisk, listed.deepestObjects])
      for (const entry of list) name(entry.oid, entry);
  });
  document.pathWalk = withoutTiming(walked.paths.summary);
}

/**
 * The names of object `n`: a commit's or tag's subject, and the path of anything but a commit as
 * `pathOf` gives it (null: the walk found none; undefined: no walk to ask yet). One rule for the
 * CLI's lists and the server's hovers.
 */
export function objectNames(
  model: PackModel,
  n: number,
  pathOf: (n: number) => string | null | undefined,
): ObjectNames {
  const names: ObjectNames = {};
  const type = model.typeName(n);
  if (type === 'commit' || type === 'tag') {
    try {
      const subject = readSubject(model, n);
      if (subject !== undefined) names.subject = subject;
    } catch {
      // A commit too large to read for a list line or a hover keeps its id alone.
    }
  }
  if (type !== 'commit') {
    const path = pathOf(n);
    if (path !== undefined) names.path = path;
  }
  return names;
}

export function namesIn(model: PackModel, paths: ObjectPaths, position: number): NameObject {
  return (n) =>
    objectNames(model, n, () => {
      const node = position < 0 ? -1 : (paths.pathOf[position]![n] ?? -1);
      return node < 0 ? null : paths.table.path(node);
    });
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

/** The walk's summary as a document shows it: its time left out, so that the same packs give the same document (from the cache or not). */
export function withoutTiming<T extends { elapsedMs: number }>(summary: T): Omit<T, 'elapsedMs'> {
  const { elapsedMs: _elapsed, ...rest } = summary;
  return rest;
}
