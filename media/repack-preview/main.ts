// The Repack Preview webview: one finished run (src/protocol/repack-preview-protocol.ts) as tables
// and a depth histogram chart. It draws what the host sent and computes nothing; every string from
// the repository reaches the page through the Cache Lab's DOM helpers (text nodes, attributes).
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LogarithmicScale,
  Tooltip,
  type ChartDataset,
} from 'chart.js';
import { formatBytes, formatCount, formatPercentChange, formatShare } from '../../src/common/format.ts';
import {
  changePath,
  comparisonRows,
  estimateChange,
  equivalentCommand,
  formatValue,
  histogramRows,
  recordingRows,
} from '../../src/presentation/repack-preview-tables.ts';
import { normalizeRepackPreviewState } from '../../src/presentation/repack-preview-state.ts';
import {
  REPACK_PREVIEW_PROTOCOL_VERSION,
  type HostToWebview,
  type RepackPreviewReplies,
  type RepackPreviewObjectName,
  type RepackPreviewRun,
  type RepackPreviewState,
  type WebviewToHost,
} from '../../src/protocol/repack-preview-protocol.ts';
import { baseName, h, objectLink, replaceChildren } from '../common/dom.ts';
import { startWebview } from '../common/start-webview.ts';
import { readThemeColours, watchTheme, type ThemeColours } from '../common/theme.ts';

/**
 * Each bar's share of its layout's objects, printed above it (upright when the bar is wide enough,
 * else turned to run up from it): a bar's length says how many, the number says what part of the
 * pack. Where drawn is kept in `data-shares` ([series, depth, share, x, y] per labelled bar) for
 * the tests and a screen reader's tooling, as the Cache Lab's charts keep their points.
 */
const shareLabels = {
  id: 'shareLabels',
  afterDatasetsDraw(drawn: Chart) {
    const context = drawn.ctx;
    const colours = readThemeColours();
    const shares: [string, number, string, number, number][] = [];
    context.save();
    context.fillStyle = colours.foreground;
    context.font = `${Math.max(9, colours.fontSize - 2)}px ${colours.fontFamily}`;
    drawn.data.datasets.forEach((dataset, i) => {
      const meta = drawn.getDatasetMeta(i);
      if (meta.hidden) return;
      const values = dataset.data as number[];
      const total = values.reduce((sum, v) => sum + v, 0);
      meta.data.forEach((element, depth) => {
        const count = values[depth] ?? 0;
        if (count <= 0 || total <= 0) return;
        const share = (100 * count) / total;
        const text = share >= 0.1 ? `${share.toFixed(1)}%` : '<0.1%';
        const { x, y, width } = element.getProps(['x', 'y', 'width'], true) as { x: number; y: number; width: number };
        const textWidth = context.measureText(text).width;
        if (width >= textWidth + 2) {
          context.textAlign = 'center';
          context.textBaseline = 'bottom';
          context.fillText(text, x, y - 2);
        } else if (width >= 8) {
          context.save();
          context.translate(x, y - 3);
          context.rotate(-Math.PI / 2);
          context.textAlign = 'left';
          context.textBaseline = 'middle';
          context.fillText(text, 0, 0);
          context.restore();
        } else return;
        shares.push([String(dataset.label ?? ''), depth, text, Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
      });
    });
    context.restore();
    drawn.canvas.dataset.shares = JSON.stringify(shares);
    drawn.canvas.dataset.scale = drawn.scales.y?.type ?? '';
  },
};

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LogarithmicScale, Legend, Tooltip, shareLabels);

const webview = startWebview<WebviewToHost, HostToWebview, RepackPreviewReplies>((message) => {
  // A `show` that answers no request of this page: the answer to the page before a reload.
  if (message.type === 'show') show(message);
  else if (message.type === 'names') showNames(message.names);
});
const { host, post } = webview;

let state: RepackPreviewState = normalizeRepackPreviewState(webview.savedState);
let chart: Chart<'bar', number[], string> | undefined;
let logScale = false;

const root = document.getElementById('repack-preview')!;

function button(id: string, text: string, onClick: () => void, secondary = false): HTMLButtonElement {
  const b = h('button', { id, type: 'button', class: secondary ? 'secondary' : undefined }, text);
  b.addEventListener('click', onClick);
  return b;
}

function cell(text: string, attributes: Record<string, string | number | undefined> = {}): HTMLTableCellElement {
  return h('td', attributes, text);
}

function changeClass(before: number | null, after: number | null): string | undefined {
  if (before === null || after === null || before === after) return undefined;
  return after < before ? 'smaller' : 'larger';
}

function summarySection(run: RepackPreviewRun): HTMLElement {
  const { result } = run;
  const estimateOnly = result.preview === null;
  const hasEstimate = result.estimate !== null;
  const rows = comparisonRows(result);
  const head = h(
    'tr',
    {},
    h('th', { scope: 'col' }, ''),
    h('th', { scope: 'col' }, 'Current'),
    ...(estimateOnly ? [] : [h('th', { scope: 'col' }, 'Preview'), h('th', { scope: 'col' }, 'Change')]),
    ...(hasEstimate
      ? [
          h('th', { scope: 'col', class: 'estimate' }, 'Estimate'),
          h('th', { scope: 'col', class: 'estimate' }, estimateOnly ? 'Change' : 'vs current'),
        ]
      : []),
  );
  const body = rows.map((r) => {
    const plain = r.format === 'depth' || r.format === 'mean';
    return h(
      'tr',
      { 'data-key': r.key },
      h('th', { scope: 'row' }, r.label),
      cell(formatValue(r.current, r.format), { 'data-side': 'current', 'data-value': r.current ?? '' }),
      ...(estimateOnly
        ? []
        : [
            cell(formatValue(r.preview, r.format), { 'data-side': 'preview', 'data-value': r.preview ?? '' }),
            cell(plain ? '' : formatPercentChange(r.current, r.preview, 'typographic'), {
              'data-side': 'change',
              class: r.key === 'packBytes' ? changeClass(r.current, r.preview) : undefined,
            }),
          ]),
      ...(hasEstimate
        ? [
            cell(formatValue(r.estimate, r.format), {
              'data-side': 'estimate',
              'data-value': r.estimate ?? '',
              class: 'estimate',
            }),
            cell(estimateChange(r), { class: 'estimate', 'data-side': 'estimate-change' }),
          ]
        : []),
    );
  });
  const notes: (HTMLElement | null)[] = [];
  const loose = result.current?.looseObjects ?? 0;
  if (loose > 0)
    notes.push(
      h('p', { class: 'note' }, `Today there are also ${formatCount(loose)} loose objects; a repack packs them.`),
    );
  if (result.onlyInCurrent)
    notes.push(
      h(
        'p',
        { class: 'note' },
        `${formatCount(result.onlyInCurrent)} objects of today's packs would not be kept (unreachable).`,
      ),
    );
  if (result.current && result.current.packs.length > 1)
    notes.push(h('p', { class: 'note' }, `Current: ${result.current.packs.length} packs together.`));
  return h(
    'section',
    { 'aria-labelledby': 'summary-title' },
    h(
      'h2',
      { id: 'summary-title' },
      estimateOnly ? 'Current packs and the estimate' : 'Current packs and the preview, side by side',
    ),
    h(
      'div',
      { class: 'table-scroll' },
      h('table', { class: 'numbers', id: 'summary' }, h('thead', {}, head), h('tbody', {}, ...body)),
    ),
    ...notes,
  );
}

function histogramSection(run: RepackPreviewRun): HTMLElement {
  const { result } = run;
  const series: { label: string; values: number[] | undefined }[] = [
    { label: 'current', values: result.current?.depthHistogram },
  ];
  if (result.preview) series.push({ label: 'preview', values: result.preview.depthHistogram });
  if (result.estimate) series.push({ label: 'estimate', values: result.estimate.estimate.depthHistogram });
  const canvas = h('canvas', {
    id: 'depth-chart',
    role: 'img',
    'aria-label': 'Objects at each delta depth, for each layout',
  });
  const rows = histogramRows(series.map((s) => s.values));
  const table = h(
    'table',
    { class: 'numbers', id: 'depth-table' },
    h(
      'thead',
      {},
      h('tr', {}, h('th', { scope: 'col' }, 'Depth'), ...series.map((s) => h('th', { scope: 'col' }, s.label))),
    ),
    h(
      'tbody',
      {},
      ...rows.map((counts, d) =>
        h(
          'tr',
          { 'data-depth': d },
          h('th', { scope: 'row' }, String(d)),
          ...counts.map((n, k) => cell(formatCount(n), { 'data-side': series[k]!.label, 'data-value': n })),
        ),
      ),
    ),
  );
  const scaleToggle = h('input', { type: 'checkbox', id: 'log-scale', checked: logScale });
  scaleToggle.addEventListener('change', () => {
    logScale = scaleToggle.checked;
    drawChart();
  });
  return h(
    'section',
    { 'aria-labelledby': 'depth-title' },
    h('h2', { id: 'depth-title' }, 'Depth histogram'),
    h(
      'p',
      { class: 'explanation' },
      'Objects at each delta depth (0: stored whole). A deeper chain costs more delta applications per read; a shallower one more bytes.',
    ),
    h(
      'label',
      {
        class: 'check',
        title:
          'Linear: bar lengths in proportion to the counts. Log: a long tail of small counts kept apart, but lengths no longer compare.',
      },
      scaleToggle,
      'Logarithmic count axis (each bar’s share of its layout is printed above it)',
    ),
    h(
      'figure',
      {},
      h('div', { class: 'chart-box' }, canvas),
      h(
        'figcaption',
        {},
        `Maximum depth: ${series.map((s) => `${s.label} ${Math.max(0, (s.values?.length ?? 1) - 1)}`).join(', ')}.`,
      ),
    ),
    h('details', {}, h('summary', {}, 'The numbers'), table),
  );
}

function drawChart(): void {
  chart?.destroy();
  chart = undefined;
  const run = state.run;
  const canvas = document.getElementById('depth-chart') as HTMLCanvasElement | null;
  if (!run || !canvas) return;
  const colours: ThemeColours = readThemeColours();
  const { result } = run;
  const series: { label: string; values: number[] }[] = [
    { label: 'current', values: result.current?.depthHistogram ?? [] },
  ];
  if (result.preview) series.push({ label: 'preview', values: result.preview.depthHistogram });
  if (result.estimate)
    series.push({ label: "estimate (today's deltas)", values: result.estimate.estimate.depthHistogram });
  const depths = Math.max(1, ...series.map((s) => s.values.length));
  const datasets: ChartDataset<'bar', number[]>[] = series.map((s, k) => {
    const colour = colours.series[k] ?? colours.foreground;
    return {
      label: s.label,
      data: Array.from({ length: depths }, (_, d) => s.values[d] ?? 0),
      backgroundColor: colour,
      borderColor: colour,
      borderWidth: colours.highContrast ? 1 : 0,
      categoryPercentage: 0.9,
      barPercentage: 0.95,
    };
  });
  chart = new Chart<'bar', number[], string>(canvas, {
    type: 'bar',
    data: { labels: Array.from({ length: depths }, (_, d) => String(d)), datasets },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      // Room above the tallest bar for its share.
      layout: { padding: { top: 36 } },
      color: colours.foreground,
      font: { family: colours.fontFamily, size: colours.fontSize },
      plugins: {
        legend: { labels: { color: colours.foreground, boxHeight: 10 } },
        tooltip: {
          callbacks: {
            title: (items) => `depth ${items[0]?.label ?? ''}`,
            label: (item) => `${item.dataset.label}: ${formatCount(Number(item.raw))} objects`,
          },
        },
      },
      scales: {
        x: {
          title: { display: true, text: 'delta depth', color: colours.foreground },
          grid: { display: false },
          ticks: { color: colours.foreground, autoSkip: true, maxRotation: 0 },
        },
        y: logScale
          ? {
              type: 'logarithmic',
              title: { display: true, text: 'objects (log scale)', color: colours.foreground },
              grid: { color: colours.grid },
              ticks: { color: colours.foreground },
            }
          : {
              type: 'linear',
              beginAtZero: true,
              title: { display: true, text: 'objects', color: colours.foreground },
              grid: { color: colours.grid },
              ticks: { color: colours.foreground, callback: (v) => formatCount(Number(v)) },
            },
      },
    },
  });
  canvas.dataset.series = JSON.stringify(datasets.map((d) => d.label ?? ''));
  canvas.dataset.colours = JSON.stringify(datasets.map((d) => String(d.backgroundColor ?? '')));
}

/** The object's path beside its id; "resolving names…" until the host has it. */
function pathCellOf(run: RepackPreviewRun, oid: string): HTMLElement {
  const path = changePath(run, oid);
  if (path === undefined) return h('td', { class: 'path' });
  return path.code ? h('td', { class: 'path' }, h('code', {}, path.text)) : h('td', { class: 'path note' }, path.text);
}

function largestChangesSection(run: RepackPreviewRun): HTMLElement | null {
  const changes = run.result.largestChanges;
  if (run.result.preview === null) return null;
  if (changes.length === 0)
    return h(
      'section',
      {},
      h('h2', {}, 'Largest changes on disk'),
      h('p', { class: 'note' }, 'No object changes its size on disk.'),
    );
  return h(
    'section',
    { 'aria-labelledby': 'changes-title' },
    h('h2', { id: 'changes-title' }, 'Largest changes on disk'),
    h(
      'p',
      { class: 'explanation' },
      'Objects whose entry in the pack grows or shrinks most (a new delta base, a different depth, stored whole instead of as a delta).',
    ),
    h(
      'table',
      { class: 'numbers', id: 'largest-changes' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Object', 'Path', 'Type', 'Current', 'Preview', 'Change', 'Depth'].map((t) =>
            h('th', { scope: 'col', class: t === 'Path' ? 'path' : undefined }, t),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        ...changes.map((c) =>
          h(
            'tr',
            { 'data-oid': c.oid },
            h(
              'th',
              { scope: 'row', class: 'oid' },
              objectLink(c.oid, c.oid.slice(0, 12), (oid) => post({ type: 'openObject', oid })),
            ),
            pathCellOf(run, c.oid),
            cell(c.type),
            cell(formatBytes(c.currentDiskSize)),
            cell(formatBytes(c.previewDiskSize)),
            cell(`${c.change > 0 ? '+' : c.change < 0 ? '−' : ''}${formatBytes(Math.abs(c.change))}`, {
              class: c.change < 0 ? 'smaller' : 'larger',
              'data-value': c.change,
            }),
            cell(`${c.currentDepth} → ${c.previewDepth}`),
          ),
        ),
      ),
    ),
  );
}

function recordingsSection(run: RepackPreviewRun): HTMLElement | null {
  const { recordings } = run.result;
  if (recordings.length === 0) {
    return h(
      'section',
      {},
      h('h2', {}, 'Recordings'),
      h(
        'p',
        { class: 'note' },
        'No recording of this repository: record git commands (Recordings view) to see how their reads would fare on the new layout.',
      ),
    );
  }
  return h(
    'section',
    { 'aria-labelledby': 'recordings-title' },
    h('h2', { id: 'recordings-title' }, 'Recordings replayed on both layouts'),
    h(
      'p',
      { class: 'explanation' },
      "Each recording's reads, mapped by object id to where the objects would be: the git policy's inflations (git-internals §1.6) at each cache limit, and the seek distances between consecutive reads.",
    ),
    run.result.readTime
      ? h(
          'p',
          { class: 'note', id: 'read-time-note' },
          run.result.readTime.calibration
            ? `Predicted read time is an estimate: ${run.result.readTime.note} (calibration of ${baseName(run.result.readTime.calibration.pack)}, ${run.result.readTime.calibration.date.slice(0, 16).replace('T', ' ')} UTC, git ${run.result.readTime.calibration.key.git}).`
            : `No predicted read time: ${run.result.readTime.note}.`,
        )
      : null,
    ...recordings.map((replay) => {
      const header = ['', 'Current', ...(replay.preview ? ['Preview'] : []), ...(replay.estimate ? ['Estimate'] : [])];
      return h(
        'div',
        { class: 'recording', 'data-file': replay.recording.file },
        h('h3', { title: replay.recording.file }, baseName(replay.recording.file)),
        h(
          'p',
          { class: 'note' },
          `${replay.recording.command ?? 'recorded git commands'}: ${formatCount(replay.reads)} reads${replay.readsNotInPreview > 0 ? `, ${formatCount(replay.readsNotInPreview)} of objects the preview drops left out` : ''}`,
        ),
        h(
          'table',
          { class: 'numbers' },
          h('thead', {}, h('tr', {}, ...header.map((t) => h('th', { scope: 'col' }, t)))),
          h(
            'tbody',
            {},
            ...recordingRows(replay).map((row) =>
              h(
                'tr',
                { 'data-key': row.key },
                h('th', { scope: 'row' }, row.label),
                ...row.values.map((v, i) => cell(v, { title: row.titles?.[i] })),
              ),
            ),
          ),
        ),
      );
    }),
  );
}

function accuracySection(run: RepackPreviewRun): HTMLElement | null {
  const accuracy = run.result.estimate?.accuracy;
  if (!accuracy) return null;
  const rows: [string, string, string][] = [
    ['Objects', formatCount(accuracy.objects.estimate), formatCount(accuracy.objects.preview)],
    ['Pack size', formatBytes(accuracy.packBytes.estimate), formatBytes(accuracy.packBytes.preview)],
    ['Deltas', formatCount(accuracy.deltas.estimate), formatCount(accuracy.deltas.preview)],
    ['Maximum depth', String(accuracy.maxDepth.estimate), String(accuracy.maxDepth.preview)],
    ['Mean depth', accuracy.meanDepth.estimate.toFixed(2), accuracy.meanDepth.preview.toFixed(2)],
  ];
  return h(
    'section',
    { 'aria-labelledby': 'accuracy-title', id: 'accuracy' },
    h('h2', { id: 'accuracy-title' }, 'How far the estimate was from the preview'),
    h(
      'p',
      { class: 'explanation' },
      `The estimate keeps today's deltas; the preview searched afresh. Pack size off by ${formatPercentChange(accuracy.packBytes.preview, accuracy.packBytes.estimate, 'typographic')}; write order: rank correlation ${accuracy.orderRankCorrelation.toFixed(3)}, ${formatShare(accuracy.objectsInPlace)} of objects at their real position (given the preview's own deltas the model puts ${formatShare(accuracy.modelWithRealDeltas.objectsInPlace)} in place).`,
    ),
    h(
      'table',
      { class: 'numbers' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, ''),
          h('th', { scope: 'col', class: 'estimate' }, 'Estimate'),
          h('th', { scope: 'col' }, 'Preview'),
        ),
      ),
      h(
        'tbody',
        {},
        ...rows.map(([label, e, p]) =>
          h('tr', {}, h('th', { scope: 'row' }, label), cell(e, { class: 'estimate' }), cell(p)),
        ),
      ),
    ),
  );
}

function commandSection(run: RepackPreviewRun): HTMLElement {
  const { result } = run;
  const items: HTMLElement[] = [
    h('dt', {}, 'Stands for'),
    h('dd', {}, h('code', { id: 'equivalent' }, equivalentCommand(run))),
  ];
  if (result.git) {
    items.push(h('dt', {}, 'git ran'), h('dd', {}, h('code', { id: 'git-argv' }, result.git.join(' '))));
    if (result.gitEnvironment)
      items.push(
        h('dt', {}, 'with'),
        h(
          'dd',
          {},
          h(
            'code',
            {},
            Object.entries(result.gitEnvironment)
              .map(([k, v]) => `${k}=${v}`)
              .join(' '),
          ),
        ),
      );
    items.push(
      h('dt', {}, 'Time'),
      h(
        'dd',
        { id: 'timing' },
        `pack-objects ${result.seconds?.toFixed(2)} s; the whole preview ${run.requestSeconds.toFixed(2)} s (git ${result.gitVersion ?? '?'})`,
      ),
    );
  } else {
    items.push(
      h('dt', {}, 'Time'),
      h('dd', { id: 'timing' }, `${run.requestSeconds.toFixed(2)} s (git rev-list only; nothing was packed)`),
    );
  }
  if (result.estimate)
    items.push(
      h('dt', {}, 'Estimate'),
      h('dd', {}, `${result.estimate.estimate.basis} (${result.estimate.estimate.seconds.toFixed(2)} s)`),
    );
  items.push(h('dt', {}, 'Repository'), h('dd', {}, h('code', {}, result.repository.gitDir)));
  return h(
    'section',
    { 'aria-labelledby': 'command-title' },
    h('h2', { id: 'command-title' }, 'What ran'),
    h('dl', { class: 'facts' }, ...items),
  );
}

function render(): void {
  chart?.destroy();
  chart = undefined;
  const run = state.run;
  root.setAttribute('aria-busy', run ? 'false' : 'true');
  if (!run) {
    replaceChildren(root, h('p', { class: 'loading' }, 'Loading the repack preview…'));
    return;
  }
  const estimateOnly = run.result.preview === null;
  const title = h(
    'header',
    { class: 'title' },
    h('h1', {}, estimateOnly ? 'Repack estimate' : 'Repack preview', ': ', run.repositoryName),
    estimateOnly
      ? h('span', { class: 'badge estimate', id: 'estimate-badge' }, 'Estimate')
      : h('span', { class: 'badge' }, run.request.label),
  );
  const banner = estimateOnly
    ? h(
        'p',
        { class: 'estimate-banner', role: 'note' },
        h('strong', {}, 'Estimate. '),
        "No repack ran: the write-order model (git-internals §5) keeps today's deltas and predicts the object count and where each object would be written. A repack with -f searches deltas afresh; run a preset for the real numbers.",
      )
    : h(
        'p',
        { class: 'explanation' },
        'What ',
        h('code', {}, equivalentCommand(run)),
        run.result.previewPack
          ? ' would write, measured on a pack git wrote into a temporary directory (kept while this panel or a Pack Map of it is open, then removed). The repository was not touched.'
          : ' would write, measured on a pack git wrote into a temporary directory (removed since). The repository was not touched.',
      );
  const actions = h(
    'div',
    { class: 'table-actions' },
    button('export-markdown', 'Export as Markdown', () => post({ type: 'exportMarkdown' })),
    button('copy-markdown', 'Copy as Markdown', () => post({ type: 'copyMarkdown' }), true),
    button('copy-command', 'Copy git command', () => post({ type: 'copyCommand' }), true),
    // Today's layout and the preview's side by side, the run's first recording over both.
    run.result.previewPack && run.currentPacks && run.currentPacks.length > 0
      ? button(
          'open-pack-maps',
          run.result.recordings.length > 0
            ? 'Before and after on the Pack Map (with the recording)'
            : 'Before and after on the Pack Map',
          () => post({ type: 'openPackMaps' }),
          true,
        )
      : null,
  );
  const warnings =
    run.result.warnings && run.result.warnings.length > 0
      ? h('ul', { class: 'warning' }, ...run.result.warnings.map((w) => h('li', {}, w)))
      : null;
  replaceChildren(
    root,
    title,
    banner,
    actions,
    summarySection(run),
    histogramSection(run),
    largestChangesSection(run),
    recordingsSection(run),
    accuracySection(run),
    commandSection(run),
    warnings,
  );
  drawChart();
}

/** The objects' paths arrived: each path cell of the largest changes is replaced, the rest of the page stays. */
function showNames(names: Record<string, RepackPreviewObjectName>): void {
  const run = state.run;
  if (run === null) return;
  run.names = names;
  webview.saveState(state);
  for (const row of document.querySelectorAll<HTMLTableRowElement>('#largest-changes tbody tr[data-oid]')) {
    const cell = row.querySelector('td.path');
    if (cell !== null) cell.replaceWith(pathCellOf(run, row.dataset.oid ?? ''));
  }
}

function show(message: Extract<HostToWebview, { type: 'show' }>): void {
  state = normalizeRepackPreviewState({ run: message.run });
  webview.saveState(state);
  render();
}

watchTheme(() => drawChart());
render();
void host.request({ type: 'ready', version: REPACK_PREVIEW_PROTOCOL_VERSION }).then(show);
