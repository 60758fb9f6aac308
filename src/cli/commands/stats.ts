import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { fail } from '../../core/errors.ts';
import { storeWalkInputs, type StoreWalkInputs } from '../../core/model/object-paths.ts';
import { loadStoredPaths } from '../../core/model/object-paths-store.ts';
import type { ObjectStore, PackLocation } from '../../core/model/object-store.ts';
import type {
  FamilySummary,
  ObjectNames,
  ObjectSummary,
  PackStats,
  StatsDocument,
  Totals,
} from '../../core/documents/stats-document.ts';
import type { PackLayout, RepositoryLayout } from '../../core/documents/repository-layout-document.ts';
import { addNames, statsDocument } from '../../core/report/stats.ts';
import { concernsDocument } from '../../core/report/concerns.ts';
import type { ConcernsDocument } from '../../core/documents/concerns-document.ts';
import { formatBytes, formatCount, formatTable, writeJson } from '../output.ts';
import { openObjectStore } from '../open-target.ts';
import type { Progress } from '../progress.ts';
import { namesFromGit, startGitNaming, startGitNamingEarly, walkWithProgress, type GitNaming } from '../walk-paths.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';

const statsHelp = `usage: packscope stats [--json] [--top N] [--no-paths] [--concerns] [--no-cache | --cache-dir DIR] [path]

Statistics of every pack of the repository at [path] (default: the current directory), or of one
.pack/.idx file: objects by type, OFS and REF deltas, the depth histogram, maximum and mean depth,
inflated and on-disk bytes, the number of delta families and the largest ones, and the largest and
deepest objects (--top of each, default 10), each with its path (the name \`git rev-list --objects
--all\` prints; see \`packscope object --help\`) or a commit's subject. Per pack, then in total.
--no-paths skips the walk that finds the paths. When no walk is stored yet, the report is printed
at once and the names of the listed objects follow it when the walk ends (--json waits for them).

First, for a repository, its storage: the packs by kind (cruft with .mtimes, promisor, normal) and
marker files (.keep, .bitmap, .rev), each multi-pack-index with the packs it covers, its preferred
pack, bitmap and reverse index, the loose objects and garbage as \`git count-objects -v\` counts
them, and the alternates; each pack then says its kind, markers and where git's search finds it.

--concerns adds git-sizer's figures, by git-sizer's definitions, each with its level of concern (a
star per multiple of git-sizer's reference value): the objects reachable from the refs (commits,
trees, blobs, annotated tags: count and total size; references by kind), the biggest objects
(largest commit, most parents, most tree entries, largest blob), the history's structure (longest
chain of parents, of annotated tags) and the biggest checkouts (directories, path depth and length,
files and their total size, symlinks, submodules, the largest over every tree). Read from the
packs and loose files, without git; it reads every tree the refs reach once.

--json prints the "packscope.stats/1" document described in docs/json.md.`;

async function runStats(argv: string[], progress: Progress): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      top: { type: 'string' },
      'no-paths': { type: 'boolean' },
      concerns: { type: 'boolean' },
      ...cacheOptionSpec,
    },
  });
  if (positionals.length > 1) throw fail('usage', undefined, undefined, 'stats takes at most one path');
  const top = values.top === undefined ? 10 : Number(values.top);
  if (!Number.isInteger(top) || top < 0)
    throw fail('usage', undefined, undefined, '--top needs a non-negative integer');
  const store = openObjectStore(positionals[0] ?? '.', cacheOptions(values), progress);
  // git-sizer's figures are about what a repository's refs reach: one pack file has no refs.
  if (values.concerns && store.singlePack)
    throw fail('usage', undefined, undefined, '--concerns needs a repository, not a single .pack or .idx file');
  const wantPaths = !values['no-paths'] && top > 0 && store.packs.length > 0;
  // git starts naming the objects now, before the models are open, unless names are stored.
  const early = wantPaths ? startGitNamingEarly(store) : undefined;
  try {
    const inputs = wantPaths ? storeWalkInputs(store) : undefined;
    const stored = inputs && loadStoredPaths(inputs, store.repository.commonDir, store.modelCacheDirectory);
    if (stored) early?.stop();
    if (inputs && !stored) return await statsWhileNaming(store, inputs, top, values, progress, early);
    return printStats(
      statsDocument(store, top, measure(progress), stored && { packs: inputs!.packs, paths: stored }),
      store,
      values,
      progress,
    );
  } finally {
    early?.stop();
  }
}

const measure =
  (progress: Progress) =>
  (pack: PackLocation, work: () => PackStats): PackStats =>
    progress.track(`Reading ${path.basename(pack.files.pack)}`, work);

/**
 * No names stored: the report is built while git (started here unless `early` is) names the
 * objects, and the listed objects are named when it is done. The text prints the report at once
 * and the names when they come (the walk takes long on a large history); --json waits for them.
 */
async function statsWhileNaming(
  store: ObjectStore,
  inputs: StoreWalkInputs,
  top: number,
  values: { json?: boolean | undefined; concerns?: boolean | undefined },
  progress: Progress,
  early: GitNaming | undefined,
): Promise<number> {
  const naming = early ?? (namesFromGit(inputs, store) ? startGitNaming(store) : undefined);
  try {
    const document = statsDocument(store, top, measure(progress), undefined);
    if (!values.json) process.stdout.write(describeStats(document, store));
    const paths = await walkWithProgress(inputs, store, progress, undefined, naming);
    addNames(document, store, { packs: inputs.packs, paths });
    if (values.json) return printStats(document, store, values, progress);
    process.stdout.write(describeNames(document));
    if (values.concerns) process.stdout.write(describeConcerns(measureConcerns(store, progress)));
    return 0;
  } finally {
    naming?.stop();
  }
}

function printStats(
  document: StatsDocument,
  store: ObjectStore,
  values: { json?: boolean | undefined; concerns?: boolean | undefined },
  progress: Progress,
): number {
  if (values.concerns) document.concerns = measureConcerns(store, progress);
  if (values.json) {
    writeJson(document);
    return 0;
  }
  process.stdout.write(describeStats(document, store));
  if (document.concerns) process.stdout.write(describeConcerns(document.concerns));
  return 0;
}

function measureConcerns(store: ObjectStore, progress: Progress): ConcernsDocument {
  return progress.track("Measuring git-sizer's figures", () =>
    concernsDocument(storeWalkInputs(store), store.repository.hash.size),
  );
}

/** git-sizer's table: every row (git-sizer's default shows those at level 1 or more), its level as stars. */
function describeConcerns(concerns: ConcernsDocument): string {
  const lines = ['', "git-sizer's concerns (objects reachable from the refs under refs/):"];
  const rows: string[][] = [];
  let section = '';
  for (const m of concerns.metrics) {
    if (m.section !== section) {
      section = m.section;
      rows.push([`  ${section}`, '', '', '']);
    }
    rows.push([`    ${m.name}`, m.unit === 'B' ? formatBytes(m.value) : formatCount(m.value), m.stars, m.object ?? '']);
    if (m.key === 'referenceCount')
      for (const g of concerns.refGroups) rows.push([`      ${g.name}`, formatCount(g.count), '', '']);
  }
  lines.push(...formatTable(rows).map((line) => line.trimEnd()));
  if (!concerns.complete) for (const problem of concerns.problems) lines.push(`  not counted: ${problem}`);
  return lines.join('\n') + '\n';
}

/** The names a walk gave the objects listed: each once, in the order the lists first show it. */
function describeNames(document: StatsDocument): string {
  const by = document.pathWalk?.namesFrom === 'git rev-list' ? 'git rev-list named them' : 'the walk named them';
  const lines = ['', `names of the objects listed (paths as \`git rev-list --objects --all\` prints them; ${by}):`];
  const done = new Set<string>();
  const rows: string[][] = [];
  for (const p of document.packs)
    for (const o of [...p.largestFamilies, ...p.largestObjects, ...p.largestOnDisk, ...p.deepestObjects]) {
      const oid = 'root' in o ? o.root : o.oid;
      const name = nameOf(o);
      if (done.has(oid) || name === '') continue;
      done.add(oid);
      rows.push([`  ${oid}`, o.type, name]);
    }
  lines.push(...formatTable(rows));
  const walk = document.pathWalk;
  if (walk && !walk.complete) {
    // A partial clone misses thousands: the count first, then the first few problems.
    const missing =
      walk.missing === 0
        ? ''
        : ` (${formatCount(walk.missing)} ${walk.missing === 1 ? 'object' : 'objects'} the history reaches ${walk.missing === 1 ? 'is' : 'are'} in no pack and not loose: a partial clone's, or a broken repository)`;
    const some = walk.missing > walk.problems.length ? `, the first ${walk.problems.length}` : '';
    lines.push(`  not every object is named${missing}${some}:`);
    for (const problem of walk.problems) lines.push(`    ${problem}`);
  }
  return lines.join('\n') + '\n';
}

/** The text report of a stats document (names in the lists when the document has them). */
function describeStats(document: StatsDocument, store: ObjectStore): string {
  const { packs, total, layout } = document;
  const lines: string[] = [];
  if (layout) describeLayout(layout, lines);
  if (packs.length === 0) {
    lines.push(`No packs in ${store.repository.objectsDir} (its objects are loose; \`git gc\` packs them).`);
    return lines.join('\n') + '\n';
  }
  for (const [i, p] of packs.entries()) {
    lines.push(`${p.pack}`);
    lines.push(
      `  pack v${p.packVersion}, idx v${p.idxVersion}${p.hasRev ? ', .rev' : ''}, ${p.objectFormat}, ${formatBytes(p.packFileBytes)}`,
    );
    const kind = layout?.packs[i];
    if (kind) lines.push(`  ${packKindLine(kind)}`);
    describeTotals(p, lines);
    lines.push('  largest families:');
    lines.push(
      ...formatTable(
        p.largestFamilies.map((f) => [
          `    ${f.root}`,
          f.type,
          `${formatCount(f.objects)} object${f.objects === 1 ? '' : 's'}`,
          nameOf(f),
        ]),
      ),
    );
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
  return lines.join('\n').trimEnd() + '\n';
}

/** `kind normal · .keep ("reason") · .bitmap (3 commits) · in the multi-pack-index · searched 2nd`. */
export function packKindLine(p: PackLayout): string {
  const parts = [`kind ${p.kind}`];
  for (const marker of p.markers) {
    if (marker === 'keep')
      parts.push(
        `.keep${p.keepReason !== undefined ? ` (${JSON.stringify(p.keepReason)})` : p.keepProblem !== undefined ? ` (unreadable: ${p.keepProblem})` : ''}`,
      );
    else if (marker === 'bitmap')
      parts.push(
        `.bitmap${p.bitmapCommits !== undefined ? ` (${formatCount(p.bitmapCommits)} commit${p.bitmapCommits === 1 ? '' : 's'})` : ''}`,
      );
    else parts.push(`.${marker}`);
  }
  if (!p.local) parts.push(`from the alternate ${p.objectsDir}`);
  parts.push(p.inMidx ? 'read through the multi-pack-index' : `searched ${ordinal(p.searchOrder + 1)}`);
  return parts.join(' · ');
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** The storage section: packs by kind, each multi-pack-index, loose objects as `git count-objects -v` counts them, alternates. */
function describeLayout(layout: RepositoryLayout, lines: string[]): void {
  const kinds = new Map<string, number>();
  for (const p of layout.packs) kinds.set(p.kind, (kinds.get(p.kind) ?? 0) + 1);
  const marked = (marker: string): number =>
    layout.packs.filter((p) => (p.markers as string[]).includes(marker)).length;
  lines.push('storage');
  lines.push(
    `  packs: ${layout.packs.length} (${[...kinds].map(([kind, n]) => `${n} ${kind}`).join(', ') || 'none'}; ${marked('keep')} kept, ${marked('bitmap')} with .bitmap, ${marked('rev')} with .rev)`,
  );
  for (const m of layout.midx) {
    const extras = [
      m.bitmap
        ? `bitmap${m.bitmapCommits !== undefined ? ` (${formatCount(m.bitmapCommits)} commit${m.bitmapCommits === 1 ? '' : 's'})` : ''}`
        : 'no bitmap',
      m.reverseIndexChunk ? 'RIDX chunk' : m.reverseIndexFile ? '.rev file' : 'no reverse index',
    ];
    lines.push(
      `  multi-pack-index ${m.file}: ${m.layers === 1 ? '' : `${m.layers} layers, `}${formatCount(m.objects)} objects in ${m.packs.length} pack${m.packs.length === 1 ? '' : 's'}, ${extras.join(', ')}${m.preferredPack !== undefined ? `, preferred pack ${m.preferredPack}` : ''}`,
    );
    if (m.missingPacks.length > 0) lines.push(`    names missing packs: ${m.missingPacks.join(', ')}`);
    if (m.problem !== undefined) lines.push(`    problem: ${m.problem}`);
  }
  const l = layout.loose;
  lines.push(
    `  loose objects: ${formatCount(l.count)} (${formatBytes(l.looseBytesOnDisk)} on disk)${l.prunePackable === undefined ? '' : `, ${formatCount(l.prunePackable)} also packed`}`,
  );
  lines.push(
    `  count-objects: count ${l.count}, size ${l.size}, in-pack ${l.inPack}, packs ${l.packs}, size-pack ${l.sizePack}${l.prunePackable === undefined ? '' : `, prune-packable ${l.prunePackable}`}, garbage ${l.garbage}, size-garbage ${l.sizeGarbage}`,
  );
  for (const g of l.garbageFiles) lines.push(`    garbage: ${g.path} (${g.reason})`);
  for (const alternate of layout.alternates) lines.push(`  alternate: ${alternate}`);
  lines.push('');
}

function describeTotals(t: Totals, lines: string[]): void {
  // "1 commit", not "1 commits": every count agrees with its noun.
  const of = (n: number, one: string, many: string): string => `${formatCount(n)} ${n === 1 ? one : many}`;
  lines.push(
    `  objects: ${formatCount(t.objects)} (${of(t.byType.commit!, 'commit', 'commits')}, ${of(t.byType.tree!, 'tree', 'trees')}, ${of(t.byType.blob!, 'blob', 'blobs')}, ${of(t.byType.tag!, 'tag', 'tags')})`,
  );
  lines.push(
    `  deltas: ${formatCount(t.deltas.ofs + t.deltas.ref)} (${formatCount(t.deltas.ofs)} OFS, ${formatCount(t.deltas.ref)} REF), ${of(t.families, 'family', 'families')}`,
  );
  lines.push(`  depth: max ${t.maxDepth}, mean ${t.meanDepth.toFixed(2)} (${t.meanDeltaDepth.toFixed(2)} over deltas)`);
  lines.push(`  bytes: ${formatBytes(t.bytes.inflated)} inflated, ${formatBytes(t.bytes.onDisk)} on disk`);
  lines.push('  depth histogram:');
  const widest = Math.max(...t.depthHistogram);
  const rows = t.depthHistogram.map((n, d) => [
    `    ${String(d).padStart(4)}`,
    formatCount(n),
    '#'.repeat(widest === 0 ? 0 : Math.ceil((n / widest) * 40)),
  ]);
  lines.push(...formatTable(rows));
}

function objectRows(objects: ObjectSummary[]): string[] {
  return formatTable(
    objects.map((o) => [
      `    ${o.oid}`,
      o.type,
      formatBytes(o.size),
      formatBytes(o.diskSize),
      `depth ${o.depth}`,
      nameOf(o),
    ]),
  );
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
