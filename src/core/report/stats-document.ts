/**
 * The shapes of `packscope stats --json` ("packscope.stats/1", docs/json.md) and of the server's
 * pack summary. Shapes only, importing nothing: the webviews type-check the protocol, and with it
 * these files, without Node's types.
 */

export interface ObjectSummary {
  oid: string;
  type: string;
  /** Size of the object itself (result size for deltas). */
  size: number;
  diskSize: number;
  depth: number;
}

export interface FamilySummary {
  root: string;
  type: string;
  objects: number;
}

export interface Totals {
  objects: number;
  byType: { commit: number; tree: number; blob: number; tag: number };
  deltas: { ofs: number; ref: number };
  /** depthHistogram[d] = objects at depth d; [0] counts non-deltas. */
  depthHistogram: number[];
  maxDepth: number;
  /** Mean depth over all objects. */
  meanDepth: number;
  /** Mean depth over deltas only (0 when there are none). */
  meanDeltaDepth: number;
  bytes: { inflated: number; onDisk: number };
  families: number;
}

export interface PackStats extends Totals {
  pack: string;
  checksum: string;
  packVersion: number;
  idxVersion: number;
  hasRev: boolean;
  objectFormat: string;
  packFileBytes: number;
  largestFamilies: FamilySummary[];
  largestObjects: ObjectSummary[];
  largestOnDisk: ObjectSummary[];
  deepestObjects: ObjectSummary[];
}

/** `total` of the stats document: the packs' totals, their top lists merged. */
export interface CombinedStats extends Totals {
  largestObjects: ObjectSummary[];
  deepestObjects: ObjectSummary[];
  largestFamilies: FamilySummary[];
}

export interface StatsDocument {
  schema: 'packscope.stats/1';
  repository: { gitDir: string; objectFormat: string };
  packs: PackStats[];
  total: CombinedStats;
}

/**
 * One pack's model at a glance (the Packs view's Summary node): the counts of PackStats, with the
 * mean depth unrounded and no top lists.
 */
export type PackOverview = Pick<PackStats, 'objects' | 'byType' | 'deltas' | 'depthHistogram' | 'maxDepth' | 'meanDepth' | 'bytes' | 'packFileBytes' | 'families' | 'packVersion' | 'idxVersion' | 'hasRev' | 'checksum'>;
