// Overlays drawn over the map: a delta family's arcs (F) and a recording's seek path, played in order.
import { formatBytes, formatCount } from '../../src/common/format.ts';
import { hilbertPoint } from '../../src/common/pack-map-geometry.ts';
import type { PackMapInfoResult } from '../../src/protocol/server-protocol.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { drawOrder, scale, toScreen } from './camera.ts';
import {
  type Pane,
  ROLE_LABELS,
  button,
  colours,
  comparing,
  familyPanel,
  host,
  panes,
  requestDraw,
  saveState,
  seekControls,
  seekPanel,
  seekScrubber,
  seeksLabel,
  seeksToggle,
  state,
} from './page.ts';

/** Precision of overlay positions: the deepest order drawn, at most 15 (hilbertPoint's cost per point). */
export function overlayOrder(info: PackMapInfoResult): number {
  return Math.min(15, info.maxOrder);
}

/** The centre, in map units, of the cell holding `offset` at the overlay's order (PackMap.cellOf). */
export function offsetToUnit(info: PackMapInfoResult, offset: number): [number, number] {
  const order = overlayOrder(info);
  const span = Math.max(1, info.dataEnd - info.dataStart);
  const cells = 4 ** order;
  const d = Math.min(cells - 1, Math.max(0, Math.floor(((offset - info.dataStart) * cells) / span)));
  const [x, y] = hilbertPoint(order, d);
  const side = 2 ** order;
  return [(x + 0.5) / side, (y + 0.5) / side];
}

export function unitsOf(info: PackMapInfoResult, offsets: readonly number[]): Float64Array {
  const units = new Float64Array(offsets.length * 2);
  offsets.forEach((offset, i) => units.set(offsetToUnit(info, offset), 2 * i));
  return units;
}

export let seekStep = 1;
export let playing: number | undefined;

/** The family of `oid` drawn over every pane (its own layout in each pack), or none. */
export async function showFamily(oid: string | null): Promise<void> {
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
export async function familyOfPane(pane: Pane, oid: string): Promise<HTMLElement | undefined> {
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

export function stopPlaying(): void {
  if (playing !== undefined) cancelAnimationFrame(playing);
  playing = undefined;
}

/** Points of the longest seek path shown (the scrubber's end; a shorter path stops at its own). */
export function seekPoints(): number {
  return Math.max(0, ...panes.map((p) => (p.seeks ? p.seeks.points.length / 2 : 0)));
}

export function setSeekStep(step: number): void {
  if (seekPoints() === 0) return;
  seekStep = Math.max(1, Math.min(seekPoints(), Math.round(step)));
  seekScrubber.value = String(seekStep);
  describeSeekStep();
  requestDraw();
}

export function describeSeekStep(): void {
  const position = seekPanel.querySelector<HTMLElement>('#seek-position');
  const seeks = panes.find((p) => p.seeks)?.seeks;
  if (!seeks || !position) return;
  const points = seekPoints();
  const read = Math.min(seeks.result.reads, (seekStep - 1) * seeks.result.stride + 1);
  position.textContent = `Read ${formatCount(read)} of ${formatCount(seeks.result.reads)}${seeks.result.stride > 1 ? ` (every ${formatCount(seeks.result.stride)}th read drawn)` : ''}`;
  position.dataset.step = String(seekStep);
  position.dataset.points = String(points);
}

export function play(): void {
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
export const playButton = button('seek-play', 'Play', 'Play the reads in order (P)', play);

/**
 * The recording's reads of each pack: its locality figures, and its seek path when asked for.
 * Comparing, the figures are asked for with the recording alone (they are what the comparison is
 * about); a single map asks when its path is to be drawn, as it always has.
 */
export async function showSeeks(): Promise<void> {
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

export async function seeksOfPane(pane: Pane, recording: string): Promise<void> {
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
export function showSeekControls(): void {
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

export function drawFamily(pane: Pane): void {
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
export function drawSeeks(pane: Pane): void {
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
