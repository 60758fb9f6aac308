import { GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import { parseArgs } from 'node:util';
import { fail } from '../../core/errors.ts';
import { parseLimits, parsePolicy, POLICY_HELP } from '../../core/sim/policy-registry.ts';
import { simulateRecording, simulationDocument } from '../../core/report/simulation.ts';
import { formatSimulatedCount } from '../../common/format.ts';
import { checkedSuffix } from '../../common/checked-policies.ts';
import { formatLimit, writeJson } from '../output.ts';
import { completionAdviceLines } from '../completion-advice.ts';
import { loadReadList, loadRecording } from '../load-recording.ts';
import type { Progress } from '../progress.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';

const simulateHelp = `usage: packscope simulate [--json] [--limit L] [--policy P] [--segment N] [-C DIR] <recording>
       packscope simulate [--json] [--limit L] [--policy P] [-C DIR] --reads FILE

Replays the reads of a recording (or a raw GIT_TRACE_PACK_ACCESS file) through Git's read path and
a delta base cache policy at one cache limit (default: 96m, git's default), and prints what Git
would do: reads, trace lines logged, inflations, delta applications, inflated bytes, evictions and
the peak cache size. Each git process in the recording (segment) starts with an empty cache.
A count that is not exact is shown as min–max: a recording lists only reads that missed the cache
when it was made, so it can hide reads that would miss at another limit (git-internals §8.1).
Record with \`packscope record --exact\` (limit 0) to get such bounds at every limit, and with
\`--complete=LIMITS\` for a recording exact at those limits; a passive recording is exact only at
the limit it was made with.

-C DIR       the repository (default: the one the recording names, else the current directory)
--segment N  replay only the N-th git command of the recording
--reads FILE replay a read list instead of a recording: reads no git command made, in order, one
             a line, each a full object id or \`<pack> <offset>\` (the pack by file name, the offset
             of an object's start); blank lines and lines starting with # are skipped. Every read
             is listed, hits included, so the replay is exact at every limit (for the libgit2
             policies, as libgit2 reads them: git_odb_read, or git_object_lookup with :lookup).
             Lines are at most 4128 bytes; a line that is not a read of the repository (-C DIR,
             else the current directory) stops the replay with the file and the line.

${POLICY_HELP}

--json prints {"schema":"packscope.simulate/1","recording":{…},"results":[{policy, limit, reads,
logged, inflations, deltaApplications, inflatedBytes, evictions, peakCacheBytes, exact, bounds, …}]}
(docs/json.md).`;

// Stays long: a linear script: options, the recording, the replay, then the output in the order printed.
function runSimulate(argv: string[], progress: Progress): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      limit: { type: 'string' },
      policy: { type: 'string' },
      segment: { type: 'string' },
      reads: { type: 'string' },
      C: { type: 'string', short: 'C' },
      ...cacheOptionSpec,
    },
  });
  if (values.reads !== undefined && positionals.length !== 0)
    throw fail('usage', undefined, undefined, 'simulate takes a recording or --reads FILE, not both');
  if (values.reads !== undefined && values.segment !== undefined)
    throw fail('usage', undefined, undefined, '--segment needs a recording: a read list is one sequence of reads');
  if (values.reads === undefined && positionals.length !== 1)
    throw fail(
      'usage',
      undefined,
      undefined,
      'simulate needs one recording or --reads FILE (see packscope simulate --help)',
    );
  const limit = values.limit === undefined ? [GIT_DEFAULT_LIMIT] : parseLimits(values.limit);
  if (limit.length !== 1)
    throw fail('usage', undefined, undefined, '--limit takes one size; use `packscope sweep` for several');
  const runner = parsePolicy(values.policy ?? 'git');
  const segment = values.segment === undefined ? undefined : Number(values.segment);
  const options = { ...cacheOptions(values), repository: values.C, segment };
  const loaded =
    values.reads !== undefined
      ? loadReadList(values.reads, options, progress)
      : loadRecording(positionals[0]!, options, progress);
  const result = simulateRecording(loaded, runner, limit[0]!);
  if (values.json) {
    writeJson(simulationDocument('packscope.simulate/1', loaded, [result]));
    return 0;
  }
  const shown = (key: 'logged' | 'inflations' | 'deltaApplications' | 'inflatedBytes'): string =>
    formatSimulatedCount(result[key], result.exact, result.bounds?.[key]);
  const lines = [
    `policy              ${result.policy}${result.referenceBound ? ' (reference bound)' : ''}${checkedSuffix(result.checkedAgainst)}`,
    `limit               ${formatLimit(result.limit)}`,
    loaded.readList
      ? `reads               ${result.reads} (a read list)`
      : `reads               ${result.reads} in ${loaded.segments.length} git process${loaded.segments.length === 1 ? '' : 'es'}`,
    `logged              ${shown('logged')} (predicted GIT_TRACE_PACK_ACCESS lines)`,
    `inflations          ${shown('inflations')}`,
    `delta applications  ${shown('deltaApplications')}`,
    `inflated bytes      ${shown('inflatedBytes')}`,
    `evictions           ${result.evictions}`,
    `peak cache bytes    ${result.peakCacheBytes}`,
  ];
  // Policy-specific counts (libgit2's flushes, the object cache's buckets scanned, …).
  const standard = new Set([
    'policy',
    'limit',
    'referenceBound',
    'checkedAgainst',
    'reads',
    'logged',
    'inflations',
    'deltaApplications',
    'inflatedBytes',
    'appliedBytes',
    'evictions',
    'peakCacheBytes',
    'seconds',
    'exact',
    'bounds',
    'hiddenReads',
    'exactness',
  ]);
  const extras = (record: object, prefix: string): void => {
    for (const [key, value] of Object.entries(record)) {
      if (standard.has(key) && prefix === '') continue;
      const label = `${prefix}${key}`;
      if (typeof value === 'number') lines.push(`${label.padEnd(Math.max(20, label.length + 2))}${value}`);
      else if (value && typeof value === 'object') extras(value, `${prefix}${key}.`);
    }
  };
  extras(result, '');
  lines.push(`exact               ${result.exact ? 'yes' : 'no'} (${result.exactness})`);
  if (result.hiddenReads)
    lines.push(
      `hidden-read places  ${result.hiddenReads.placesThatMiss} of ${result.hiddenReads.places} miss at this limit (git-internals §8.1)`,
    );
  if (!result.exact && result.bounds)
    lines.push(
      'note: a range is min–max of what git can do: the recording cannot show reads that hit the cache when it was made',
    );
  const recorded = loaded.log.metadata;
  if (recorded?.mode === 'passive' && recorded.cacheLimit !== result.limit) {
    lines.push(
      `note: a passive recording (made at ${formatLimit(recorded.cacheLimit)}) is exact only at that limit; record with --exact`,
    );
  } else if (!recorded && !loaded.readList) {
    lines.push('note: a raw trace: no bounds (record with packscope record --exact to get them)');
  }
  lines.push(...completionAdviceLines(loaded, [result]));
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

export const simulateCommand: Command = {
  name: 'simulate',
  summary: "simulate [--json] --limit L <recording>   replay reads through Git's read path and a cache policy",
  help: simulateHelp,
  run: (argv, { progress }) => runSimulate(argv, progress),
};
