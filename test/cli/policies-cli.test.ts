// packscope policies: the CLI twin of the server's packscope/policies, from the one policy table.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { PolicyDescription } from '../../src/core/documents/policy-description.ts';
import { describePolicies, parsePolicy, POLICY_NAMES } from '../../src/core/sim/policy-registry.ts';
import { PoliciesRequest } from '../../src/protocol/server-protocol.ts';
import { runCli, tempDir } from '../support/git.ts';
import { LspServer } from '../support/lsp-server.ts';

test("policies --json carries the rows of the server's packscope/policies result, in the same field order", async (t) => {
  const root = tempDir(t, 'packscope-policies-cli-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
  });
  let served: PolicyDescription[];
  try {
    ({ policies: served } = await server.connection.sendRequest(PoliciesRequest, {}));
  } finally {
    assert.equal(await server.stop(), 0, 'the server exits cleanly after shutdown/exit');
  }
  const cli = runCli(['policies', '--json']);
  assert.equal(cli.status, 0, cli.stderr);
  assert.equal(cli.stderr, '');
  const document = JSON.parse(cli.stdout.toString('utf8')) as { schema: string; policies: PolicyDescription[] };
  assert.deepEqual(Object.keys(document), ['schema', 'policies']);
  assert.equal(document.schema, 'packscope.policies/1');
  assert.deepEqual(document.policies, served);
  assert.deepEqual(document.policies, describePolicies());
  // deepEqual ignores key order; the serialisations do not.
  assert.equal(JSON.stringify(document.policies), JSON.stringify(served));
});

/** Example values for the capitalised placeholders of a spec, as its help describes them. */
const PLACEHOLDER_EXAMPLES: Record<string, string> = { SIZE: '1m', SEED: '0x5555' };

/** The concrete specs a shown spec stands for: `[:X]` with and without, `a|b` each, `SIZE` an example. */
function concreteSpecs(shown: string): string[] {
  const optional = /^(.*)\[(.*)\]$/.exec(shown);
  if (optional !== null) return [...concreteSpecs(optional[1]!), ...concreteSpecs(optional[1]! + optional[2]!)];
  const [name, argument] = shown.split(/:(.*)/s) as [string, string | undefined];
  if (argument === undefined) return [name];
  return argument.split('|').map((choice) => {
    if (!/^[A-Z]+$/.test(choice)) return `${name}:${choice}`;
    const example = PLACEHOLDER_EXAMPLES[choice];
    assert.ok(example !== undefined, `no example value for the placeholder ${choice} of "${shown}"`);
    return `${name}:${example}`;
  });
}

test('policies lists every spec, whether it is a reference bound, the build it was checked against, and its help; every spec parses', () => {
  const cli = runCli(['policies']);
  assert.equal(cli.status, 0, cli.stderr);
  const [header = '', ...lines] = cli.stdout.toString('utf8').trimEnd().split('\n');
  const boundColumn = header.indexOf('reference bound');
  const checkedColumn = header.indexOf('checked against', boundColumn);
  const helpColumn = header.indexOf('help', checkedColumn);
  assert.ok(
    header.startsWith('spec ') && boundColumn > 0 && checkedColumn > boundColumn && helpColumn > checkedColumn,
    header,
  );
  const shown: { spec: string; referenceBound: string; checkedAgainst: string; help: string[] }[] = [];
  for (const line of lines) {
    const spec = line.slice(0, boundColumn).trim();
    const help = line.slice(helpColumn);
    if (spec === '') shown.at(-1)!.help.push(help);
    else
      shown.push({
        spec,
        referenceBound: line.slice(boundColumn, checkedColumn).trim(),
        checkedAgainst: line.slice(checkedColumn, helpColumn).trim(),
        help: [help],
      });
  }
  assert.deepEqual(
    shown.map((row) => row.spec),
    POLICY_NAMES,
  );
  assert.deepEqual(
    shown,
    describePolicies().map((policy) => ({
      spec: policy.spec,
      referenceBound: policy.referenceBound ? 'yes' : 'no',
      checkedAgainst: policy.checkedAgainst ?? '',
      help: policy.help,
    })),
  );
  for (const row of shown) {
    for (const spec of concreteSpecs(row.spec)) {
      const runner = parsePolicy(spec);
      assert.equal(runner.name, spec);
      assert.equal(runner.referenceBound, row.referenceBound === 'yes', spec);
    }
  }
});

test('policies --help and the overview line; an unknown option or an argument is a usage error', () => {
  const help = runCli(['policies', '--help']);
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout.toString('utf8'), /^usage: packscope policies \[--json\]\n\n/);
  assert.equal(runCli(['help', 'policies']).stdout.toString('utf8'), help.stdout.toString('utf8'));
  const overview = runCli(['--help']).stdout.toString('utf8');
  assert.match(overview, /\n {2}policies \[--json\] {25}the cache policies simulate and sweep replay\n/);

  const unknown = runCli(['policies', '--no-such-option']);
  const otherCommand = runCli(['stats', '--no-such-option']);
  assert.equal(unknown.status, 1);
  assert.equal(unknown.status, otherCommand.status);
  assert.equal(unknown.stdout.length, 0);
  assert.equal(unknown.stderr, 'packscope: policies has no option --no-such-option (see packscope policies --help)\n');
  const argument = runCli(['policies', 'git']);
  assert.equal(argument.status, 1);
  assert.equal(argument.stderr, 'packscope: policies takes no argument "git" (see packscope policies --help)\n');
});
