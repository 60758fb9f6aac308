// The camera and the level of detail: zoom and pan, animated, and the order of tiles a pane draws.
//
// The camera is the page's, in map units (the map is the unit square), and every pane draws it
// at its own size. "The same place" in two packs is the same fraction of each pack's bytes: both
// maps lay their bytes from the header's end to the checksum along the same Hilbert curve, so one
// camera shows the same stretch of each file, and how far apart a recording's reads lie in one
// pack compares directly with the other. Lining up by object instead cannot be one camera: a
// repack permutes objects, so a region of one map is scattered over the other; hovering an object
// in one pane names it, and its family (F) is drawn in both.
import { MAX_ZOOM, normalizeCamera } from '../../src/presentation/pack-map-state.ts';
import { type Pane, panes, requestDraw, saveState, state } from './page.ts';

/** CSS pixels per unit of the map (its whole side) at the current zoom. */
export function scale(pane: Pane, zoom = state.camera.zoom): number {
  return Math.max(1, Math.min(pane.cssWidth, pane.cssHeight)) * 2 ** zoom;
}

/** The order drawn: cells of 1 to 2 device pixels, up to the pack's deepest order (then cells grow). */
export function drawOrder(pane: Pane): number {
  if (!pane.info) return 0;
  const devicePixels = scale(pane) * (window.devicePixelRatio || 1);
  return Math.max(0, Math.min(pane.info.maxOrder, Math.floor(Math.log2(devicePixels))));
}

export function toUnit(pane: Pane, px: number, py: number): [number, number] {
  const s = scale(pane);
  return [state.camera.centerX + (px - pane.cssWidth / 2) / s, state.camera.centerY + (py - pane.cssHeight / 2) / s];
}

export function toScreen(pane: Pane, u: number, v: number): [number, number] {
  const s = scale(pane);
  return [(u - state.camera.centerX) * s + pane.cssWidth / 2, (v - state.camera.centerY) * s + pane.cssHeight / 2];
}

export function setCamera(camera: { zoom: number; centerX: number; centerY: number }): void {
  state.camera = normalizeCamera(camera);
  saveState();
  requestDraw();
}

export function zoomAround(pane: Pane, zoom: number, px: number, py: number): void {
  const clamped = Math.min(maxZoom(), Math.max(0, zoom));
  const [u, v] = toUnit(pane, px, py);
  const s = scale(pane, clamped);
  setCamera({ zoom: clamped, centerX: u - (px - pane.cssWidth / 2) / s, centerY: v - (py - pane.cssHeight / 2) / s });
}

/** Deep enough that one cell of the deepest order (of the deeper pack) is 32 CSS pixels. */
export function maxZoom(): number {
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

export let animation: number | undefined;
/** Where a running animation ends: a key pressed meanwhile steps on from there (whole zoom steps). */
export let animationTarget: { zoom: number; centerX: number; centerY: number } | undefined;
export function animateTo(target: { zoom: number; centerX: number; centerY: number }, ms = 140): void {
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

export function zoomBy(steps: number): void {
  const from = animationTarget ?? state.camera;
  animateTo({ ...from, zoom: from.zoom + steps });
}

export function panBy(pane: Pane, dxCss: number, dyCss: number): void {
  const from = animationTarget ?? state.camera;
  const s = scale(pane, from.zoom);
  animateTo({ ...from, centerX: from.centerX + dxCss / s, centerY: from.centerY + dyCss / s }, 90);
}
