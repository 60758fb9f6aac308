/**
 * The one message protocol between the Cache Lab webview (media/cache-lab/) and its host
 * (src/extension/cache-lab/). The webview draws what the host sends and computes no simulation:
 * every number comes from a server request (SweepRequest, LocalityRequest, IndexPackSimRequest,
 * MeasureRequest). The handshake: the webview posts `ready` with its protocol version; the host
 * answers `init` (state, recordings) and then sends results. Only types and small pure helpers
 * (limit formatting, the copyable tables, the git-vs-belady sentences) live here, so that the
 * webview bundle, the host and the tests share them without importing vscode or the LSP libraries.
 */
import { formatLimit } from '../shared/format.ts';
import type { IndexPackSimResult, LocalityResult, MeasureResult, RecordingInfo, SimCell, SweepResult } from './server-protocol.ts';

export const CACHE_LAB_PROTOCOL_VERSION = 1;

/** The WebviewPanel's viewType, also the serializer's (`onWebviewPanel:packscope.cacheLab`). */
export const CACHE_LAB_VIEW_TYPE = 'packscope.cacheLab';

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

/** The panel's default limits: the README's sweep plus 32m, 64m and 1g. */
export const DEFAULT_LIMITS: readonly number[] = [0, MIB, 4 * MIB, 16 * MIB, 32 * MIB, 64 * MIB, 96 * MIB, 256 * MIB, GIB];

/** core.deltaBaseCacheLimit's default (git-internals §1.6): the line the charts mark. */
export const GIT_DEFAULT_LIMIT = 96 * MIB;

/** Today's Git (emphasised) and the offline reference (the sentences compare the two). */
export const GIT_POLICY = 'git';
export const REFERENCE_POLICY = 'belady';

export type CacheLabTab = 'sweep' | 'locality';
export type CacheLabMetric = 'inflations' | 'inflatedBytes';
export type CacheLabJob = 'recordingInfo' | 'sweep' | 'indexPack' | 'locality' | 'measure';
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
    tab: 'sweep',
    measureRuns: 3,
  };
}

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
  if (Array.isArray(v.limits) && v.limits.length > 0 && v.limits.every((l) => typeof l === 'number' && Number.isSafeInteger(l) && l >= 0)) {
    state.limits = v.limits as number[];
  }
  if (Array.isArray(v.policies) && v.policies.length > 0 && v.policies.every((p) => typeof p === 'string' && p !== '')) state.policies = v.policies as string[];
  if (Array.isArray(v.offeredPolicies) && v.offeredPolicies.every((p) => typeof p === 'string' && p !== '')) state.offeredPolicies = v.offeredPolicies as string[];
  if (v.metric === 'inflations' || v.metric === 'inflatedBytes') state.metric = v.metric;
  if (v.tab === 'sweep' || v.tab === 'locality') state.tab = v.tab;
  if (typeof v.measureRuns === 'number' && Number.isInteger(v.measureRuns) && v.measureRuns >= 1 && v.measureRuns <= 50) state.measureRuns = v.measureRuns;
  return state;
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
  | { type: 'sweep'; runId: string; request: { limits: number[]; policies: string[] }; result: SweepResult }
  | { type: 'indexPack'; runId: string; results: IndexPackSimResult[] }
  | { type: 'locality'; runId: string; slot: LocalitySlot; result: LocalityResult }
  /**
   * Measure for real ran `git <args>` in `cwd` (`command` is that line for display, quoted as a shell
   * would need it). `reconstructed`: the recording had no metadata (a raw trace), so the arguments were
   * read back from the trace's GIT_TRACE line and may be inexact; the panel says so.
   */
  | { type: 'measure'; runId: string; command: string; args: string[]; cwd: string; reconstructed: boolean; result: MeasureResult }
  /** A job ended: done, cancelled by the user, or failed (the message says why). */
  | { type: 'jobEnded'; runId: string; job: CacheLabJob; outcome: 'done' | 'cancelled' | 'failed'; error?: string }
  | { type: 'runEnded'; runId: string; outcome: 'done' | 'cancelled' | 'failed' };

// ---------------------------------------------------------------------------------------------
// Webview → host

export type WebviewToHost =
  | { type: 'ready'; version: number }
  /** Sent on every change of the controls (after setState), so the host knows what a reload restores. */
  | { type: 'stateChanged'; state: CacheLabState }
  | { type: 'run'; runId: string; request: AnalysisRequest }
  | { type: 'measure'; runId: string; file: string; segment: number | null; limits: number[]; runs: number }
  | { type: 'cancel'; runId: string }
  /** Asks the host to show the file picker; the answer comes back as `state`. */
  | { type: 'browseRecording'; slot: LocalitySlot }
  | { type: 'copy'; format: 'text' | 'markdown'; text: string };

export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (typeof value !== 'object' || value === null || !('type' in value)) return false;
  const type = (value as { type: unknown }).type;
  return typeof type === 'string' && ['ready', 'stateChanged', 'run', 'measure', 'cancel', 'browseRecording', 'copy'].includes(type);
}

// ---------------------------------------------------------------------------------------------
// Pure helpers shared by both sides.

/** The cell of `results` for (policy, limit), as the server orders them or not. */
export function sweepCell(results: readonly SimCell[], policy: string, limit: number): SimCell | undefined {
  return results.find((cell) => cell.policy === policy && cell.limit === limit);
}

const METRIC_WORDS: Record<CacheLabMetric, string> = { inflations: 'inflations', inflatedBytes: 'inflated bytes' };

export function metricWords(metric: CacheLabMetric): string {
  return METRIC_WORDS[metric];
}

/** Rows = limits, columns = policies, as `packscope sweep` and the delta-base-cache thread's tables. */
export function sweepTableRows(result: SweepResult, limits: readonly number[], policies: readonly string[], metric: CacheLabMetric): string[][] {
  const header = ['limit', ...policies];
  const rows = limits.map((limit) => [formatLimit(limit), ...policies.map((policy) => {
    const cell = sweepCell(result.results, policy, limit);
    return cell === undefined ? '' : String(cell[metric]);
  })]);
  return [header, ...rows];
}

/** `inflations over 89 reads` — the caption line of the text table. */
export function sweepTableTitle(result: SweepResult, metric: CacheLabMetric): string {
  return `${metricWords(metric)} over ${result.recording.reads} reads`;
}

/** The table exactly as `packscope sweep` prints it: numbers right-aligned, words left, two spaces between columns. */
export function sweepTableText(result: SweepResult, limits: readonly number[], policies: readonly string[], metric: CacheLabMetric): string {
  const rows = sweepTableRows(result, limits, policies, metric);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const numeric = (cell: string, column: number): boolean => column > 0 && /^[\d,.%\s]+$/.test(cell);
  const lines = rows.map((row) => row.map((cell, column) => (numeric(cell, column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  ').trimEnd());
  return [sweepTableTitle(result, metric), ...lines].join('\n') + '\n';
}

/** The same table in GitHub Markdown, numbers right-aligned. */
export function sweepTableMarkdown(result: SweepResult, limits: readonly number[], policies: readonly string[], metric: CacheLabMetric): string {
  const [header, ...rows] = sweepTableRows(result, limits, policies, metric);
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|');
  const line = (cells: string[]): string => `| ${cells.map(escape).join(' | ')} |`;
  const rule = `|${header!.map((_, column) => (column === 0 ? ' --- ' : ' ---: ')).join('|')}|`;
  return [`${sweepTableTitle(result, metric)}:`, '', line(header!), rule, ...rows.map(line)].join('\n') + '\n';
}

/**
 * One sentence per limit comparing `git` with the `belady` reference on the metric: "At 96m, Git's
 * LRU does 12% more inflations than the reference bound." Empty when either policy is missing.
 */
export function gitVersusReferenceSentences(result: SweepResult, limits: readonly number[], metric: CacheLabMetric): string[] {
  const words = metricWords(metric);
  const verb = metric === 'inflations' ? 'does' : 'inflates';
  const object = metric === 'inflations' ? words : 'bytes';
  const sentences: string[] = [];
  for (const limit of limits) {
    const git = sweepCell(result.results, GIT_POLICY, limit);
    const reference = sweepCell(result.results, REFERENCE_POLICY, limit);
    if (git === undefined || reference === undefined) continue;
    const g = git[metric];
    const r = reference[metric];
    const at = `At ${formatLimit(limit)}`;
    if (g === r) sentences.push(`${at}, Git's LRU ${verb} as many ${object} as the reference bound (${g}).`);
    else if (r === 0) sentences.push(`${at}, Git's LRU ${verb} ${g} ${object}; the reference bound ${verb} none.`);
    else {
      const percent = (Math.abs(g - r) / r) * 100;
      const shown = percent >= 10 ? percent.toFixed(0) : percent.toFixed(1);
      sentences.push(`${at}, Git's LRU ${verb} ${shown}% ${g > r ? 'more' : 'fewer'} ${object} than the reference bound (${g} against ${r}).`);
    }
  }
  return sentences;
}
