// A frame: every pane's tiles, its edge and hovered cell, its overlays and its figures.
import { formatBytes, formatCount } from '../../src/common/format.ts';
import { tileKey } from '../../src/protocol/pack-map-protocol.ts';
import { animation, drawOrder, scale, toScreen } from './camera.ts';
import { drawFamily, drawSeeks } from './overlays.ts';
import { bytesInView, drawMapMarks, drawRuler, mapMarks } from './ruler.ts';
import { type Pane, colours, frameText, panes, recordings, requestDraw, staleHover, state } from './page.ts';
import { cached, drawStandIn, drawTileAt, pumpTiles, visibleTiles } from './tiles.ts';

export const FRAME_SAMPLES = 120;
export const frameTimes: number[] = [];

export function resize(): void {
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

/** Paints every pane, and says how long that took. */
export function draw(): void {
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
export function drawPane(pane: Pane): void {
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
  if (hovered && hovered.order !== order && !pane.tooltip.hidden) staleHover(pane);
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
  const inView = bytesInView(pane);
  const marks = mapMarks(pane, order, inView);
  drawMapMarks(pane, marks);
  drawRuler(pane, order, inView, marks);
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
