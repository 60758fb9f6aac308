import type { BranchingCache, DeltaBaseCache } from './cache-policy.ts';
import type { SimCounts } from '../documents/simulation-documents.ts';
import { replayGitReads } from './git-read-path.ts';
import type { PolicyDescription } from '../documents/policy-description.ts';
import type { SimObjects } from './sim-objects.ts';

/**
 * What a policy works out from the reads alone, whatever the limit (Belady's next uses), for
 * replays at any limit to share: a sweep has it built once, in SharedArrayBuffers, and hands it to
 * the policy's cells in every worker thread (sweep.ts). Typed arrays only, so that it crosses to a
 * worker without a copy; its shape is the policy's own.
 */
export type ReadsPlan = object;

/** A replay's share of a plan built over a whole recording: the plan, and where the replay's reads start in it. */
export interface PlannedReads {
  plan: ReadsPlan;
  first: number;
}

/** One policy, ready to replay reads at a limit. `name` is the spec it was parsed from. */
export interface PolicyRunner {
  name: string;
  /** Shown next to results: what the policy is and where its rules come from. */
  description: string;
  /** A reference bound rather than something Git could run. */
  referenceBound: boolean;
  /** PolicyDescription.checkedAgainst: the real build the policy was checked against, if any. */
  checkedAgainst: string | undefined;
  /** `planned`: this policy's plan of the recording these reads belong to (planReads); without it the replay makes its own. */
  run(objects: SimObjects, reads: Int32Array, limit: number, planned?: PlannedReads): SimCounts;
  /**
   * The policy's plan of a recording whose processes start at `segmentStarts`, when it has one
   * (ReadsPlan); `shared`: in SharedArrayBuffers.
   */
  planReads?:
    ((objects: SimObjects, reads: Int32Array, segmentStarts: number[], shared: boolean) => ReadsPlan) | undefined;
  /**
   * For a policy some of whose evictions the limit does not make (git-legacy's slot collisions):
   * `run`, and how many of its evictions the limit made, which sweep.ts's LIMIT_REUSE asks of a
   * replay before it answers other limits. Without it every eviction is the limit's.
   */
  replayWithLimitEvictions?:
    | ((
        objects: SimObjects,
        reads: Int32Array,
        limit: number,
        planned?: PlannedReads,
      ) => { counts: SimCounts; limitEvictions: number })
    | undefined;
  /**
   * A fresh cache whose state can be copied and compared, when the policy has one: what the bounds
   * for reads a recording may hide need (hidden-reads.ts). Without it a cell has no bounds.
   */
  branchingCache?: ((objects: SimObjects, reads: Int32Array, limit: number) => BranchingCache) | undefined;
}

/** What a policy's row makes from one spec: its description for results and its replay. */
export interface PolicyReplay {
  description: string;
  run: PolicyRunner['run'];
  branchingCache?: PolicyRunner['branchingCache'];
  planReads?: PolicyRunner['planReads'];
  replayWithLimitEvictions?: PolicyRunner['replayWithLimitEvictions'];
}

/** One row of the policy table (policy-registry.ts); a policy's file exports its row. */
export interface PolicyDefinition extends PolicyDescription {
  /**
   * The replay for `spec` (this policy's name, then `:argument` when given); a bad argument throws
   * a usage error that names the spec.
   */
  make(argument: string | undefined, spec: string): PolicyReplay;
}

/** A policy that is one delta base cache behind Git's read path (git-internals §1.6). */
export function onGitReadPath(
  description: string,
  makeCache: (objects: SimObjects, reads: Int32Array, limit: number, planned?: PlannedReads) => DeltaBaseCache,
): PolicyReplay {
  return {
    description,
    run: (objects, reads, limit, planned) => replayGitReads(objects, reads, makeCache(objects, reads, limit, planned)),
  };
}

/** onGitReadPath for a cache that can be copied and compared: its cells get bounds (hidden-reads.ts). */
export function onGitReadPathBranching(
  description: string,
  makeCache: (objects: SimObjects, reads: Int32Array, limit: number) => BranchingCache,
): PolicyReplay {
  return { ...onGitReadPath(description, makeCache), branchingCache: makeCache };
}
