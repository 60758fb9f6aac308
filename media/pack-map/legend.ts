// The legend of the attribute drawn: what each colour means, for one pack or both.
import { heatColour } from '../../src/common/pack-map-geometry.ts';
import { formatBytes, formatExactBytes } from '../../src/common/format.ts';
import { sizeScaleRamp, sizeScaleStops } from '../../src/common/pack-map-scale.ts';
import type { PackMapInfoResult } from '../../src/protocol/server-protocol.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { ROLE_LABELS, legendList, panes, state } from './page.ts';

export const legendSwatch = (rgb: readonly number[]): HTMLElement =>
  h('span', { class: 'swatch', 'data-rgb': rgb.join(',') });

/** One pack's legend for the attribute drawn. */
export function legendItems(info: PackMapInfoResult): HTMLElement[] {
  const entries = info.legends[state.attribute];
  // The family legend is one label over a few of its hues.
  if (state.attribute === 'family') return [h('li', {}, ...entries.map((e) => legendSwatch(e.rgb)), entries[0]!.label)];
  return entries.flatMap((entry, i, all) =>
    entry.label === '' && all[0]!.label !== '' && i > 0 ? [] : [h('li', {}, legendSwatch(entry.rgb), entry.label)],
  );
}

/**
 * The size colouring as a scale: the ramp from 16 bytes to the largest object, sizes marked where
 * they fall on it (a log scale), so that a colour between two swatches can be read as a size.
 */
function sizeScale(info: PackMapInfoResult, role: string): HTMLElement {
  const stops = sizeScaleStops(info.largestOnDisk);
  const ticks = h('div', { class: 'size-ticks' });
  for (const stop of stops) {
    const tick = h(
      'span',
      {
        class: 'size-tick',
        'data-bytes': stop.bytes,
        'data-at': stop.at.toFixed(4),
        title: formatExactBytes(stop.bytes),
      },
      formatBytes(stop.bytes, 'compact'),
    );
    tick.style.left = `${(stop.at * 100).toFixed(2)}%`;
    ticks.append(tick);
  }
  return h(
    'li',
    { class: 'size-scale', 'data-largest': info.largestOnDisk },
    h('span', {}, `Size on disk${role === '' ? '' : ` (${role})`}, log scale:`),
    h('canvas', {
      width: 240,
      height: 12,
      'data-largest': info.largestOnDisk,
      role: 'img',
      'aria-label': `from 16 B to ${formatBytes(info.largestOnDisk)}`,
    }),
    ticks,
  );
}

function paintRamp(canvas: HTMLCanvasElement): void {
  const context = canvas.getContext('2d');
  if (!context) return;
  const ramp = sizeScaleRamp(Number(canvas.dataset.largest), canvas.width);
  ramp.forEach((rgb, x) => {
    context.fillStyle = `rgb(${rgb.join(',')})`;
    context.fillRect(x, 0, 1, canvas.height);
  });
}

/**
 * One legend for the page: both panes are coloured by the same attribute. Depth and size scales
 * are each pack's own (the server scales them to the pack's deepest chain and largest object): when
 * the two packs' legends differ, each is shown under its pane's name, so no colour is read wrongly.
 */
export function drawLegend(): void {
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
  if (state.attribute === 'disk-size')
    for (const pane of shown)
      items.push(
        ...(same && pane !== shown[0]
          ? []
          : [sizeScale(pane.info!, shown.length > 1 && !same ? ROLE_LABELS[pane.role] : '')]),
      );
  replaceChildren(legendList, ...items);
  for (const canvas of legendList.querySelectorAll<HTMLCanvasElement>('.size-scale canvas')) paintRamp(canvas);
  // Colours as inline style would need 'unsafe-inline' under the CSP: set through the CSSOM instead.
  for (const element of legendList.querySelectorAll<HTMLElement>('.swatch'))
    element.style.backgroundColor = `rgb(${element.dataset.rgb})`;
}
