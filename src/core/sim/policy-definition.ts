import type { BranchingCache, DeltaBaseCache } from './cache-policy.ts';
import type { SimCounts } from '../documents/simulation-documents.ts';
import { replayGitReads } from './git-read-path.ts';
import type { PolicyDescription } from '../documents/policy-description.ts';
import type { SimObjects } from './sim-objects.ts';

/** One policy, ready to replay reads at a limit. `name` is the spec it was parsed from. */
export interface PolicyRunner {
  name: string;
  /** Shown next to results: what the policy is and where its rules come from. */
  description: string;
  /** A reference bound rather than something Git could run. */
  referenceBound: boolean;
  /** PolicyDescription.checkedAgainst: the real build the policy was checked against, if any. */
  checkedAgainst: string | undefined;
  run(objects: SimObjects, reads: Int32Array, limit: number): SimCounts;
  /**
   * A fresh cache whose state can be copied and compared, when the policy has one: what the bounds
   * for reads a recording may hide need (hidden-reads.ts). Without it a cell has no bounds.
   */
  branchingCache?: ((objects: SimObjects, reads: Int32Array, limit: number) => BranchingCache) | undefined;
}

/** What a policy's row makes from one spec: its description for results and its replay. */
export interface PolicyReplay {
  description: string;
  run(objects: SimObjects, reads: Int32Array, limit: number): SimCounts;
  branchingCache?: PolicyRunner['branchingCache'];
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
  makeCache: (objects: SimObjects, reads: Int32Array, limit: number) => DeltaBaseCache,
): PolicyReplay {
  return {
    description,
    run: (objects, reads, limit) => replayGitReads(objects, reads, makeCache(objects, reads, limit)),
  };
}

/** onGitReadPath for a cache that can be copied and compared: its cells get bounds (hidden-reads.ts). */
export function onGitReadPathBranching(
  description: string,
  makeCache: (objects: SimObjects, reads: Int32Array, limit: number) => BranchingCache,
): PolicyReplay {
  return { ...onGitReadPath(description, makeCache), branchingCache: makeCache };
}
