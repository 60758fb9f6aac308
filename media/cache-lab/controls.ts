// The controls: kept in step with the state (syncControls), and what each control does when used:
// the state changed and saved, a view drawn again, or a run or a measure asked of the host.
import { formatCount, formatLimit } from '../../src/common/format.ts';
import { parseLimitList } from '../../src/common/git-size.ts';
import { normalizeCacheLabState } from '../../src/presentation/cache-lab-state.ts';
import { SWEEP_CHART_VIEWS } from '../../src/presentation/sweep-chart-views.ts';
import { sweepTableMarkdown, sweepTableText } from '../../src/presentation/sweep-table.ts';
import { type HostToWebview, type LocalitySlot } from '../../src/protocol/cache-lab-protocol.ts';
import { baseName, h, replaceChildren } from '../common/dom.ts';
import {
  browseButton,
  cancelButton,
  compareBrowse,
  compareSelect,
  controls,
  copyMarkdownButton,
  copyTextButton,
  errorBox,
  limitsInput,
  completeButton,
  completeCancelButton,
  completionStatus,
  measureButton,
  measureCancelButton,
  measureRunsInput,
  measureStatus,
  metricSelect,
  policiesBox,
  progressBar,
  recordingSelect,
  runButton,
  segmentSelect,
  statusText,
  sweepViewSelect,
  zeroApartBox,
} from './layout.ts';
import { renderMeasure } from './measure-view.ts';
import {
  host,
  newRunId,
  post,
  received,
  recordings,
  replaceState,
  runs,
  saveState,
  state,
  sweepRuns,
  webview,
  type RunKind,
} from './page.ts';
import { currentCompletionOffer } from './completion-view.ts';
import { renderSweep } from './sweep-view.ts';
import { selectTab } from './tabs.ts';

export function syncControls(): void {
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

export function onPolicyToggled(): void {
  const checked = [...policiesBox.querySelectorAll<HTMLInputElement>('input[type=checkbox]')]
    .filter((b) => b.checked)
    .map((b) => b.value);
  replaceState({ ...state, policies: checked });
  saveState();
}

export function showError(message: string | undefined): void {
  errorBox.hidden = message === undefined;
  errorBox.textContent = message ?? '';
}

recordingSelect.addEventListener('change', () => {
  replaceState({ ...state, recording: recordingSelect.value === '' ? null : recordingSelect.value, segment: null });
  saveState();
  syncControls();
});
segmentSelect.addEventListener('change', () => {
  replaceState({ ...state, segment: segmentSelect.value === '' ? null : Number(segmentSelect.value) });
  saveState();
});
compareSelect.addEventListener('change', () => {
  replaceState({ ...state, compareRecording: compareSelect.value === '' ? null : compareSelect.value });
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
  replaceState({ ...state, limits });
  saveState();
});
metricSelect.addEventListener('change', () => {
  replaceState({ ...state, metric: metricSelect.value === 'inflatedBytes' ? 'inflatedBytes' : 'inflations' });
  saveState();
  renderSweep();
  renderMeasure();
});
sweepViewSelect.addEventListener('change', () => {
  const view = SWEEP_CHART_VIEWS.find((v) => v.view === sweepViewSelect.value)?.view;
  if (view === undefined) return;
  replaceState({ ...state, sweepView: view });
  saveState();
  renderSweep();
});
zeroApartBox.addEventListener('change', () => {
  replaceState({ ...state, zeroApart: zeroApartBox.checked });
  saveState();
  renderSweep();
});
measureRunsInput.addEventListener('change', () => {
  const runs = Number(measureRunsInput.value);
  if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
    measureRunsInput.value = String(state.measureRuns);
    return;
  }
  replaceState({ ...state, measureRuns: runs });
  saveState();
});
export const browse = (slot: LocalitySlot): void =>
  void host.request({ type: 'browseRecording', slot }).then(applyHostState);
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
completeCancelButton.addEventListener('click', () => cancelRuns('complete'));
completeButton.addEventListener('click', () => {
  const offer = currentCompletionOffer();
  if (state.recording === null || offer?.kind !== 'action') return;
  const runId = newRunId();
  runs.set(runId, 'complete');
  completionStatus.textContent = 'Completing the recording…';
  void host.request({ type: 'complete', runId, file: state.recording, limits: offer.limits }).then(onRunEnded);
  updateRunning();
});
copyTextButton.addEventListener('click', () => copyTable('text'));
copyMarkdownButton.addEventListener('click', () => copyTable('markdown'));

export function cancelRuns(kind: RunKind): void {
  for (const [runId, k] of runs) if (k === kind) post({ type: 'cancel', runId });
}

export function copyTable(format: 'text' | 'markdown'): void {
  const sweep = received.sweep;
  if (sweep === undefined) return;
  const { limits, policies } = sweep.request;
  const text =
    format === 'text'
      ? sweepTableText(sweep.result, limits, policies, state.metric)
      : sweepTableMarkdown(sweep.result, limits, policies, state.metric);
  post({ type: 'copy', format, text });
}

export function updateRunning(): void {
  const kinds = new Set(runs.values());
  cancelButton.disabled = !kinds.has('analysis');
  runButton.disabled = kinds.has('analysis');
  measureCancelButton.disabled = !kinds.has('measure');
  measureButton.disabled = kinds.has('measure');
  completeCancelButton.disabled = !kinds.has('complete');
  completeButton.disabled = kinds.has('complete');
  if (runs.size === 0) progressBar.hidden = true;
}

/** The state the host chose (a recording picked with the file dialog). */
export function applyHostState(message: Extract<HostToWebview, { type: 'state' }>): void {
  replaceState(normalizeCacheLabState(message.state));
  webview.saveState(state);
  syncControls();
}

export function onRunEnded(message: Extract<HostToWebview, { type: 'runEnded' }>): void {
  const kind = runs.get(message.runId);
  runs.delete(message.runId);
  if (sweepRuns.delete(message.runId) && received.sweep === undefined) renderSweep();
  const words = message.outcome === 'done' ? 'Done.' : message.outcome === 'cancelled' ? 'Cancelled.' : 'Failed.';
  if (kind === 'measure') {
    if (message.outcome !== 'failed') measureStatus.textContent = words;
  } else if (kind === 'complete') {
    if (message.outcome !== 'failed') completionStatus.textContent = words;
  } else statusText.textContent = words;
  updateRunning();
}
