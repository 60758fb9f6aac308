import { parseArgs } from 'node:util';
import { fail } from '../../core/errors.ts';
import { localityDocument } from '../../core/report/locality.ts';
import { formatBytes, formatTable, writeJson } from '../output.ts';
import { loadRecording } from '../load-recording.ts';
import type { Progress } from '../progress.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';

const localityHelp = `usage: packscope locality [--json] [--cache-mib N] [--readahead-kib N] [--segment N] [-C DIR] <recording>

How far apart in each pack a recording's reads are: per pack, the number of reads, the distance
between consecutive reads of that pack as percentiles (0, 10 … 90, 95, 99, 99.5, 99.9 %), the share
of seeks under 2 MiB, the share of backward seeks, the distinct 4 KiB pages touched by the entries
read, the byte span, and the page faults of a cold page cache of --cache-mib (default 256) with a
fixed readahead of --readahead-kib (default 128) replayed over those entries.

Percentiles are nearest-rank: P(p) = the smallest distance such that at least p% of the distances
are at most it (sorted[ceil(p/100 * n) - 1]; P(0) is the minimum).

--json prints {"schema":"packscope.locality/1","recording":{…},"packs":[…]} (docs/json.md).`;

function runLocality(argv: string[], progress: Progress): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      'cache-mib': { type: 'string' },
      'readahead-kib': { type: 'string' },
      segment: { type: 'string' },
      C: { type: 'string', short: 'C' },
      ...cacheOptionSpec,
    },
  });
  if (positionals.length !== 1)
    throw fail('usage', undefined, undefined, 'locality needs one recording (see packscope locality --help)');
  const cacheMiB = Number(values['cache-mib'] ?? '256');
  const readaheadKiB = Number(values['readahead-kib'] ?? '128');
  if (!(cacheMiB > 0) || !(readaheadKiB >= 0))
    throw fail('usage', undefined, undefined, '--cache-mib must be positive and --readahead-kib not negative');
  const segment = values.segment === undefined ? undefined : Number(values.segment);
  const loaded = loadRecording(positionals[0]!, { ...cacheOptions(values), repository: values.C, segment }, progress);
  const document = localityDocument(loaded, { cacheMiB, readaheadKiB });
  if (values.json) {
    writeJson(document);
    return 0;
  }
  const { packs } = document;
  if (packs.length === 0) {
    process.stdout.write('No pack reads to measure.\n');
    return 0;
  }
  const lines: string[] = [];
  for (const p of packs) {
    lines.push(p.pack);
    lines.push(
      `  ${p.reads} reads, ${p.seeks} seeks; ${(p.shortSeekShare * 100).toFixed(1)}% under 2 MiB, ${(p.backwardSeekShare * 100).toFixed(1)}% backward`,
    );
    lines.push(
      `  ${p.pagesTouched} page${p.pagesTouched === 1 ? '' : 's'} of 4 KiB touched, span ${formatBytes(p.byteSpan)}; ${p.pageFaults} page fault${p.pageFaults === 1 ? '' : 's'} (cold ${cacheMiB} MiB cache, ${readaheadKiB} KiB readahead)`,
    );
    lines.push(
      ...formatTable([
        ['  percentile', 'seek distance'],
        // KiB and MiB read at a glance where 86570292 does not; --json keeps the exact bytes.
        ...p.percentiles.map(({ p: pct, bytes }) => [`  ${pct}%`, formatBytes(bytes)]),
      ]),
    );
    lines.push('');
  }
  process.stdout.write(lines.join('\n').trimEnd() + '\n');
  return 0;
}

export const localityCommand: Command = {
  name: 'locality',
  summary: 'locality [--json] <recording>             seek distances and page faults of recorded reads',
  help: localityHelp,
  run: (argv, { progress }) => runLocality(argv, progress),
};
