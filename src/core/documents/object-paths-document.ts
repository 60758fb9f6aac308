/**
 * What a walk for object paths reports (`pathWalk` of `packscope object --json` and
 * `packscope stats --json`, docs/json.md). Shapes only, importing nothing.
 */
export interface PathWalkSummary {
  /** The rule each name follows, in words. */
  rule: string;
  /** Refs and HEADs the walk started from. */
  tips: number;
  commits: number;
  trees: number;
  /** Objects given a name (trees, blobs and tags). */
  named: number;
  /** Objects the walk needed that neither a pack nor a loose file holds (a broken or partial repository). */
  missing: number;
  /** True when the walk ran to its end with every object it needed: then every name is git's. */
  complete: boolean;
  /** Why it is not complete: the first few problems, each naming its object. */
  problems: string[];
  /** Bytes inflated or rebuilt by deltas during the walk. */
  bytesRebuilt: number;
  elapsedMs: number;
  /**
   * Who named the objects: `git rev-list` (its output parsed; then nothing was rebuilt, and the
   * counts are of what it listed) or PackScope's own `walk`. Absent in a walk stored before
   * the field was added (it was a walk).
   */
  namesFrom?: 'git rev-list' | 'walk';
}

/**
 * The commit that introduced a blob or tree under its path (INTRODUCING_RULE,
 * src/core/git/introducing-commit.ts): `introducedBy` of `packscope object --json` and of the
 * server's objects (docs/json.md).
 */
export interface IntroducedBy {
  /** The commit's id; null when none was found, git could not be asked, or (the server) while git looks. */
  commit: string | null;
  /** Its subject (`git log -1 --format=%s`), when the commit is in a pack. */
  subject?: string;
  /** The server only: git is still looking ("resolving names…"); ask again. */
  resolving?: true;
  /** Why there is no commit: no commit adds it there, git may not run here, or git failed or took too long. */
  reason?: string;
}
