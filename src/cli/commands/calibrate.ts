import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { fail } from '../../core/errors.ts';
import { cachedCalibration, DEFAULT_SEED } from '../../core/cost/calibrate.ts';
import type { Calibration } from '../../core/documents/calibration-document.ts';
import { gitDirFor, packToCalibrate } from '../../core/cost/time-plan.ts';
import { formatBytes, writeJson } from '../output.ts';
import { openObjectStore } from '../open-target.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';

const calibrateHelp = `usage: packscope calibrate [--json] [--refresh] [--seed N] [--git PATH] <repo|pack>

Times git itself reading objects of the pack (the repository's largest, for a repository): git
cat-file --batch --buffer on seeded, size-stratified lists of distinct objects from across the
pack (cold, as a command's reads are): non-deltas as --batch minus --batch-check at
core.deltaBaseCacheLimit=0; whole delta chains read side by side, root first, at 0 and at 1g,
each minus --batch-check (delta work; the two differ by what the cache saves); and chains at 1g
minus a smaller limit with the same counts
(what the cache's memory costs). It fits the cost model sweep --time prices counts with (seconds
per inflation and inflated byte, per delta application and result byte, per byte of the cache's
peak, per trace line). About 20 s on git.git's pack; the result is kept in PackScope's cache
directory per pack checksum, node version, CPU model and git version (--refresh runs it again).
The page cache is never dropped: a cold read is not measured, and the calibration says so.

--json prints {"schema":"packscope.calibration/4",…} (docs/json.md).`;

async function runCalibrate(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      refresh: { type: 'boolean' },
      seed: { type: 'string' },
      git: { type: 'string' },
      ...cacheOptionSpec,
    },
  });
  if (positionals.length !== 1)
    throw fail(
      'usage',
      undefined,
      undefined,
      'calibrate needs one repository or pack (see packscope calibrate --help)',
    );
  const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0)
    throw fail('usage', undefined, undefined, '--seed needs a non-negative integer');
  const target = path.resolve(positionals[0]!);
  const store = openObjectStore(target, cacheOptions(values));
  const model = packToCalibrate(store, target);
  const gitDir = gitDirFor(store, target);
  const { calibration, file, fromCache } = await cachedCalibration(
    model,
    store.modelCacheDirectory,
    {
      gitDir,
      seed,
      ...(values.git ? { git: values.git } : {}),
      onStage: (stage, done, total) => process.stderr.write(`\rpackscope: calibrating (${stage}) ${done}/${total}`),
    },
    values.refresh === true,
  );
  if (!fromCache) process.stderr.write('\n');
  if (values.json) {
    writeJson(calibration);
    return 0;
  }
  process.stdout.write(calibrationText(calibration, file, fromCache).join('\n') + '\n');
  return 0;
}

export function calibrationText(c: Calibration, file: string | undefined, fromCache: boolean): string[] {
  const p = c.parameters;
  const ns = (x: number): string => `${(x * 1e9).toFixed(1)} ns`;
  const perMiB = (x: number): string => `${(x * (1 << 20) * 1e3).toFixed(3)} ms/MiB`;
  return [
    `calibration of ${path.basename(c.pack.path)} (${c.pack.objects} objects), ${c.date}${fromCache ? ' (cached)' : ''}`,
    `  git ${c.key.git}, node ${c.key.node}, ${c.key.cpu}; load average ${c.loadAverage.map((x) => x.toFixed(2)).join(' ')}`,
    `  inflation        ${ns(p.aInflate)} + ${perMiB(p.bInflate)} inflated`,
    `  delta applied    ${ns(p.aDelta)} + ${perMiB(p.bDelta)} of result`,
    `  cache memory     ${perMiB(p.bCache)} of the cache's peak (pages touched for the first time)`,
    `  cache hit        ${ns(p.cHit)} (part of the two above: the reads are the same at every limit)`,
    `  cat-file per read ${ns(c.perRead)} (cat-file's own work, not priced)`,
    `  trace line       ${ns(p.cTrace)} (taken out of a recording's time)`,
    `  page-cache miss  ${c.pageCacheMiss.secondsPerByte === null ? c.pageCacheMiss.note : perMiB(c.pageCacheMiss.secondsPerByte)}`,
    `  ${c.batches.length} timed lists, ${c.batches.reduce((s, b) => s + b.reads, 0)} reads, ${formatBytes(c.batches.reduce((s, b) => s + b.inflatedBytes, 0))} inflated; seed ${c.seed}, best of ${c.repeats}; ${c.seconds.toFixed(1)}s`,
    ...(file ? [`  kept in ${file}`] : []),
  ];
}

export const calibrateCommand: Command = {
  name: 'calibrate',
  summary: "calibrate [--json] <repo|pack>            time git's own reads: the cost model",
  help: calibrateHelp,
  run: (argv) => runCalibrate(argv),
};
