import { EXIT_STATUS } from '../report-error.ts';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { fail } from '../../core/errors.ts';
import { discoverRepository, type Repository } from '../../core/model/repository.ts';
import { ObjectStore } from '../../core/model/object-store.ts';
import { DEFAULT_PREVIEW_LIMITS } from '../../core/repack/recording-layouts.ts';
import type { RepackPreview } from '../../core/repack/preview-pack.ts';
import type { RepackPreviewDocument, SizeChange } from '../../core/documents/repack-preview-document.ts';
import { storeWalkInputs } from '../../core/model/object-paths.ts';
import { walkWithProgress } from '../walk-paths.ts';
import { runRepackPreviewReport, type RepackPreviewRequest } from '../../core/report/repack-preview-report.ts';
import { parseLimits } from '../../core/sim/policy-registry.ts';
import { parseRecordingFile } from '../../core/trace/load-recording.ts';
import { formatBytes, formatCount, formatLimit, formatTable, writeJson } from '../output.ts';
import { formatPercentChange, formatSignedPercent } from '../../common/format.ts';
import { modelStoreFor } from '../open-target.ts';
import type { Progress } from '../progress.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';
import { previewRepackMode } from '../../core/repack/repack-mode-preview.ts';
import type { RepackMode, RepackModePreviewDocument } from '../../core/documents/repack-mode-document.ts';

const repackPreviewHelp = `usage: packscope repack-preview [--json] [--depth N] [--window N] [--threads N] [--reuse-deltas]
                                [--recording FILE]... [--limits L,…] [--time] [--estimate-only | --no-estimate]
                                [--top N] [--no-paths] [--git PATH] [-- pack-objects options…] [path]
       packscope repack-preview [--json] (--geometric N | --cruft) [--git PATH] [path]

What \`git repack -a -d -f\` with these options would do to the repository at [path] (default: the
current directory), without touching it: runs \`git pack-objects\` with repack's object selection
(--keep-true-parents --honor-pack-keep --non-empty --all --reflog --indexed-objects, as git 2.39's
repack passes them) into a temporary directory under $TMPDIR, measures the pack it wrote, deletes
it, and compares: objects, .pack bytes, deltas, maximum and mean depth, the depth histogram,
families, and the objects whose size on disk changed most. Ctrl+C stops git and removes the
temporary directory.

--depth N, --window N, --threads N   passed to pack-objects as repack passes them (default: git's)
--reuse-deltas      keep today's deltas, as \`git repack -a -d\` without -f (and plain \`git gc\`) do
--recording FILE    also replay a recording of this repository (packscope record) against both
                    layouts: the git policy's inflations at --limits (default 16m,96m) and the
                    seek locality of its reads; may be given several times
--time              predict each recording's read time on both layouts (an estimate: the counts
                    priced by packscope calibrate's cost model of today's largest pack), running
                    the calibration first when none is kept; without it a kept one is used
--estimate-only     no pack-objects run: only the write-order estimate (git-internals §5), which
                    keeps today's deltas and predicts where objects would be written
--no-estimate       skip the estimate (by default it runs too, and its distance from the preview
                    is reported)
--top N             largest size changes to list (default 20)
--no-paths          list them by id alone: without it, each is named by its path (the name \`git
                    rev-list --objects --all\` gives it), from the names stored for today's packs or
                    named now (by git rev-list, seconds on a large history; stored for next time)
--git PATH          the git executable (default: git on PATH)
-- options…         more pack-objects options, e.g. -- --no-reuse-object --window-memory=1g

--geometric N       instead: what \`git repack --geometric=N -d\` would do to the packs (git 2.32+)
--cruft             instead: what \`git repack --cruft -d\` would do (git 2.37+): one pack of the
                    reachable objects, a cruft pack (.mtimes) of the unreachable ones
                    Both run that very repack with GIT_OBJECT_DIRECTORY set to a temporary shadow
                    of the objects directory (links to its files; the repository is only read),
                    and list the packs before and after, what it removes and what it writes.

--json prints the "packscope.repack-preview/1" document described in docs/json.md (with
--geometric or --cruft, "packscope.repack-mode-preview/1").`;

interface Values {
  json?: boolean | undefined;
  depth?: string | undefined;
  window?: string | undefined;
  threads?: string | undefined;
  'reuse-deltas'?: boolean | undefined;
  recording?: string[] | undefined;
  limits?: string | undefined;
  'estimate-only'?: boolean | undefined;
  'no-estimate'?: boolean | undefined;
  time?: boolean | undefined;
  top?: string | undefined;
  'no-paths'?: boolean | undefined;
  git?: string | undefined;
  geometric?: string | undefined;
  cruft?: boolean | undefined;
  'cache-dir'?: string | undefined;
  'no-cache'?: boolean | undefined;
}

function count(values: Values, name: 'depth' | 'window' | 'threads' | 'top'): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n))
    throw fail('usage', undefined, undefined, `--${name} needs a non-negative integer (got "${raw}")`);
  return n;
}

async function runRepackPreview(argv: string[], progress: Progress): Promise<number> {
  const split = argv.indexOf('--');
  const own = split < 0 ? argv : argv.slice(0, split);
  const extraOptions = split < 0 ? [] : argv.slice(split + 1);
  const { values, positionals } = parseArgs({
    args: own,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      depth: { type: 'string' },
      window: { type: 'string' },
      threads: { type: 'string' },
      'reuse-deltas': { type: 'boolean' },
      recording: { type: 'string', multiple: true },
      limits: { type: 'string' },
      'estimate-only': { type: 'boolean' },
      'no-estimate': { type: 'boolean' },
      time: { type: 'boolean' },
      top: { type: 'string' },
      'no-paths': { type: 'boolean' },
      git: { type: 'string' },
      geometric: { type: 'string' },
      cruft: { type: 'boolean' },
      ...cacheOptionSpec,
    },
  }) as { values: Values; positionals: string[] };
  if (values.geometric !== undefined || values.cruft)
    return runRepackModePreview(values, positionals, extraOptions, progress);
  if (positionals.length > 1)
    throw fail(
      'usage',
      undefined,
      undefined,
      'repack-preview takes at most one path (pack-objects options go after --)',
    );
  if (values['estimate-only'] && values['no-estimate'])
    throw fail('usage', undefined, undefined, '--estimate-only and --no-estimate exclude each other');
  const limits = values.limits === undefined ? DEFAULT_PREVIEW_LIMITS : parseLimits(values.limits);
  const repository = discoverRepository(path.resolve(positionals[0] ?? '.'));
  const store = new ObjectStore(repository, modelStoreFor(cacheOptions(values), repository));

  return untilInterrupted(async (signal) => {
    const report = await progress.trackAsync('Repack preview', (onProgress) =>
      runRepackPreviewReport(
        {
          signal,
          parseRecording: (file) =>
            progress.track(`Parsing ${path.basename(file)}`, (onParse) => parseRecordingFile(file, onParse)),
          step: () => undefined,
          gitProgress: (p) => onProgress(p.done, p.total ?? p.done),
          log: () => undefined,
          warn: (message) => process.stderr.write(`packscope: warning: ${message}\n`),
        },
        previewOptions(values, repository, store, limits, extraOptions),
      ),
    );
    if (!values['no-paths']) await nameChanges(report.document.largestChanges, store, progress);
    if (values.json) writeJson(report.document);
    else process.stdout.write(describe(report.preview, report.document, limits));
    return 0;
  });
}

/**
 * The path of each listed object in today's packs, as `git rev-list --objects --all` names it (the
 * panel shows the same, from the server's names): stored names, else named now and stored.
 */
async function nameChanges(changes: SizeChange[], store: ObjectStore, progress: Progress): Promise<void> {
  if (changes.length === 0) return;
  const inputs = storeWalkInputs(store);
  const paths = await walkWithProgress(inputs, store, progress);
  for (const change of changes) {
    const found = store.locate(change.oid);
    const position = found === undefined ? -1 : inputs.packs.indexOf(found.pack);
    const node = position < 0 ? -1 : (paths.pathOf[position]![found!.object] ?? -1);
    change.path = node < 0 ? null : paths.table.path(node);
  }
}

/** The preview's options from the command line (the panel gives the same from its picker). */
function previewOptions(
  values: Values,
  repository: Repository,
  store: ObjectStore,
  limits: number[],
  extraOptions: string[],
): RepackPreviewRequest {
  return {
    repository,
    store,
    git: values.git ?? 'git',
    depth: count(values, 'depth'),
    window: count(values, 'window'),
    threads: count(values, 'threads'),
    reuseDeltas: values['reuse-deltas'] ?? false,
    extraOptions,
    recordings: values.recording ?? [],
    limits,
    // --top only shapes the preview's list: an estimate alone does not read it.
    top: values['estimate-only'] ? undefined : count(values, 'top'),
    preview: !values['estimate-only'],
    estimate: !values['no-estimate'],
    unusableRecordings: 'fail',
    describeCurrentWithoutPreview: false,
    warningsInDocument: false,
    // As the panel: a kept calibration prices the layouts; --time makes one when none is kept.
    readTime: values.time ? 'calibrate' : 'cached',
  };
}

/** `--geometric N` / `--cruft`: a real repack of that mode against a shadow (repack-mode-preview.ts). */
async function runRepackModePreview(
  values: Values,
  positionals: string[],
  extraOptions: string[],
  progress: Progress,
): Promise<number> {
  if (values.geometric !== undefined && values.cruft)
    throw fail('usage', undefined, undefined, '--geometric and --cruft exclude each other');
  const tuned = (
    [
      'depth',
      'window',
      'threads',
      'top',
      'limits',
      'recording',
      'reuse-deltas',
      'estimate-only',
      'no-estimate',
      'time',
      'no-paths',
    ] as const
  ).filter((name) => values[name] !== undefined);
  if (tuned.length > 0 || extraOptions.length > 0)
    throw fail(
      'usage',
      undefined,
      undefined,
      `--${values.cruft ? 'cruft' : 'geometric'} runs git repack as it is: ${tuned.length > 0 ? `--${tuned.join(', --')}` : 'pack-objects options'} do not apply`,
    );
  if (positionals.length > 1) throw fail('usage', undefined, undefined, 'repack-preview takes at most one path');
  let mode: RepackMode = { kind: 'cruft' };
  if (values.geometric !== undefined) {
    const factor = Number(values.geometric);
    if (!/^\d+$/.test(values.geometric) || !Number.isSafeInteger(factor) || factor < 2)
      throw fail(
        'usage',
        undefined,
        undefined,
        `--geometric needs an integer factor of 2 or more (got "${values.geometric}")`,
      );
    mode = { kind: 'geometric', factor };
  }
  const repository = discoverRepository(path.resolve(positionals[0] ?? '.'));
  return untilInterrupted(async (signal) => {
    const document = await progress.trackAsync('Repack preview', (onProgress) =>
      previewRepackMode({
        repository,
        mode,
        git: values.git ?? 'git',
        signal,
        onProgress: (p) => onProgress(p.done, p.total ?? p.done),
      }),
    );
    if (values.json) writeJson(document);
    else process.stdout.write(describeMode(document));
    return 0;
  });
}

function describeMode(d: RepackModePreviewDocument): string {
  const lines = [
    `repack preview of ${d.repository}: ${d.equivalent.join(' ')} (git ${d.gitVersion}, ${d.seconds.toFixed(2)} s)`,
  ];
  const objects = (side: typeof d.before): number => side.packs.reduce((sum, p) => sum + p.objects, 0);
  const bytes = (side: typeof d.before): number => side.packs.reduce((sum, p) => sum + p.packBytes, 0);
  lines.push(
    ...formatTable([
      ['', 'before', 'after'],
      ['packs', String(d.before.packs.length), String(d.after.packs.length)],
      [
        'cruft packs',
        String(d.before.packs.filter((p) => p.kind === 'cruft').length),
        String(d.after.packs.filter((p) => p.kind === 'cruft').length),
      ],
      ['objects in packs', formatCount(objects(d.before)), formatCount(objects(d.after))],
      ['pack bytes', formatBytes(bytes(d.before)), formatBytes(bytes(d.after))],
      ['loose objects', formatCount(d.before.looseObjects), formatCount(d.after.looseObjects)],
    ]),
  );
  const row = (status: string, p: (typeof d.before.packs)[number]): string[] => [
    `  ${status}`,
    p.name,
    formatCount(p.objects),
    formatBytes(p.packBytes),
    [
      p.kind === 'normal' ? '' : p.kind,
      ...p.markers.filter((m) => m !== 'mtimes' && m !== 'promisor').map((m) => `.${m}`),
    ]
      .filter(Boolean)
      .join(' '),
  ];
  lines.push('packs:');
  lines.push(
    ...formatTable([
      ...d.before.packs.filter((p) => d.removed.includes(p.name)).map((p) => row('removed', p)),
      ...d.after.packs.filter((p) => d.unchanged.includes(p.name)).map((p) => row('kept', p)),
      ...d.after.packs.filter((p) => d.written.includes(p.name)).map((p) => row('written', p)),
    ]),
  );
  return lines.join('\n') + '\n';
}

// Stays long: the text output, section by section in the order printed.
function describe(result: RepackPreview | undefined, document: RepackPreviewDocument, limits: number[]): string {
  const { recordings: replays, estimate } = document;
  const lines: string[] = [];
  if (result) {
    const { current, preview } = result;
    lines.push(
      `repack preview of ${result.repository}: ${result.equivalent.join(' ')} (git ${result.gitVersion}, pack-objects ${result.seconds.toFixed(2)} s)`,
    );
    lines.push(
      ...formatTable([
        ['', 'current', 'preview', 'change'],
        [
          'objects',
          formatCount(current.objects),
          formatCount(preview.objects),
          formatPercentChange(current.objects, preview.objects, 'ascii'),
        ],
        [
          'pack bytes',
          formatBytes(current.packBytes),
          formatBytes(preview.packBytes),
          formatPercentChange(current.packBytes, preview.packBytes, 'ascii'),
        ],
        [
          'deltas',
          formatCount(current.deltas),
          formatCount(preview.deltas),
          formatPercentChange(current.deltas, preview.deltas, 'ascii'),
        ],
        ['max depth', String(current.maxDepth), String(preview.maxDepth), ''],
        ['mean depth', current.meanDepth.toFixed(2), preview.meanDepth.toFixed(2), ''],
        [
          'families',
          formatCount(current.families),
          formatCount(preview.families),
          formatPercentChange(current.families, preview.families, 'ascii'),
        ],
        ['packs', String(current.packs.length), '1', ''],
      ]),
    );
    if (current.looseObjects > 0) lines.push(`(and ${formatCount(current.looseObjects)} loose objects today)`);
    lines.push('depth histogram:');
    const depths = Math.max(current.depthHistogram.length, preview.depthHistogram.length);
    lines.push(
      ...formatTable([
        ['  depth', 'current', 'preview'],
        ...Array.from({ length: depths }, (_, d) => [
          `  ${d}`,
          formatCount(current.depthHistogram[d] ?? 0),
          formatCount(preview.depthHistogram[d] ?? 0),
        ]),
      ]),
    );
    if (document.largestChanges.length > 0) {
      lines.push('largest changes on disk:');
      lines.push(
        ...formatTable(
          document.largestChanges.map((c) => [
            `  ${c.oid}`,
            ...(c.path === undefined ? [] : [c.path ?? '(no path)']),
            c.type,
            formatBytes(c.currentDiskSize),
            '->',
            formatBytes(c.previewDiskSize),
            `depth ${c.currentDepth} -> ${c.previewDepth}`,
          ]),
        ),
      );
    }
    if (result.onlyInCurrent > 0)
      lines.push(`${formatCount(result.onlyInCurrent)} objects of today's packs would not be kept (unreachable)`);
    if (result.onlyInPreview > 0)
      lines.push(
        `${formatCount(result.onlyInPreview)} objects would be packed that no local pack holds today (loose or borrowed)`,
      );
  }
  for (const r of replays) {
    lines.push(
      `recording ${r.recording.file} (${formatCount(r.reads)} reads${r.readsNotInPreview > 0 ? `; ${r.readsNotInPreview} of objects the preview drops left out` : ''}):`,
    );
    const rows = [
      [
        '  git policy',
        ...limits.map((l) => `${formatLimit(l)} current`),
        ...(result ? limits.map((l) => `${formatLimit(l)} preview`) : []),
      ],
    ];
    rows.push([
      '  inflations',
      ...r.current.inflations.map((x) => formatCount(x.inflations)),
      ...(r.preview?.inflations ?? []).map((x) => formatCount(x.inflations)),
    ]);
    if (document.readTime?.calibration) {
      const s = (x: { readSeconds: number | null }): string =>
        x.readSeconds === null ? '-' : `${x.readSeconds.toFixed(2)}s`;
      rows.push(['  read time (estimate)', ...r.current.inflations.map(s), ...(r.preview?.inflations ?? []).map(s)]);
    }
    lines.push(...formatTable(rows));
    const share = (x: { shortSeekShare: number } | undefined): string =>
      x ? `${(x.shortSeekShare * 100).toFixed(1)}%` : '-';
    const median = (x: { percentiles: { p: number; bytes: number }[] } | undefined): string =>
      x ? formatBytes(x.percentiles.find((p) => p.p === 50)?.bytes ?? 0) : '-';
    lines.push(
      `  seeks under 2 MiB: current ${r.current.locality.map(share).join(', ') || '-'}; preview ${share(r.preview?.locality[0])}; estimate ${r.estimate ? share(r.estimate) : '-'}`,
    );
    lines.push(
      `  median seek: current ${r.current.locality.map(median).join(', ') || '-'}; preview ${median(r.preview?.locality[0])}`,
    );
  }
  if (document.readTime?.calibration)
    lines.push(
      `read time: estimate, calibration of ${path.basename(document.readTime.calibration.pack)} ${document.readTime.calibration.date} (git ${document.readTime.calibration.key.git}); ${document.readTime.note}`,
    );
  if (estimate) {
    const e = estimate.estimate;
    lines.push(`estimate (no repack; ${e.basis}; ${e.seconds.toFixed(2)} s):`);
    lines.push(
      `  objects ${formatCount(e.objects)}, pack about ${formatBytes(e.packBytes)}, ${formatCount(e.deltas)} deltas, max depth ${e.maxDepth}, mean depth ${e.meanDepth.toFixed(2)}`,
    );
    const a = estimate.accuracy;
    if (a) {
      lines.push(
        `  against the preview: pack bytes ${formatSignedPercent(a.packBytes.relativeError * 100, 'ascii')}, write-order rank correlation ${a.orderRankCorrelation.toFixed(3)}, ${(a.objectsInPlace * 100).toFixed(1)}% of objects at their real position`,
      );
      lines.push(
        `  the §5 model given the preview's own deltas: ${(a.modelWithRealDeltas.objectsInPlace * 100).toFixed(1)}% in place, rank correlation ${a.modelWithRealDeltas.orderRankCorrelation.toFixed(3)}`,
      );
    }
  }
  return lines.join('\n') + '\n';
}

export const repackPreviewCommand: Command = {
  name: 'repack-preview',
  summary:
    'repack-preview [--json] [--depth N] …     what git repack -a -d -f would do, without touching the repository',
  help: repackPreviewHelp,
  forwardsAfterDoubleDash: true,
  run: (argv, { progress }) => runRepackPreview(argv, progress),
};

/**
 * Runs a preview that Ctrl+C (or SIGTERM) cancels: the signal stops git and removes the temporary
 * directory, then the command exits 130 as a shell would.
 */
async function untilInterrupted(work: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort();
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);
  try {
    return await work(controller.signal);
  } catch (error) {
    if (!(error instanceof Error && error.name === 'AbortError')) throw error;
    process.stderr.write('packscope: repack preview cancelled (git stopped, temporary directory removed)\n');
    return EXIT_STATUS.cancelled;
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    process.removeListener('SIGTERM', onInterrupt);
  }
}
