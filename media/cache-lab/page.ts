// What every part of the Cache Lab page shares: the connection to the host, the page's state (what
// VS Code keeps across reloads, told to the host on each change), the recordings offered, what the
// host sent last, and the runs under way.
import { normalizeCacheLabState, sweepPlaceholder } from '../../src/presentation/cache-lab-state.ts';
import {
  type CacheLabReplies,
  type CacheLabState,
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
import { startWebview } from '../common/start-webview.ts';

export let hostMessageHandler: (message: HostToWebview) => void = () => undefined;
/** Who handles the host's messages that answer no request (messages.ts, wired by main.ts). */
export function handleHostMessages(handler: (message: HostToWebview) => void): void {
  hostMessageHandler = handler;
}
export const webview = startWebview<WebviewToHost, HostToWebview, CacheLabReplies>((message) =>
  hostMessageHandler(message),
);
export const { host, post } = webview;

export let state: CacheLabState = normalizeCacheLabState(webview.savedState);
/** The page's state replaced: every change makes a new state object. */
export function replaceState(next: CacheLabState): void {
  state = next;
}
export let recordings: RecordingChoice[] = [];
export function replaceRecordings(next: RecordingChoice[]): void {
  recordings = next;
}
/** What the host sent last; drawn again on a theme change or a change of metric. */
export const received: {
  info?: RecordingInfo;
  sweep?: { request: { limits: number[]; policies: string[] }; result: SweepResult; timePending?: boolean };
  indexPack?: IndexPackSimResult[];
  locality: Partial<Record<LocalitySlot, LocalityResult>>;
  measure?: { command: string; cwd?: string; reconstructed?: boolean; result: MeasureResult };
} = { locality: {} };

/** Runs under way: analysis (the Run button), measure, or completing the recording. */
export type RunKind = 'analysis' | 'measure' | 'complete';
export const runs = new Map<string, RunKind>();
/** Runs under way whose jobs include a sweep, with the sweep's last progress message. */
export const sweepRuns = new Map<string, string | undefined>();

/** The Sweep tab's words while it has no sweep (src/presentation/cache-lab-state.ts). */
export function currentSweepPlaceholder(): ReturnType<typeof sweepPlaceholder> {
  const progress = [...sweepRuns.values()].at(-1);
  return sweepPlaceholder(state.recording !== null, sweepRuns.size > 0, progress);
}
export let runCounter = 0;
export const newRunId = (): string => `run-${Date.now().toString(36)}-${++runCounter}`;

export function saveState(): void {
  webview.saveState(state);
  post({ type: 'stateChanged', state });
}
