/**
 * git-sizer's figures and their levels of concern (`packscope stats --concerns`, the `concerns`
 * field of `packscope.stats/1`, and the server's `packscope/concerns`): docs/json.md. Shapes only.
 */

/** The metrics in git-sizer's order, named as its `--json` (version 2) names them. */
export type ConcernKey =
  | 'uniqueCommitCount'
  | 'uniqueCommitSize'
  | 'uniqueTreeCount'
  | 'uniqueTreeSize'
  | 'uniqueTreeEntries'
  | 'uniqueBlobCount'
  | 'uniqueBlobSize'
  | 'uniqueTagCount'
  | 'referenceCount'
  | 'maxCommitSize'
  | 'maxCommitParentCount'
  | 'maxTreeEntries'
  | 'maxBlobSize'
  | 'maxHistoryDepth'
  | 'maxTagDepth'
  | 'maxCheckoutTreeCount'
  | 'maxCheckoutPathDepth'
  | 'maxCheckoutPathLength'
  | 'maxCheckoutBlobCount'
  | 'maxCheckoutBlobSize'
  | 'maxCheckoutLinkCount'
  | 'maxCheckoutSubmoduleCount';

export interface ConcernMetric {
  key: ConcernKey;
  /** git-sizer's section and its row name: `Biggest objects › Blobs`, `Maximum size`. */
  section: string;
  name: string;
  /** git-sizer's description of the row. */
  description: string;
  value: number;
  /** `B` for bytes, `` for a count. */
  unit: '' | 'B';
  /** git-sizer's reference value: a value this large is level 1. */
  referenceValue: number;
  /** value / referenceValue, unrounded (git-sizer's `levelOfConcern`). */
  level: number;
  /** As git-sizer's table prints the level: a star per whole level, 30 `!` above 30 or when the value saturated, `` below 1. */
  stars: string;
  /** The value reached git-sizer's 32-bit counter's top (4,294,967,295) and stays there, as in git-sizer. */
  saturated?: boolean;
  /** The object that has the value (the first met with it), when the row is about one object. */
  object?: string;
}

/** A reference group as git-sizer counts them (its default groups; `sizer.refgroup` settings are not read). */
export interface ConcernRefGroup {
  symbol: string;
  name: string;
  count: number;
}

export interface ConcernsDocument {
  /** How the objects were chosen: every object reachable from a ref under `refs/` (git-sizer's default roots). */
  rule: string;
  refGroups: ConcernRefGroup[];
  metrics: ConcernMetric[];
  /** Every object the refs lead to was read; otherwise `problems` (at most 10) says why. */
  complete: boolean;
  problems: string[];
}
