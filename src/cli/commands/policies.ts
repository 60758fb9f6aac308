import { parseArgs } from 'node:util';
import type { PolicyDescription } from '../../core/documents/policy-description.ts';
import { describePolicies } from '../../core/sim/policy-registry.ts';
import { formatTable, writeJson } from '../output.ts';
import type { Command } from '../command.ts';

const policiesHelp = `usage: packscope policies [--json]

Lists the delta base cache policies that simulate and sweep replay: for each, its spec as --policy
and --policies take it, whether it is a reference bound rather than something Git could run, the
real build of git it was checked against (docs/policies.md; empty: a what-if only the model has
run), and what it does. In a spec, [:X] is an optional argument, a word in capitals stands for a value
(SIZE: bytes, or k, m, g suffixes) and a|b are the choices.

--json prints the "packscope.policies/1" document described in docs/json.md: the rows the
server's packscope/policies request sends, as it sends them.`;

/** `packscope.policies/1`: packscope/policies' rows under a schema name, as every --json document has. */
interface PoliciesDocument {
  schema: 'packscope.policies/1';
  policies: PolicyDescription[];
}

/** One row per help line; a policy's further help lines leave the spec, bound and build cells empty. */
function policyRows(policy: PolicyDescription): string[][] {
  const [first = '', ...rest] = policy.help;
  return [
    [policy.spec, policy.referenceBound ? 'yes' : 'no', policy.checkedAgainst ?? '', first],
    ...rest.map((line) => ['', '', '', line]),
  ];
}

function runPolicies(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } } });
  const policies = describePolicies();
  if (values.json) {
    const document: PoliciesDocument = { schema: 'packscope.policies/1', policies };
    writeJson(document);
    return 0;
  }
  const rows = [['spec', 'reference bound', 'checked against', 'help'], ...policies.flatMap(policyRows)];
  process.stdout.write(`${formatTable(rows).join('\n')}\n`);
  return 0;
}

export const policiesCommand: Command = {
  name: 'policies',
  summary: 'policies [--json]                         the cache policies simulate and sweep replay',
  help: policiesHelp,
  run: (argv) => runPolicies(argv),
};
