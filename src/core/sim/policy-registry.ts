import { fail } from '../errors.ts';
import { limitListItems, parseGitSize } from '../../common/git-size.ts';
import { admitReusedPolicy } from './policies/admit-reused.ts';
import { beladyPolicy } from './policies/belady.ts';
import { gdsfPolicy } from './policies/gdsf.ts';
import { gitLegacyPolicy } from './policies/git-legacy.ts';
import { admitMaxPolicy, gitPolicy, keepOnHitPolicy } from './policies/git-lru.ts';
import { libgit2ObjectCachePolicy, libgit2PackWhatIfPolicy, libgit2Policy } from './policies/libgit2.ts';
import { lruBySizePolicy } from './policies/lru-by-size.ts';
import { separateBlobLruPolicy } from './policies/separate-blob-lru.ts';
import type { PolicyDefinition, PolicyRunner } from './policy-definition.ts';
import type { PolicyDescription } from '../documents/policy-description.ts';

/**
 * Every cache policy, in the order the help lists them. A new policy is its file under policies/
 * (a DeltaBaseCache and its row) plus one line here; the help, the errors, the sweep defaults and
 * the Cache Lab's checkboxes (through the server's packscope/policies) all come from this table.
 */
export const POLICIES: readonly PolicyDefinition[] = [
  gitPolicy,
  gitLegacyPolicy,
  separateBlobLruPolicy,
  admitMaxPolicy,
  keepOnHitPolicy,
  admitReusedPolicy,
  gdsfPolicy,
  lruBySizePolicy,
  libgit2Policy,
  libgit2ObjectCachePolicy,
  libgit2PackWhatIfPolicy,
  beladyPolicy,
];

/** The help's spec column: a longer spec gets its own line, its help starts on the next. */
const SPEC_COLUMN = 25;

function policyHelpLines(policy: PolicyDescription): string[] {
  const indent = ' '.repeat(2 + SPEC_COLUMN);
  const [first = '', ...rest] = policy.help;
  const head =
    policy.spec.length < SPEC_COLUMN
      ? [`  ${policy.spec.padEnd(SPEC_COLUMN)}${first}`]
      : [`  ${policy.spec}`, indent + first];
  return [...head, ...rest.map((line) => indent + line)];
}

export const POLICY_HELP = ['policies:', ...POLICIES.flatMap(policyHelpLines)].join('\n');

/** The policy specs parsePolicy takes, as shown in errors. */
export const POLICY_NAMES = POLICIES.map((policy) => policy.spec);

/** `packscope sweep`'s default --policies. */
export const SWEEP_DEFAULT_POLICIES = POLICIES.filter((policy) => policy.sweepDefault === true).map(
  (policy) => policy.name,
);

/** The specs the Cache Lab offers (and selects by default), in table order. */
export const CACHE_LAB_POLICIES = POLICIES.flatMap((policy) =>
  policy.cacheLab === undefined ? [] : [policy.cacheLab],
);

/** The table as packscope/policies sends it: every row without its `make`. */
export function describePolicies(): PolicyDescription[] {
  return POLICIES.map(({ make: _make, ...description }) => description);
}

/** Parses a policy spec such as `git`, `admit-max:1m` or `git-legacy:0x5555`. */
export function parsePolicy(spec: string): PolicyRunner {
  const [name, argument] = spec.split(/:(.*)/s) as [string, string | undefined];
  const policy = POLICIES.find((row) => row.name === name);
  if (policy === undefined)
    throw fail(
      'usage',
      undefined,
      undefined,
      `unknown policy "${spec}" (known: ${POLICY_NAMES.join(', ')}; see packscope simulate --help)`,
    );
  const { description, run, branchingCache, planReads, replayWithLimitEvictions } = policy.make(argument, spec);
  return {
    name: spec,
    description,
    referenceBound: policy.referenceBound,
    checkedAgainst: policy.checkedAgainst,
    run,
    branchingCache,
    planReads,
    replayWithLimitEvictions,
  };
}

/** Parses `0,1m,16m,96m` into bytes. */
export function parseLimits(list: string): number[] {
  const limits = limitListItems(list);
  if (limits.length === 0) throw fail('usage', undefined, undefined, 'no limits given (e.g. --limits 0,1m,16m,96m)');
  return limits.map((item) => {
    const bytes = parseGitSize(item);
    if (bytes === undefined)
      throw fail('usage', undefined, undefined, `"${item}" is not a size (use bytes, or k, m, g suffixes)`);
    return bytes;
  });
}
