// The Pack Map webview: one pack along its offsets on a Hilbert curve, drawn on one
// canvas from tiles the server renders (packscope/packMapTile, through the host). Level of detail:
// at zoom z the view asks for tiles of order base + z, so that a tile of 256 cells covers 256 to 512
// device pixels at any zoom, keeps the tiles it has (a few hundred), and paints the coarser tiles it
// holds under a finer one that is still loading. No element per object: the map is one canvas, the
// hovered object one tooltip. Colours are the server's (data); the chrome takes VS Code's theme.
//
// A panel draws one pack or two (a Repack Preview's before and after): each pack is a pane with its
// own canvas, tiles, hover and overlays; the camera, the attribute, the recording and the legend are
// the page's, so that both panes always show the same place in the same colours. A panel of one
// pack is the one-pane case of this same code.
import { formatBytes, formatCount } from '../../src/common/format.ts';
import { heatColour, hilbertPoint, MAP_ATTRIBUTES, type MapAttribute } from '../../src/common/pack-map-geometry.ts';
import { MAX_ZOOM, normalizeCamera, normalizePackMapState } from '../../src/presentation/pack-map-state.ts';
import {
  PACK_MAP_PROTOCOL_VERSION,
  PACK_MAP_TILES_IN_FLIGHT,
  tileKey,
  type HostToWebview,
  type PackMapPaneRole,
  type PackMapRecordingChoice,
  type PackMapReplies,
  type PackMapFirstView,
  type PackMapState,
  type PackMapTile,
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
import { readThemeColours, watchTheme } from '../common/theme.ts';

/** Cells per side of a tile (server-protocol.ts PACK_MAP_TILE_SIZE; a map of order < 8 is one tile). */
const TILE_CELLS = 256;
/** Tiles kept (each a 256 × 256 bitmap, 256 KiB): about 64 MiB at most, whatever the number of panes. */
const MAX_CACHED_TILES = 256;
/** Coarser levels painted under the current one while its tiles load. */
const FALLBACK_LEVELS = 8;
/** Frame times kept for the readout. */
const FRAME_SAMPLES = 120;
const ATTRIBUTE_LABELS: Record<MapAttribute, string> = {
  type: 'Object type',
  depth: 'Delta depth',
  family: 'Delta family',
  'disk-size': 'Size on disk',
};
/** How a pane names its pack to the reader (none for a panel of one pack). */
const ROLE_LABELS: Record<PackMapPaneRole, string> = { pack: '', today: 'today', preview: 'after repack preview' };

const webview = startWebview<WebviewToHost, HostToWebview, PackMapReplies>((message) => {
  if (message.type === 'show') show(message);
  else if (message.type === 'recordings') setRecordings(message.recordings);
  // A first-view tile the host fetched without being asked (show's `pushing`).
  else if (message.type === 'tile' || message.type === 'tileFailed')
    void acceptTile(message.key, message).finally(() => {
      inFlight.delete(message.key);
      requestDraw();
    });
});
const { host } = webview;

let state: PackMapState = normalizePackMapState(webview.savedState);
let recordings: PackMapRecordingChoice[] = [];

interface CachedTile {
  bitmap: ImageBitmap;
  litCells: number;
  recordingObjects?: number;
  recordingReads?: number;
}
/** Every pane's tiles (their keys name the pane): one budget for the page. */
const tiles = new Map<string, CachedTile>();
/** Keys of tile requests sent and not answered. */
const inFlight = new Set<string>();
const frameTimes: number[] = [];

interface Hovered {
  order: number;
  x: number;
  y: number;
  object: ObjectDetails | null;
  at: [number, number];
}

interface ShownFamily {
  oid: string;
  result: PackMapFamilyResult;
  members: Float64Array;
  /** [delta u, v, base u, v] per arc. */
  arcs: Float64Array;
}

interface ShownSeeks {
  recording: string;
  result: PackMapSeeksResult;
  points: Float64Array;
  faults: Set<number>;
}

/** One pack drawn: its canvas, its tiles' wants, its hover and overlays, its figures. */
interface Pane {
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

const root = document.getElementById('pack-map')!;
const attributeSelect = h('select', { id: 'attribute', 'aria-label': 'Colour by' });
for (const attribute of MAP_ATTRIBUTES)
  attributeSelect.append(h('option', { value: attribute }, ATTRIBUTE_LABELS[attribute]));
const recordingSelect = h('select', { id: 'recording', 'aria-label': 'Recording drawn over the map' });
const legendList = h('ul', { id: 'legend', class: 'legend' });
const frameText = h('p', { id: 'frame-time', class: 'note' });
const statusText = h('p', { id: 'map-status', class: 'note', 'aria-live': 'polite' });
/** Why the page shows less than it was opened with (show's `note`). */
const noteText = h('p', { id: 'map-note', class: 'note', role: 'status', hidden: true });
const objectPanel = h('div', { id: 'object-panel' });
const familyPanel = h('div', { id: 'family-panel', 'aria-live': 'polite' });
const seeksToggle = h('input', { id: 'seeks', type: 'checkbox' });
const seeksLabel = h('label', { id: 'seeks-label', hidden: true }, seeksToggle, ' Draw its reads in order (seek path)');
const seekScrubber = h('input', {
  id: 'seek-scrubber',
  type: 'range',
  min: 1,
  max: 1,
  value: 1,
  'aria-label': 'Reads drawn',
});
const seekPanel = h('div', { id: 'seek-panel', hidden: true });
const seekControls = h('div', { id: 'seek-controls' });

/** The first pane's elements keep the ids a panel of one pack has always had; the second's end in -1. */
const paneId = (base: string, index: number): string => (index === 0 ? base : `${base}-${index}`);

function createPane(index: number): Pane {
  const canvas = h('canvas', {
    id: paneId('map-canvas', index),
    class: 'map-canvas',
    tabindex: 0,
    role: 'img',
    'aria-label': 'Pack map',
  });
  const tooltip = h('div', { id: paneId('map-tooltip', index), class: 'map-tooltip', role: 'tooltip', hidden: true });
  const viewport = h('div', { id: paneId('viewport', index), class: 'viewport' }, canvas, tooltip);
  const pane: Pane = {
    index,
    role: 'pack',
    info: undefined,
    section: h('section', { class: 'pane', 'data-pane': index }),
    viewport,
    canvas,
    context2d: canvas.getContext('2d')!,
    tooltip,
    summary: h('p', { id: paneId('summary', index), class: 'summary' }),
    scaleText: h('p', { id: paneId('scale', index), class: 'scale', 'aria-live': 'polite' }),
    recordingStats: h('p', { id: paneId('recording-stats', index), class: 'recording-stats', 'aria-live': 'polite' }),
    seekStats: h('p', { id: paneId('seek-stats', index), class: 'seek-stats', hidden: true }),
    familyText: h('p', { id: paneId('family-text', index), class: 'family-text' }),
    cssWidth: 1,
    cssHeight: 1,
    wanted: [],
    hovered: undefined,
    hoverRequest: undefined,
    hoverBusy: false,
    family: undefined,
    seeks: undefined,
  };
  listenPane(pane);
  return pane;
}

const panes: Pane[] = [createPane(0)];
const comparing = (): boolean => panes.length > 1;

function button(id: string, text: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = h('button', { id, type: 'button', class: 'secondary', title, 'aria-label': title }, text);
  b.addEventListener('click', onClick);
  return b;
}

/**
 * One pane: the map and, below it, its scale. Comparing, each pane carries its own figures above
 * its map (which pack, its objects and bytes, the recording's reads and locality in it); alone, they
 * sit in the side column as they always have.
 */
function layout(): void {
  for (const pane of panes) {
    pane.section.classList.toggle('compared', comparing());
    replaceChildren(
      pane.section,
      comparing() ? h('div', { class: 'pane-caption' }, pane.summary, pane.recordingStats, pane.seekStats) : null,
      pane.viewport,
      comparing() ? pane.scaleText : null,
    );
  }
  const alone = panes[0]!;
  replaceChildren(
    root,
    h(
      'header',
      { class: 'toolbar' },
      h('label', {}, 'Colour ', attributeSelect),
      h('label', {}, 'Recording ', recordingSelect),
      button('zoom-out', '−', comparing() ? 'Zoom both maps out (−)' : 'Zoom out (−)', () => zoomBy(-1)),
      button('zoom-in', '+', comparing() ? 'Zoom both maps in (+)' : 'Zoom in (+)', () => zoomBy(1)),
      button('zoom-reset', comparing() ? 'Whole packs' : 'Whole pack', 'The whole pack (0)', () =>
        animateTo({ zoom: 0, centerX: 0.5, centerY: 0.5 }),
      ),
    ),
    h(
      'div',
      { class: 'map-body' },
      h('div', { class: `panes${comparing() ? ' compared' : ''}` }, ...panes.map((p) => p.section)),
      h(
        'aside',
        { class: 'side' },
        noteText,
        comparing()
          ? h(
              'p',
              { class: 'note' },
              'Both maps show the same stretch of their pack: the same fraction of each file’s bytes, so that reads close together in one pack and scattered in the other look it.',
            )
          : null,
        comparing() ? null : alone.summary,
        comparing() ? null : alone.scaleText,
        legendList,
        comparing() ? null : alone.recordingStats,
        seeksLabel,
        seekPanel,
        objectPanel,
        familyPanel,
        h(
          'p',
          { class: 'note' },
          `Drag or arrow keys to pan; wheel, + and − to zoom${comparing() ? ' (both maps move together)' : ''}; 0 for the whole pack. Click (or Enter) opens the object under the pointer (the centre, with keys); Shift-click reveals it in the Packs view; F draws its delta family, Escape clears it.`,
        ),
        frameText,
        statusText,
      ),
    ),
  );
  root.removeAttribute('aria-busy');
}

function saveState(): void {
  webview.saveState(state);
}

function setRecordings(next: PackMapRecordingChoice[]): void {
  recordings = next;
  const options = [
    h('option', { value: '' }, 'None'),
    ...next.map((r) => h('option', { value: r.file, title: `${r.description}\n${r.file}` }, r.label)),
  ];
  replaceChildren(recordingSelect, ...options);
  if (state.recording !== null && !next.some((r) => r.file === state.recording)) state.recording = null;
  recordingSelect.value = state.recording ?? '';
}

function show({
  panes: shown,
  repository,
  recordings: choices,
  recording,
  pushing = [],
  note,
}: Extract<HostToWebview, { type: 'show' }>): void {
  // Tiles on their way unasked: not asked for again (pumpTiles cancels those the view no longer wants).
  for (const key of pushing) if (!tiles.has(key)) inFlight.add(key);
  const pack = shown[0]!.info.pack;
  const after = shown[1]?.info.pack ?? null;
  if (state.pack !== pack || state.after !== after)
    state = {
      ...state,
      pack,
      after,
      camera: normalizeCamera(undefined),
      family: null,
      ...(recording !== undefined ? { recording } : {}),
    };
  state.repository = repository;
  while (panes.length < shown.length) panes.push(createPane(panes.length));
  panes.splice(shown.length);
  shown.forEach(({ role, info }, index) => {
    const pane = panes[index]!;
    pane.role = role;
    pane.info = info;
    const label = ROLE_LABELS[role];
    pane.section.dataset.role = role;
    pane.canvas.setAttribute('aria-label', label === '' ? 'Pack map' : `Pack map, ${label}: ${info.packName}`);
    replaceChildren(
      pane.summary,
      label === '' ? null : h('span', { class: 'role' }, `${label}: `),
      h('strong', {}, info.packName),
      h('br'),
      `${formatCount(info.objects)} objects, ${formatBytes(info.packBytes)}`,
    );
    pane.summary.title = info.pack;
  });
  layout();
  noteText.textContent = note ?? '';
  noteText.hidden = note === undefined;
  attributeSelect.value = state.attribute;
  setRecordings(choices);
  drawLegend();
  saveState();
  resize();
  // Drawn now, not at the next frame: the first tile requests leave at once.
  draw();
  // Restored after a reload: the family and the seek path the state names.
  for (const pane of panes) {
    pane.family = undefined;
    pane.seeks = undefined;
  }
  void showFamily(state.family);
  void showSeeks();
}

const legendSwatch = (rgb: readonly number[]): HTMLElement => h('span', { class: 'swatch', 'data-rgb': rgb.join(',') });

/** One pack's legend for the attribute drawn. */
function legendItems(info: PackMapInfoResult): HTMLElement[] {
  const entries = info.legends[state.attribute];
  // The family legend is one label over a few of its hues.
  if (state.attribute === 'family') return [h('li', {}, ...entries.map((e) => legendSwatch(e.rgb)), entries[0]!.label)];
  return entries.flatMap((entry, i, all) =>
    entry.label === '' && all[0]!.label !== '' && i > 0 ? [] : [h('li', {}, legendSwatch(entry.rgb), entry.label)],
  );
}

/**
 * One legend for the page: both panes are coloured by the same attribute. Depth and size scales
 * are each pack's own (the server scales them to the pack's deepest chain and largest object): when
 * the two packs' legends differ, each is shown under its pane's name, so no colour is read wrongly.
 */
function drawLegend(): void {
  const shown = panes.filter((p) => p.info !== undefined);
  if (shown.length === 0) return;
  const same = shown.every(
    (p) =>
      JSON.stringify(p.info!.legends[state.attribute]) === JSON.stringify(shown[0]!.info!.legends[state.attribute]),
  );
  const items = same
    ? legendItems(shown[0]!.info!)
    : shown.flatMap((p) => [h('li', { class: 'legend-head' }, `${ROLE_LABELS[p.role]}:`), ...legendItems(p.info!)]);
  if (state.recording !== null)
    items.push(
      h(
        'li',
        {},
        legendSwatch(heatColour(1, 100)),
        legendSwatch(heatColour(10, 100)),
        legendSwatch(heatColour(100, 100)),
        'read by the recording (red: once, white: most); the rest dimmed',
      ),
    );
  replaceChildren(legendList, ...items);
  // Colours as inline style would need 'unsafe-inline' under the CSP: set through the CSSOM instead.
  for (const element of legendList.querySelectorAll<HTMLElement>('.swatch'))
    element.style.backgroundColor = `rgb(${element.dataset.rgb})`;
}

// ---- Camera and level of detail ------------------------------------------------------------
//
// The camera is the page's, in map units (the map is the unit square), and every pane draws it
// at its own size. "The same place" in two packs is the same fraction of each pack's bytes: both
// maps lay their bytes from the header's end to the checksum along the same Hilbert curve, so one
// camera shows the same stretch of each file, and how far apart a recording's reads lie in one
// pack compares directly with the other. Lining up by object instead cannot be one camera: a
// repack permutes objects, so a region of one map is scattered over the other; hovering an object
// in one pane names it, and its family (F) is drawn in both.

/** CSS pixels per unit of the map (its whole side) at the current zoom. */
function scale(pane: Pane, zoom = state.camera.zoom): number {
  return Math.max(1, Math.min(pane.cssWidth, pane.cssHeight)) * 2 ** zoom;
}

/** The order drawn: cells of 1 to 2 device pixels, up to the pack's deepest order (then cells grow). */
function drawOrder(pane: Pane): number {
  if (!pane.info) return 0;
  const devicePixels = scale(pane) * (window.devicePixelRatio || 1);
  return Math.max(0, Math.min(pane.info.maxOrder, Math.floor(Math.log2(devicePixels))));
}

function toUnit(pane: Pane, px: number, py: number): [number, number] {
  const s = scale(pane);
  return [state.camera.centerX + (px - pane.cssWidth / 2) / s, state.camera.centerY + (py - pane.cssHeight / 2) / s];
}

function toScreen(pane: Pane, u: number, v: number): [number, number] {
  const s = scale(pane);
  return [(u - state.camera.centerX) * s + pane.cssWidth / 2, (v - state.camera.centerY) * s + pane.cssHeight / 2];
}

function setCamera(camera: { zoom: number; centerX: number; centerY: number }): void {
  state.camera = normalizeCamera(camera);
  saveState();
  requestDraw();
}

function zoomAround(pane: Pane, zoom: number, px: number, py: number): void {
  const clamped = Math.min(maxZoom(), Math.max(0, zoom));
  const [u, v] = toUnit(pane, px, py);
  const s = scale(pane, clamped);
  setCamera({ zoom: clamped, centerX: u - (px - pane.cssWidth / 2) / s, centerY: v - (py - pane.cssHeight / 2) / s });
}

/** Deep enough that one cell of the deepest order (of the deeper pack) is 32 CSS pixels. */
function maxZoom(): number {
  let deepest = 0;
  for (const pane of panes) {
    if (!pane.info) continue;
    deepest = Math.max(
      deepest,
      Math.min(MAX_ZOOM, pane.info.maxOrder + 5 - Math.log2(Math.max(1, Math.min(pane.cssWidth, pane.cssHeight)))),
    );
  }
  return deepest;
}

let animation: number | undefined;
/** Where a running animation ends: a key pressed meanwhile steps on from there (whole zoom steps). */
let animationTarget: { zoom: number; centerX: number; centerY: number } | undefined;
function animateTo(target: { zoom: number; centerX: number; centerY: number }, ms = 140): void {
  if (animation !== undefined) cancelAnimationFrame(animation);
  const from = { ...state.camera };
  const to = { ...target, zoom: Math.min(maxZoom(), Math.max(0, target.zoom)) };
  animationTarget = to;
  const start = performance.now();
  const step = (now: number): void => {
    const t = Math.min(1, (now - start) / ms);
    const e = t * (2 - t);
    setCamera({
      zoom: from.zoom + (to.zoom - from.zoom) * e,
      centerX: from.centerX + (to.centerX - from.centerX) * e,
      centerY: from.centerY + (to.centerY - from.centerY) * e,
    });
    animation = t < 1 ? requestAnimationFrame(step) : undefined;
    if (animation === undefined) animationTarget = undefined;
  };
  animation = requestAnimationFrame(step);
}

function zoomBy(steps: number): void {
  const from = animationTarget ?? state.camera;
  animateTo({ ...from, zoom: from.zoom + steps });
}

function panBy(pane: Pane, dxCss: number, dyCss: number): void {
  const from = animationTarget ?? state.camera;
  const s = scale(pane, from.zoom);
  animateTo({ ...from, centerX: from.centerX + dxCss / s, centerY: from.centerY + dyCss / s }, 90);
}

// ---- Tiles ---------------------------------------------------------------------------------

function tileUnit(order: number): number {
  return Math.min(1, TILE_CELLS / 2 ** order);
}

function tilesPerSide(order: number): number {
  return Math.max(1, 2 ** order / TILE_CELLS);
}

function wantedTile(pane: Pane, order: number, tileX: number, tileY: number): PackMapTileWanted {
  return {
    pane: pane.index,
    attribute: state.attribute,
    order,
    tileX,
    tileY,
    ...(state.recording !== null ? { recording: state.recording } : {}),
  };
}

/** The tiles of `order` the pane shows, nearest its centre first. */
function visibleTiles(pane: Pane, order: number): PackMapTileWanted[] {
  const [u0, v0] = toUnit(pane, 0, 0);
  const [u1, v1] = toUnit(pane, pane.cssWidth, pane.cssHeight);
  const unit = tileUnit(order);
  const last = tilesPerSide(order) - 1;
  const x0 = Math.max(0, Math.floor(u0 / unit));
  const x1 = Math.min(last, Math.floor(u1 / unit));
  const y0 = Math.max(0, Math.floor(v0 / unit));
  const y1 = Math.min(last, Math.floor(v1 / unit));
  const found: PackMapTileWanted[] = [];
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) found.push(wantedTile(pane, order, x, y));
  const cu = state.camera.centerX / unit - 0.5;
  const cv = state.camera.centerY / unit - 0.5;
  return found.sort((a, b) => (a.tileX - cu) ** 2 + (a.tileY - cv) ** 2 - ((b.tileX - cu) ** 2 + (b.tileY - cv) ** 2));
}

function cached(key: string): CachedTile | undefined {
  const tile = tiles.get(key);
  if (tile) {
    tiles.delete(key);
    tiles.set(key, tile);
  }
  return tile;
}

function keep(key: string, tile: CachedTile): void {
  tiles.set(key, tile);
  while (tiles.size > MAX_CACHED_TILES) {
    const oldest = tiles.keys().next().value!;
    tiles.get(oldest)?.bitmap.close();
    tiles.delete(oldest);
  }
}

/** The tile's pixels as they came (binary, PackMapTile): viewed as the ImageData's, not copied. */
function decodeTile(tile: PackMapTile): ImageData {
  const { rgba } = tile;
  if (!(rgba instanceof Uint8Array) || rgba.byteLength !== tile.size * tile.size * 4)
    throw new Error(`tile ${tile.order}/${tile.tileX}/${tile.tileY}: no ${tile.size}×${tile.size} RGBA`);
  return new ImageData(
    new Uint8ClampedArray(rgba.buffer as ArrayBuffer, rgba.byteOffset, rgba.byteLength),
    tile.size,
    tile.size,
  );
}

async function fetchTile(wantedOne: PackMapTileWanted): Promise<void> {
  const key = tileKey(wantedOne);
  inFlight.add(key);
  try {
    await acceptTile(key, await host.request({ type: 'tile', key, wanted: wantedOne }));
  } finally {
    inFlight.delete(key);
    requestDraw();
  }
}

/** Keeps a tile that came (asked for or pushed), or says why it did not. */
async function acceptTile(key: string, reply: Extract<HostToWebview, { type: 'tile' | 'tileFailed' }>): Promise<void> {
  if (reply.type === 'tile') {
    const bitmap = await createImageBitmap(decodeTile(reply.tile));
    const entry: CachedTile = { bitmap, litCells: reply.tile.litCells };
    if (reply.tile.recordingObjects !== undefined) entry.recordingObjects = reply.tile.recordingObjects;
    if (reply.tile.recordingReads !== undefined) entry.recordingReads = reply.tile.recordingReads;
    keep(key, entry);
    statusText.textContent = '';
  } else if (!reply.cancelled) {
    statusText.textContent = `A tile could not be drawn: ${reply.message}`;
  }
}

/**
 * Sends what the view wants as places free up, the panes' wants taken in turn (both maps fill in
 * together); cancels what no pane wants any more.
 */
function pumpTiles(): void {
  const all: PackMapTileWanted[] = [];
  const longest = Math.max(...panes.map((p) => p.wanted.length));
  for (let i = 0; i < longest; i++) for (const pane of panes) if (i < pane.wanted.length) all.push(pane.wanted[i]!);
  const wantedKeys = new Set(all.map(tileKey));
  const stale = [...inFlight].filter((key) => !wantedKeys.has(key));
  if (stale.length > 0) {
    host.notify({ type: 'cancelTiles', keys: stale });
    for (const key of stale) inFlight.delete(key);
  }
  for (const next of all) {
    if (inFlight.size >= PACK_MAP_TILES_IN_FLIGHT) break;
    const key = tileKey(next);
    if (inFlight.has(key) || tiles.has(key)) continue;
    void fetchTile(next);
  }
}

// ---- Drawing -------------------------------------------------------------------------------

let drawPending = false;
function requestDraw(): void {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    draw();
  });
}

function resize(): void {
  const dpr = window.devicePixelRatio || 1;
  for (const pane of panes) {
    const box = pane.viewport.getBoundingClientRect();
    pane.cssWidth = Math.max(1, Math.floor(box.width));
    pane.cssHeight = Math.max(1, Math.floor(box.height));
    pane.canvas.width = Math.round(pane.cssWidth * dpr);
    pane.canvas.height = Math.round(pane.cssHeight * dpr);
    pane.canvas.style.width = `${pane.cssWidth}px`;
    pane.canvas.style.height = `${pane.cssHeight}px`;
  }
  requestDraw();
}

let colours = readThemeColours();

function drawTileAt(pane: Pane, tile: CachedTile, order: number, tileX: number, tileY: number): void {
  const unit = tileUnit(order);
  const [sx, sy] = toScreen(pane, tileX * unit, tileY * unit);
  const side = unit * scale(pane);
  pane.context2d.drawImage(tile.bitmap, sx, sy, side, side);
}

/**
 * A tile still loading: the part of the nearest coarser tile held that covers it, scaled (only
 * that part, so that each screen pixel is painted about once whatever the zoom: a software canvas
 * spends its time per pixel painted).
 */
function drawStandIn(pane: Pane, w: PackMapTileWanted): void {
  const unit = tileUnit(w.order);
  const [dx, dy] = toScreen(pane, w.tileX * unit, w.tileY * unit);
  const side = unit * scale(pane);
  for (let coarser = w.order - 1; coarser >= Math.max(0, w.order - FALLBACK_LEVELS); coarser--) {
    const coarserUnit = tileUnit(coarser);
    const ax = Math.floor((w.tileX * unit) / coarserUnit);
    const ay = Math.floor((w.tileY * unit) / coarserUnit);
    const tile = tiles.get(tileKey({ ...w, order: coarser, tileX: ax, tileY: ay }));
    if (!tile) continue;
    const pixels = tile.bitmap.width;
    const sx = ((w.tileX * unit - ax * coarserUnit) / coarserUnit) * pixels;
    const sy = ((w.tileY * unit - ay * coarserUnit) / coarserUnit) * pixels;
    const sw = (unit / coarserUnit) * pixels;
    pane.context2d.drawImage(tile.bitmap, sx, sy, sw, sw, dx, dy, side, side);
    return;
  }
}

/** Paints every pane, and says how long that took. */
function draw(): void {
  const started = performance.now();
  for (const pane of panes) drawPane(pane);
  const elapsed = performance.now() - started;
  frameTimes.push(elapsed);
  if (frameTimes.length > FRAME_SAMPLES) frameTimes.shift();
  const worst = Math.max(...frameTimes);
  frameText.textContent = `Frame: ${elapsed.toFixed(2)} ms (slowest of the last ${frameTimes.length}: ${worst.toFixed(2)} ms)`;
  frameText.dataset.lastMs = elapsed.toFixed(3);
  frameText.dataset.worstMs = worst.toFixed(3);
  pumpTiles();
}

/** Paints a pane: the current order's tiles, coarser stand-ins for those still loading, the hovered cell, the overlays. */
function drawPane(pane: Pane): void {
  const { context2d, info } = pane;
  const dpr = window.devicePixelRatio || 1;
  context2d.setTransform(dpr, 0, 0, dpr, 0, 0);
  context2d.imageSmoothingEnabled = false;
  context2d.fillStyle = colours.background;
  context2d.fillRect(0, 0, pane.cssWidth, pane.cssHeight);
  if (!info) return;
  const order = drawOrder(pane);
  pane.wanted = visibleTiles(pane, order);
  let complete = true;
  let lit = 0;
  let recordingObjects: number | undefined;
  let recordingReads: number | undefined;
  for (const w of pane.wanted) {
    const tile = cached(tileKey(w));
    if (!tile) {
      complete = false;
      drawStandIn(pane, w);
      continue;
    }
    drawTileAt(pane, tile, order, w.tileX, w.tileY);
    lit += tile.litCells;
    recordingObjects ??= tile.recordingObjects;
    recordingReads ??= tile.recordingReads;
  }
  // The map's edge, and the hovered cell.
  const [mx, my] = toScreen(pane, 0, 0);
  context2d.strokeStyle = colours.grid;
  context2d.lineWidth = 1;
  context2d.strokeRect(mx - 0.5, my - 0.5, scale(pane) + 1, scale(pane) + 1);
  const { hovered } = pane;
  if (hovered && hovered.order === order) {
    const cell = scale(pane) / 2 ** order;
    const [hx, hy] = toScreen(pane, hovered.x / 2 ** order, hovered.y / 2 ** order);
    const grow = Math.max(0, (4 - cell) / 2);
    context2d.strokeStyle = colours.foreground;
    context2d.lineWidth = 2;
    context2d.strokeRect(hx - grow, hy - grow, cell + 2 * grow, cell + 2 * grow);
  }
  drawFamily(pane);
  drawSeeks(pane);
  const { scaleText, recordingStats } = pane;
  const bytes = info.bytesPerCell[order] ?? 0;
  const cellPx = scale(pane) / 2 ** order;
  scaleText.textContent = `Order ${order}: ${formatCount(4 ** order)} cells of ${bytes >= 10 ? formatBytes(Math.round(bytes)) : `${bytes.toFixed(2)} bytes`} each${cellPx >= 2 ? `, ${cellPx.toFixed(0)} px a cell` : ''}${complete ? '' : ' (loading…)'}`;
  scaleText.dataset.order = String(order);
  // The camera this pane drew (the page's: every pane draws the same one).
  scaleText.dataset.zoom = state.camera.zoom.toFixed(3);
  scaleText.dataset.complete = String(complete);
  // Still moving (an animated zoom or pan): tests wait for the last frame.
  scaleText.dataset.moving = String(animation !== undefined);
  if (state.recording !== null && recordingObjects !== undefined) {
    const name = recordings.find((r) => r.file === state.recording)?.label ?? state.recording;
    recordingStats.textContent = `${name}: ${formatCount(recordingReads ?? 0)} reads of ${formatCount(recordingObjects)} distinct objects; ${formatCount(lit)} lit cells in view${complete ? '' : ' so far'}`;
    recordingStats.dataset.lit = String(lit);
    recordingStats.dataset.objects = String(recordingObjects);
    recordingStats.dataset.complete = String(complete);
  } else {
    recordingStats.textContent = '';
    delete recordingStats.dataset.lit;
  }
}

// ---- Overlays: a delta family's arcs, a recording's seek path -------------------------------

/** Precision of overlay positions: the deepest order drawn, at most 15 (hilbertPoint's cost per point). */
function overlayOrder(info: PackMapInfoResult): number {
  return Math.min(15, info.maxOrder);
}

/** The centre, in map units, of the cell holding `offset` at the overlay's order (PackMap.cellOf). */
function offsetToUnit(info: PackMapInfoResult, offset: number): [number, number] {
  const order = overlayOrder(info);
  const span = Math.max(1, info.dataEnd - info.dataStart);
  const cells = 4 ** order;
  const d = Math.min(cells - 1, Math.max(0, Math.floor(((offset - info.dataStart) * cells) / span)));
  const [x, y] = hilbertPoint(order, d);
  const side = 2 ** order;
  return [(x + 0.5) / side, (y + 0.5) / side];
}

function unitsOf(info: PackMapInfoResult, offsets: readonly number[]): Float64Array {
  const units = new Float64Array(offsets.length * 2);
  offsets.forEach((offset, i) => units.set(offsetToUnit(info, offset), 2 * i));
  return units;
}

let seekStep = 1;
let playing: number | undefined;

/** The family of `oid` drawn over every pane (its own layout in each pack), or none. */
async function showFamily(oid: string | null): Promise<void> {
  state.family = oid;
  saveState();
  if (oid === null) {
    for (const pane of panes) pane.family = undefined;
    replaceChildren(familyPanel);
    requestDraw();
    return;
  }
  replaceChildren(familyPanel, h('p', { class: 'note' }, `Finding the delta family of ${oid.slice(0, 12)}…`));
  const texts = await Promise.all(panes.map((pane) => familyOfPane(pane, oid)));
  if (state.family !== oid || texts.some((t) => t === undefined)) return;
  replaceChildren(
    familyPanel,
    ...texts,
    button('clear-family', 'Clear family', 'Stop drawing the family (Escape)', () => void showFamily(null)),
  );
  requestDraw();
}

/** Asks for the family of `oid` in a pane's pack; what the side column says of it (undefined: superseded or cancelled). */
async function familyOfPane(pane: Pane, oid: string): Promise<HTMLElement | undefined> {
  const reply = await host.request({ type: 'family', pane: pane.index, oid });
  const info = pane.info;
  if (state.family !== oid || !info) return undefined;
  const role = ROLE_LABELS[pane.role];
  if (reply.type !== 'family') {
    if (reply.cancelled) return undefined;
    pane.family = undefined;
    return h(
      'p',
      { class: 'error' },
      `${role === '' ? '' : `${role}: `}The family could not be drawn: ${reply.message}`,
    );
  }
  const result = reply.family;
  const arcs = new Float64Array(result.arcs.length * 4);
  result.arcs.forEach(([delta, base], i) => {
    arcs.set(offsetToUnit(info, delta), 4 * i);
    arcs.set(offsetToUnit(info, base), 4 * i + 2);
  });
  pane.family = { oid, result, members: unitsOf(info, result.memberOffsets), arcs };
  const text = pane.familyText;
  replaceChildren(
    text,
    role === '' ? null : h('span', { class: 'role' }, `${role}: `),
    h('strong', {}, 'Delta family '),
    h('code', {}, result.root.slice(0, 12)),
    `: ${formatCount(result.members)} ${result.members === 1 ? 'object' : 'objects'}, ${formatCount(result.arcs.length)} ${result.arcs.length === 1 ? 'arc' : 'arcs'} from a delta to its base`,
    result.externalBases > 0 ? `; ${formatCount(result.externalBases)} with a base in another pack (no arc)` : '',
    result.truncated ? `; the first ${formatCount(result.memberOffsets.length)} in pack order drawn` : '',
  );
  text.dataset.members = String(result.members);
  text.dataset.drawnMembers = String(result.memberOffsets.length);
  text.dataset.arcs = String(result.arcs.length);
  return text;
}

function stopPlaying(): void {
  if (playing !== undefined) cancelAnimationFrame(playing);
  playing = undefined;
}

/** Points of the longest seek path shown (the scrubber's end; a shorter path stops at its own). */
function seekPoints(): number {
  return Math.max(0, ...panes.map((p) => (p.seeks ? p.seeks.points.length / 2 : 0)));
}

function setSeekStep(step: number): void {
  if (seekPoints() === 0) return;
  seekStep = Math.max(1, Math.min(seekPoints(), Math.round(step)));
  seekScrubber.value = String(seekStep);
  describeSeekStep();
  requestDraw();
}

function describeSeekStep(): void {
  const position = seekPanel.querySelector<HTMLElement>('#seek-position');
  const seeks = panes.find((p) => p.seeks)?.seeks;
  if (!seeks || !position) return;
  const points = seekPoints();
  const read = Math.min(seeks.result.reads, (seekStep - 1) * seeks.result.stride + 1);
  position.textContent = `Read ${formatCount(read)} of ${formatCount(seeks.result.reads)}${seeks.result.stride > 1 ? ` (every ${formatCount(seeks.result.stride)}th read drawn)` : ''}`;
  position.dataset.step = String(seekStep);
  position.dataset.points = String(points);
}

function play(): void {
  const points = seekPoints();
  if (points === 0) return;
  if (playing !== undefined) return stopPlaying();
  if (seekStep >= points) setSeekStep(1);
  // About five seconds from start to end, whatever the number of reads.
  const perFrame = Math.max(1, points / 300);
  const tick = (): void => {
    setSeekStep(seekStep + perFrame);
    playing = seekStep < points ? requestAnimationFrame(tick) : undefined;
    playButton.textContent = playing === undefined ? 'Play' : 'Pause';
  };
  playing = requestAnimationFrame(tick);
  playButton.textContent = 'Pause';
}
const playButton = button('seek-play', 'Play', 'Play the reads in order (P)', play);

/**
 * The recording's reads of each pack: its locality figures, and its seek path when asked for.
 * Comparing, the figures are asked for with the recording alone (they are what the comparison is
 * about); a single map asks when its path is to be drawn, as it always has.
 */
async function showSeeks(): Promise<void> {
  stopPlaying();
  const recording = state.recording;
  seeksLabel.hidden = recording === null;
  seeksToggle.checked = state.seeks;
  const wanted = recording !== null && (state.seeks || comparing());
  seekPanel.hidden = recording === null || !state.seeks;
  if (!wanted) {
    for (const pane of panes) {
      pane.seeks = undefined;
      pane.seekStats.hidden = true;
    }
    requestDraw();
    return;
  }
  if (!comparing()) replaceChildren(seekPanel, panes[0]!.seekStats, seekControls);
  else replaceChildren(seekPanel, seekControls);
  for (const pane of panes) pane.seekStats.hidden = false;
  if (panes.every((p) => p.seeks?.recording === recording)) {
    showSeekControls();
    return;
  }
  for (const pane of panes)
    replaceChildren(pane.seekStats, h('span', { class: 'note' }, 'Reading the recording’s seeks…'));
  replaceChildren(seekControls);
  await Promise.all(panes.map((pane) => seeksOfPane(pane, recording)));
  if (state.recording !== recording) return;
  showSeekControls();
}

async function seeksOfPane(pane: Pane, recording: string): Promise<void> {
  const reply = await host.request({ type: 'seeks', pane: pane.index, recording });
  const info = pane.info;
  if (state.recording !== recording || !info) return;
  if (reply.type !== 'seeks') {
    if (!reply.cancelled)
      replaceChildren(pane.seekStats, h('span', { class: 'error' }, `The seeks could not be drawn: ${reply.message}`));
    return;
  }
  const result = reply.seeks;
  pane.seeks = { recording, result, points: unitsOf(info, result.offsets), faults: new Set(result.faults) };
  const l = result.locality;
  const at = (p: number): string => formatBytes(l.percentiles.find((q) => q.p === p)?.bytes ?? 0);
  const share = (x: number): string => `${(x * 100).toFixed(1)}%`;
  // The figures `packscope locality` prints for this pack (the same function computes them).
  replaceChildren(
    pane.seekStats,
    `${formatCount(l.reads)} reads, ${formatCount(l.seeks)} seeks: ${share(l.backwardSeekShare)} backward, ${share(l.shortSeekShare)} under 2 MiB; distance p50 ${at(50)}, p90 ${at(90)}, p99 ${at(99)}; `,
    `${formatCount(l.pagesTouched)} page${l.pagesTouched === 1 ? '' : 's'} of 4 KiB touched, span ${formatBytes(l.byteSpan)}; ${formatCount(l.pageFaults)} page fault${l.pageFaults === 1 ? '' : 's'} (cold ${formatCount(result.pageCache.cacheMiB)} MiB cache, ${formatCount(result.pageCache.readaheadKiB)} KiB readahead)`,
  );
  pane.seekStats.dataset.reads = String(l.reads);
  pane.seekStats.dataset.backward = String(result.backwardSeeks);
  pane.seekStats.dataset.faults = String(l.pageFaults);
  pane.seekStats.dataset.pagesTouched = String(l.pagesTouched);
}

/** The scrubber, Play and the path's legend, once the seeks are in; the whole path at first. */
function showSeekControls(): void {
  if (seekPoints() === 0) return;
  seekScrubber.max = String(Math.max(1, seekPoints()));
  replaceChildren(
    seekControls,
    h('div', { class: 'seek-controls' }, playButton, seekScrubber),
    h('p', { id: 'seek-position', class: 'note' }),
    h(
      'p',
      { class: 'legend-line' },
      h('span', { class: 'swatch forward' }),
      ' forward seek ',
      h('span', { class: 'swatch backward' }),
      ' backward seek ',
      h('span', { class: 'swatch fault' }),
      ' page fault (cold cache)',
    ),
  );
  for (const [selector, colour] of [
    ['.swatch.forward', colours.series[0]!],
    ['.swatch.backward', colours.series[5]!],
    ['.swatch.fault', colours.foreground],
  ] as const) {
    for (const element of seekControls.querySelectorAll<HTMLElement>(selector)) element.style.backgroundColor = colour;
  }
  setSeekStep(seekPoints());
}

function drawFamily(pane: Pane): void {
  const { family, context2d } = pane;
  if (!family) return;
  const s = scale(pane);
  const mark = Math.max(3, s / 2 ** drawOrder(pane));
  context2d.lineWidth = 1.5;
  context2d.strokeStyle = colours.series[1]!;
  context2d.globalAlpha = 0.85;
  context2d.beginPath();
  const { arcs, members } = family;
  for (let i = 0; i < arcs.length; i += 4) {
    const [x0, y0] = toScreen(pane, arcs[i]!, arcs[i + 1]!);
    const [x1, y1] = toScreen(pane, arcs[i + 2]!, arcs[i + 3]!);
    // Bowed to the left of the delta → base direction, so that two arcs between a pair do not coincide.
    const cx = (x0 + x1) / 2 - (y1 - y0) * 0.25;
    const cy = (y0 + y1) / 2 + (x1 - x0) * 0.25;
    context2d.moveTo(x0, y0);
    context2d.quadraticCurveTo(cx, cy, x1, y1);
  }
  context2d.stroke();
  context2d.globalAlpha = 1;
  context2d.strokeStyle = colours.foreground;
  context2d.lineWidth = 1;
  context2d.beginPath();
  for (let i = 0; i < members.length; i += 2) {
    const [x, y] = toScreen(pane, members[i]!, members[i + 1]!);
    context2d.rect(x - mark / 2, y - mark / 2, mark, mark);
  }
  context2d.stroke();
}

/** The pane's seek path up to the scrubber's read, when the path is asked for. */
function drawSeeks(pane: Pane): void {
  const { seeks, context2d } = pane;
  if (!seeks || !state.seeks) return;
  const { points, faults } = seeks;
  const last = Math.min(points.length / 2, seekStep);
  context2d.lineWidth = 1.25;
  for (const backward of [false, true]) {
    context2d.strokeStyle = colours.series[backward ? 5 : 0]!;
    context2d.globalAlpha = 0.8;
    context2d.beginPath();
    for (let k = 1; k < last; k++) {
      const isBackward = seeks.result.offsets[k]! < seeks.result.offsets[k - 1]!;
      if (isBackward !== backward) continue;
      const [x0, y0] = toScreen(pane, points[2 * k - 2]!, points[2 * k - 1]!);
      const [x1, y1] = toScreen(pane, points[2 * k]!, points[2 * k + 1]!);
      context2d.moveTo(x0, y0);
      context2d.lineTo(x1, y1);
    }
    context2d.stroke();
  }
  context2d.globalAlpha = 1;
  context2d.fillStyle = colours.foreground;
  context2d.beginPath();
  for (let k = 0; k < last; k++) {
    if (!faults.has(k)) continue;
    const [x, y] = toScreen(pane, points[2 * k]!, points[2 * k + 1]!);
    context2d.rect(x - 1.5, y - 1.5, 3, 3);
  }
  context2d.fill();
  // Where the scrubber is: the read drawn last.
  const [x, y] = toScreen(pane, points[2 * last - 2]!, points[2 * last - 1]!);
  context2d.strokeStyle = colours.foreground;
  context2d.lineWidth = 2;
  context2d.beginPath();
  context2d.arc(x, y, 6, 0, 2 * Math.PI);
  context2d.stroke();
}

// ---- Hover, click, keys ---------------------------------------------------------------------

function cellAt(pane: Pane, px: number, py: number): { order: number; x: number; y: number } | undefined {
  const [u, v] = toUnit(pane, px, py);
  if (u < 0 || v < 0 || u >= 1 || v >= 1) return undefined;
  const order = drawOrder(pane);
  return { order, x: Math.floor(u * 2 ** order), y: Math.floor(v * 2 ** order) };
}

function hoverAt(pane: Pane, px: number, py: number): void {
  const cell = cellAt(pane, px, py);
  const { hovered } = pane;
  if (!cell) {
    pane.hovered = undefined;
    pane.tooltip.hidden = true;
    requestDraw();
    return;
  }
  if (hovered && hovered.order === cell.order && hovered.x === cell.x && hovered.y === cell.y) {
    placeTooltip(pane, px, py);
    return;
  }
  pane.hoverRequest = { ...cell, at: [px, py] };
  void lookUp(pane);
}

/** One lookup at a time per pane; the latest position wins. */
async function lookUp(pane: Pane): Promise<void> {
  if (pane.hoverBusy || !pane.hoverRequest) return;
  pane.hoverBusy = true;
  const asked = pane.hoverRequest;
  pane.hoverRequest = undefined;
  try {
    const reply = await host.request({
      type: 'objectAt',
      pane: pane.index,
      order: asked.order,
      x: asked.x,
      y: asked.y,
    });
    pane.hovered = { ...asked, object: reply.object };
    showTooltip(pane);
    requestDraw();
  } finally {
    pane.hoverBusy = false;
    if (pane.hoverRequest) void lookUp(pane);
  }
}

function showTooltip(pane: Pane): void {
  const { hovered, tooltip } = pane;
  const object = hovered?.object;
  if (!hovered || !object) {
    tooltip.hidden = true;
    return;
  }
  const stored = object.inPackType === object.type ? 'whole' : object.inPackType;
  const role = ROLE_LABELS[pane.role];
  const lines = [
    h(
      'div',
      { class: 'tip-title' },
      h('strong', {}, object.type),
      ` ${formatBytes(object.size)} (${formatCount(object.size)} bytes)`,
    ),
    h(
      'div',
      {},
      `${formatBytes(object.diskSize)} in the ${role === '' ? 'pack' : `${role} pack`}, stored ${stored}${object.depth > 0 ? `, depth ${object.depth}` : ''}`,
    ),
    h('div', {}, `offset ${formatCount(object.offset)}; family of ${formatCount(object.familySize)}`),
    h('div', { class: 'oid' }, object.oid),
  ];
  replaceChildren(tooltip, ...lines);
  tooltip.dataset.oid = object.oid;
  tooltip.dataset.offset = String(object.offset);
  tooltip.hidden = false;
  placeTooltip(pane, hovered.at[0], hovered.at[1]);
  const at = (message: 'openObject' | 'revealObject'): WebviewToHost => ({
    type: message,
    pane: pane.index,
    oid: object.oid,
  });
  replaceChildren(
    objectPanel,
    h(
      'p',
      {},
      role === '' ? null : h('span', { class: 'role' }, `${role}: `),
      h('strong', {}, `${object.type} `),
      h('code', {}, object.oid.slice(0, 12)),
      ` at offset ${formatCount(object.offset)}`,
    ),
    h(
      'div',
      { class: 'buttons' },
      button('open-object', 'Open object', 'Open the object document (Enter)', () => post(at('openObject'))),
      button('reveal-object', 'Reveal in Packs view', 'Reveal it in the Packs view (Shift+Enter)', () =>
        post(at('revealObject')),
      ),
      button(
        'show-family',
        'Draw family',
        `Draw its delta family over the map${comparing() ? 's' : ''}, each delta joined to its base (F)`,
        () => void showFamily(object.oid),
      ),
    ),
  );
}

function placeTooltip(pane: Pane, px: number, py: number): void {
  const { tooltip } = pane;
  const width = tooltip.offsetWidth;
  const height = tooltip.offsetHeight;
  const x = px + 16 + width > pane.cssWidth ? Math.max(0, px - 16 - width) : px + 16;
  const y = py + 16 + height > pane.cssHeight ? Math.max(0, py - 16 - height) : py + 16;
  tooltip.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
}

function post(message: WebviewToHost): void {
  host.notify(message);
}

function openHovered(pane: Pane, reveal: boolean): void {
  const object = pane.hovered?.object;
  if (object) post({ type: reveal ? 'revealObject' : 'openObject', pane: pane.index, oid: object.oid });
}

let drag:
  { pane: Pane; id: number; x: number; y: number; centerX: number; centerY: number; moved: boolean } | undefined;

/** A pane's pointer and keys: each moves the one camera, so both maps follow. */
function listenPane(pane: Pane): void {
  const { canvas } = pane;
  canvas.addEventListener('pointerdown', (event) => {
    canvas.setPointerCapture(event.pointerId);
    drag = {
      pane,
      id: event.pointerId,
      x: event.offsetX,
      y: event.offsetY,
      centerX: state.camera.centerX,
      centerY: state.camera.centerY,
      moved: false,
    };
  });
  canvas.addEventListener('pointermove', (event) => {
    if (drag && drag.pane === pane && drag.id === event.pointerId) {
      const dx = event.offsetX - drag.x;
      const dy = event.offsetY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        const s = scale(pane);
        setCamera({ ...state.camera, centerX: drag.centerX - dx / s, centerY: drag.centerY - dy / s });
        pane.tooltip.hidden = true;
        return;
      }
    }
    hoverAt(pane, event.offsetX, event.offsetY);
  });
  canvas.addEventListener('pointerup', (event) => {
    const wasClick = drag !== undefined && drag.pane === pane && !drag.moved;
    drag = undefined;
    if (!wasClick) return;
    const cell = cellAt(pane, event.offsetX, event.offsetY);
    const { hovered } = pane;
    if (cell && hovered && hovered.order === cell.order && hovered.x === cell.x && hovered.y === cell.y)
      openHovered(pane, event.shiftKey);
  });
  canvas.addEventListener('pointerleave', () => {
    if (!drag) pane.tooltip.hidden = true;
  });
  canvas.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      const lines = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? pane.cssHeight : 1;
      zoomAround(pane, state.camera.zoom - event.deltaY * lines * 0.002, event.offsetX, event.offsetY);
    },
    { passive: false },
  );
  canvas.addEventListener('keydown', (event) => {
    const step = Math.min(pane.cssWidth, pane.cssHeight) / 8;
    let handled = true;
    switch (event.key) {
      case 'ArrowLeft':
        panBy(pane, -step, 0);
        break;
      case 'ArrowRight':
        panBy(pane, step, 0);
        break;
      case 'ArrowUp':
        panBy(pane, 0, -step);
        break;
      case 'ArrowDown':
        panBy(pane, 0, step);
        break;
      case '+':
      case '=':
        zoomBy(1);
        break;
      case '-':
      case '_':
        zoomBy(-1);
        break;
      case '0':
      case 'Home':
        animateTo({ zoom: 0, centerX: 0.5, centerY: 0.5 });
        break;
      case 'Enter':
        openHovered(pane, event.shiftKey);
        break;
      case 'f':
      case 'F':
        if (pane.hovered?.object) void showFamily(pane.hovered.object.oid);
        break;
      case 'Escape':
        void showFamily(null);
        break;
      case 'p':
      case 'P':
        play();
        break;
      default:
        handled = false;
    }
    if (!handled) return;
    event.preventDefault();
    // With keys, the object under the centre is the one shown (and opened by Enter).
    if (['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', '+', '=', '-', '_', '0', 'Home'].includes(event.key))
      setTimeout(() => hoverAt(pane, pane.cssWidth / 2, pane.cssHeight / 2), 160);
  });
  new ResizeObserver(() => resize()).observe(pane.viewport);
}

function listen(): void {
  attributeSelect.addEventListener('change', () => {
    state.attribute = attributeSelect.value as MapAttribute;
    saveState();
    drawLegend();
    requestDraw();
  });
  recordingSelect.addEventListener('change', () => {
    state.recording = recordingSelect.value === '' ? null : recordingSelect.value;
    saveState();
    drawLegend();
    void showSeeks();
    requestDraw();
  });
  seeksToggle.addEventListener('change', () => {
    state.seeks = seeksToggle.checked;
    saveState();
    void showSeeks();
  });
  seekScrubber.addEventListener('input', () => {
    stopPlaying();
    playButton.textContent = 'Play';
    setSeekStep(Number(seekScrubber.value));
  });
  watchTheme(() => {
    colours = readThemeColours();
    requestDraw();
  });
}

/**
 * With `ready`, when the page opens on the whole pack: what it will show first (PackMapFirstView),
 * so that the host fetches those tiles at once. The page learns how many panes it has from `show`:
 * a panel restored with a preview beside its pack is measured as two panes already.
 */
function firstView(): { firstView?: PackMapFirstView } {
  if (state.camera.zoom !== 0) return {};
  const box = panes[0]!.viewport.getBoundingClientRect();
  const width = state.after !== null ? box.width / 2 : box.width;
  // As resize() and scale() size the map: the canvas's smaller whole CSS side, in device pixels.
  const side = Math.max(1, Math.min(Math.floor(width), Math.floor(box.height))) * (window.devicePixelRatio || 1);
  return {
    firstView: {
      sidePixels: side,
      attribute: state.attribute,
      ...(state.recording !== null ? { recording: state.recording } : {}),
    },
  };
}

layout();
listen();
void host.request({ type: 'ready', version: PACK_MAP_PROTOCOL_VERSION, ...firstView() }).then((reply) => {
  if (reply.type === 'failed')
    replaceChildren(
      root,
      h('p', { class: 'error', role: 'alert' }, `The pack map could not be drawn: ${reply.message}`),
    );
  else show(reply);
});
