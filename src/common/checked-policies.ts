/**
 * Which policies of a table were checked against a real build of git (docs/policies.md): the note
 * `packscope sweep`, `packscope simulate` and the Cache Lab print under their numbers, so that a
 * what-if checked against a patched git reads apart from one only the model has run.
 */

/** The cells' policies that name a build, in the order they come, each once. */
export function checkedPolicies(
  cells: readonly { policy: string; checkedAgainst?: string | null }[],
): { policy: string; build: string }[] {
  const seen = new Map<string, string>();
  for (const cell of cells)
    if (cell.checkedAgainst && !seen.has(cell.policy)) seen.set(cell.policy, cell.checkedAgainst);
  return [...seen].map(([policy, build]) => ({ policy, build }));
}

/** `policy  admit-max:1m (checked against git 2.55.0 + admit-max.patch)` — the words after a policy's name. */
export function checkedSuffix(checkedAgainst: string | null | undefined): string {
  return checkedAgainst ? ` (checked against ${checkedAgainst})` : '';
}

/** The table's footnote, or undefined when no policy in it was checked against a build. */
export function checkedAgainstNote(
  cells: readonly { policy: string; checkedAgainst?: string | null }[],
): string | undefined {
  const checked = checkedPolicies(cells);
  if (checked.length === 0) return undefined;
  return `checked against real builds of git (docs/policies.md): ${checked.map((c) => `${c.policy}: ${c.build}`).join('; ')}`;
}
