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
/** A tile request sent and not answered: its pane, and the pane's view (generation) it was asked for. */
export interface Pending {
  pane: number;
  generation: number;
}
/**
 * Tile requests sent and not answered, by key. An entry is removed only by its own request's
 * answer (or by cancelling it): a cancelled request's late answer must not remove the entry of
 * the request that asked for the same tile again, or the page asks a third time, the host cancels
 * the second (a newer request of a key cancels the older), and so on while the tile stays wanted.
 */
export const inFlight = new Map<string, Pending>();
/**
 * Each pane's view as the tile requests name it (PackMapTileWanted's `generation`), from 0: the
 * first view, whose tiles the host may push with `show`.
 */
const generations: number[] = [];
const generationOf = (pane: number): number => generations[pane] ?? 0;

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
  const pending: Pending = { pane: wantedOne.pane, generation: generationOf(wantedOne.pane) };
  inFlight.set(key, pending);
  try {
    await acceptTile(key, await host.request({ type: 'tile', key, wanted: wantedOne, generation: pending.generation }));
  } finally {
    settle(key, pending);
  }
}

/** The request behind `pending` answered: the tile's key is free to be asked again (if still wanted). */
function settle(key: string, pending: Pending): void {
  if (inFlight.get(key) === pending) inFlight.delete(key);
  requestDraw();
}

/** The host's pushed tiles (`show`'s `pushing`, the first view: generation 0), and what settles each. */
const pushed = new Map<string, Pending>();
export function expectPushed(keys: string[]): void {
  for (const key of keys) {
    if (tiles.has(key)) continue;
    // The key ends with the pane (tileKey).
    const pending: Pending = { pane: Number(key.slice(key.lastIndexOf('|') + 1)), generation: 0 };
    inFlight.set(key, pending);
    pushed.set(key, pending);
  }
}
export function settlePushed(key: string): void {
  const pending = pushed.get(key);
  pushed.delete(key);
  if (pending) settle(key, pending);
  else requestDraw();
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
  supersede(wantedKeys);
  const stale = [...inFlight.keys()].filter((key) => !wantedKeys.has(key));
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

/**
 * A pane's view is superseded when it waits for tiles and none of them is wanted any more: another
 * colouring, recording or order, or a camera moved so far that everything still coming is out of
 * view. Then the pane's next requests name a newer generation, and the server drops whatever of
 * the older ones still waits (a tile asked for again later is asked under the newer one). A small
 * pan that keeps one tile still coming in view supersedes nothing, so no tile the view shows is
 * dropped by a generation: those out of view are cancelled one by one (`cancelTiles`).
 */
function supersede(wantedKeys: Set<string>): void {
  const waiting = new Map<number, boolean>();
  for (const [key, { pane }] of inFlight) waiting.set(pane, (waiting.get(pane) ?? false) || wantedKeys.has(key));
  for (const [pane, stillWanted] of waiting) if (!stillWanted) generations[pane] = generationOf(pane) + 1;
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
