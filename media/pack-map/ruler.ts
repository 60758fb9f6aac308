// The offset ruler: the map's curve unrolled into one line of pack offsets under each pane, start
// and end marked, the stretches of the file in view shaded; and the same offsets marked on the map
// where the curve passes them, finer as the view zooms in. Without it a place in the picture
// could not be read as a place in the file (a Hilbert curve has no axis).
import { formatBytes, formatCount } from '../../src/common/format.ts';
import { hilbertIndex } from '../../src/common/pack-map-geometry.ts';
import { markLabel, pointOfOffset, rulerMarks, rulerStep, type RulerMark } from '../../src/common/pack-map-scale.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { scale, toScreen, toUnit } from './camera.ts';
import { type Pane } from './page.ts';

/** At most this many cells per side of the view are walked to find which stretches of the file are in view. */
const VIEW_CELLS = 32;
/** Marks drawn on the map at most (a mark per visible cell of the coarse walk at the very most). */
const MAX_MAP_MARKS = 24;

/** A mark as drawn on the map, readable from the DOM (data-marks): tests hover it and compare with the engine. */
export interface DrawnMark extends RulerMark {
  /** Centre of the cell holding the offset, in CSS pixels of the canvas. */
  x: number;
  y: number;
  order: number;
}

/**
 * The byte ranges of the pack in view, merged, from the cells of a coarse order that the view
 * covers (a square of the curve is one stretch of the file, its cells' ranges join up).
 */
export function bytesInView(pane: Pane): [number, number][] {
  const info = pane.info!;
  const span = info.dataEnd - info.dataStart;
  const [u0, v0] = toUnit(pane, 0, 0);
  const [u1, v1] = toUnit(pane, pane.cssWidth, pane.cssHeight);
  const side = Math.max(u1 - u0, v1 - v0);
  const order = Math.max(0, Math.min(15, Math.floor(Math.log2(VIEW_CELLS / Math.max(side, 1e-12)))));
  const n = 2 ** order;
  const x0 = Math.max(0, Math.floor(u0 * n));
  const x1 = Math.min(n - 1, Math.floor(u1 * n));
  const y0 = Math.max(0, Math.floor(v0 * n));
  const y1 = Math.min(n - 1, Math.floor(v1 * n));
  const cells: number[] = [];
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) cells.push(hilbertIndex(order, x, y));
  cells.sort((a, b) => a - b);
  const total = 4 ** order;
  const ranges: [number, number][] = [];
  for (const d of cells) {
    const start = info.dataStart + Math.floor((d * span) / total);
    const end = info.dataStart + Math.floor(((d + 1) * span) / total);
    const last = ranges.at(-1);
    if (last && last[1] >= start) last[1] = Math.max(last[1], end);
    else ranges.push([start, end]);
  }
  return ranges;
}

/** The marks on the map for the view: start, end and round offsets about a sixth of the bytes in view apart. */
export function mapMarks(pane: Pane, order: number, inView: [number, number][]): DrawnMark[] {
  const info = pane.info!;
  const shown = inView.reduce((sum, [a, b]) => sum + (b - a), 0);
  const step = rulerStep(shown, 6);
  const wanted: RulerMark[] = [];
  for (const [a, b] of inView) {
    if (a === info.dataStart) wanted.push({ offset: a, kind: 'start', step });
    for (let offset = Math.ceil(a / step) * step; offset < b && wanted.length < MAX_MAP_MARKS; offset += step)
      if (offset > info.dataStart) wanted.push({ offset, kind: 'tick', step });
    if (b === info.dataEnd) wanted.push({ offset: info.dataEnd, kind: 'end', step });
  }
  const cell = scale(pane) / 2 ** order;
  const marks: DrawnMark[] = [];
  for (const mark of wanted) {
    // The end is the checksum's first byte: marked on the cell of the last object byte.
    const [cx, cy] = pointOfOffset(order, info.dataStart, info.dataEnd, Math.min(mark.offset, info.dataEnd - 1));
    const [x, y] = toScreen(pane, (cx + 0.5) / 2 ** order, (cy + 0.5) / 2 ** order);
    if (x < 0 || y < 0 || x >= pane.cssWidth || y >= pane.cssHeight) continue;
    marks.push({ ...mark, x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10, order });
  }
  // Cells too small to tell marks apart: keep those at least 40 px from the one before.
  return marks.filter(
    (m, i) => m.kind !== 'tick' || cell >= 40 || marks.slice(0, i).every((o) => Math.hypot(o.x - m.x, o.y - m.y) >= 40),
  );
}

/**
 * The marks over the map, as elements on a layer above the canvas (not painted into it: the canvas
 * holds the map's cells alone, which the tests compare with the engine's): a ring on the cell, its
 * offset beside it.
 */
export function drawMapMarks(pane: Pane, marks: DrawnMark[]): void {
  const key = JSON.stringify(marks);
  if (pane.marks.dataset.key === key) return;
  pane.marks.dataset.key = key;
  replaceChildren(
    pane.marks,
    ...marks.map((mark) => {
      const element = h(
        'span',
        { class: `map-mark ${mark.kind}`, 'data-offset': mark.offset, 'data-kind': mark.kind },
        h('span', { class: 'map-mark-label' }, markLabel(mark)),
      );
      // Through the CSSOM: inline style attributes would need 'unsafe-inline' under the CSP.
      element.style.transform = `translate(${mark.x}px, ${mark.y}px)`;
      if (mark.x > pane.cssWidth - 90) element.classList.add('left');
      return element;
    }),
  );
}

/** The ruler under a pane: the whole pack as a line, its marks, the stretches in view, and what a cell holds. */
export function drawRuler(pane: Pane, order: number, inView: [number, number][], marks: DrawnMark[]): void {
  const info = pane.info!;
  // Rebuilt only when what it shows changed (a frame is drawn for every step of a zoom or pan).
  const key = JSON.stringify([info.pack, order, inView, marks]);
  if (pane.ruler.dataset.key === key) return;
  pane.ruler.dataset.key = key;
  const span = info.dataEnd - info.dataStart;
  const at = (offset: number): number => ((offset - info.dataStart) / span) * 100;
  const track = h('div', { class: 'ruler-track' });
  for (const [a, b] of inView) {
    const shade = h('span', { class: 'ruler-view', 'data-start': a, 'data-end': b });
    // Positions through the CSSOM: inline style attributes would need 'unsafe-inline' under the CSP.
    shade.style.left = `${at(a)}%`;
    shade.style.width = `${Math.max(0.3, at(b) - at(a))}%`;
    track.append(shade);
  }
  for (const mark of rulerMarks(info.dataStart, info.dataEnd)) {
    const tick = h(
      'span',
      {
        class: `ruler-mark ${mark.kind}`,
        'data-offset': mark.offset,
        'data-kind': mark.kind,
        title: `offset ${formatCount(mark.offset)}${mark.kind === 'end' ? ' (the checksum’s first byte)' : ''}`,
      },
      h('span', { class: 'ruler-label' }, markLabel(mark)),
    );
    tick.style.left = `${at(mark.offset)}%`;
    track.append(tick);
  }
  const bytes = info.bytesPerCell[order] ?? 0;
  replaceChildren(
    pane.ruler,
    track,
    h(
      'p',
      { class: 'ruler-caption' },
      `Pack offsets along the curve, from the top-left corner; shaded: in view. A cell holds ${bytes >= 10 ? formatBytes(Math.round(bytes)) : `${bytes.toFixed(2)} bytes`}.`,
    ),
  );
  pane.ruler.dataset.marks = JSON.stringify(marks);
  pane.ruler.dataset.bytesPerCell = String(bytes);
  pane.ruler.dataset.order = String(order);
}
