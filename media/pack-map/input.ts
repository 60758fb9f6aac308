// Hover, click and keys: the object under the pointer (a tooltip, the object panel), dragging and
// zooming the one camera, and the toolbar's controls.
import { formatBytes, formatCount } from '../../src/common/format.ts';
import { hilbertIndex, type MapAttribute } from '../../src/common/pack-map-geometry.ts';
import { type WebviewToHost } from '../../src/protocol/pack-map-protocol.ts';
import type { ObjectDetails } from '../../src/protocol/server-protocol.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { watchTheme } from '../common/theme.ts';
import { animateTo, drawOrder, panBy, scale, setCamera, toUnit, zoomAround, zoomBy } from './camera.ts';
import { resize } from './draw.ts';
import { drawLegend } from './legend.ts';
import { play, playButton, setSeekStep, showFamily, showSeeks, stopPlaying } from './overlays.ts';
import {
  type Pane,
  ROLE_LABELS,
  attributeSelect,
  button,
  comparing,
  host,
  objectPanel,
  panes,
  post,
  recordingSelect,
  requestDraw,
  saveState,
  seekScrubber,
  seeksToggle,
  state,
  refreshColours,
  onStaleHover,
} from './page.ts';

export function cellAt(pane: Pane, px: number, py: number): { order: number; x: number; y: number } | undefined {
  const [u, v] = toUnit(pane, px, py);
  if (u < 0 || v < 0 || u >= 1 || v >= 1) return undefined;
  const order = drawOrder(pane);
  return { order, x: Math.floor(u * 2 ** order), y: Math.floor(v * 2 ** order) };
}

export function hoverAt(pane: Pane, px: number, py: number): void {
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
export async function lookUp(pane: Pane): Promise<void> {
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

/** The object's path beside its id (a commit's subject), "resolving names…" while the repository's walk runs. */
function pathLine(object: ObjectDetails): HTMLElement[] {
  const label = object.type === 'tag' ? 'tag name' : 'path';
  if (object.subject !== undefined) return [h('div', { class: 'tip-name' }, object.subject)];
  if (object.path === '') return [h('div', { class: 'tip-name' }, 'a root tree')];
  if (typeof object.path === 'string') return [h('div', { class: 'tip-name' }, `${label} ${object.path}`)];
  if (object.path === null) return [h('div', { class: 'tip-name' }, 'no ref reaches it')];
  if (object.namesPending) return [h('div', { class: 'tip-name pending' }, `${label}: resolving names…`)];
  return [];
}

export function showTooltip(pane: Pane): void {
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
    cellLine(pane, hovered),
    h('div', { class: 'oid' }, object.oid),
    ...pathLine(object),
  ];
  replaceChildren(tooltip, ...lines);
  tooltip.dataset.oid = object.oid;
  tooltip.dataset.offset = String(object.offset);
  tooltip.dataset.order = String(hovered.order);
  tooltip.dataset.cell = `${hovered.x},${hovered.y}`;
  // Where the pointer was, as the page saw it (whole CSS pixels): the cell is read from it.
  tooltip.dataset.at = hovered.at.join(',');
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

/** The bytes of the pack the hovered cell covers (PackMap.cellBytes' rule): the scale at the pointer. */
function cellLine(pane: Pane, hovered: { order: number; x: number; y: number }): HTMLElement | null {
  const info = pane.info;
  if (!info) return null;
  const cells = 4 ** hovered.order;
  const span = info.dataEnd - info.dataStart;
  const d = hilbertIndex(hovered.order, hovered.x, hovered.y);
  const start = info.dataStart + Math.floor((d * span) / cells);
  const end = Math.min(info.dataEnd, info.dataStart + Math.floor(((d + 1) * span) / cells));
  return h(
    'div',
    { class: 'tip-cell', 'data-start': start, 'data-end': end },
    end - start <= 1
      ? `this cell: byte ${formatCount(start)} (a cell of ${(span / cells).toFixed(2)} bytes)`
      : `this cell: bytes ${formatCount(start)} to ${formatCount(end - 1)} (${formatCount(end - start)})`,
  );
}

export function placeTooltip(pane: Pane, px: number, py: number): void {
  const { tooltip } = pane;
  const width = tooltip.offsetWidth;
  const height = tooltip.offsetHeight;
  const x = px + 16 + width > pane.cssWidth ? Math.max(0, px - 16 - width) : px + 16;
  const y = py + 16 + height > pane.cssHeight ? Math.max(0, py - 16 - height) : py + 16;
  tooltip.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
}

export function openHovered(pane: Pane, reveal: boolean): void {
  const object = pane.hovered?.object;
  if (object) post({ type: reveal ? 'revealObject' : 'openObject', pane: pane.index, oid: object.oid });
}

export let drag:
  { pane: Pane; id: number; x: number; y: number; centerX: number; centerY: number; moved: boolean } | undefined;

// Stays long: one listener per input event of the canvas (pointer, wheel, keys), each a few lines.
/** A pane's pointer and keys: each moves the one camera, so both maps follow. */
export function listenPane(pane: Pane): void {
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
      // The cell under the pointer is another one now (another order, or the same order moved):
      // the tooltip names what is under the pointer, not what was before the zoom.
      hoverAt(pane, event.offsetX, event.offsetY);
      lastPane = pane;
    },
    { passive: false },
  );
  canvas.addEventListener('pointerenter', () => (lastPane = pane));
  canvas.addEventListener('focus', () => (lastPane = pane));
  new ResizeObserver(() => resize()).observe(pane.viewport);
}

// Stays long: a switch over the keys the map answers, each a line.
/** A key for `pane`; true when the map answered it. */
function keyOn(pane: Pane, event: KeyboardEvent): boolean {
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
  if (!handled) return false;
  event.preventDefault();
  // With keys, the object under the centre is the one shown (and opened by Enter).
  if (['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', '+', '=', '-', '_', '0', 'Home'].includes(event.key))
    setTimeout(() => hoverAt(pane, pane.cssWidth / 2, pane.cssHeight / 2), 160);
  return true;
}

/** The pane keys act on: the one last hovered or focused (the first, before any). */
let lastPane: Pane | undefined;

/**
 * Keys answered wherever the focus is within the page: after a click on a button (Zoom in, Draw
 * family) the focus stays on it, and F or + did nothing until the map was clicked again. Not in a
 * field that takes the key itself (a select, the scrubber, a checkbox), nor Enter or Space on a
 * button (they press it).
 */
function onPageKey(event: KeyboardEvent): void {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target instanceof Element ? event.target : null;
  if (target?.closest('input, select, textarea, [contenteditable]')) return;
  if (target?.closest('button, a') && (event.key === 'Enter' || event.key === ' ')) return;
  const pane = panes.find((p) => p.canvas === target) ?? (lastPane && panes.includes(lastPane) ? lastPane : panes[0]);
  if (pane) keyOn(pane, event);
}

onStaleHover((pane) => {
  const at = pane.hovered?.at;
  if (at && !pane.hoverBusy && !pane.hoverRequest) hoverAt(pane, at[0], at[1]);
});

export function listen(): void {
  document.addEventListener('keydown', onPageKey);
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
    refreshColours();
    requestDraw();
  });
}
