// The host's messages that answer no request: results, progress and the ends of runs and jobs.
import { normalizeCacheLabState } from '../../src/presentation/cache-lab-state.ts';
import {
  CACHE_LAB_PROTOCOL_VERSION,
  type CacheLabJob,
  type HostToWebview,
} from '../../src/protocol/cache-lab-protocol.ts';
import { applyHostState, onRunEnded, showError, syncControls, updateRunning } from './controls.ts';
import { renderIndexPack } from './index-pack-view.ts';
import { completionStatus, measureStatus, progressBar, statusText } from './layout.ts';
import { renderLocality } from './locality-view.ts';
import { renderMeasure } from './measure-view.ts';
import { received, replaceRecordings, replaceState, runs, state, sweepRuns, webview, type RunKind } from './page.ts';
import { renderSummary } from './summary-view.ts';
import { renderSweep } from './sweep-view.ts';
import { renderAll } from './views.ts';

// ------------------------------------------------------------------------------------------ messages from the host

export const JOB_WORDS: Record<CacheLabJob, string> = {
  recordingInfo: 'Reading the recording',
  sweep: 'Sweeping',
  indexPack: 'Simulating index-pack',
  locality: 'Measuring locality',
  timeEstimate: 'Estimating time',
  measure: 'Measuring for real',
  complete: 'Completing the recording',
};

// Stays long: one switch over the host's message union, a case per message.
export function onHostMessage(message: HostToWebview): void {
  switch (message.type) {
    case 'init':
      if (message.version !== CACHE_LAB_PROTOCOL_VERSION)
        showError(
          `The Cache Lab's host speaks protocol ${message.version}, this page ${CACHE_LAB_PROTOCOL_VERSION}: reload the window.`,
        );
      replaceState({ ...normalizeCacheLabState(message.state), offeredPolicies: message.availablePolicies });
      replaceRecordings(message.recordings);
      webview.saveState(state);
      syncControls();
      renderAll();
      break;
    case 'recordings':
      replaceRecordings(message.recordings);
      syncControls();
      break;
    case 'state':
      applyHostState(message);
      break;
    case 'runStarted':
      if (!runs.has(message.runId)) runs.set(message.runId, runKind(message.jobs));
      if (message.jobs.includes('sweep') && !sweepRuns.has(message.runId)) {
        sweepRuns.set(message.runId, undefined);
        if (received.sweep === undefined) renderSweep();
      }
      updateRunning();
      break;
    case 'progress': {
      const text = `${JOB_WORDS[message.job]}${message.message ? `: ${message.message}` : '…'}`;
      jobStatus(message.job).textContent = text;
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
        if (message.job === 'measure' || message.job === 'complete') jobStatus(message.job).textContent = text;
        else showError(text);
      }
      break;
    case 'runEnded':
      // A run the host started, or one whose request an earlier page made.
      onRunEnded(message);
      break;
  }
}

function runKind(jobs: CacheLabJob[]): RunKind {
  return jobs.includes('measure') ? 'measure' : jobs.includes('complete') ? 'complete' : 'analysis';
}

/** Where a job's progress is written: beside its own button for Measure for real and completion. */
function jobStatus(job: CacheLabJob): HTMLElement {
  return job === 'measure' ? measureStatus : job === 'complete' ? completionStatus : statusText;
}
