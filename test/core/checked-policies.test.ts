// A policy says it was checked against a real build of git only where bench/policies.bench.ts
// found it so: the results in bench/results/ are that bench's real output (its --out files, on
// git/git and libgit2/libgit2, committed as they came), and the labels must follow them.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkedAgainstNote, checkedSuffix } from '../../src/common/checked-policies.ts';
import { describePolicies, parsePolicy } from '../../src/core/sim/policy-registry.ts';
import { sweepTableNotes } from '../../src/presentation/sweep-table.ts';
import type { SweepResult } from '../../src/protocol/server-protocol.ts';

interface BenchCell {
  repo: string;
  command: string;
  policy: string;
  build: string;
  limit: string;
  exact: boolean;
  cpuSeconds?: number;
}

const resultsDir = path.resolve(import.meta.dirname, '..', '..', 'bench', 'results');
const cells: BenchCell[] = fs
  .readdirSync(resultsDir)
  .filter((file) => /^policies-.*\.json$/.test(file))
  .flatMap((file) => (JSON.parse(fs.readFileSync(path.join(resultsDir, file), 'utf8')) as { cells: BenchCell[] }).cells)
  .filter((cell) => cell.cpuSeconds === undefined);
const nameOf = (spec: string): string => spec.split(':')[0]!;

test('every policy labelled as checked has every bench cell exact: two repositories, four commands, six limits', () => {
  const checked = describePolicies().filter((p) => p.checkedAgainst !== undefined);
  assert.ok(checked.length >= 8, 'git, git-legacy and the six patched what-ifs');
  for (const policy of checked) {
    const mine = cells.filter((c) => nameOf(c.policy) === policy.name);
    const repos = new Set(mine.map((c) => c.repo));
    const commands = new Set(mine.map((c) => `${c.repo} ${c.command}`));
    const limits = new Set(mine.map((c) => c.limit));
    assert.ok(repos.size >= 2 && commands.size >= 8 && limits.size >= 6, `${policy.name}: ${mine.length} cells`);
    for (const cell of mine) {
      assert.ok(cell.exact, `${policy.name} ${cell.repo} ${cell.command} ${cell.limit} differs from the real build`);
      assert.ok(
        cell.build.startsWith(policy.checkedAgainst!.split(',')[0]!),
        `${cell.build} is not ${policy.checkedAgainst}`,
      );
    }
  }
});

test('a policy the bench never ran says nothing of a real build', () => {
  const ran = new Set(cells.map((c) => nameOf(c.policy)));
  for (const policy of describePolicies())
    if (!ran.has(policy.name)) assert.equal(policy.checkedAgainst, undefined, policy.name);
  assert.equal(parsePolicy('belady').checkedAgainst, undefined);
  assert.equal(parsePolicy('admit-max:1m').checkedAgainst, 'git 2.55.0 + admit-max.patch');
});

test('the note and the suffix name each checked policy once, and nothing for the others', () => {
  const cell = (policy: string, checkedAgainst: string | null) => ({ policy, checkedAgainst });
  assert.equal(
    checkedAgainstNote([
      cell('gdsf', 'git 2.55.0 + gdsf.patch'),
      cell('belady', null),
      cell('gdsf', 'git 2.55.0 + gdsf.patch'),
    ]),
    'checked against real builds of git (docs/policies.md): gdsf: git 2.55.0 + gdsf.patch',
  );
  assert.equal(checkedAgainstNote([cell('belady', null)]), undefined);
  assert.equal(checkedSuffix('git 2.55.0 + gdsf.patch'), ' (checked against git 2.55.0 + gdsf.patch)');
  assert.equal(checkedSuffix(null), '');
  const sweep = {
    recording: {},
    results: [
      { policy: 'admit-max:1m', limit: 0, exact: true, bounds: null, checkedAgainst: 'git 2.55.0 + admit-max.patch' },
      {
        policy: 'belady',
        limit: 0,
        exact: false,
        bounds: null,
        exactness: 'no bounds for this policy',
        checkedAgainst: null,
      },
    ],
  } as unknown as SweepResult;
  assert.deepEqual(sweepTableNotes(sweep), [
    '≈: not exact and no bounds (no bounds for this policy)',
    'checked against real builds of git (docs/policies.md): admit-max:1m: git 2.55.0 + admit-max.patch',
  ]);
});
