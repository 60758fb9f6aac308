// The tiles the server renders (through the host): which a pane's view wants, the cache of those
// held, the requests in flight, and painting a tile or a coarser stand-in while it loads.
import {
  type HostToWebview,
  PACK_MAP_TILES_IN_FLIGHT,
  type PackMapTile,
  type PackMapTileWanted,
  tileKey,
} from '../../src/protocol/pack-map-protocol.ts';
import { scale, toScreen, toUnit } from './camera.ts';
import { type Pane, host, panes, requestDraw, state, statusText } from './page.ts';

/** Cells per side of a tile (server-protocol.ts PACK_MAP_TILE_SIZE; a map of order < 8 is one tile). */
export const TILE_CELLS = 256;
/** Tiles kept (each a 256 × 256 bitmap, 256 KiB): about 64 MiB at most, whatever the number of panes. */
export const MAX_CACHED_TILES = 256;
/** Coarser levels painted under the current one while its tiles load. */
export const FALLBACK_LEVELS = 8;
/** Frame times kept for the readout. */

export interface CachedTile {
  bitmap: ImageBitmap;
  litCells: number;
  recordingObjects?: number;
  recordingReads?: number;
}
/** Every pane's tiles (their keys name the pane): one budget for the page. */
export const tiles = new Map<string, CachedTile>();
/** Keys of tile requests sent and not answered. */
export const inFlight = new Set<string>();

export function tileUnit(order: number): number {
  return Math.min(1, TILE_CELLS / 2 ** order);
}

export function tilesPerSide(order: number): number {
  return Math.max(1, 2 ** order / TILE_CELLS);
}

export function wantedTile(pane: Pane, order: number, tileX: number, tileY: number): PackMapTileWanted {
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
export function visibleTiles(pane: Pane, order: number): PackMapTileWanted[] {
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

export function cached(key: string): CachedTile | undefined {
  const tile = tiles.get(key);
  if (tile) {
    tiles.delete(key);
    tiles.set(key, tile);
  }
  return tile;
}

export function keep(key: string, tile: CachedTile): void {
  tiles.set(key, tile);
  while (tiles.size > MAX_CACHED_TILES) {
    const oldest = tiles.keys().next().value!;
    tiles.get(oldest)?.bitmap.close();
    tiles.delete(oldest);
  }
}

/** The tile's pixels as they came (binary, PackMapTile): viewed as the ImageData's, not copied. */
export function decodeTile(tile: PackMapTile): ImageData {
  const { rgba } = tile;
  if (!(rgba instanceof Uint8Array) || rgba.byteLength !== tile.size * tile.size * 4)
    throw new Error(`tile ${tile.order}/${tile.tileX}/${tile.tileY}: no ${tile.size}×${tile.size} RGBA`);
  return new ImageData(
    new Uint8ClampedArray(rgba.buffer as ArrayBuffer, rgba.byteOffset, rgba.byteLength),
    tile.size,
    tile.size,
  );
}

export async function fetchTile(wantedOne: PackMapTileWanted): Promise<void> {
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
export async function acceptTile(
  key: string,
  reply: Extract<HostToWebview, { type: 'tile' | 'tileFailed' }>,
): Promise<void> {
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
export function pumpTiles(): void {
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

export function drawTileAt(pane: Pane, tile: CachedTile, order: number, tileX: number, tileY: number): void {
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
export function drawStandIn(pane: Pane, w: PackMapTileWanted): void {
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
