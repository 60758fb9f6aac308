import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { fail } from '../../core/errors.ts';
import { storeWalkInputs } from '../../core/model/object-paths.ts';
import type { FamilySummary, ObjectNames, ObjectSummary, Totals } from '../../core/report/stats-document.ts';
import { statsDocument } from '../../core/report/stats.ts';
import { formatBytes, formatCount, formatTable, writeJson } from '../output.ts';
import { openObjectStore } from '../open-target.ts';
import type { Progress } from '../progress.ts';
import { walkWithProgress } from '../walk-paths.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';

const statsHelp = `usage: packscope stats [--json] [--top N] [--no-paths] [--no-cache | --cache-dir DIR] [path]

Statistics of every pack of the repository at [path] (default: the current directory), or of one
.pack/.idx file: objects by type, OFS and REF deltas, the depth histogram, maximum and mean depth,
inflated and on-disk bytes, the number of delta families and the largest ones, and the largest and
deepest objects (--top of each, default 10), each with its path (the name \`git rev-list --objects
--all\` prints; see \`packscope object --help\`) or a commit's subject. Per pack, then in total.
--no-paths skips the walk that finds the paths.

--json prints the "packscope.stats/1" document described in docs/json.md.`;

function runStats(argv: string[], progress: Progress): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, top: { type: 'string' }, 'no-paths': { type: 'boolean' }, ...cacheOptionSpec },
  });
  if (positionals.length > 1) throw fail('usage', undefined, undefined, 'stats takes at most one path');
  const top = values.top === undefined ? 10 : Number(values.top);
  if (!Number.isInteger(top) || top < 0) throw fail('usage', undefined, undefined, '--top needs a non-negative integer');
  const store = openObjectStore(positionals[0] ?? '.', cacheOptions(values), progress);
  let walked;
  if (!values['no-paths'] && top > 0 && store.packs.length > 0) {
    const inputs = storeWalkInputs(store);
    walked = { packs: inputs.packs, paths: walkWithProgress(inputs, store, progress) };
  }
  const document = statsDocument(store, top, (pack, work) => progress.track(`Reading ${path.basename(pack.files.pack)}`, work), walked);
  if (values.json) {
    writeJson(document);
    return 0;
  }
  const { packs, total } = document;
  if (packs.length === 0) {
    process.stdout.write(`No packs in ${store.repository.objectsDir} (its objects are loose; \`git gc\` packs them).\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const p of packs) {
    lines.push(`${p.pack}`);
    lines.push(`  pack v${p.packVersion}, idx v${p.idxVersion}${p.hasRev ? ', .rev' : ''}, ${p.objectFormat}, ${formatBytes(p.packFileBytes)}`);
    describeTotals(p, lines);
    lines.push('  largest families:');
    lines.push(...formatTable(p.largestFamilies.map((f) => [`    ${f.root}`, f.type, `${formatCount(f.objects)} object${f.objects === 1 ? '' : 's'}`, nameOf(f)])));
    lines.push('  largest objects (inflated):');
    lines.push(...objectRows(p.largestObjects));
    lines.push('  largest objects (on disk):');
    lines.push(...objectRows(p.largestOnDisk));
    lines.push('  deepest objects:');
    lines.push(...objectRows(p.deepestObjects));
    lines.push('');
  }
  if (packs.length > 1) {
    lines.push(`total (${packs.length} packs)`);
    describeTotals(total, lines);
  }
  process.stdout.write(lines.join('\n').trimEnd() + '\n');
  return 0;
}

function describeTotals(t: Totals, lines: string[]): void {
  lines.push(`  objects: ${formatCount(t.objects)} (${formatCount(t.byType.commit)} commits, ${formatCount(t.byType.tree)} trees, ${formatCount(t.byType.blob)} blobs, ${formatCount(t.byType.tag)} tags)`);
  lines.push(`  deltas: ${formatCount(t.deltas.ofs + t.deltas.ref)} (${formatCount(t.deltas.ofs)} OFS, ${formatCount(t.deltas.ref)} REF), ${formatCount(t.families)} families`);
  lines.push(`  depth: max ${t.maxDepth}, mean ${t.meanDepth.toFixed(2)} (${t.meanDeltaDepth.toFixed(2)} over deltas)`);
  lines.push(`  bytes: ${formatBytes(t.bytes.inflated)} inflated, ${formatBytes(t.bytes.onDisk)} on disk`);
  lines.push('  depth histogram:');
  const widest = Math.max(...t.depthHistogram);
  const rows = t.depthHistogram.map((n, d) => [`    ${String(d).padStart(4)}`, formatCount(n), '#'.repeat(widest === 0 ? 0 : Math.ceil((n / widest) * 40))]);
  lines.push(...formatTable(rows));
}

function objectRows(objects: ObjectSummary[]): string[] {
  return formatTable(objects.map((o) => [`    ${o.oid}`, o.type, formatBytes(o.size), formatBytes(o.diskSize), `depth ${o.depth}`, nameOf(o)]));
}

/** A list line's last column: the path, a root tree's "(root tree)", a commit's subject in quotes. */
function nameOf(o: (ObjectSummary | FamilySummary) & ObjectNames): string {
  if (o.subject !== undefined) return JSON.stringify(o.subject);
  if (o.path === '') return '(root tree)';
  return o.path ?? '';
}

export const statsCommand: Command = {
  name: 'stats',
  summary: 'stats [--json] [path]                     objects, deltas, depths, families, largest and deepest',
  help: statsHelp,
  run: (argv, { progress }) => runStats(argv, progress),
};
