import { parseArgs } from 'node:util';
import { fail } from '../../core/errors.ts';
import { parseLimits, parsePolicy, POLICY_HELP, SWEEP_DEFAULT_POLICIES } from '../../core/sim/policy-registry.ts';
import type { SimResult } from '../../core/documents/simulation-documents.ts';
import { simulationDocument, sweepRecording } from '../../core/report/simulation.ts';
import { formatSimulatedCount } from '../../common/format.ts';
import { checkedAgainstNote } from '../../common/checked-policies.ts';
import { formatLimit, formatTable, writeJson } from '../output.ts';
import { completionAdviceLines } from '../completion-advice.ts';
import { loadReadList, loadRecording } from '../load-recording.ts';
import type { Progress } from '../progress.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';
import { sweepTime, timePlan, timeTable } from '../sweep-time.ts';

const METRICS = ['inflations', 'logged', 'deltaApplications', 'inflatedBytes', 'evictions', 'peakCacheBytes'] as const;
type Metric = (typeof METRICS)[number];

const sweepHelp = `usage: packscope sweep [--json] [--limits L,…] [--policies P,…] [--metric M] [--threads N]
                      [--segment N] [--time [--replay|--no-replay] [--git PATH] [--recorded-seconds S]] [-C DIR] <recording>
       packscope sweep [--json] [--limits L,…] [--policies P,…] [--metric M] [--threads N] [-C DIR] --reads FILE

Replays a recording through every policy at every limit (cells run in worker threads) and prints
one row per limit and one column per policy, like the tables of the delta-base-cache thread.
Defaults: --limits 0,1m,4m,16m,32m,64m,96m,256m  --policies ${SWEEP_DEFAULT_POLICIES.join(',')}
--metric (the number in each cell): ${METRICS.join(', ')} (default inflations).

${POLICY_HELP}

--reads FILE sweeps a read list instead of a recording, as \`simulate --reads\` takes it (one object
id or \`<pack> <offset>\` a line, reads no git command made, in the repository of -C DIR or the
current directory): every read is listed, hits included, so every cell is exact. No --segment (a
read list is one sequence) and no --time (no git command ran, so there is no command time).

A cell that is not exact shows min–max (bounds that contain what git does; git-internals §8.1) or,
without bounds, ≈n.

--time adds predicted seconds of the whole recorded command per cell (an estimate: the counts
priced by packscope calibrate's cost model of this machine and pack, run first if not cached, plus
the command's non-read time: the recorded time minus its trace writing and predicted reads), the
speed-up against your core.deltaBaseCacheLimit, each policy's knee (the smallest limit within 2%
of its best) and a recommendation with its evidence. The sweep then also holds your limit and
the recorded one, and git's policy. --recorded-seconds S: the command took S seconds at the
recorded limit in a run of your own without tracing (e.g. its CPU time on a busy machine); used
instead of the recording's own time. The first --time sweep of a recording also times its own
reads on git's read path (git cat-file --batch fed them in order, at 0 and 16m, median of three, a
few seconds to a minute) and scales the model's read seconds by what the cache saved there against
what the model said (the model gives the shape over limits and policies, the replay the size); the
scale is kept with the calibration for later sweeps of this recording. --replay times them again;
--no-replay prices with the calibration's lists alone.

--json prints {"schema":"packscope.sweep/1","recording":{…},"results":[…one object per (policy, limit),
with "exact" and "bounds"…]}, and with --time a "time" object (docs/json.md).`;

async function runSweepCommand(argv: string[], progress: Progress, workerScript: string): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      limits: { type: 'string' },
      policies: { type: 'string' },
      metric: { type: 'string' },
      threads: { type: 'string' },
      segment: { type: 'string' },
      time: { type: 'boolean' },
      replay: { type: 'boolean' },
      'no-replay': { type: 'boolean' },
      'recorded-seconds': { type: 'string' },
      git: { type: 'string' },
      reads: { type: 'string' },
      C: { type: 'string', short: 'C' },
      ...cacheOptionSpec,
    },
  });
  checkSource(values, positionals);
  let limits = parseLimits(values.limits ?? '0,1m,4m,16m,32m,64m,96m,256m');
  let policies = (values.policies ?? SWEEP_DEFAULT_POLICIES.join(','))
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const policy of policies) parsePolicy(policy); // reject unknown policies before any work
  const metric = (values.metric ?? 'inflations') as Metric;
  if (!METRICS.includes(metric))
    throw fail('usage', undefined, undefined, `unknown metric "${values.metric}" (${METRICS.join(', ')})`);
  const threads = values.threads === undefined ? undefined : Number(values.threads);
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1))
    throw fail('usage', undefined, undefined, '--threads needs a positive integer');
  const segment = values.segment === undefined ? undefined : Number(values.segment);
  const options = { ...cacheOptions(values), repository: values.C, segment };
  const loaded =
    values.reads !== undefined
      ? loadReadList(values.reads, options, progress)
      : loadRecording(positionals[0]!, options, progress);
  const git = values.git ?? 'git';
  const measured = values['recorded-seconds'] === undefined ? undefined : Number(values['recorded-seconds']);
  if (measured !== undefined && !(measured > 0))
    throw fail('usage', undefined, undefined, '--recorded-seconds needs a positive number of seconds');
  const plan = values.time ? await timePlan(loaded, git, segment, measured) : undefined;
  if (plan) {
    limits = [...new Set([...limits, plan.current.limit, plan.recordedLimit])].sort((a, b) => a - b);
    if (!policies.includes('git')) policies = ['git', ...policies];
  }
  const results = await progress.trackAsync('Sweeping', (onProgress) =>
    sweepRecording(
      loaded,
      policies,
      limits,
      threads === undefined ? { workerScript, onProgress } : { workerScript, onProgress, threads },
    ),
  );
  const time = plan
    ? await sweepTime(loaded, results, plan, git, values['no-replay'] ? 'off' : values.replay ? 'run' : 'missing')
    : undefined;
  if (values.json) {
    writeJson(
      time
        ? { ...simulationDocument('packscope.sweep/1', loaded, results), time }
        : simulationDocument('packscope.sweep/1', loaded, results),
    );
    return 0;
  }
  process.stdout.write(
    [
      ...sweepTable(results, policies, limits, metric, loaded.readList === true),
      ...completionAdviceLines(loaded, results),
    ].join('\n') + '\n',
  );
  if (time) process.stdout.write('\n' + timeTable(time, policies, limits).join('\n') + '\n');
  return 0;
}

/** One recording, or a read list (`--reads`) with no option that needs a recording; --replay only with --time. */
function checkSource(
  values: { reads?: string; segment?: string; time?: boolean; replay?: boolean; 'no-replay'?: boolean },
  positionals: string[],
): void {
  if ((values.replay || values['no-replay']) && !values.time)
    throw fail('usage', undefined, undefined, '--replay and --no-replay need --time');
  if (values.replay && values['no-replay'])
    throw fail('usage', undefined, undefined, '--replay and --no-replay contradict each other');
  if (values.reads === undefined) {
    if (positionals.length !== 1)
      throw fail(
        'usage',
        undefined,
        undefined,
        'sweep needs one recording or --reads FILE (see packscope sweep --help)',
      );
    return;
  }
  if (positionals.length !== 0)
    throw fail('usage', undefined, undefined, 'sweep takes a recording or --reads FILE, not both');
  if (values.segment !== undefined)
    throw fail('usage', undefined, undefined, '--segment needs a recording: a read list is one sequence of reads');
  if (values.time)
    throw fail(
      'usage',
      undefined,
      undefined,
      '--time needs a recording: a read list was made by no git command, so there is no command time to split',
    );
}

function sweepTable(
  results: SimResult[],
  policies: string[],
  limits: number[],
  metric: Metric,
  readList: boolean,
): string[] {
  const header = ['limit', ...policies];
  const cellText = (cell: SimResult): string => {
    const bounded =
      metric === 'logged' || metric === 'inflations' || metric === 'deltaApplications' || metric === 'inflatedBytes';
    return bounded ? formatSimulatedCount(cell[metric], cell.exact, cell.bounds?.[metric]) : String(cell[metric]);
  };
  const rows = limits.map((limit, row) => [
    formatLimit(limit),
    ...policies.map((_, column) => cellText(results[row * policies.length + column]!)),
  ]);
  const reads = results[0]?.reads ?? 0;
  const notes = sweepNotes(results);
  return [
    `${metric} over ${reads} reads${readList ? ' (a read list)' : ''}`,
    ...formatTable([header, ...rows]),
    ...notes,
  ];
}

/** What a range and a ≈ in the table mean, when it has any (git-internals §8.1). */
function sweepNotes(results: SimResult[]): string[] {
  const notes: string[] = [];
  if (results.some((cell) => !cell.exact && cell.bounds))
    notes.push(
      'min–max: not exact; the bounds contain what git does (the recording cannot show reads that hit the cache when it was made)',
    );
  const unbounded = results.find((cell) => !cell.exact && !cell.bounds);
  if (unbounded) notes.push(`≈: not exact and no bounds (${unbounded.exactness})`);
  const checked = checkedAgainstNote(results);
  if (checked) notes.push(checked);
  return notes;
}

export const sweepCommand: Command = {
  name: 'sweep',
  summary: 'sweep [--json] --limits … <recording>     every policy at every limit, in worker threads',
  help: sweepHelp,
  run: (argv, { progress, workerScript }) => runSweepCommand(argv, progress, workerScript('sim-worker.js')),
};
