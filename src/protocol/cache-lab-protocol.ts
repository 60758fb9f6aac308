/**
 * The one message protocol between the Cache Lab webview (media/cache-lab/) and its host
 * (src/extension/cache-lab/). The webview draws what the host sends and computes no simulation:
 * every number comes from a server request (SweepRequest, LocalityRequest, IndexPackSimRequest,
 * MeasureRequest). The handshake: the webview posts `ready` with its protocol version; the host
 * answers `init` (state, recordings) and then sends results. The messages, the state and the
 * constants live here; what is built from them (the copyable tables, the git-vs-belady sentences,
 * the state's normaliser) is in src/presentation/, so that the webview bundle, the host and the tests
 * share it without importing vscode or the LSP libraries.
 */
import type {
  IndexPackSimResult,
  LocalityResult,
  MeasureResult,
  RecordingInfo,
  SweepResult,
} from './server-protocol.ts';

export const CACHE_LAB_PROTOCOL_VERSION = 1;

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

/** The panel's default limits: the README's sweep plus 32m, 64m and 1g. */
export const DEFAULT_LIMITS: readonly number[] = [
  0,
  MIB,
  4 * MIB,
  16 * MIB,
  32 * MIB,
  64 * MIB,
  96 * MIB,
  256 * MIB,
  GIB,
];

/** core.deltaBaseCacheLimit's default: the line the charts mark. */
export { GIT_DEFAULT_LIMIT } from '../common/git-size.ts';

/** Today's Git (emphasised) and the offline reference (the sentences compare the two). */
export const GIT_POLICY = 'git';
export const REFERENCE_POLICY = 'belady';

export type CacheLabTab = 'sweep' | 'locality';
export type CacheLabMetric = 'inflations' | 'inflatedBytes';
/** How the sweep chart's y axis shows the metric (src/presentation/sweep-chart-views.ts). */
export type SweepChartView = 'zoomed' | 'relative-belady' | 'relative-git' | 'log' | 'linear';
/** `timeEstimate`: the sweep again with its time view, after the other jobs (a first calibration times git for tens of seconds). */
/** `complete`: the recording completed at the limits its bounds are wide at (CompleteRecordingRequest), then swept again. */
export type CacheLabJob =
  'recordingInfo' | 'sweep' | 'indexPack' | 'locality' | 'timeEstimate' | 'measure' | 'complete';
/** The Locality tab shows one recording, or two side by side. */
export type LocalitySlot = 'primary' | 'compare';

/** What the webview keeps with setState and the serializer gives back after a reload. */
export interface CacheLabState {
  version: typeof CACHE_LAB_PROTOCOL_VERSION;
  /** Recording file (absolute path), or null before one is chosen. */
  recording: string | null;
  /** 1-based git process of the recording; null: all of them. */
  segment: number | null;
  /** A second recording for the Locality tab. */
  compareRecording: string | null;
  /** Bytes, in the order the table shows them. */
  limits: number[];
  policies: string[];
  /**
   * The checkboxes the host offered last (init's availablePolicies, from the server's policy
   * table): kept so that a reloaded webview shows them before the host answers.
   */
  offeredPolicies: string[];
  metric: CacheLabMetric;
  sweepView: SweepChartView;
  /** Limit 0 (no cache) drawn in a panel of its own, so that it does not set the sweep chart's scale. */
  zeroApart: boolean;
  tab: CacheLabTab;
  /** Measure for real: runs per limit (best of N). */
  measureRuns: number;
}

/** `policies`: the server's Cache Lab selection (packscope/policies), which this module cannot know. */
export function defaultCacheLabState(policies: readonly string[] = []): CacheLabState {
  return {
    version: CACHE_LAB_PROTOCOL_VERSION,
    recording: null,
    segment: null,
    compareRecording: null,
    limits: [...DEFAULT_LIMITS],
    policies: [...policies],
    offeredPolicies: [...policies],
    metric: 'inflations',
    sweepView: 'zoomed',
    zeroApart: true,
    tab: 'sweep',
    measureRuns: 3,
  };
}

/** A recording the pickers offer. */
export interface RecordingChoice {
  file: string;
  /** File name. */
  label: string;
  /** Where it lives and when it was written. */
  description: string;
}

/** What the Run button asks for: everything the Sweep and Locality tabs show. */
export interface AnalysisRequest {
  file: string;
  segment: number | null;
  limits: number[];
  policies: string[];
  compareRecording: string | null;
}

// ---------------------------------------------------------------------------------------------
// Host → webview

export type HostToWebview =
  | { type: 'init'; version: number; state: CacheLabState; recordings: RecordingChoice[]; availablePolicies: string[] }
  | { type: 'recordings'; recordings: RecordingChoice[] }
  /** The state changed on the host's side (a recording was picked with the file dialog). */
  | { type: 'state'; state: CacheLabState }
  | { type: 'runStarted'; runId: string; jobs: CacheLabJob[] }
  | { type: 'progress'; runId: string; job: CacheLabJob; message?: string; percentage?: number }
  | { type: 'recordingInfo'; runId: string; slot: LocalitySlot; info: RecordingInfo }
  /** `timePending`: this sweep has no time view yet; the run's `timeEstimate` job posts the sweep again with it. */
  | {
      type: 'sweep';
      runId: string;
      request: { limits: number[]; policies: string[] };
      result: SweepResult;
      timePending?: boolean;
    }
  | { type: 'indexPack'; runId: string; results: IndexPackSimResult[] }
  | { type: 'locality'; runId: string; slot: LocalitySlot; result: LocalityResult }
  /**
   * Measure for real ran `git <args>` in `cwd` (`command` is that line for display, quoted as a shell
   * would need it). `reconstructed`: the recording had no metadata (a raw trace), so the arguments were
   * read back from the trace's GIT_TRACE line and may be inexact; the panel says so.
   */
  | {
      type: 'measure';
      runId: string;
      command: string;
      args: string[];
      cwd: string;
      reconstructed: boolean;
      result: MeasureResult;
    }
  /** A job ended: done, cancelled by the user, or failed (the message says why). */
  | { type: 'jobEnded'; runId: string; job: CacheLabJob; outcome: 'done' | 'cancelled' | 'failed'; error?: string }
  | { type: 'runEnded'; runId: string; outcome: 'done' | 'cancelled' | 'failed' };

// ---------------------------------------------------------------------------------------------
// Webview → host

export type WebviewToHost =
  | { type: 'ready'; version: number }
  /** Sent on every change of the controls (after setState), so the host knows what a reload restores. */
  | { type: 'stateChanged'; state: CacheLabState }
  /** A request: the run's `runEnded` answers it. `runId` names the run in its progress and in `cancel`. */
  | { type: 'run'; runId: string; request: AnalysisRequest }
  /** A request, answered like `run`. */
  | { type: 'measure'; runId: string; file: string; segment: number | null; limits: number[]; runs: number }
  /**
   * A request, answered like `run`: complete the recording at `limits` (the host asks first), then
   * point the panel at the completed recording (a `state`) and run it.
   */
  | { type: 'complete'; runId: string; file: string; limits: number[] }
  | { type: 'cancel'; runId: string }
  /** A request: the host shows the file picker and answers with the `state` (unchanged when none was chosen). */
  | { type: 'browseRecording'; slot: LocalitySlot }
  | { type: 'copy'; format: 'text' | 'markdown'; text: string };

/**
 * The webview's requests and the host message that answers each (src/common/message-handler.ts
 * correlates them). A run the host starts itself (opening on a recording) ends with a `runEnded`
 * that answers nothing.
 */
export interface CacheLabReplies {
  run: 'runEnded';
  measure: 'runEnded';
  complete: 'runEnded';
  browseRecording: 'state';
}

export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (typeof value !== 'object' || value === null || !('type' in value)) return false;
  const type = (value as { type: unknown }).type;
  return (
    typeof type === 'string' &&
    ['ready', 'stateChanged', 'run', 'measure', 'complete', 'cancel', 'browseRecording', 'copy'].includes(type)
  );
}
