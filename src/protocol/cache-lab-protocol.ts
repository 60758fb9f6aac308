/**
 * The one message protocol between the Cache Lab webview (media/cache-lab/) and its host
 * (src/extension/cache-lab/). The webview draws what the host sends and computes no simulation:
 * every number comes from a server request (SweepRequest, LocalityRequest, IndexPackSimRequest,
 * MeasureRequest). The handshake: the webview posts `ready` with its protocol version; the host
 * answers `init` (state, recordings) and then sends results. The messages, the state and the
 * constants live here; what is built from them (the copyable tables, the git-vs-belady sentences,
 * the state's normaliser) is in src/shared/, so that the webview bundle, the host and the tests
 * share it without importing vscode or the LSP libraries.
 */
import type { IndexPackSimResult, LocalityResult, MeasureResult, RecordingInfo, SweepResult } from './server-protocol.ts';

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

/** The policies offered as checkboxes: names of the server's policy registry, passed as strings. */
export const CACHE_LAB_POLICIES: readonly string[] = ['git', 'git-legacy', 'separate-blob-lru', 'admit-max:1m', 'keep-on-hit', 'gdsf', 'libgit2', 'belady'];

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
  metric: CacheLabMetric;
  tab: CacheLabTab;
  /** Measure for real: runs per limit (best of N). */
  measureRuns: number;
}

export function defaultCacheLabState(): CacheLabState {
  return {
    version: CACHE_LAB_PROTOCOL_VERSION,
    recording: null,
    segment: null,
    compareRecording: null,
    limits: [...DEFAULT_LIMITS],
    policies: [...CACHE_LAB_POLICIES],
    metric: 'inflations',
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
  /** A request: the run's `runEnded` answers it. `runId` names the run in its progress and in `cancel`. */
  | { type: 'run'; runId: string; request: AnalysisRequest }
  /** A request, answered like `run`. */
  | { type: 'measure'; runId: string; file: string; segment: number | null; limits: number[]; runs: number }
  | { type: 'cancel'; runId: string }
  /** A request: the host shows the file picker and answers with the `state` (unchanged when none was chosen). */
  | { type: 'browseRecording'; slot: LocalitySlot }
  | { type: 'copy'; format: 'text' | 'markdown'; text: string };

/**
 * The webview's requests and the host message that answers each (src/shared/message-handler.ts
 * correlates them). A run the host starts itself (opening on a recording) ends with a `runEnded`
 * that answers nothing.
 */
export interface CacheLabReplies {
  run: 'runEnded';
  measure: 'runEnded';
  browseRecording: 'state';
}

export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (typeof value !== 'object' || value === null || !('type' in value)) return false;
  const type = (value as { type: unknown }).type;
  return typeof type === 'string' && ['ready', 'stateChanged', 'run', 'measure', 'cancel', 'browseRecording', 'copy'].includes(type);
}

// ---------------------------------------------------------------------------------------------
// Limits as git writes them.

/** `0`, `512k`, `96m`, `1g`: git's size suffixes, as `packscope sweep` prints them. */
export function formatLimit(bytes: number): string {
  if (bytes === 0) return '0';
  for (const [unit, scale] of [['g', GIB], ['m', MIB], ['k', KIB]] as const) {
    if (bytes % scale === 0) return `${bytes / scale}${unit}`;
  }
  return String(bytes);
}

/** Parses `0,1m,4m,96m` (git's k/m/g suffixes, base 1024); undefined when any item is not a size. */
export function parseLimitList(text: string): number[] | undefined {
  const items = text.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (items.length === 0) return undefined;
  const limits: number[] = [];
  for (const item of items) {
    const match = /^(\d+)([kmg]?)$/i.exec(item);
    if (match === null) return undefined;
    const scale = { '': 1, k: KIB, m: MIB, g: GIB }[match[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
    const bytes = Number(match[1]) * scale;
    if (!Number.isSafeInteger(bytes)) return undefined;
    limits.push(bytes);
  }
  return limits;
}

// ---------------------------------------------------------------------------------------------
// Command lines of Measure for real.

/** Characters an argument may hold and still be shown unquoted (as git's sq_quote_argv_pretty leaves it). */
const PLAIN_ARGUMENT = /^[A-Za-z0-9_.,:@%+=\/-]+$/;

/** One argument as a POSIX shell reads it back: unquoted when plain, else in single quotes (`'` as `'\''`). */
export function shellQuote(arg: string): string {
  return PLAIN_ARGUMENT.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** `git log '--format=%H %s'`: the command for display, every argument recoverable from the line. */
export function gitCommandLine(args: readonly string[]): string {
  return ['git', ...args.map(shellQuote)].join(' ');
}

/**
 * git's arguments (without "git") from a command line as GIT_TRACE prints it (`trace: built-in: git
 * log '--format=%H %s'`: git quotes arguments that need it with single quotes, `'` as `'\''` and `!`
 * as `'\!'`). Undefined when the line does not start with git or its quoting is unbalanced. The result
 * is a reconstruction: what git printed, not what it was given (a raw trace has nothing better).
 */
export function argvOfTraceCommand(line: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length && '"\\$`'.includes(line[j + 1]!)) j++;
        word += line[j];
      }
      if (j >= line.length) return undefined;
      inWord = true;
      i = j;
    } else if (c === '\\') {
      if (i + 1 < line.length) word += line[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  const first = words.shift();
  if (first === undefined || !(first === 'git' || first.endsWith('/git'))) return undefined;
  return words.length === 0 ? undefined : words;
}
