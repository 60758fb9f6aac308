// The Cache Lab webview: controls, the Sweep and Locality tabs, and the messages to and from the host
// (src/protocol/cache-lab-protocol.ts). It draws what the host sends and computes no simulation.
import type { Chart } from 'chart.js';
import {
  CACHE_LAB_PROTOCOL_VERSION,
  GIT_DEFAULT_LIMIT,
  GIT_POLICY,
  REFERENCE_POLICY,
  type CacheLabJob,
  type CacheLabReplies,
  type CacheLabState,
  type CacheLabTab,
  type HostToWebview,
  type LocalitySlot,
  type RecordingChoice,
  type WebviewToHost,
} from '../../src/protocol/cache-lab-protocol.ts';
import type {
  IndexPackSimResult,
  LocalityResult,
  MeasureResult,
  RecordingInfo,
  SweepResult,
} from '../../src/protocol/server-protocol.ts';
import { normalizeCacheLabState, sweepPlaceholder } from '../../src/presentation/cache-lab-state.ts';
import { formatBytes, formatCount, formatExactBytes, formatLimit, formatShare } from '../../src/common/format.ts';
import { parseLimitList } from '../../src/common/git-size.ts';
import {
  gitVersusReferenceSentences,
  metricWords,
  sweepCell,
  sweepCellText,
  sweepTableMarkdown,
  sweepTableNotes,
  sweepTableText,
  sweepTableTitle,
} from '../../src/presentation/sweep-table.ts';
import { SWEEP_CHART_VIEWS, planSweepChart, viewReference } from '../../src/presentation/sweep-chart-views.ts';
import {
  faultSentence,
  faultsOfBestRun,
  heapSentence,
  kneeSentences,
  measuredAgainstPredicted,
  measuredSentences,
  timeLabel,
  timeTableRows,
} from '../../src/presentation/time-view-text.ts';
import { distanceChart, indexPackChart, measureChart, policyLabel, sweepChart, zeroLimitChart } from './charts.ts';
import { baseName, h, replaceChildren } from '../common/dom.ts';
import { startWebview } from '../common/start-webview.ts';
import { readThemeColours, watchTheme } from '../common/theme.ts';

const webview = startWebview<WebviewToHost, HostToWebview, CacheLabReplies>((message) => onHostMessage(message));
const { host, post } = webview;

// ------------------------------------------------------------------------------------------ state

let state: CacheLabState = normalizeCacheLabState(webview.savedState);
let recordings: RecordingChoice[] = [];

/** What the host sent last; drawn again on a theme change or a change of metric. */
const received: {
  info?: RecordingInfo;
  sweep?: { request: { limits: number[]; policies: string[] }; result: SweepResult; timePending?: boolean };
  indexPack?: IndexPackSimResult[];
  locality: Partial<Record<LocalitySlot, LocalityResult>>;
  measure?: { command: string; cwd?: string; reconstructed?: boolean; result: MeasureResult };
} = { locality: {} };

/** Runs under way: analysis (the Run button) or measure. */
const runs = new Map<string, 'analysis' | 'measure'>();
/** Runs under way whose jobs include a sweep, with the sweep's last progress message. */
const sweepRuns = new Map<string, string | undefined>();

/** The Sweep tab's words while it has no sweep (src/presentation/cache-lab-state.ts). */
function currentSweepPlaceholder(): ReturnType<typeof sweepPlaceholder> {
  const progress = [...sweepRuns.values()].at(-1);
  return sweepPlaceholder(state.recording !== null, sweepRuns.size > 0, progress);
}
let runCounter = 0;
const newRunId = (): string => `run-${Date.now().toString(36)}-${++runCounter}`;

function saveState(): void {
  webview.saveState(state);
  post({ type: 'stateChanged', state });
}

// ------------------------------------------------------------------------------------------ layout

const root = document.getElementById('cache-lab') ?? document.body.appendChild(h('main', { id: 'cache-lab' }));

const recordingSelect = h('select', { id: 'recording' });
const browseButton = h('button', { id: 'browse', type: 'button', class: 'secondary' }, 'Choose file…');
const segmentSelect = h('select', { id: 'segment' });
const limitsInput = h('input', {
  id: 'limits',
  type: 'text',
  spellcheck: 'false',
  autocomplete: 'off',
  'aria-describedby': 'limits-help',
});
const metricSelect = h(
  'select',
  { id: 'metric' },
  h('option', { value: 'inflations' }, 'inflations'),
  h('option', { value: 'inflatedBytes' }, 'inflated bytes'),
);
const policiesBox = h('div', { class: 'policies' });
const runButton = h('button', { id: 'run', type: 'button' }, 'Run');
const cancelButton = h('button', { id: 'cancel', type: 'button', class: 'secondary', disabled: true }, 'Cancel');
const statusText = h('span', { id: 'status-text' });
const progressBar = h('progress', { id: 'progress', max: 100, hidden: true, 'aria-label': 'progress of the run' });
const errorBox = h('div', { id: 'error', role: 'alert', class: 'error', hidden: true });

const controls = h(
  'form',
  { id: 'controls', class: 'controls', 'aria-label': 'Cache Lab settings' },
  h(
    'div',
    { class: 'field' },
    h('label', { for: 'recording' }, 'Recording'),
    h('div', { class: 'row' }, recordingSelect, browseButton),
  ),
  h('div', { class: 'field' }, h('label', { for: 'segment' }, 'Git process'), segmentSelect),
  h(
    'div',
    { class: 'field grow' },
    h('label', { for: 'limits' }, 'Cache limits'),
    limitsInput,
    h('small', { id: 'limits-help' }, 'Comma-separated sizes with k, m or g (base 1024), e.g. 0,1m,96m,1g'),
  ),
  h('div', { class: 'field' }, h('label', { for: 'metric' }, 'Metric'), metricSelect),
  h('fieldset', { class: 'field wide' }, h('legend', {}, 'Policies'), policiesBox),
  h(
    'div',
    { class: 'actions' },
    runButton,
    cancelButton,
    h('div', { id: 'status', role: 'status', 'aria-live': 'polite' }, statusText, progressBar),
  ),
  errorBox,
);

const tabs: { id: CacheLabTab; label: string; tab: HTMLButtonElement; panel: HTMLElement }[] = (
  ['sweep', 'locality'] as const
).map((id) => ({
  id,
  label: id === 'sweep' ? 'Sweep' : 'Locality',
  tab: h(
    'button',
    { type: 'button', role: 'tab', id: `tab-${id}`, 'aria-controls': `panel-${id}` },
    id === 'sweep' ? 'Sweep' : 'Locality',
  ),
  panel: h('section', { role: 'tabpanel', id: `panel-${id}`, 'aria-labelledby': `tab-${id}`, tabindex: 0 }),
}));
const tabList = h(
  'div',
  { role: 'tablist', 'aria-label': 'Cache Lab views', class: 'tabs' },
  ...tabs.map((t) => t.tab),
);

// Sweep tab
const recordingSummary = h('p', { id: 'recording-summary', class: 'summary' });
const sweepCanvas = h('canvas', { id: 'sweep-chart', role: 'img' });
const sweepChartAlt = h('figcaption', { id: 'sweep-chart-alt' });
const sweepViewSelect = h(
  'select',
  { id: 'sweep-view' },
  ...SWEEP_CHART_VIEWS.map((v) => h('option', { value: v.view }, v.label)),
);
const zeroApartBox = h('input', { type: 'checkbox', id: 'zero-apart' });
const zeroCanvas = h('canvas', { id: 'zero-chart', role: 'img' });
const zeroBox = h('div', { class: 'chart-box zero', id: 'zero-box', hidden: true }, zeroCanvas);
/** Which series coincide (one line hides the other), and what the view left out. */
const sweepNotes = h('ul', { id: 'sweep-notes', class: 'note' });
const sweepTable = h('table', { id: 'sweep-table', class: 'numbers' });
const copyTextButton = h(
  'button',
  { id: 'copy-text', type: 'button', class: 'secondary', disabled: true },
  'Copy as text',
);
const copyMarkdownButton = h(
  'button',
  { id: 'copy-markdown', type: 'button', class: 'secondary', disabled: true },
  'Copy as Markdown',
);
const referenceList = h('ul', { id: 'reference-sentences' });
const indexPackBox = h('div', { id: 'index-pack' });
const measureRunsInput = h('input', { id: 'measure-runs', type: 'number', min: 1, max: 50, step: 1 });
const measureButton = h('button', { id: 'measure', type: 'button' }, 'Measure for real…');
const measureCancelButton = h(
  'button',
  { id: 'measure-cancel', type: 'button', class: 'secondary', disabled: true },
  'Cancel',
);
const measureStatus = h('p', { id: 'measure-status', role: 'status', 'aria-live': 'polite' });
const measureCanvas = h('canvas', { id: 'measure-chart', role: 'img' });
const measureFigure = h(
  'figure',
  { hidden: true },
  h('div', { class: 'chart-box' }, measureCanvas),
  h('figcaption', { id: 'measure-chart-alt' }),
);
const measureTable = h('table', { id: 'measure-table', class: 'numbers', hidden: true });
/** What ran, where; and, for a raw trace, that its command line was read back from the trace. */
const measureCommand = h('p', { id: 'measure-command', hidden: true });
const measureNotes = h('ul', { id: 'measure-notes', class: 'note', hidden: true });
// Time: the sweep's counts priced in seconds, an estimate labelled with its calibration.
const timeLabelText = h('p', { id: 'time-label', class: 'explanation' });
const timeTable = h('table', { id: 'time-table', class: 'numbers', hidden: true });
const kneeList = h('ul', { id: 'time-knees', hidden: true });
const recommendationText = h('p', { id: 'time-recommendation', class: 'summary', hidden: true });

replaceChildren(
  tabs[0]!.panel,
  recordingSummary,
  h('h2', {}, 'Delta base cache sweep'),
  h(
    'div',
    { class: 'row chart-controls' },
    h('label', { for: 'sweep-view' }, 'Chart'),
    sweepViewSelect,
    h('label', { class: 'check', for: 'zero-apart' }, zeroApartBox, ' Limit 0 (no cache) in its own panel'),
  ),
  h(
    'figure',
    { id: 'sweep-figure' },
    h('div', { class: 'chart-box' }, sweepCanvas),
    zeroBox,
    sweepNotes,
    sweepChartAlt,
  ),
  h('div', { class: 'table-actions' }, copyTextButton, copyMarkdownButton),
  sweepTable,
  h('h3', {}, 'Time (estimate)'),
  timeLabelText,
  timeTable,
  kneeList,
  recommendationText,
  h('h3', {}, "Git's LRU against the reference bound"),
  referenceList,
  h('h3', {}, 'index-pack (second pass, one thread) on the recording’s packs'),
  indexPackBox,
  h('h3', {}, 'Measure for real'),
  h(
    'p',
    { class: 'explanation' },
    'Runs the recording’s git command for real at each cache limit above (core.deltaBaseCacheLimit), best of N runs, and shows the wall time next to the simulated inflations and the predicted time (estimate), with the error. It runs only when you press the button, and asks first.',
  ),
  h(
    'div',
    { class: 'row' },
    h('label', { for: 'measure-runs' }, 'Runs per limit (best of N)'),
    measureRunsInput,
    measureButton,
    measureCancelButton,
  ),
  measureStatus,
  measureCommand,
  measureFigure,
  measureTable,
  measureNotes,
);

// Locality tab
const compareSelect = h('select', { id: 'compare' });
const compareBrowse = h('button', { id: 'compare-browse', type: 'button', class: 'secondary' }, 'Choose file…');
const localityStats = h('table', { id: 'locality-stats', class: 'numbers' });
const percentileTable = h('table', { id: 'locality-percentiles', class: 'numbers' });
const distanceCanvas = h('canvas', { id: 'distance-chart', role: 'img' });
const distanceAlt = h('figcaption', { id: 'distance-chart-alt' });
const localityEmpty = h(
  'p',
  { id: 'locality-empty', class: 'explanation' },
  'Run the Cache Lab on a recording to see how far apart its reads are in each pack.',
);
replaceChildren(
  tabs[1]!.panel,
  h('div', { class: 'row' }, h('label', { for: 'compare' }, 'Compare with'), compareSelect, compareBrowse),
  localityEmpty,
  h('h2', {}, 'Seeks between consecutive reads of a pack'),
  localityStats,
  h('figure', { id: 'distance-figure' }, h('div', { class: 'chart-box' }, distanceCanvas), distanceAlt),
  percentileTable,
);

replaceChildren(
  root,
  h('h1', { class: 'visually-hidden' }, 'PackScope Cache Lab'),
  controls,
  tabList,
  ...tabs.map((t) => t.panel),
);
root.removeAttribute('aria-busy');

// ------------------------------------------------------------------------------------------ controls

function syncControls(): void {
  const files = new Map(recordings.map((r) => [r.file, r] as const));
  const options = (selected: string | null, emptyLabel: string) => {
    const list = [h('option', { value: '' }, emptyLabel)];
    for (const choice of recordings)
      list.push(h('option', { value: choice.file, title: `${choice.file}\n${choice.description}` }, choice.label));
    if (selected !== null && !files.has(selected))
      list.push(h('option', { value: selected, title: selected }, baseName(selected)));
    return list;
  };
  replaceChildren(
    recordingSelect,
    ...options(state.recording, recordings.length > 0 ? 'Choose a recording…' : 'No recordings yet: choose a file'),
  );
  recordingSelect.value = state.recording ?? '';
  replaceChildren(compareSelect, ...options(state.compareRecording, 'No second recording'));
  compareSelect.value = state.compareRecording ?? '';

  const segments = received.info !== undefined && received.info.file === state.recording ? received.info.segments : [];
  const segmentOptions = [
    h('option', { value: '' }, segments.length > 1 ? `All ${segments.length} git processes` : 'All git processes'),
  ];
  for (const s of segments)
    segmentOptions.push(
      h(
        'option',
        { value: String(s.index) },
        `${s.index}: ${s.command ?? 'git (command not traced)'} — ${formatCount(s.reads)} reads`,
      ),
    );
  if (state.segment !== null && !segments.some((s) => s.index === state.segment))
    segmentOptions.push(h('option', { value: String(state.segment) }, `${state.segment}`));
  replaceChildren(segmentSelect, ...segmentOptions);
  segmentSelect.value = state.segment === null ? '' : String(state.segment);

  if (document.activeElement !== limitsInput) limitsInput.value = state.limits.map(formatLimit).join(',');
  metricSelect.value = state.metric;
  sweepViewSelect.value = state.sweepView;
  zeroApartBox.checked = state.zeroApart;
  measureRunsInput.value = String(state.measureRuns);

  const offered = state.offeredPolicies;
  const policies = [...offered, ...state.policies.filter((p) => !offered.includes(p))];
  replaceChildren(
    policiesBox,
    ...policies.map((policy, i) => {
      const box = h('input', {
        type: 'checkbox',
        id: `policy-${i}`,
        value: policy,
        checked: state.policies.includes(policy),
      });
      box.addEventListener('change', onPolicyToggled);
      return h('label', { class: 'check', for: `policy-${i}` }, box, ` ${policy}`);
    }),
  );
  selectTab(state.tab, false);
}

function onPolicyToggled(): void {
  const checked = [...policiesBox.querySelectorAll<HTMLInputElement>('input[type=checkbox]')]
    .filter((b) => b.checked)
    .map((b) => b.value);
  state = { ...state, policies: checked };
  saveState();
}

function showError(message: string | undefined): void {
  errorBox.hidden = message === undefined;
  errorBox.textContent = message ?? '';
}

recordingSelect.addEventListener('change', () => {
  state = { ...state, recording: recordingSelect.value === '' ? null : recordingSelect.value, segment: null };
  saveState();
  syncControls();
});
segmentSelect.addEventListener('change', () => {
  state = { ...state, segment: segmentSelect.value === '' ? null : Number(segmentSelect.value) };
  saveState();
});
compareSelect.addEventListener('change', () => {
  state = { ...state, compareRecording: compareSelect.value === '' ? null : compareSelect.value };
  saveState();
});
limitsInput.addEventListener('change', () => {
  const limits = parseLimitList(limitsInput.value);
  if (limits === undefined) {
    limitsInput.setAttribute('aria-invalid', 'true');
    showError(`“${limitsInput.value}” is not a list of sizes (use e.g. 0,1m,96m,1g).`);
    return;
  }
  limitsInput.removeAttribute('aria-invalid');
  showError(undefined);
  state = { ...state, limits };
  saveState();
});
metricSelect.addEventListener('change', () => {
  state = { ...state, metric: metricSelect.value === 'inflatedBytes' ? 'inflatedBytes' : 'inflations' };
  saveState();
  renderSweep();
  renderMeasure();
});
sweepViewSelect.addEventListener('change', () => {
  const view = SWEEP_CHART_VIEWS.find((v) => v.view === sweepViewSelect.value)?.view;
  if (view === undefined) return;
  state = { ...state, sweepView: view };
  saveState();
  renderSweep();
});
zeroApartBox.addEventListener('change', () => {
  state = { ...state, zeroApart: zeroApartBox.checked };
  saveState();
  renderSweep();
});
measureRunsInput.addEventListener('change', () => {
  const runs = Number(measureRunsInput.value);
  if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
    measureRunsInput.value = String(state.measureRuns);
    return;
  }
  state = { ...state, measureRuns: runs };
  saveState();
});
const browse = (slot: LocalitySlot): void => void host.request({ type: 'browseRecording', slot }).then(applyHostState);
browseButton.addEventListener('click', () => browse('primary'));
compareBrowse.addEventListener('click', () => browse('compare'));
controls.addEventListener('submit', (event) => event.preventDefault());

runButton.addEventListener('click', () => {
  if (state.recording === null) return showError('Choose a recording first.');
  if (state.policies.length === 0) return showError('Choose at least one policy.');
  showError(undefined);
  const runId = newRunId();
  runs.set(runId, 'analysis');
  sweepRuns.set(runId, undefined); // a run always sweeps
  if (received.sweep === undefined) renderSweep();
  void host
    .request({
      type: 'run',
      runId,
      request: {
        file: state.recording,
        segment: state.segment,
        limits: state.limits,
        policies: state.policies,
        compareRecording: state.compareRecording,
      },
    })
    .then(onRunEnded);
  updateRunning();
});
cancelButton.addEventListener('click', () => cancelRuns('analysis'));
measureCancelButton.addEventListener('click', () => cancelRuns('measure'));
measureButton.addEventListener('click', () => {
  if (state.recording === null) return showError('Choose a recording first.');
  const runId = newRunId();
  runs.set(runId, 'measure');
  void host
    .request({
      type: 'measure',
      runId,
      file: state.recording,
      segment: state.segment,
      limits: state.limits,
      runs: state.measureRuns,
    })
    .then(onRunEnded);
  updateRunning();
});
copyTextButton.addEventListener('click', () => copyTable('text'));
copyMarkdownButton.addEventListener('click', () => copyTable('markdown'));

function cancelRuns(kind: 'analysis' | 'measure'): void {
  for (const [runId, k] of runs) if (k === kind) post({ type: 'cancel', runId });
}

function copyTable(format: 'text' | 'markdown'): void {
  const sweep = received.sweep;
  if (sweep === undefined) return;
  const { limits, policies } = sweep.request;
  const text =
    format === 'text'
      ? sweepTableText(sweep.result, limits, policies, state.metric)
      : sweepTableMarkdown(sweep.result, limits, policies, state.metric);
  post({ type: 'copy', format, text });
}

function updateRunning(): void {
  const kinds = new Set(runs.values());
  cancelButton.disabled = !kinds.has('analysis');
  runButton.disabled = kinds.has('analysis');
  measureCancelButton.disabled = !kinds.has('measure');
  measureButton.disabled = kinds.has('measure');
  if (runs.size === 0) progressBar.hidden = true;
}

// ------------------------------------------------------------------------------------------ tabs (WAI-ARIA tab pattern)

function selectTab(id: CacheLabTab, focus: boolean): void {
  for (const t of tabs) {
    const selected = t.id === id;
    t.tab.setAttribute('aria-selected', String(selected));
    t.tab.tabIndex = selected ? 0 : -1;
    t.panel.hidden = !selected;
    if (selected && focus) t.tab.focus();
  }
}

for (const [index, t] of tabs.entries()) {
  t.tab.addEventListener('click', () => {
    state = { ...state, tab: t.id };
    saveState();
    selectTab(t.id, true);
  });
  t.tab.addEventListener('keydown', (event) => {
    const last = tabs.length - 1;
    const target = {
      ArrowRight: index === last ? 0 : index + 1,
      ArrowLeft: index === 0 ? last : index - 1,
      Home: 0,
      End: last,
    }[event.key];
    if (target === undefined) return;
    event.preventDefault();
    state = { ...state, tab: tabs[target]!.id };
    saveState();
    selectTab(state.tab, true);
  });
}

// ------------------------------------------------------------------------------------------ drawing

const charts = new Map<string, Chart>();

function replaceChart(key: string, make: (() => Chart) | undefined): void {
  charts.get(key)?.destroy();
  charts.delete(key);
  if (make === undefined) return;
  const chart = make();
  charts.set(key, chart);
  // What was drawn, readable from the DOM (Chart.js draws on a canvas): the series, the colours, the axis types.
  const canvas = chart.canvas;
  canvas.dataset.series = JSON.stringify(chart.data.datasets.map((d) => d.label ?? ''));
  canvas.dataset.colours = JSON.stringify(chart.data.datasets.map((d) => String(d.borderColor ?? '')));
  canvas.dataset.scales = JSON.stringify(
    Object.fromEntries(Object.entries(chart.scales).map(([id, scale]) => [id, scale.type])),
  );
  // The plotted values, per series (y of each point): the workbench scenario checks a relative view against the CLI.
  canvas.dataset.values = JSON.stringify(
    chart.data.datasets.map((d) =>
      (d.data as unknown[]).map((p) => (typeof p === 'object' && p !== null && 'y' in p ? (p as { y: unknown }).y : p)),
    ),
  );
}

function describeRecording(info: RecordingInfo): (Node | string)[] {
  const parts: (Node | string)[] = [
    h('strong', {}, info.command ?? baseName(info.file)),
    ` — ${formatCount(info.reads)} reads`,
  ];
  parts.push(`, ${info.packs.length === 1 ? '1 pack' : `${info.packs.length} packs`}`);
  parts.push(
    `, ${info.mode === 'exact' ? 'exact recording (core.deltaBaseCacheLimit=0)' : info.mode === 'passive' ? `passive recording${info.recordedLimit === null ? '' : ` at ${formatLimit(info.recordedLimit)}`}` : 'raw trace'}`,
  );
  if (info.segments.length > 1) parts.push(`, ${info.segments.length} git processes`);
  parts.push('. ', h('span', { class: 'path', title: info.file }, info.file));
  return parts;
}

function renderSummary(): void {
  const info = received.sweep?.result.recording ?? received.info;
  if (info === undefined) {
    replaceChildren(recordingSummary, currentSweepPlaceholder().summary);
    return;
  }
  replaceChildren(recordingSummary, ...describeRecording(info));
  for (const warning of info.warnings ?? [])
    recordingSummary.append(h('br'), h('span', { class: 'warning' }, `⚠ ${warning}`));
}

function renderSweep(): void {
  renderSummary();
  const sweep = received.sweep;
  copyTextButton.disabled = sweep === undefined;
  copyMarkdownButton.disabled = sweep === undefined;
  if (sweep === undefined) {
    replaceChildren(sweepTable);
    replaceChildren(referenceList);
    const placeholder = currentSweepPlaceholder();
    replaceChildren(sweepChartAlt, placeholder.chart);
    sweepCanvas.setAttribute('aria-label', placeholder.chart);
    replaceChildren(sweepNotes);
    zeroBox.hidden = true;
    replaceChart('sweep', undefined);
    replaceChart('sweep-zero', undefined);
    renderTime();
    return;
  }
  renderTime();
  const { limits, policies } = sweep.request;
  const { result } = sweep;
  const metric = state.metric;
  const title = sweepTableTitle(result, metric);

  // The table: rows = limits, columns = policies, as the delta-base-cache thread lays them out.
  const head = h(
    'tr',
    {},
    h('th', { scope: 'col' }, 'limit'),
    ...policies.map((p) => h('th', { scope: 'col', class: classFor(p), 'data-policy': p, title: policyLabel(p) }, p)),
  );
  const body = limits.map((limit) =>
    h(
      'tr',
      { class: limit === GIT_DEFAULT_LIMIT ? 'default-limit' : undefined, 'data-limit': limit },
      h(
        'th',
        { scope: 'row' },
        formatLimit(limit),
        limit === GIT_DEFAULT_LIMIT ? h('span', { class: 'note' }, ' default') : null,
      ),
      ...policies.map((policy) => {
        const cell = sweepCell(result.results, policy, limit);
        const value = cell?.[metric];
        if (cell === undefined || value === undefined)
          return h('td', { class: classFor(policy), 'data-policy': policy }, '—');
        // A cell that is not exact shows its bounds (or ≈), with why in the tooltip (git-internals §8.1).
        const exact = cell.exact === true;
        const tooltip = exact
          ? undefined
          : `Not exact: ${cell.exactness ?? 'unknown'}.${cell.bounds ? ` Git's count lies in ${sweepCellText(cell, metric, formatCount)}; the replay without hidden reads gives ${formatCount(value)}.` : ''}`;
        return h(
          'td',
          {
            class: classFor(policy) + (exact ? '' : ' inexact'),
            'data-policy': policy,
            'data-value': value,
            'data-exact': String(exact),
            title: tooltip,
          },
          sweepCellText(cell, metric, formatCount),
        );
      }),
    ),
  );
  replaceChildren(
    sweepTable,
    h(
      'caption',
      {},
      `${title[0]!.toUpperCase()}${title.slice(1)}, by cache limit (rows) and policy (columns). Git’s default limit is 96m.`,
    ),
    h('thead', {}, head),
    h('tbody', {}, ...body),
    ...(sweepTableNotes(result).length > 0
      ? [
          h(
            'tfoot',
            {},
            ...sweepTableNotes(result).map((note) =>
              h('tr', {}, h('td', { colspan: String(policies.length + 1), class: 'note' }, note)),
            ),
          ),
        ]
      : []),
  );

  const sentences = gitVersusReferenceSentences(result, limits, metric);
  replaceChildren(
    referenceList,
    ...(sentences.length > 0
      ? sentences.map((s) => h('li', {}, s))
      : [h('li', {}, `Select both “${GIT_POLICY}” and “${REFERENCE_POLICY}” to compare them.`)]),
  );

  renderSweepChart(result, limits, policies, metric, title);
}

const VIEW_WORDS: Record<CacheLabState['sweepView'], string> = {
  zoomed: 'vertical axis fitted to the data (not from 0)',
  'relative-belady': 'each policy divided by belady at the same limit (1× = belady)',
  'relative-git': "each policy divided by git at the same limit (1× = today's Git)",
  log: 'vertical log scale',
  linear: 'vertical axis from 0',
};

function renderSweepChart(
  result: SweepResult,
  limits: number[],
  policies: string[],
  metric: CacheLabState['metric'],
  title: string,
): void {
  const plan = planSweepChart(result, limits, policies, metric, state.sweepView, state.zeroApart);
  const notes: string[] = [];
  if (plan.missingReference !== undefined)
    notes.push(
      `${plan.missingReference} is not in this sweep, so there is nothing to divide by: the chart shows the zoomed view. Select ${plan.missingReference} and press Run.`,
    );
  notes.push(...plan.coincidences);
  const zeroOnChart = plan.limits.includes(0);
  if (zeroOnChart && plan.view !== 'linear' && plan.view !== 'log' && plan.limits.length > 1)
    notes.push('Limit 0 does not set the scale: its points may lie above the top of the chart (the table has them).');
  if (plan.droppedZeroValues > 0)
    notes.push(
      `${formatCount(plan.droppedZeroValues)} ${plan.droppedZeroValues === 1 ? 'cell is' : 'cells are'} 0, which a log scale cannot show (the table has ${plan.droppedZeroValues === 1 ? 'it' : 'them'}).`,
    );
  replaceChildren(sweepNotes, ...notes.map((n) => h('li', {}, n)));
  const reference = viewReference(plan.view);
  const what = reference === undefined ? metricWords(metric) : `${metricWords(metric)} relative to ${reference}`;
  sweepCanvas.setAttribute(
    'aria-label',
    `Line chart: ${what} (vertical; ${VIEW_WORDS[plan.view]}) against the cache limit (horizontal, log scale${zeroOnChart ? ', 0 left of an axis break' : ''}), one line per policy: ${policies.join(', ')}. Today's Git is the thick line; a dotted vertical line marks the 96m default. The table below has the same numbers.`,
  );
  sweepCanvas.dataset.view = plan.view;
  const zeroWords =
    plan.zeroPanel !== undefined
      ? ' Limit 0 (no cache) is in the panel below it, on its own scale.'
      : zeroOnChart
        ? ' Limit 0 (no cache) sits left of the axis break (dashed).'
        : '';
  replaceChildren(
    sweepChartAlt,
    `${title[0]!.toUpperCase()}${title.slice(1)} by cache limit, one line per policy, ${VIEW_WORDS[plan.view]}.${zeroWords} The table below holds the same numbers.`,
  );
  replaceChart('sweep', () => sweepChart(sweepCanvas, { plan, metric }, readThemeColours()));
  const zero = plan.zeroPanel;
  zeroBox.hidden = zero === undefined || zero.length === 0;
  if (zero === undefined || zero.length === 0) replaceChart('sweep-zero', undefined);
  else {
    zeroCanvas.setAttribute(
      'aria-label',
      `Bar chart: ${metricWords(metric)} at limit 0 (no cache), one bar per policy: ${zero.map((z) => `${z.policy} ${z.value}`).join(', ')}.`,
    );
    replaceChart('sweep-zero', () => zeroLimitChart(zeroCanvas, zero, metric, readThemeColours()));
  }
}

function classFor(policy: string): string | undefined {
  if (policy === GIT_POLICY) return 'policy-git';
  if (policy === REFERENCE_POLICY) return 'policy-reference';
  return undefined;
}

const INDEX_PACK_COUNTS: [string, string][] = [
  ['inflations', 'inflations'],
  ['deltaApplications', 'delta applications'],
  ['reconstructions', 'base reconstructions'],
  ['peakBytes', 'peak base bytes'],
];

function renderIndexPack(): void {
  const results = received.indexPack;
  for (const key of [...charts.keys()]) if (key.startsWith('index-pack-')) replaceChart(key, undefined);
  if (results === undefined || results.length === 0) {
    replaceChildren(
      indexPackBox,
      h('p', { class: 'explanation' }, results === undefined ? 'Not simulated yet.' : 'The recording names no pack.'),
    );
    return;
  }
  replaceChildren(indexPackBox);
  results.forEach((result, k) => {
    const variants = result.variants;
    const table = h(
      'table',
      { class: 'numbers index-pack-table' },
      h(
        'caption',
        {},
        `${baseName(result.pack)}: ${formatCount(result.objects ?? 0)} objects, core.deltaBaseCacheLimit=${formatLimit(result.limit)}`,
      ),
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col' }, 'count'), ...variants.map((v) => h('th', { scope: 'col' }, v.variant))),
      ),
      h(
        'tbody',
        {},
        ...INDEX_PACK_COUNTS.filter(([field]) => variants.some((v) => typeof v[field] === 'number')).map(
          ([field, words]) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, words),
              ...variants.map((v) => {
                const value = v[field];
                return h(
                  'td',
                  { 'data-value': typeof value === 'number' ? value : undefined },
                  typeof value === 'number'
                    ? field === 'peakBytes'
                      ? formatBytes(value, 'compact')
                      : formatCount(value)
                    : '—',
                );
              }),
            ),
        ),
      ),
    );
    const canvas = h('canvas', {
      role: 'img',
      'aria-label': `Bar chart of index-pack inflations per variant for ${baseName(result.pack)}: ${variants.map((v) => `${v.variant} ${v.inflations}`).join(', ')}.`,
    });
    indexPackBox.append(h('div', { class: 'side-by-side' }, table, h('div', { class: 'chart-box small' }, canvas)));
    replaceChart(`index-pack-${k}`, () => indexPackChart(canvas, result, readThemeColours()));
  });
}

/** The Time section: predicted seconds per limit and policy, the knees, the recommendation, all labelled an estimate. */
function renderTime(): void {
  const sweep = received.sweep;
  const time = sweep?.result.time;
  timeTable.hidden = time === undefined;
  kneeList.hidden = time === undefined;
  recommendationText.hidden = time === undefined;
  if (sweep === undefined || time === undefined) {
    replaceChildren(timeTable);
    replaceChildren(kneeList);
    replaceChildren(recommendationText);
    replaceChildren(
      timeLabelText,
      sweep === undefined
        ? 'Run a sweep to see its predicted seconds.'
        : sweep.timePending
          ? 'Estimating time after the other results (the first time on a pack, git is timed on it for a calibration; then it is kept)…'
          : `No time estimate: ${sweep.result.timeError ?? 'the server gave none'}`,
    );
    return;
  }
  const { limits, policies } = sweep.request;
  const [header, ...rows] = timeTableRows(time, limits, policies);
  replaceChildren(timeLabelText, timeLabel(time));
  replaceChildren(
    timeTable,
    h(
      'caption',
      {},
      `Predicted seconds of the whole command (estimate) and speed-up against your ${formatLimit(time.currentLimit)}, by cache limit (rows) and policy (columns)`,
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...header!.map((text, i) => h('th', { scope: 'col', 'data-policy': i === 0 ? undefined : text }, text)),
      ),
    ),
    h(
      'tbody',
      {},
      ...rows.map((row, r) =>
        h(
          'tr',
          { 'data-limit': limits[r]!, class: limits[r] === time.currentLimit ? 'default-limit' : undefined },
          h(
            'th',
            { scope: 'row' },
            row[0]!,
            limits[r] === time.currentLimit ? h('span', { class: 'note' }, ' yours') : null,
          ),
          ...row.slice(1).map((text, c) => {
            const cell = time.cells.find((x) => x.policy === header![c + 1] && x.limit === limits[r]);
            return h(
              'td',
              {
                'data-policy': header![c + 1]!,
                'data-seconds': cell?.predictedSeconds,
                'data-speed-up': cell?.speedUp,
              },
              text === '' ? '—' : text,
            );
          }),
        ),
      ),
    ),
  );
  replaceChildren(kneeList, ...kneeSentences(time, policyLabel).map((sentence) => h('li', {}, sentence)));
  replaceChildren(recommendationText, h('strong', {}, 'Recommendation (estimate): '), time.recommendation);
}

function renderMeasure(): void {
  const measure = received.measure;
  measureFigure.hidden = measure === undefined;
  measureTable.hidden = measure === undefined;
  measureCommand.hidden = measure === undefined;
  measureNotes.hidden = measure === undefined;
  if (measure === undefined) replaceChildren(measureCommand);
  else {
    replaceChildren(
      measureCommand,
      'Ran ',
      h('code', {}, measure.command),
      measure.cwd === undefined ? '' : ` in ${measure.cwd}`,
      '.',
    );
    if (measure.reconstructed === true) {
      measureCommand.append(
        h('br'),
        h(
          'span',
          { class: 'warning', id: 'measure-reconstructed' },
          '⚠ The command line was reconstructed from the trace (it has no recording metadata) and may be inexact.',
        ),
      );
    }
  }
  if (measure === undefined) {
    replaceChart('measure', undefined);
    return;
  }
  const limits = measure.result.results.map((r) => r.limit);
  const simulatedCells = limits.map((limit) =>
    received.sweep === undefined ? undefined : sweepCell(received.sweep.result.results, GIT_POLICY, limit),
  );
  const simulated = simulatedCells.map((cell) => cell?.inflations ?? null);
  const measured = measure.result.results.map((r) => r.bestSeconds);
  const time = received.sweep?.result.time;
  const comparison = time === undefined ? undefined : measuredAgainstPredicted(time, measure.result);
  const faults = faultSentence(
    measure.result.results.map((r) => ({ limit: r.limit, minorFaults: faultsOfBestRun(r) })),
  );
  const keptHeap = measure.result.results.some((r) => r.keptHeap !== undefined);
  measureNotes.hidden = false;
  replaceChildren(
    measureNotes,
    ...(comparison === undefined
      ? [
          h('li', {}, 'No predicted time to compare with: run the sweep in a trusted workspace for its time estimate.'),
          ...(faults === undefined ? [] : [h('li', {}, faults)]),
        ]
      : measuredSentences(comparison).map((sentence) => h('li', {}, sentence))),
    ...[heapSentence(measure.result.results)].flatMap((sentence) =>
      sentence === undefined ? [] : [h('li', {}, sentence)],
    ),
    ...(measure.result.kept ? [h('li', {}, `The split of this command's time: ${measure.result.kept.note}.`)] : []),
  );
  replaceChildren(
    measureTable,
    h(
      'caption',
      {},
      `${measure.command}: measured wall time (git ${measure.result.gitVersion}) and simulated inflations of Git's LRU, by core.deltaBaseCacheLimit`,
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'limit'),
        h('th', { scope: 'col' }, 'simulated inflations (git)'),
        h('th', { scope: 'col' }, 'best wall time (s)'),
        h('th', { scope: 'col' }, 'predicted (s, estimate)'),
        h('th', { scope: 'col' }, 'error'),
        h('th', { scope: 'col' }, 'page faults (best run)'),
        ...(keptHeap ? [h('th', { scope: 'col' }, 'kept heap: best (s), page faults')] : []),
        h('th', { scope: 'col' }, 'all runs (s)'),
      ),
    ),
    h(
      'tbody',
      {},
      ...measure.result.results.map((r, i) =>
        h(
          'tr',
          { 'data-limit': r.limit },
          h('th', { scope: 'row' }, formatLimit(r.limit)),
          h(
            'td',
            { 'data-value': simulated[i] ?? undefined },
            simulatedCells[i] === undefined ? '—' : sweepCellText(simulatedCells[i]!, 'inflations', formatCount),
          ),
          h('td', { 'data-value': r.bestSeconds }, r.bestSeconds.toFixed(3)),
          h(
            'td',
            { class: 'predicted', 'data-value': comparison?.rows[i]?.predicted ?? undefined },
            comparison?.rows[i]?.predicted == null ? '—' : comparison.rows[i]!.predicted!.toFixed(3),
          ),
          h(
            'td',
            { class: 'error', 'data-value': comparison?.rows[i]?.error ?? undefined },
            comparison?.rows[i]?.error == null
              ? '—'
              : `${comparison.rows[i]!.error! >= 0 ? '+' : ''}${(comparison.rows[i]!.error! * 100).toFixed(1)}%`,
          ),
          h(
            'td',
            { class: 'faults', 'data-value': faultsOfBestRun(r) ?? undefined },
            faultsOfBestRun(r) === null ? '—' : formatCount(faultsOfBestRun(r)!),
          ),
          ...(keptHeap
            ? [
                h(
                  'td',
                  { class: 'kept-heap', 'data-value': r.keptHeap?.bestSeconds ?? undefined },
                  r.keptHeap === undefined
                    ? '—'
                    : `${r.keptHeap.bestSeconds.toFixed(3)}, ${faultsOfBestRun(r.keptHeap) === null ? '—' : formatCount(faultsOfBestRun(r.keptHeap)!)}`,
                ),
              ]
            : []),
          h('td', {}, r.seconds.map((s) => s.toFixed(3)).join(', ')),
        ),
      ),
    ),
  );
  measureCanvas.setAttribute(
    'aria-label',
    `Chart with two vertical axes: simulated inflations of Git's LRU (left) and measured best wall time in seconds (right) against the cache limit (log scale). The table below has the same numbers.`,
  );
  replaceChildren(
    document.getElementById('measure-chart-alt')!,
    `Measured ${measure.command} at ${limits.length} limits; see the table for the numbers.`,
  );
  replaceChart('measure', () => measureChart(measureCanvas, { limits, simulated, measured }, readThemeColours()));
}

interface LocalityColumn {
  heading: string;
  title: string;
  pack: LocalityResult['packs'][number];
}

function localityColumns(): LocalityColumn[] {
  const columns: LocalityColumn[] = [];
  const both = received.locality.primary !== undefined && received.locality.compare !== undefined;
  for (const slot of ['primary', 'compare'] as const) {
    const result = received.locality[slot];
    if (result === undefined) continue;
    const name = result.recording.command ?? baseName(result.recording.file);
    for (const pack of result.packs) {
      const packName = baseName(pack.pack).replace(/^(pack-[0-9a-f]{7})[0-9a-f]*\.pack$/, '$1…');
      const prefix = both ? `${slot === 'primary' ? 'A' : 'B'}: ` : '';
      columns.push({
        heading: `${prefix}${name} · ${packName}`,
        title: `${result.recording.file}\n${pack.pack}`,
        pack,
      });
    }
  }
  return columns;
}

function renderLocality(): void {
  const columns = localityColumns();
  localityEmpty.hidden = columns.length > 0;
  for (const element of [localityStats, percentileTable, distanceCanvas.closest('figure')!])
    (element as HTMLElement).hidden = columns.length === 0;
  if (columns.length === 0) {
    replaceChart('distance', undefined);
    return;
  }
  const headRow = h(
    'tr',
    {},
    h('th', { scope: 'col' }, 'measure'),
    ...columns.map((c) => h('th', { scope: 'col', title: c.title }, c.heading)),
  );
  // [row words, shown text, exact value (data-value), hover for a rounded size (the exact bytes)].
  const statRows: [
    string,
    (p: LocalityColumn['pack']) => string,
    (p: LocalityColumn['pack']) => number,
    ((p: LocalityColumn['pack']) => string)?,
  ][] = [
    ['reads', (p) => formatCount(p.reads), (p) => p.reads],
    ['seeks', (p) => formatCount(p.seeks), (p) => p.seeks],
    ['share of seeks under 2 MiB', (p) => formatShare(p.shortSeekShare), (p) => p.shortSeekShare],
    ['backward seeks', (p) => formatShare(p.backwardSeekShare), (p) => p.backwardSeekShare],
    ['4 KiB pages touched', (p) => formatCount(p.pagesTouched), (p) => p.pagesTouched],
    ['byte span', (p) => formatBytes(p.byteSpan, 'compact'), (p) => p.byteSpan, (p) => formatExactBytes(p.byteSpan)],
    ['page faults (cold page cache)', (p) => formatCount(p.pageFaults), (p) => p.pageFaults],
  ];
  replaceChildren(
    localityStats,
    h('caption', {}, 'Reads and seeks per pack'),
    h('thead', {}, headRow),
    h(
      'tbody',
      {},
      ...statRows.map(([words, show, value, exact]) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, words),
          ...columns.map((c) => h('td', { 'data-value': value(c.pack), title: exact?.(c.pack) }, show(c.pack))),
        ),
      ),
    ),
  );
  const percentiles = columns[0]!.pack.percentiles.map((p) => p.p);
  replaceChildren(
    percentileTable,
    h('caption', {}, 'Seek distance percentiles (nearest rank; hover a cell for the exact bytes)'),
    h('thead', {}, headRow.cloneNode(true) as HTMLTableRowElement),
    h(
      'tbody',
      {},
      ...percentiles.map((p) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, `${p}%`),
          ...columns.map((c) => {
            const bytes = c.pack.percentiles.find((q) => q.p === p)?.bytes;
            // Distances span bytes to hundreds of MiB: binary units read at a glance, the exact count is the hover.
            return h(
              'td',
              { 'data-value': bytes, title: bytes === undefined ? undefined : formatExactBytes(bytes) },
              bytes === undefined ? '—' : formatBytes(bytes, 'compact'),
            );
          }),
        ),
      ),
    ),
  );
  percentileTable.querySelector('thead th')!.textContent = 'percentile';
  const series = columns
    .filter((c) => Array.isArray(c.pack.distanceQuantiles) && c.pack.distanceQuantiles.length > 0)
    .map((c) => ({ label: c.heading, quantiles: c.pack.distanceQuantiles }));
  distanceCanvas.setAttribute(
    'aria-label',
    `Cumulative distribution of seek distances (log scale) for ${series.map((s) => s.label).join(' and ')}; a dotted line marks 2 MiB. The tables have the numbers.`,
  );
  replaceChildren(
    distanceAlt,
    columns
      .map(
        (c) =>
          `${c.heading}: ${formatShare(c.pack.shortSeekShare)} of seeks under 2 MiB, ${formatShare(c.pack.backwardSeekShare)} backward.`,
      )
      .join(' '),
  );
  replaceChart(
    'distance',
    series.length === 0 ? undefined : () => distanceChart(distanceCanvas, series, readThemeColours()),
  );
}

function renderAll(): void {
  renderSweep();
  renderIndexPack();
  renderMeasure();
  renderLocality();
}

// ------------------------------------------------------------------------------------------ messages from the host

const JOB_WORDS: Record<CacheLabJob, string> = {
  recordingInfo: 'Reading the recording',
  sweep: 'Sweeping',
  indexPack: 'Simulating index-pack',
  locality: 'Measuring locality',
  timeEstimate: 'Estimating time',
  measure: 'Measuring for real',
};

function onHostMessage(message: HostToWebview): void {
  switch (message.type) {
    case 'init':
      if (message.version !== CACHE_LAB_PROTOCOL_VERSION)
        showError(
          `The Cache Lab's host speaks protocol ${message.version}, this page ${CACHE_LAB_PROTOCOL_VERSION}: reload the window.`,
        );
      state = { ...normalizeCacheLabState(message.state), offeredPolicies: message.availablePolicies };
      recordings = message.recordings;
      webview.saveState(state);
      syncControls();
      renderAll();
      break;
    case 'recordings':
      recordings = message.recordings;
      syncControls();
      break;
    case 'state':
      applyHostState(message);
      break;
    case 'runStarted':
      if (!runs.has(message.runId)) runs.set(message.runId, message.jobs.includes('measure') ? 'measure' : 'analysis');
      if (message.jobs.includes('sweep') && !sweepRuns.has(message.runId)) {
        sweepRuns.set(message.runId, undefined);
        if (received.sweep === undefined) renderSweep();
      }
      updateRunning();
      break;
    case 'progress': {
      const text = `${JOB_WORDS[message.job]}${message.message ? `: ${message.message}` : '…'}`;
      if (message.job === 'measure') measureStatus.textContent = text;
      else statusText.textContent = text;
      progressBar.hidden = message.percentage === undefined;
      if (message.percentage !== undefined) progressBar.value = message.percentage;
      if (message.job === 'sweep' && sweepRuns.has(message.runId)) {
        sweepRuns.set(message.runId, message.message);
        if (received.sweep === undefined) renderSweep();
      }
      break;
    }
    case 'recordingInfo':
      if (message.slot === 'primary') {
        received.info = message.info;
        syncControls();
        renderSummary();
      }
      break;
    case 'sweep':
      received.sweep = { request: message.request, result: message.result, timePending: message.timePending === true };
      received.info = message.result.recording;
      syncControls();
      renderSweep();
      renderMeasure();
      break;
    case 'indexPack':
      received.indexPack = message.results;
      renderIndexPack();
      break;
    case 'locality':
      received.locality[message.slot] = message.result;
      if (message.slot === 'primary' && state.compareRecording === null) delete received.locality.compare;
      renderLocality();
      break;
    case 'measure':
      received.measure = {
        command: message.command,
        cwd: message.cwd,
        reconstructed: message.reconstructed,
        result: message.result,
      };
      renderMeasure();
      break;
    case 'jobEnded':
      if (message.job === 'sweep' && sweepRuns.delete(message.runId) && received.sweep === undefined) renderSweep();
      if (message.outcome === 'failed') {
        const text = `${JOB_WORDS[message.job]} failed: ${message.error ?? 'unknown error'}`;
        if (message.job === 'measure') measureStatus.textContent = text;
        else showError(text);
      }
      break;
    case 'runEnded':
      // A run the host started, or one whose request an earlier page made.
      onRunEnded(message);
      break;
  }
}

/** The state the host chose (a recording picked with the file dialog). */
function applyHostState(message: Extract<HostToWebview, { type: 'state' }>): void {
  state = normalizeCacheLabState(message.state);
  webview.saveState(state);
  syncControls();
}

function onRunEnded(message: Extract<HostToWebview, { type: 'runEnded' }>): void {
  const kind = runs.get(message.runId);
  runs.delete(message.runId);
  if (sweepRuns.delete(message.runId) && received.sweep === undefined) renderSweep();
  const words = message.outcome === 'done' ? 'Done.' : message.outcome === 'cancelled' ? 'Cancelled.' : 'Failed.';
  if (kind === 'measure') {
    if (message.outcome !== 'failed') measureStatus.textContent = words;
  } else statusText.textContent = words;
  updateRunning();
}

watchTheme(() => renderAll());

syncControls();
renderAll();
post({ type: 'ready', version: CACHE_LAB_PROTOCOL_VERSION });
