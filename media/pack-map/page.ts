// What every part of the Pack Map page shares: the connection to the host, the page's state (what
// VS Code keeps across reloads), the recordings offered, the panes, the chrome's elements and
// colours, and the one scheduled frame (requestDraw; main.ts says what a frame paints).
import { MAP_ATTRIBUTES, type MapAttribute } from '../../src/common/pack-map-geometry.ts';
import { normalizePackMapState } from '../../src/presentation/pack-map-state.ts';
import {
  type HostToWebview,
  type PackMapPaneRole,
  type PackMapRecordingChoice,
  type PackMapReplies,
  type PackMapState,
  type PackMapTileWanted,
  type WebviewToHost,
} from '../../src/protocol/pack-map-protocol.ts';
import type {
  ObjectDetails,
  PackMapFamilyResult,
  PackMapInfoResult,
  PackMapSeeksResult,
} from '../../src/protocol/server-protocol.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { startWebview } from '../common/start-webview.ts';
import { readThemeColours } from '../common/theme.ts';

export const ATTRIBUTE_LABELS: Record<MapAttribute, string> = {
  type: 'Object type',
  depth: 'Delta depth',
  family: 'Delta family',
  'disk-size': 'Size on disk',
};
/** How a pane names its pack to the reader (none for a panel of one pack). */
export const ROLE_LABELS: Record<PackMapPaneRole, string> = {
  pack: '',
  today: 'today',
  preview: 'after repack preview',
};

export let hostMessageHandler: (message: HostToWebview) => void = () => undefined;
/** Who handles the host's messages that answer no request (main.ts). */
export function onHostMessage(handler: (message: HostToWebview) => void): void {
  hostMessageHandler = handler;
}
export const webview = startWebview<WebviewToHost, HostToWebview, PackMapReplies>((message) =>
  hostMessageHandler(message),
);
export const { host, post } = webview;

export let state: PackMapState = normalizePackMapState(webview.savedState);
/** The page's state replaced (show: another pack). */
export function replaceState(next: PackMapState): void {
  state = next;
}
export let recordings: PackMapRecordingChoice[] = [];

export interface Hovered {
  order: number;
  x: number;
  y: number;
  object: ObjectDetails | null;
  at: [number, number];
}

export interface ShownFamily {
  oid: string;
  result: PackMapFamilyResult;
  members: Float64Array;
  /** [delta u, v, base u, v] per arc. */
  arcs: Float64Array;
}

export interface ShownSeeks {
  recording: string;
  result: PackMapSeeksResult;
  points: Float64Array;
  faults: Set<number>;
}

/** One pack drawn: its canvas, its tiles' wants, its hover and overlays, its figures. */
export interface Pane {
  index: number;
  role: PackMapPaneRole;
  info: PackMapInfoResult | undefined;
  section: HTMLElement;
  viewport: HTMLElement;
  canvas: HTMLCanvasElement;
  context2d: CanvasRenderingContext2D;
  tooltip: HTMLElement;
  summary: HTMLElement;
  scaleText: HTMLElement;
  /** The offset ruler under the map, and its marks over the map (ruler.ts). */
  ruler: HTMLElement;
  marks: HTMLElement;
  recordingStats: HTMLElement;
  /** The recording's locality in this pack (`packscope locality`'s figures). */
  seekStats: HTMLElement;
  familyText: HTMLElement;
  cssWidth: number;
  cssHeight: number;
  /** What the last frame wanted, nearest the centre first (sent as places free up). */
  wanted: PackMapTileWanted[];
  hovered: Hovered | undefined;
  hoverRequest: { order: number; x: number; y: number; at: [number, number] } | undefined;
  hoverBusy: boolean;
  family: ShownFamily | undefined;
  seeks: ShownSeeks | undefined;
}

export const root = document.getElementById('pack-map')!;
export const attributeSelect = h('select', { id: 'attribute', 'aria-label': 'Colour by' });
for (const attribute of MAP_ATTRIBUTES)
  attributeSelect.append(h('option', { value: attribute }, ATTRIBUTE_LABELS[attribute]));
export const recordingSelect = h('select', { id: 'recording', 'aria-label': 'Recording drawn over the map' });
export const legendList = h('ul', { id: 'legend', class: 'legend' });
export const frameText = h('p', { id: 'frame-time', class: 'note' });
export const statusText = h('p', { id: 'map-status', class: 'note', 'aria-live': 'polite' });
/** Why the page shows less than it was opened with (show's `note`). */
export const noteText = h('p', { id: 'map-note', class: 'note', role: 'status', hidden: true });
export const objectPanel = h('div', { id: 'object-panel' });
export const familyPanel = h('div', { id: 'family-panel', 'aria-live': 'polite' });
export const seeksToggle = h('input', { id: 'seeks', type: 'checkbox' });
export const seeksLabel = h(
  'label',
  { id: 'seeks-label', hidden: true },
  seeksToggle,
  ' Draw its reads in order (seek path)',
);
export const seekScrubber = h('input', {
  id: 'seek-scrubber',
  type: 'range',
  min: 1,
  max: 1,
  value: 1,
  'aria-label': 'Reads drawn',
});
export const seekPanel = h('div', { id: 'seek-panel', hidden: true });
export const seekControls = h('div', { id: 'seek-controls' });

/** The first pane's elements keep the ids a panel of one pack has always had; the second's end in -1. */
export const paneId = (base: string, index: number): string => (index === 0 ? base : `${base}-${index}`);

export const panes: Pane[] = [];
export const comparing = (): boolean => panes.length > 1;

export function button(id: string, text: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = h('button', { id, type: 'button', class: 'secondary', title, 'aria-label': title }, text);
  b.addEventListener('click', onClick);
  return b;
}

export function saveState(): void {
  webview.saveState(state);
}

export function setRecordings(next: PackMapRecordingChoice[]): void {
  recordings = next;
  const options = [
    h('option', { value: '' }, 'None'),
    ...next.map((r) => h('option', { value: r.file, title: `${r.description}\n${r.file}` }, r.label)),
  ];
  replaceChildren(recordingSelect, ...options);
  if (state.recording !== null && !next.some((r) => r.file === state.recording)) state.recording = null;
  recordingSelect.value = state.recording ?? '';
}

export let staleHover: (pane: Pane) => void = () => undefined;
/**
 * What a frame does when the tooltip names a cell of another order than the one drawn (input.ts:
 * looks up the cell under the same point again): a zoom by buttons or keys changes the order under
 * a pointer that did not move.
 */
export function onStaleHover(handler: (pane: Pane) => void): void {
  staleHover = handler;
}

export let painter: () => void = () => undefined;
/** What a frame paints (main.ts: draw). */
export function paintWith(paint: () => void): void {
  painter = paint;
}

export let drawPending = false;
export function requestDraw(): void {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    painter();
  });
}

export let colours = readThemeColours();
/** The theme changed: its colours read again. */
export function refreshColours(): void {
  colours = readThemeColours();
}
