// The Pack Map webview (issue 15): one pack along its offsets on a Hilbert curve, drawn on one
// canvas from tiles the server renders (packscope/packMapTile, through the host). Level of detail:
// at zoom z the view asks for tiles of order base + z, so that a tile of 256 cells covers 256 to 512
// device pixels at any zoom, keeps the tiles it has (a few hundred), and paints the coarser tiles it
// holds under a finer one that is still loading. No element per object: the map is one canvas, the
// hovered object one tooltip. Colours are the server's (data); the chrome takes VS Code's theme.
import { formatBytes, formatCount } from '../../src/common/format.ts';
import { MessageHandler } from '../../src/common/message-handler.ts';
import { heatColour, hilbertPoint, MAP_ATTRIBUTES, type MapAttribute } from '../../src/common/pack-map-geometry.ts';
import { MAX_ZOOM, normalizeCamera, normalizePackMapState } from '../../src/presentation/pack-map-state.ts';
import {
  PACK_MAP_PROTOCOL_VERSION,
  PACK_MAP_TILES_IN_FLIGHT,
  tileKey,
  type HostToWebview,
  type PackMapRecordingChoice,
  type PackMapReplies,
  type PackMapFirstView,
  type PackMapState,
  type PackMapTile,
  type PackMapTileWanted,
  type WebviewToHost,
} from '../../src/protocol/pack-map-protocol.ts';
import type { ObjectDetails, PackMapFamilyResult, PackMapInfoResult, PackMapSeeksResult } from '../../src/protocol/server-protocol.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { readThemeColours, watchTheme } from '../common/theme.ts';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** Cells per side of a tile (server-protocol.ts PACK_MAP_TILE_SIZE; a map of order < 8 is one tile). */
const TILE_CELLS = 256;
/** Tiles kept (each a 256 × 256 bitmap, 256 KiB): about 64 MiB at most. */
const MAX_CACHED_TILES = 256;
/** Coarser levels painted under the current one while its tiles load. */
const FALLBACK_LEVELS = 8;
/** Frame times kept for the readout. */
const FRAME_SAMPLES = 120;
const ATTRIBUTE_LABELS: Record<MapAttribute, string> = { type: 'Object type', depth: 'Delta depth', family: 'Delta family', 'disk-size': 'Size on disk' };

const vscode = acquireVsCodeApi();
const host = new MessageHandler<WebviewToHost, HostToWebview, PackMapReplies>({
  post: (message) => vscode.postMessage(message),
  handle: (message) => {
    if (message.type === 'show') show(message.info, message.repository, message.recordings, message.recording, message.pushing);
    else if (message.type === 'recordings') setRecordings(message.recordings);
    // A first-view tile the host fetched without being asked (show's `pushing`).
    else if (message.type === 'tile' || message.type === 'tileFailed') void acceptTile(message.key, message).finally(() => {
      inFlight.delete(message.key);
      requestDraw();
    });
    return undefined;
  },
  failed: (_message, error) => console.error(error),
});
window.addEventListener('message', (event: MessageEvent) => void host.receive(event.data as HostToWebview));

let state: PackMapState = normalizePackMapState(vscode.getState());
let info: PackMapInfoResult | undefined;
let recordings: PackMapRecordingChoice[] = [];

interface CachedTile {
  bitmap: ImageBitmap;
  litCells: number;
  recordingObjects?: number;
  recordingReads?: number;
}
const tiles = new Map<string, CachedTile>();
/** Keys of tile requests sent and not answered. */
const inFlight = new Set<string>();
/** What the last frame wanted, nearest the centre first (sent as places free up). */
let wanted: PackMapTileWanted[] = [];
const frameTimes: number[] = [];
let hovered: { order: number; x: number; y: number; object: ObjectDetails | null; at: [number, number] } | undefined;

const root = document.getElementById('pack-map')!;
const canvas = h('canvas', { id: 'map-canvas', tabindex: 0, role: 'img', 'aria-label': 'Pack map' });
const context2d = canvas.getContext('2d')!;
const tooltip = h('div', { id: 'map-tooltip', role: 'tooltip', hidden: true });
const attributeSelect = h('select', { id: 'attribute', 'aria-label': 'Colour by' });
for (const attribute of MAP_ATTRIBUTES) attributeSelect.append(h('option', { value: attribute }, ATTRIBUTE_LABELS[attribute]));
const recordingSelect = h('select', { id: 'recording', 'aria-label': 'Recording drawn over the map' });
const legendList = h('ul', { id: 'legend', class: 'legend' });
const summary = h('p', { id: 'summary', class: 'summary' });
const recordingStats = h('p', { id: 'recording-stats', 'aria-live': 'polite' });
const scaleText = h('p', { id: 'scale', 'aria-live': 'polite' });
const frameText = h('p', { id: 'frame-time', class: 'note' });
const statusText = h('p', { id: 'map-status', class: 'note', 'aria-live': 'polite' });
const objectPanel = h('div', { id: 'object-panel' });
const familyPanel = h('div', { id: 'family-panel', 'aria-live': 'polite' });
const seeksToggle = h('input', { id: 'seeks', type: 'checkbox' });
const seeksLabel = h('label', { id: 'seeks-label', hidden: true }, seeksToggle, ' Draw its reads in order (seek path)');
const seekScrubber = h('input', { id: 'seek-scrubber', type: 'range', min: 1, max: 1, value: 1, 'aria-label': 'Reads drawn' });
const seekPanel = h('div', { id: 'seek-panel', hidden: true });
const seekStats = h('p', { id: 'seek-stats' });

function button(id: string, text: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = h('button', { id, type: 'button', class: 'secondary', title, 'aria-label': title }, text);
  b.addEventListener('click', onClick);
  return b;
}

function layout(): void {
  replaceChildren(
    root,
    h(
      'header',
      { class: 'toolbar' },
      h('label', {}, 'Colour ', attributeSelect),
      h('label', {}, 'Recording ', recordingSelect),
      button('zoom-out', '−', 'Zoom out (−)', () => zoomBy(-1)),
      button('zoom-in', '+', 'Zoom in (+)', () => zoomBy(1)),
      button('zoom-reset', 'Whole pack', 'The whole pack (0)', () => animateTo({ zoom: 0, centerX: 0.5, centerY: 0.5 })),
    ),
    h(
      'div',
      { class: 'map-body' },
      h('div', { id: 'viewport' }, canvas, tooltip),
      h(
        'aside',
        { class: 'side' },
        summary,
        scaleText,
        legendList,
        recordingStats,
        seeksLabel,
        seekPanel,
        objectPanel,
        familyPanel,
        h('p', { class: 'note' }, 'Drag or arrow keys to pan; wheel, + and − to zoom; 0 for the whole pack. Click (or Enter) opens the object under the pointer (the centre, with keys); Shift-click reveals it in the Packs view; F draws its delta family, Escape clears it.'),
        frameText,
        statusText,
      ),
    ),
  );
  root.removeAttribute('aria-busy');
}

function saveState(): void {
  vscode.setState(state);
}

function setRecordings(next: PackMapRecordingChoice[]): void {
  recordings = next;
  const options = [h('option', { value: '' }, 'None'), ...next.map((r) => h('option', { value: r.file, title: `${r.description}\n${r.file}` }, r.label))];
  replaceChildren(recordingSelect, ...options);
  if (state.recording !== null && !next.some((r) => r.file === state.recording)) state.recording = null;
  recordingSelect.value = state.recording ?? '';
}

function show(next: PackMapInfoResult, repository: string, choices: PackMapRecordingChoice[], recording?: string, pushing: string[] = []): void {
  // Tiles on their way unasked: not asked for again (pumpTiles cancels those the view no longer wants).
  for (const key of pushing) if (!tiles.has(key)) inFlight.add(key);
  if (state.pack !== next.pack) state = { ...state, pack: next.pack, camera: normalizeCamera(undefined), family: null, ...(recording !== undefined ? { recording } : {}) };
  state.repository = repository;
  info = next;
  attributeSelect.value = state.attribute;
  setRecordings(choices);
  replaceChildren(summary, h('strong', {}, next.packName), h('br'), `${formatCount(next.objects)} objects, ${formatBytes(next.packBytes)}`);
  summary.title = next.pack;
  drawLegend();
  saveState();
  resize();
  // Drawn now, not at the next frame: the first tile requests leave at once.
  draw();
  // Restored after a reload: the family and the seek path the state names.
  family = undefined;
  seeks = undefined;
  void showFamily(state.family);
  void showSeeks();
}

function drawLegend(): void {
  if (!info) return;
  const swatch = (rgb: readonly number[]): HTMLElement => h('span', { class: 'swatch', style: undefined, 'data-rgb': rgb.join(',') });
  const items = info.legends[state.attribute].map((entry, i, all) => (entry.label === '' && all[0]!.label !== '' && i > 0 ? null : h('li', {}, swatch(entry.rgb), entry.label)));
  // The family legend is one label over a few of its hues.
  if (state.attribute === 'family') items.splice(0, items.length, h('li', {}, ...info.legends.family.map((e) => swatch(e.rgb)), info.legends.family[0]!.label));
  if (state.recording !== null) items.push(h('li', {}, swatch(heatColour(1, 100)), swatch(heatColour(10, 100)), swatch(heatColour(100, 100)), 'read by the recording (red: once, white: most); the rest dimmed'));
  replaceChildren(legendList, ...items);
  // Colours as inline style would need 'unsafe-inline' under the CSP: set through the CSSOM instead.
  for (const element of legendList.querySelectorAll<HTMLElement>('.swatch')) element.style.backgroundColor = `rgb(${element.dataset.rgb})`;
}

// ---- Camera and level of detail ------------------------------------------------------------

let cssWidth = 1;
let cssHeight = 1;

/** CSS pixels per unit of the map (its whole side) at the current zoom. */
function scale(zoom = state.camera.zoom): number {
  return Math.max(1, Math.min(cssWidth, cssHeight)) * 2 ** zoom;
}

/** The order drawn: cells of 1 to 2 device pixels, up to the pack's deepest order (then cells grow). */
function drawOrder(): number {
  if (!info) return 0;
  const devicePixels = scale() * (window.devicePixelRatio || 1);
  return Math.max(0, Math.min(info.maxOrder, Math.floor(Math.log2(devicePixels))));
}

function toUnit(px: number, py: number): [number, number] {
  const s = scale();
  return [state.camera.centerX + (px - cssWidth / 2) / s, state.camera.centerY + (py - cssHeight / 2) / s];
}

function toScreen(u: number, v: number): [number, number] {
  const s = scale();
  return [(u - state.camera.centerX) * s + cssWidth / 2, (v - state.camera.centerY) * s + cssHeight / 2];
}

function setCamera(camera: { zoom: number; centerX: number; centerY: number }): void {
  state.camera = normalizeCamera(camera);
  saveState();
  requestDraw();
}

function zoomAround(zoom: number, px: number, py: number): void {
  const clamped = Math.min(maxZoom(), Math.max(0, zoom));
  const [u, v] = toUnit(px, py);
  const s = scale(clamped);
  setCamera({ zoom: clamped, centerX: u - (px - cssWidth / 2) / s, centerY: v - (py - cssHeight / 2) / s });
}

/** Deep enough that one cell of the deepest order is 32 CSS pixels. */
function maxZoom(): number {
  if (!info) return 0;
  return Math.min(MAX_ZOOM, Math.max(0, info.maxOrder + 5 - Math.log2(Math.max(1, Math.min(cssWidth, cssHeight)))));
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
    setCamera({ zoom: from.zoom + (to.zoom - from.zoom) * e, centerX: from.centerX + (to.centerX - from.centerX) * e, centerY: from.centerY + (to.centerY - from.centerY) * e });
    animation = t < 1 ? requestAnimationFrame(step) : undefined;
    if (animation === undefined) animationTarget = undefined;
  };
  animation = requestAnimationFrame(step);
}

function zoomBy(steps: number): void {
  const from = animationTarget ?? state.camera;
  animateTo({ ...from, zoom: from.zoom + steps });
}

function panBy(dxCss: number, dyCss: number): void {
  const from = animationTarget ?? state.camera;
  const s = scale(from.zoom);
  animateTo({ ...from, centerX: from.centerX + dxCss / s, centerY: from.centerY + dyCss / s }, 90);
}

// ---- Tiles ---------------------------------------------------------------------------------

function tileUnit(order: number): number {
  return Math.min(1, TILE_CELLS / 2 ** order);
}

function tilesPerSide(order: number): number {
  return Math.max(1, 2 ** order / TILE_CELLS);
}

function wantedTile(order: number, tileX: number, tileY: number): PackMapTileWanted {
  return { attribute: state.attribute, order, tileX, tileY, ...(state.recording !== null ? { recording: state.recording } : {}) };
}

/** The tiles of `order` the view shows, nearest its centre first. */
function visibleTiles(order: number): PackMapTileWanted[] {
  const [u0, v0] = toUnit(0, 0);
  const [u1, v1] = toUnit(cssWidth, cssHeight);
  const unit = tileUnit(order);
  const last = tilesPerSide(order) - 1;
  const x0 = Math.max(0, Math.floor(u0 / unit));
  const x1 = Math.min(last, Math.floor(u1 / unit));
  const y0 = Math.max(0, Math.floor(v0 / unit));
  const y1 = Math.min(last, Math.floor(v1 / unit));
  const found: PackMapTileWanted[] = [];
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) found.push(wantedTile(order, x, y));
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
  if (!(rgba instanceof Uint8Array) || rgba.byteLength !== tile.size * tile.size * 4) throw new Error(`tile ${tile.order}/${tile.tileX}/${tile.tileY}: no ${tile.size}×${tile.size} RGBA`);
  return new ImageData(new Uint8ClampedArray(rgba.buffer as ArrayBuffer, rgba.byteOffset, rgba.byteLength), tile.size, tile.size);
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

/** Sends what the view wants as places free up; cancels what it no longer wants. */
function pumpTiles(): void {
  const wantedKeys = new Set(wanted.map(tileKey));
  const stale = [...inFlight].filter((key) => !wantedKeys.has(key));
  if (stale.length > 0) {
    host.notify({ type: 'cancelTiles', keys: stale });
    for (const key of stale) inFlight.delete(key);
  }
  for (const next of wanted) {
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
  const box = canvas.parentElement!.getBoundingClientRect();
  cssWidth = Math.max(1, Math.floor(box.width));
  cssHeight = Math.max(1, Math.floor(box.height));
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(cssWidth * dpr);
  canvas.height = Math.round(cssHeight * dpr);
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  requestDraw();
}

let colours = readThemeColours();

function drawTileAt(tile: CachedTile, order: number, tileX: number, tileY: number): void {
  const unit = tileUnit(order);
  const [sx, sy] = toScreen(tileX * unit, tileY * unit);
  const side = unit * scale();
  context2d.drawImage(tile.bitmap, sx, sy, side, side);
}

/**
 * A tile still loading: the part of the nearest coarser tile held that covers it, scaled (only
 * that part, so that each screen pixel is painted about once whatever the zoom: a software canvas
 * spends its time per pixel painted).
 */
function drawStandIn(w: PackMapTileWanted): void {
  const unit = tileUnit(w.order);
  const [dx, dy] = toScreen(w.tileX * unit, w.tileY * unit);
  const side = unit * scale();
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
    context2d.drawImage(tile.bitmap, sx, sy, sw, sw, dx, dy, side, side);
    return;
  }
}

/** Paints the view: the current order's tiles, coarser stand-ins for those still loading, the hovered cell. */
function draw(): void {
  const started = performance.now();
  const dpr = window.devicePixelRatio || 1;
  context2d.setTransform(dpr, 0, 0, dpr, 0, 0);
  context2d.imageSmoothingEnabled = false;
  context2d.fillStyle = colours.background;
  context2d.fillRect(0, 0, cssWidth, cssHeight);
  if (!info) return;
  const order = drawOrder();
  wanted = visibleTiles(order);
  let complete = true;
  let lit = 0;
  let recordingObjects: number | undefined;
  let recordingReads: number | undefined;
  for (const w of wanted) {
    const tile = cached(tileKey(w));
    if (!tile) {
      complete = false;
      drawStandIn(w);
      continue;
    }
    drawTileAt(tile, order, w.tileX, w.tileY);
    lit += tile.litCells;
    recordingObjects ??= tile.recordingObjects;
    recordingReads ??= tile.recordingReads;
  }
  // The map's edge, and the hovered cell.
  const [mx, my] = toScreen(0, 0);
  context2d.strokeStyle = colours.grid;
  context2d.lineWidth = 1;
  context2d.strokeRect(mx - 0.5, my - 0.5, scale() + 1, scale() + 1);
  if (hovered && hovered.order === order) {
    const cell = scale() / 2 ** order;
    const [hx, hy] = toScreen(hovered.x / 2 ** order, hovered.y / 2 ** order);
    const grow = Math.max(0, (4 - cell) / 2);
    context2d.strokeStyle = colours.foreground;
    context2d.lineWidth = 2;
    context2d.strokeRect(hx - grow, hy - grow, cell + 2 * grow, cell + 2 * grow);
  }
  drawFamily();
  drawSeeks();
  const elapsed = performance.now() - started;
  frameTimes.push(elapsed);
  if (frameTimes.length > FRAME_SAMPLES) frameTimes.shift();
  const worst = Math.max(...frameTimes);
  frameText.textContent = `Frame: ${elapsed.toFixed(2)} ms (slowest of the last ${frameTimes.length}: ${worst.toFixed(2)} ms)`;
  frameText.dataset.lastMs = elapsed.toFixed(3);
  frameText.dataset.worstMs = worst.toFixed(3);
  const bytes = info.bytesPerCell[order] ?? 0;
  const cellPx = scale() / 2 ** order;
  scaleText.textContent = `Order ${order}: ${formatCount(4 ** order)} cells of ${bytes >= 10 ? formatBytes(Math.round(bytes)) : `${bytes.toFixed(2)} bytes`} each${cellPx >= 2 ? `, ${cellPx.toFixed(0)} px a cell` : ''}${complete ? '' : ' (loading…)'}`;
  scaleText.dataset.order = String(order);
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
  pumpTiles();
}

// ---- Overlays: a delta family's arcs, a recording's seek path -------------------------------

/** Precision of overlay positions: the deepest order drawn, at most 15 (hilbertPoint's cost per point). */
function overlayOrder(): number {
  return info ? Math.min(15, info.maxOrder) : 0;
}

/** The centre, in map units, of the cell holding `offset` at the overlay's order (PackMap.cellOf). */
function offsetToUnit(offset: number): [number, number] {
  const order = overlayOrder();
  const span = Math.max(1, info!.dataEnd - info!.dataStart);
  const cells = 4 ** order;
  const d = Math.min(cells - 1, Math.max(0, Math.floor(((offset - info!.dataStart) * cells) / span)));
  const [x, y] = hilbertPoint(order, d);
  const side = 2 ** order;
  return [(x + 0.5) / side, (y + 0.5) / side];
}

function unitsOf(offsets: readonly number[]): Float64Array {
  const units = new Float64Array(offsets.length * 2);
  offsets.forEach((offset, i) => units.set(offsetToUnit(offset), 2 * i));
  return units;
}

interface ShownFamily {
  oid: string;
  result: PackMapFamilyResult;
  members: Float64Array;
  /** [delta u, v, base u, v] per arc. */
  arcs: Float64Array;
}
let family: ShownFamily | undefined;

interface ShownSeeks {
  recording: string;
  result: PackMapSeeksResult;
  points: Float64Array;
  faults: Set<number>;
}
let seeks: ShownSeeks | undefined;
let seekStep = 1;
let playing: number | undefined;

async function showFamily(oid: string | null): Promise<void> {
  state.family = oid;
  saveState();
  if (oid === null) {
    family = undefined;
    replaceChildren(familyPanel);
    requestDraw();
    return;
  }
  replaceChildren(familyPanel, h('p', { class: 'note' }, `Finding the delta family of ${oid.slice(0, 12)}…`));
  const reply = await host.request({ type: 'family', oid });
  if (state.family !== oid) return;
  if (reply.type !== 'family') {
    if (!reply.cancelled) replaceChildren(familyPanel, h('p', { class: 'error' }, `The family could not be drawn: ${reply.message}`));
    return;
  }
  const result = reply.family;
  const arcs = new Float64Array(result.arcs.length * 4);
  result.arcs.forEach(([delta, base], i) => {
    arcs.set(offsetToUnit(delta), 4 * i);
    arcs.set(offsetToUnit(base), 4 * i + 2);
  });
  family = { oid, result, members: unitsOf(result.memberOffsets), arcs };
  const text = h(
    'p',
    { id: 'family-text' },
    h('strong', {}, 'Delta family '),
    h('code', {}, result.root.slice(0, 12)),
    `: ${formatCount(result.members)} ${result.members === 1 ? 'object' : 'objects'}, ${formatCount(result.arcs.length)} ${result.arcs.length === 1 ? 'arc' : 'arcs'} from a delta to its base`,
    result.externalBases > 0 ? `; ${formatCount(result.externalBases)} with a base in another pack (no arc)` : '',
    result.truncated ? `; the first ${formatCount(result.memberOffsets.length)} in pack order drawn` : '',
  );
  text.dataset.members = String(result.members);
  text.dataset.drawnMembers = String(result.memberOffsets.length);
  text.dataset.arcs = String(result.arcs.length);
  replaceChildren(familyPanel, text, button('clear-family', 'Clear family', 'Stop drawing the family (Escape)', () => void showFamily(null)));
  requestDraw();
}

function stopPlaying(): void {
  if (playing !== undefined) cancelAnimationFrame(playing);
  playing = undefined;
}

function setSeekStep(step: number): void {
  if (!seeks) return;
  seekStep = Math.max(1, Math.min(seeks.points.length / 2, Math.round(step)));
  seekScrubber.value = String(seekStep);
  describeSeekStep();
  requestDraw();
}

function describeSeekStep(): void {
  const position = seekPanel.querySelector<HTMLElement>('#seek-position');
  if (!seeks || !position) return;
  const points = seeks.points.length / 2;
  const read = Math.min(seeks.result.reads, (seekStep - 1) * seeks.result.stride + 1);
  position.textContent = `Read ${formatCount(read)} of ${formatCount(seeks.result.reads)}${seeks.result.stride > 1 ? ` (every ${formatCount(seeks.result.stride)}th read drawn)` : ''}`;
  position.dataset.step = String(seekStep);
  position.dataset.points = String(points);
}

function play(): void {
  if (!seeks) return;
  if (playing !== undefined) return stopPlaying();
  const points = seeks.points.length / 2;
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

async function showSeeks(): Promise<void> {
  stopPlaying();
  const recording = state.recording;
  seeksLabel.hidden = recording === null;
  seeksToggle.checked = state.seeks;
  if (recording === null || !state.seeks) {
    seeks = undefined;
    seekPanel.hidden = true;
    requestDraw();
    return;
  }
  if (seeks?.recording === recording) return;
  seekPanel.hidden = false;
  replaceChildren(seekPanel, h('p', { class: 'note' }, 'Reading the recording’s seeks…'));
  const reply = await host.request({ type: 'seeks', recording });
  if (state.recording !== recording || !state.seeks) return;
  if (reply.type !== 'seeks') {
    if (!reply.cancelled) replaceChildren(seekPanel, h('p', { class: 'error' }, `The seeks could not be drawn: ${reply.message}`));
    return;
  }
  const result = reply.seeks;
  seeks = { recording, result, points: unitsOf(result.offsets), faults: new Set(result.faults) };
  const points = result.offsets.length;
  seekScrubber.max = String(Math.max(1, points));
  const l = result.locality;
  const at = (p: number): string => formatBytes(l.percentiles.find((q) => q.p === p)?.bytes ?? 0);
  const share = (x: number): string => `${(x * 100).toFixed(1)}%`;
  // The figures `packscope locality` prints for this pack (the same function computes them).
  replaceChildren(
    seekStats,
    `${formatCount(l.reads)} reads, ${formatCount(l.seeks)} seeks: ${share(l.backwardSeekShare)} backward, ${share(l.shortSeekShare)} under 2 MiB; distance p50 ${at(50)}, p90 ${at(90)}, p99 ${at(99)}; `,
    `${formatCount(l.pagesTouched)} pages of 4 KiB touched, span ${formatBytes(l.byteSpan)}; ${formatCount(l.pageFaults)} page faults (cold ${formatCount(result.pageCache.cacheMiB)} MiB cache, ${formatCount(result.pageCache.readaheadKiB)} KiB readahead)`,
  );
  seekStats.dataset.reads = String(l.reads);
  seekStats.dataset.backward = String(result.backwardSeeks);
  seekStats.dataset.faults = String(l.pageFaults);
  replaceChildren(
    seekPanel,
    seekStats,
    h('div', { class: 'seek-controls' }, playButton, seekScrubber),
    h('p', { id: 'seek-position', class: 'note' }),
    h('p', { class: 'legend-line' }, h('span', { class: 'swatch forward' }), ' forward seek ', h('span', { class: 'swatch backward' }), ' backward seek ', h('span', { class: 'swatch fault' }), ' page fault (cold cache)'),
  );
  for (const [selector, colour] of [['.swatch.forward', colours.series[0]!], ['.swatch.backward', colours.series[5]!], ['.swatch.fault', colours.foreground]] as const) {
    for (const element of seekPanel.querySelectorAll<HTMLElement>(selector)) element.style.backgroundColor = colour;
  }
  setSeekStep(points);
}

function drawFamily(): void {
  if (!family) return;
  const s = scale();
  const mark = Math.max(3, s / 2 ** drawOrder());
  context2d.lineWidth = 1.5;
  context2d.strokeStyle = colours.series[1]!;
  context2d.globalAlpha = 0.85;
  context2d.beginPath();
  const { arcs, members } = family;
  for (let i = 0; i < arcs.length; i += 4) {
    const [x0, y0] = toScreen(arcs[i]!, arcs[i + 1]!);
    const [x1, y1] = toScreen(arcs[i + 2]!, arcs[i + 3]!);
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
    const [x, y] = toScreen(members[i]!, members[i + 1]!);
    context2d.rect(x - mark / 2, y - mark / 2, mark, mark);
  }
  context2d.stroke();
}

function drawSeeks(): void {
  if (!seeks) return;
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
      const [x0, y0] = toScreen(points[2 * k - 2]!, points[2 * k - 1]!);
      const [x1, y1] = toScreen(points[2 * k]!, points[2 * k + 1]!);
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
    const [x, y] = toScreen(points[2 * k]!, points[2 * k + 1]!);
    context2d.rect(x - 1.5, y - 1.5, 3, 3);
  }
  context2d.fill();
  // Where the scrubber is: the read drawn last.
  const [x, y] = toScreen(points[2 * last - 2]!, points[2 * last - 1]!);
  context2d.strokeStyle = colours.foreground;
  context2d.lineWidth = 2;
  context2d.beginPath();
  context2d.arc(x, y, 6, 0, 2 * Math.PI);
  context2d.stroke();
}

// ---- Hover, click, keys ---------------------------------------------------------------------

let hoverRequest: { order: number; x: number; y: number; at: [number, number] } | undefined;
let hoverBusy = false;

function cellAt(px: number, py: number): { order: number; x: number; y: number } | undefined {
  const [u, v] = toUnit(px, py);
  if (u < 0 || v < 0 || u >= 1 || v >= 1) return undefined;
  const order = drawOrder();
  return { order, x: Math.floor(u * 2 ** order), y: Math.floor(v * 2 ** order) };
}

function hoverAt(px: number, py: number): void {
  const cell = cellAt(px, py);
  if (!cell) {
    hovered = undefined;
    tooltip.hidden = true;
    requestDraw();
    return;
  }
  if (hovered && hovered.order === cell.order && hovered.x === cell.x && hovered.y === cell.y) {
    placeTooltip(px, py);
    return;
  }
  hoverRequest = { ...cell, at: [px, py] };
  void lookUp();
}

/** One lookup at a time; the latest position wins. */
async function lookUp(): Promise<void> {
  if (hoverBusy || !hoverRequest) return;
  hoverBusy = true;
  const asked = hoverRequest;
  hoverRequest = undefined;
  try {
    const reply = await host.request({ type: 'objectAt', order: asked.order, x: asked.x, y: asked.y });
    hovered = { ...asked, object: reply.object };
    showTooltip();
    requestDraw();
  } finally {
    hoverBusy = false;
    if (hoverRequest) void lookUp();
  }
}

function showTooltip(): void {
  const object = hovered?.object;
  if (!hovered || !object) {
    tooltip.hidden = true;
    return;
  }
  const stored = object.inPackType === object.type ? 'whole' : object.inPackType;
  const lines = [
    h('div', { class: 'tip-title' }, h('strong', {}, object.type), ` ${formatBytes(object.size)} (${formatCount(object.size)} bytes)`),
    h('div', {}, `${formatBytes(object.diskSize)} in the pack, stored ${stored}${object.depth > 0 ? `, depth ${object.depth}` : ''}`),
    h('div', {}, `offset ${formatCount(object.offset)}; family of ${formatCount(object.familySize)}`),
    h('div', { class: 'oid' }, object.oid),
  ];
  replaceChildren(tooltip, ...lines);
  tooltip.dataset.oid = object.oid;
  tooltip.hidden = false;
  placeTooltip(hovered.at[0], hovered.at[1]);
  replaceChildren(
    objectPanel,
    h('p', {}, h('strong', {}, `${object.type} `), h('code', {}, object.oid.slice(0, 12)), ` at offset ${formatCount(object.offset)}`),
    h('div', { class: 'buttons' }, button('open-object', 'Open object', 'Open the object document (Enter)', () => post({ type: 'openObject', oid: object.oid })), button('reveal-object', 'Reveal in Packs view', 'Reveal it in the Packs view (Shift+Enter)', () => post({ type: 'revealObject', oid: object.oid })), button('show-family', 'Draw family', 'Draw its delta family over the map, each delta joined to its base (F)', () => void showFamily(object.oid))),
  );
}

function placeTooltip(px: number, py: number): void {
  const width = tooltip.offsetWidth;
  const height = tooltip.offsetHeight;
  const x = px + 16 + width > cssWidth ? Math.max(0, px - 16 - width) : px + 16;
  const y = py + 16 + height > cssHeight ? Math.max(0, py - 16 - height) : py + 16;
  tooltip.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
}

function post(message: WebviewToHost): void {
  host.notify(message);
}

function openHovered(reveal: boolean): void {
  const object = hovered?.object;
  if (object) post({ type: reveal ? 'revealObject' : 'openObject', oid: object.oid });
}

let drag: { id: number; x: number; y: number; centerX: number; centerY: number; moved: boolean } | undefined;

function listen(): void {
  canvas.addEventListener('pointerdown', (event) => {
    canvas.setPointerCapture(event.pointerId);
    drag = { id: event.pointerId, x: event.offsetX, y: event.offsetY, centerX: state.camera.centerX, centerY: state.camera.centerY, moved: false };
  });
  canvas.addEventListener('pointermove', (event) => {
    if (drag && drag.id === event.pointerId) {
      const dx = event.offsetX - drag.x;
      const dy = event.offsetY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        const s = scale();
        setCamera({ ...state.camera, centerX: drag.centerX - dx / s, centerY: drag.centerY - dy / s });
        tooltip.hidden = true;
        return;
      }
    }
    hoverAt(event.offsetX, event.offsetY);
  });
  canvas.addEventListener('pointerup', (event) => {
    const wasClick = drag !== undefined && !drag.moved;
    drag = undefined;
    if (!wasClick) return;
    const cell = cellAt(event.offsetX, event.offsetY);
    if (cell && hovered && hovered.order === cell.order && hovered.x === cell.x && hovered.y === cell.y) openHovered(event.shiftKey);
  });
  canvas.addEventListener('pointerleave', () => {
    if (!drag) tooltip.hidden = true;
  });
  canvas.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      const lines = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? cssHeight : 1;
      zoomAround(state.camera.zoom - event.deltaY * lines * 0.002, event.offsetX, event.offsetY);
    },
    { passive: false },
  );
  canvas.addEventListener('keydown', (event) => {
    const step = Math.min(cssWidth, cssHeight) / 8;
    let handled = true;
    switch (event.key) {
      case 'ArrowLeft': panBy(-step, 0); break;
      case 'ArrowRight': panBy(step, 0); break;
      case 'ArrowUp': panBy(0, -step); break;
      case 'ArrowDown': panBy(0, step); break;
      case '+': case '=': zoomBy(1); break;
      case '-': case '_': zoomBy(-1); break;
      case '0': case 'Home': animateTo({ zoom: 0, centerX: 0.5, centerY: 0.5 }); break;
      case 'Enter': openHovered(event.shiftKey); break;
      case 'f': case 'F': if (hovered?.object) void showFamily(hovered.object.oid); break;
      case 'Escape': void showFamily(null); break;
      case 'p': case 'P': play(); break;
      default: handled = false;
    }
    if (!handled) return;
    event.preventDefault();
    // With keys, the object under the centre is the one shown (and opened by Enter).
    if (['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', '+', '=', '-', '_', '0', 'Home'].includes(event.key)) setTimeout(() => hoverAt(cssWidth / 2, cssHeight / 2), 160);
  });
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
  new ResizeObserver(() => resize()).observe(canvas.parentElement!);
  watchTheme(() => {
    colours = readThemeColours();
    requestDraw();
  });
}

/** With `ready`, when the page opens on the whole pack: what it will show first (PackMapFirstView), so that the host fetches those tiles at once. */
function firstView(): { firstView?: PackMapFirstView } {
  if (state.camera.zoom !== 0) return {};
  const box = canvas.parentElement!.getBoundingClientRect();
  // As resize() and scale() size the map: the canvas's smaller whole CSS side, in device pixels.
  const side = Math.max(1, Math.min(Math.floor(box.width), Math.floor(box.height))) * (window.devicePixelRatio || 1);
  return { firstView: { sidePixels: side, attribute: state.attribute, ...(state.recording !== null ? { recording: state.recording } : {}) } };
}

layout();
listen();
void host.request({ type: 'ready', version: PACK_MAP_PROTOCOL_VERSION, ...firstView() }).then((reply) => {
  if (reply.type === 'failed') replaceChildren(root, h('p', { class: 'error', role: 'alert' }, `The pack map could not be drawn: ${reply.message}`));
  else show(reply.info, reply.repository, reply.recordings, reply.recording, reply.pushing);
});
