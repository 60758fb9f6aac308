// The Cache Lab's state as it comes back from outside the host's own code (the webview's
// getState, the serializer, a message), made safe to use.
import { defaultCacheLabState, type CacheLabState } from '../protocol/cache-lab-protocol.ts';
import { SWEEP_CHART_VIEWS } from './sweep-chart-views.ts';

const SWEEP_CHART_VIEW_NAMES = SWEEP_CHART_VIEWS.map((v) => v.view);

/**
 * A state from outside (webview getState, serializer, command argument) made safe: unknown or
 * ill-typed fields fall back to the defaults, so an old or damaged state never breaks the panel.
 */
export function normalizeCacheLabState(value: unknown, defaultPolicies: readonly string[] = []): CacheLabState {
  const state = defaultCacheLabState(defaultPolicies);
  if (typeof value !== 'object' || value === null) return state;
  const v = value as Record<string, unknown>;
  if (typeof v.recording === 'string' && v.recording !== '') state.recording = v.recording;
  if (typeof v.segment === 'number' && Number.isInteger(v.segment) && v.segment > 0) state.segment = v.segment;
  if (typeof v.compareRecording === 'string' && v.compareRecording !== '') state.compareRecording = v.compareRecording;
  if (
    Array.isArray(v.limits) &&
    v.limits.length > 0 &&
    v.limits.every((l) => typeof l === 'number' && Number.isSafeInteger(l) && l >= 0)
  ) {
    state.limits = v.limits as number[];
  }
  if (Array.isArray(v.policies) && v.policies.length > 0 && v.policies.every((p) => typeof p === 'string' && p !== ''))
    state.policies = v.policies as string[];
  if (Array.isArray(v.offeredPolicies) && v.offeredPolicies.every((p) => typeof p === 'string' && p !== ''))
    state.offeredPolicies = v.offeredPolicies as string[];
  if (v.metric === 'inflations' || v.metric === 'inflatedBytes') state.metric = v.metric;
  if (typeof v.sweepView === 'string' && (SWEEP_CHART_VIEW_NAMES as readonly string[]).includes(v.sweepView))
    state.sweepView = v.sweepView as CacheLabState['sweepView'];
  if (typeof v.zeroApart === 'boolean') state.zeroApart = v.zeroApart;
  if (v.tab === 'sweep' || v.tab === 'locality') state.tab = v.tab;
  if (typeof v.measureRuns === 'number' && Number.isInteger(v.measureRuns) && v.measureRuns >= 1 && v.measureRuns <= 50)
    state.measureRuns = v.measureRuns;
  return state;
}

/** What the Sweep tab shows before it has a sweep to show. */
export interface SweepPlaceholder {
  /** The recording summary line. */
  summary: string;
  /** The chart's text alternative (and what a screen reader hears). */
  chart: string;
}

/**
 * The Sweep tab's words while it has no sweep: a sweep under way (one this page started, or one the
 * host started and announced with runStarted) is said to be under way — never "No sweep yet. Press
 * Run", which would have the user start a second one.
 */
export function sweepPlaceholder(recordingChosen: boolean, sweepRunning: boolean, progress?: string): SweepPlaceholder {
  if (sweepRunning) {
    const doing = progress === undefined || progress === '' ? 'Sweeping…' : `Sweeping: ${progress}`;
    return { summary: `${doing} The table and the chart appear when the sweep ends.`, chart: doing };
  }
  if (!recordingChosen)
    return {
      summary:
        'Choose a recording (made by “Record a git command…”, a terminal recording, or `packscope record`) and press Run.',
      chart: 'No sweep yet.',
    };
  return { summary: 'No sweep yet. Press Run to replay this recording.', chart: 'No sweep yet.' };
}
