/**
 * The shapes of `packscope stats --json` ("packscope.stats/1", docs/json.md) and of the server's
 * pack summary. Shapes only, importing nothing: the webviews type-check the protocol, and with it
 * these files, without Node's types.
 */

import type { ConcernsDocument } from './concerns-document.ts';
import type { IntroducedBy, PathWalkSummary } from './object-paths-document.ts';
import type { RepositoryLayout } from './repository-layout-document.ts';

/** What names an object for a person: its path (trees, blobs; a tag's name) and a commit's or tag's subject. */
export interface ObjectNames {
  /** The name `git rev-list --objects --all` prints for it; null when the walk did not reach it. Absent when no walk ran (--no-paths). */
  path?: string | null;
  /** A commit's or tag's subject (`git log -1 --format=%s`). */
  subject?: string;
  /** The server only: the repository's walk has not finished, so the path is not known yet ("resolving names…"). */
  namesPending?: true;
  /** The server only, with namesPending: how far the naming is ("git rev-list has listed 412,000 of 849,014 objects"). */
  namesProgress?: string;
  /** A blob's or tree's introducing commit, where it was asked for (an object or its document, a hover). */
  introducedBy?: IntroducedBy;
}

export interface ObjectSummary extends ObjectNames {
  oid: string;
  type: string;
  /** Size of the object itself (result size for deltas). */
  size: number;
  diskSize: number;
  depth: number;
}

export interface FamilySummary extends ObjectNames {
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
  /** Pack kinds and markers, the multi-pack-index, loose objects and alternates; absent for a single pack file. */
  layout?: RepositoryLayout;
  /** The walk that named the objects of the lists; absent with --no-paths. */
  pathWalk?: Omit<PathWalkSummary, 'elapsedMs'>;
  /** git-sizer's figures and levels of concern; present with --concerns. */
  concerns?: ConcernsDocument;
}

/**
 * One pack's model at a glance (the Packs view's Summary node): the counts of PackStats, with the
 * mean depth unrounded and no top lists.
 */
export type PackOverview = Pick<
  PackStats,
  | 'objects'
  | 'byType'
  | 'deltas'
  | 'depthHistogram'
  | 'maxDepth'
  | 'meanDepth'
  | 'bytes'
  | 'packFileBytes'
  | 'families'
  | 'packVersion'
  | 'idxVersion'
  | 'hasRev'
  | 'checksum'
>;
