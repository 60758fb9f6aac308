// Imports nothing: the protocol (and through it the webviews) uses this shape as a type.

/**
 * A cache policy as the help, the errors, the sweep defaults and the Cache Lab list it (the server's
 * `packscope/policies` sends these as they are): plain JSON, so the webview can show it too.
 */
export interface PolicyDescription {
  /** What a spec starts with, before any `:ARGUMENT`. */
  name: string;
  /** As the help and the errors show it, e.g. `admit-max:SIZE`. */
  spec: string;
  /** The help's lines next to the spec (continuation lines are indented under the first). */
  help: string[];
  /** A reference bound rather than something Git could run. */
  referenceBound: boolean;
  /**
   * The real build of git this policy was checked against, e.g. `git 2.55.0 + admit-max.patch`
   * (bench/git-patches/, docs/policies.md): every cell of bench/policies.bench.ts, on two real
   * repositories, four commands and six limits, equal to that build's trace lines and inflations.
   * Absent: a what-if no program has run, its numbers the model's alone.
   */
  checkedAgainst?: string;
  /** The spec the Cache Lab offers as a checkbox (and selects by default); absent: not offered. */
  cacheLab?: string;
  /** One of `packscope sweep`'s default --policies. */
  sweepDefault?: boolean;
}
