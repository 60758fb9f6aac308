/**
 * What the Repack Preview shows of one finished run, built once for the panel (media/repack-preview)
 * and for "Export as Markdown", so that both always hold the same numbers: the comparison rows, the
 * depth histogram rows, the rows of each replayed recording, and the Markdown document.
 */
import type { RepackPreviewRun } from '../protocol/repack-preview-protocol.ts';
import type {
  RepackLayout,
  RepackLayoutReplay,
  RepackPackLocality,
  RepackPreviewResult,
} from '../protocol/server-protocol.ts';
import {
  formatBytes,
  formatCount,
  formatExactBytes,
  formatLimit,
  formatPercentChange,
  formatShare,
} from '../common/format.ts';
import { markdownCodeSpan, markdownText } from '../common/markdown-text.ts';

export type ValueFormat = 'count' | 'bytes' | 'depth' | 'mean';

export interface ComparisonRow {
  /** Stable key (the e2e test finds cells by it): objects, packBytes, deltas, families, maxDepth, meanDepth. */
  key: 'objects' | 'packBytes' | 'deltas' | 'families' | 'maxDepth' | 'meanDepth';
  label: string;
  format: ValueFormat;
  current: number | null;
  preview: number | null;
  estimate: number | null;
}

const ROWS: { key: ComparisonRow['key']; label: string; format: ValueFormat }[] = [
  { key: 'objects', label: 'Objects', format: 'count' },
  { key: 'packBytes', label: 'Pack size (.pack)', format: 'bytes' },
  { key: 'deltas', label: 'Deltas', format: 'count' },
  { key: 'families', label: 'Delta families', format: 'count' },
  { key: 'maxDepth', label: 'Maximum depth', format: 'depth' },
  { key: 'meanDepth', label: 'Mean depth', format: 'mean' },
];

/** The current layout, for an estimate-only run too (the CLI leaves `current` null then: it comes from the estimate's basis). */
export function comparisonRows(result: RepackPreviewResult): ComparisonRow[] {
  const estimate = result.estimate?.estimate ?? null;
  const pick = (layout: RepackLayout | null, key: ComparisonRow['key']): number | null =>
    layout === null ? null : layout[key];
  return ROWS.map((row) => ({
    ...row,
    current: pick(result.current, row.key),
    preview: pick(result.preview, row.key),
    estimate: estimate === null ? null : estimate[row.key],
  }));
}

/**
 * The estimate's change column. The write-order model (git-internals §5) runs on today's delta
 * bases, so where it gives today's figure it predicted nothing: a "0.0%" there read as a forecast
 * that a repack changes nothing (the real `gc --aggressive` was 38% smaller). Such a cell says
 * "as today" and why; a figure the estimate does move (objects and bytes, when loose objects are
 * packed or unreachable ones left out) keeps its percentage.
 */
export function estimateChange(row: ComparisonRow): string {
  if (row.estimate === null || row.current === null) return '';
  if (row.estimate === row.current)
    return KEPT_BY_ESTIMATE.has(row.key) ? "as today (today's deltas kept)" : 'as today';
  if (row.format === 'depth' || row.format === 'mean') return '';
  return formatPercentChange(row.current, row.estimate, 'typographic');
}

/** Figures the estimate takes from today's deltas rather than predicting. */
const KEPT_BY_ESTIMATE: ReadonlySet<ComparisonRow['key']> = new Set(['deltas', 'families', 'maxDepth', 'meanDepth']);

/**
 * The write-order estimate's entry in the preset picker (a description beside the label, a detail
 * line under it): what it can tell, which is where objects would sit and so what a recorded
 * command's reads would seek, not what a repack saves.
 */
export function writeOrderEstimateText(recordings: number): { description: string; detail: string } {
  return {
    description: "where today's objects would be written; sizes and deltas stay today's",
    detail:
      recordings > 0
        ? `Replays ${formatCount(recordings)} recording${recordings === 1 ? '' : 's'} of this repository on that order: how far their reads would seek.`
        : 'Says most beside a recording of this repository (PackScope: Record a Git Command…): how far its reads would seek.',
  };
}

export function formatValue(value: number | null, format: ValueFormat): string {
  if (value === null) return '–';
  switch (format) {
    case 'bytes':
      return formatBytes(value);
    case 'mean':
      return value.toFixed(2);
    default:
      return formatCount(value);
  }
}

/** The `git repack …` command a run stands for (the estimate: what it models). */
export function equivalentCommand(run: RepackPreviewRun): string {
  if (run.result.equivalent) return [...run.result.equivalent, ...run.request.extraOptions].join(' ');
  return "git repack -a -d (estimated: today's deltas kept)";
}

export function percentile(locality: RepackPackLocality | undefined, p: number): number | null {
  return locality?.percentiles.find((x) => x.p === p)?.bytes ?? null;
}

/** A layout's locality over all its packs: the current side may read several packs; the figures are per pack, the first (most read) shown. */
export function mainLocality(replay: RepackLayoutReplay | null | undefined): RepackPackLocality | undefined {
  if (!replay || replay.locality.length === 0) return undefined;
  return [...replay.locality].sort((a, b) => b.reads - a.reads)[0];
}

/** A depth histogram's rows, up to the deepest of the layouts given. */
export function histogramRows(histograms: (number[] | null | undefined)[]): number[][] {
  const depth = Math.max(0, ...histograms.map((h) => (h ? h.length : 0)));
  return Array.from({ length: depth }, (_, d) => histograms.map((h) => h?.[d] ?? 0));
}

function mdTable(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

/**
 * The path an object of the tables goes by (the name `git rev-list --objects --all` gives it), as
 * the host learnt it: "resolving names…" until the repository's walk has named it (or while the
 * host has not asked yet), `undefined` when there is none to say (a run restored without a repository).
 */
export function changePath(run: RepackPreviewRun, oid: string): { text: string; code: boolean } | undefined {
  const name = run.names?.[oid];
  if (name === undefined) return run.repositoryId === undefined ? undefined : { text: 'resolving names…', code: false };
  if (name.path === '') return { text: '(root tree)', code: false };
  if (typeof name.path === 'string') return { text: name.path, code: true };
  if (name.path === null) return { text: '(no ref reaches it)', code: false };
  return name.namesPending ? { text: 'resolving names…', code: false } : undefined;
}

function pathCell(path: { text: string; code: boolean } | undefined): string {
  if (path === undefined) return '';
  return path.code ? markdownCodeSpan(path.text) : markdownText(path.text);
}

/** The panel's content as Markdown ("Export as Markdown"). Every string from the repository is escaped. */
// Stays long: one Markdown document written section by section in the order it reads; each section is a few lines.
export function repackPreviewMarkdown(run: RepackPreviewRun): string {
  const { result, request } = run;
  const estimateOnly = result.preview === null;
  const lines: string[] = [];
  lines.push(
    `# ${estimateOnly ? 'Repack estimate' : 'Repack preview'}: ${markdownText(run.repositoryName)} (${markdownText(request.label)})`,
    '',
  );
  if (estimateOnly)
    lines.push(
      "> **Estimate.** No repack ran: the write-order model of git-internals §5 keeps today's deltas and predicts where each object would be written. Delta selection is not modelled.",
      '',
    );
  lines.push(
    `- Repository: ${markdownCodeSpan(result.repository.gitDir)} (${markdownText(result.repository.objectFormat)})`,
  );
  lines.push(`- Stands for: ${markdownCodeSpan(equivalentCommand(run))}`);
  if (result.git) lines.push(`- pack-objects ran as: ${markdownCodeSpan(result.git.join(' '))}`);
  if (result.gitEnvironment && Object.keys(result.gitEnvironment).length > 0)
    lines.push(
      `- with: ${markdownCodeSpan(
        Object.entries(result.gitEnvironment)
          .map(([k, v]) => `${k}=${v}`)
          .join(' '),
      )}`,
    );
  if (result.gitVersion)
    lines.push(
      `- git ${markdownText(result.gitVersion)}; pack-objects took ${result.seconds?.toFixed(2)} s (the whole preview ${run.requestSeconds.toFixed(2)} s)`,
    );
  else lines.push(`- The estimate took ${run.requestSeconds.toFixed(2)} s`);
  lines.push(`- ${run.finishedAt}`, '');

  const rows = comparisonRows(result);
  const hasEstimate = result.estimate !== null;
  const header = [
    '',
    'Current',
    ...(estimateOnly ? [] : ['Preview', 'Change']),
    ...(hasEstimate ? ['Estimate', 'Change (estimate)'] : []),
  ];
  lines.push(
    ...mdTable(
      header,
      rows.map((r) => [
        r.label,
        formatValue(r.current, r.format),
        ...(estimateOnly
          ? []
          : [
              formatValue(r.preview, r.format),
              r.format === 'depth' || r.format === 'mean'
                ? ''
                : formatPercentChange(r.current, r.preview, 'typographic'),
            ]),
        ...(hasEstimate ? [formatValue(r.estimate, r.format), estimateChange(r)] : []),
      ]),
    ),
    '',
  );
  if (result.current?.looseObjects)
    lines.push(
      `Today there are also ${formatCount(result.current.looseObjects)} loose objects; a repack packs them.`,
      '',
    );
  if (result.onlyInCurrent)
    lines.push(`${formatCount(result.onlyInCurrent)} objects of today's packs would not be kept (unreachable).`, '');

  lines.push('## Depth histogram', '');
  const histograms = [
    result.current?.depthHistogram,
    ...(estimateOnly ? [] : [result.preview?.depthHistogram]),
    ...(hasEstimate ? [result.estimate!.estimate.depthHistogram] : []),
  ];
  lines.push(
    ...mdTable(
      ['Depth', 'Current', ...(estimateOnly ? [] : ['Preview']), ...(hasEstimate ? ['Estimate'] : [])],
      histogramRows(histograms).map((counts, d) => [String(d), ...counts.map(formatCount)]),
    ),
    '',
  );

  if (result.largestChanges.length > 0) {
    lines.push('## Largest changes on disk', '');
    lines.push(
      ...mdTable(
        ['Object', 'Path', 'Type', 'Current', 'Preview', 'Change', 'Depth'],
        result.largestChanges.map((c) => [
          markdownCodeSpan(c.oid),
          pathCell(changePath(run, c.oid)),
          markdownText(c.type),
          formatBytes(c.currentDiskSize),
          formatBytes(c.previewDiskSize),
          `${c.change > 0 ? '+' : c.change < 0 ? '−' : ''}${formatBytes(Math.abs(c.change))}`,
          `${c.currentDepth} → ${c.previewDepth}`,
        ]),
      ),
      '',
    );
  }

  for (const replay of result.recordings) {
    lines.push(`## Recording ${markdownText(replay.recording.file.split(/[\\/]/).pop() ?? replay.recording.file)}`, '');
    if (replay.recording.command)
      lines.push(
        `${markdownCodeSpan(replay.recording.command)}, ${formatCount(replay.reads)} reads${replay.readsNotInPreview > 0 ? ` (${formatCount(replay.readsNotInPreview)} of objects the preview drops left out)` : ''}`,
        '',
      );
    else lines.push(`${formatCount(replay.reads)} reads`, '');
    lines.push(
      ...mdTable(
        ['', 'Current', ...(replay.preview ? ['Preview'] : []), ...(replay.estimate ? ['Estimate'] : [])],
        recordingRows(replay).map((row) => [row.label, ...row.values]),
      ),
      '',
    );
  }

  const accuracy = result.estimate?.accuracy;
  if (accuracy) {
    lines.push('## How far the estimate was from the preview', '');
    lines.push(
      ...mdTable(
        ['', 'Estimate', 'Preview'],
        [
          ['Objects', formatCount(accuracy.objects.estimate), formatCount(accuracy.objects.preview)],
          [
            'Pack size',
            formatBytes(accuracy.packBytes.estimate),
            `${formatBytes(accuracy.packBytes.preview)} (estimate off by ${formatPercentChange(accuracy.packBytes.preview, accuracy.packBytes.estimate, 'typographic')})`,
          ],
          ['Deltas', formatCount(accuracy.deltas.estimate), formatCount(accuracy.deltas.preview)],
          ['Maximum depth', String(accuracy.maxDepth.estimate), String(accuracy.maxDepth.preview)],
          ['Mean depth', accuracy.meanDepth.estimate.toFixed(2), accuracy.meanDepth.preview.toFixed(2)],
        ],
      ),
      '',
      `Write order: rank correlation ${accuracy.orderRankCorrelation.toFixed(3)}, ${formatShare(accuracy.objectsInPlace)} of objects at their real position; the §5 model given the preview's own deltas: ${formatShare(accuracy.modelWithRealDeltas.objectsInPlace)} in place (rank correlation ${accuracy.modelWithRealDeltas.orderRankCorrelation.toFixed(3)}).`,
      '',
    );
  }
  if (result.warnings && result.warnings.length > 0)
    lines.push('## Warnings', '', ...result.warnings.map((w) => `- ${markdownText(w)}`), '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Per recording: the `git` policy's inflations at each limit, then locality, for each layout. */
export function recordingRows(
  replay: RepackPreviewResult['recordings'][number],
): { key: string; label: string; values: string[]; titles?: (string | undefined)[] }[] {
  const sides: (RepackLayoutReplay | null)[] = [replay.current, ...(replay.preview ? [replay.preview] : [])];
  const localities: (RepackPackLocality | undefined)[] = [
    ...sides.map((s) => mainLocality(s)),
    ...(replay.estimate ? [replay.estimate] : []),
  ];
  const pad = (values: string[]): string[] => (replay.estimate ? [...values, '–'] : values);
  const rows: { key: string; label: string; values: string[]; titles?: (string | undefined)[] }[] = [];
  for (const [k, at] of replay.current.inflations.entries()) {
    rows.push({
      key: `inflations-${at.limit}`,
      label: `Inflations (git policy, ${formatLimit(at.limit)} cache)`,
      values: pad(sides.map((s) => (s?.inflations[k] ? formatCount(s.inflations[k]!.inflations) : '–'))),
    });
    // The same counts in seconds, when the document was priced (readTime).
    if (sides.some((s) => typeof s?.inflations[k]?.readSeconds === 'number')) {
      rows.push({
        key: `read-seconds-${at.limit}`,
        label: `Predicted read time (estimate, ${formatLimit(at.limit)} cache)`,
        values: pad(
          sides.map((s) =>
            typeof s?.inflations[k]?.readSeconds === 'number' ? `${s.inflations[k]!.readSeconds!.toFixed(2)} s` : '–',
          ),
        ),
      });
    }
  }
  rows.push({
    key: 'short-seeks',
    label: 'Short seeks (under 2 MiB)',
    values: localities.map((l) => formatShare(l?.shortSeekShare)),
  });
  for (const p of [50, 90, 99]) {
    rows.push({
      key: `p${p}`,
      label: `Seek distance p${p}`,
      values: localities.map((l) => (percentile(l, p) === null ? '–' : formatBytes(percentile(l, p)!))),
      // The panel's hover: the exact distance behind the rounded one.
      titles: localities.map((l) => (percentile(l, p) === null ? undefined : formatExactBytes(percentile(l, p)!))),
    });
  }
  rows.push({
    key: 'page-faults',
    label: 'Page faults (256 MiB cache)',
    values: localities.map((l) => (l ? formatCount(l.pageFaults) : '–')),
  });
  return rows;
}
