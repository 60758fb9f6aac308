// The Cache Lab's elements: the controls, the tabs and each tab's sections, built once.
import { SWEEP_CHART_VIEWS } from '../../src/presentation/sweep-chart-views.ts';
import { type CacheLabTab } from '../../src/protocol/cache-lab-protocol.ts';
import { h, replaceChildren } from '../common/dom.ts';

export const root = document.getElementById('cache-lab') ?? document.body.appendChild(h('main', { id: 'cache-lab' }));

export const recordingSelect = h('select', { id: 'recording' });
export const browseButton = h('button', { id: 'browse', type: 'button', class: 'secondary' }, 'Choose file…');
export const segmentSelect = h('select', { id: 'segment' });
export const limitsInput = h('input', {
  id: 'limits',
  type: 'text',
  spellcheck: 'false',
  autocomplete: 'off',
  'aria-describedby': 'limits-help',
});
export const metricSelect = h(
  'select',
  { id: 'metric' },
  h('option', { value: 'inflations' }, 'inflations'),
  h('option', { value: 'inflatedBytes' }, 'inflated bytes'),
);
export const policiesBox = h('div', { class: 'policies' });
export const runButton = h('button', { id: 'run', type: 'button' }, 'Run');
export const cancelButton = h('button', { id: 'cancel', type: 'button', class: 'secondary', disabled: true }, 'Cancel');
export const statusText = h('span', { id: 'status-text' });
export const progressBar = h('progress', {
  id: 'progress',
  max: 100,
  hidden: true,
  'aria-label': 'progress of the run',
});
export const errorBox = h('div', { id: 'error', role: 'alert', class: 'error', hidden: true });

export const controls = h(
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

export const tabs: { id: CacheLabTab; label: string; tab: HTMLButtonElement; panel: HTMLElement }[] = (
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
export const tabList = h(
  'div',
  { role: 'tablist', 'aria-label': 'Cache Lab views', class: 'tabs' },
  ...tabs.map((t) => t.tab),
);

// Sweep tab
export const recordingSummary = h('p', { id: 'recording-summary', class: 'summary' });
export const sweepCanvas = h('canvas', { id: 'sweep-chart', role: 'img' });
export const sweepChartAlt = h('figcaption', { id: 'sweep-chart-alt' });
export const sweepViewSelect = h(
  'select',
  { id: 'sweep-view' },
  ...SWEEP_CHART_VIEWS.map((v) => h('option', { value: v.view }, v.label)),
);
export const zeroApartBox = h('input', { type: 'checkbox', id: 'zero-apart' });
export const zeroCanvas = h('canvas', { id: 'zero-chart', role: 'img' });
export const zeroBox = h('div', { class: 'chart-box zero', id: 'zero-box', hidden: true }, zeroCanvas);
/** Which series coincide (one line hides the other), and what the view left out. */
export const sweepNotes = h('ul', { id: 'sweep-notes', class: 'note' });
export const sweepTable = h('table', { id: 'sweep-table', class: 'numbers' });
export const copyTextButton = h(
  'button',
  { id: 'copy-text', type: 'button', class: 'secondary', disabled: true },
  'Copy as text',
);
export const copyMarkdownButton = h(
  'button',
  { id: 'copy-markdown', type: 'button', class: 'secondary', disabled: true },
  'Copy as Markdown',
);
export const referenceList = h('ul', { id: 'reference-sentences' });
export const indexPackBox = h('div', { id: 'index-pack' });
export const measureRunsInput = h('input', { id: 'measure-runs', type: 'number', min: 1, max: 50, step: 1 });
export const measureButton = h('button', { id: 'measure', type: 'button' }, 'Measure for real…');
export const measureCancelButton = h(
  'button',
  { id: 'measure-cancel', type: 'button', class: 'secondary', disabled: true },
  'Cancel',
);
export const measureStatus = h('p', { id: 'measure-status', role: 'status', 'aria-live': 'polite' });
export const measureCanvas = h('canvas', { id: 'measure-chart', role: 'img' });
export const measureFigure = h(
  'figure',
  { hidden: true },
  h('div', { class: 'chart-box' }, measureCanvas),
  h('figcaption', { id: 'measure-chart-alt' }),
);
export const measureTable = h('table', { id: 'measure-table', class: 'numbers', hidden: true });
/** What ran, where; and, for a raw trace, that its command line was read back from the trace. */
export const measureCommand = h('p', { id: 'measure-command', hidden: true });
export const measureNotes = h('ul', { id: 'measure-notes', class: 'note', hidden: true });
/** Under a sweep with bounds wider than 1%: complete the recording there (one action, progress, Cancel), or what completion needs. */
export const completionText = h('p', { id: 'completion-text', class: 'note' });
export const completeButton = h('button', { id: 'complete', type: 'button' }, 'Complete…');
export const completeCancelButton = h(
  'button',
  { id: 'complete-cancel', type: 'button', class: 'secondary', disabled: true },
  'Cancel',
);
export const completionStatus = h('p', { id: 'completion-status', role: 'status', 'aria-live': 'polite' });
export const completionBox = h(
  'div',
  { id: 'completion', hidden: true },
  completionText,
  h('div', { class: 'row' }, completeButton, completeCancelButton),
  completionStatus,
);
// Time: the sweep's counts priced in seconds, an estimate labelled with its calibration.
export const timeLabelText = h('p', { id: 'time-label', class: 'explanation' });
export const timeTable = h('table', { id: 'time-table', class: 'numbers', hidden: true });
export const kneeList = h('ul', { id: 'time-knees', hidden: true });
export const recommendationText = h('p', { id: 'time-recommendation', class: 'summary', hidden: true });

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
  completionBox,
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
export const compareSelect = h('select', { id: 'compare' });
export const compareBrowse = h('button', { id: 'compare-browse', type: 'button', class: 'secondary' }, 'Choose file…');
export const localityStats = h('table', { id: 'locality-stats', class: 'numbers' });
export const percentileTable = h('table', { id: 'locality-percentiles', class: 'numbers' });
export const distanceCanvas = h('canvas', { id: 'distance-chart', role: 'img' });
export const distanceAlt = h('figcaption', { id: 'distance-chart-alt' });
export const localityEmpty = h(
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
