// The Locality tab: seek statistics of one recording or two, and the distance chart.
import { formatBytes, formatCount, formatExactBytes, formatShare } from '../../src/common/format.ts';
import type { LocalityResult } from '../../src/protocol/server-protocol.ts';
import { baseName, h, replaceChildren } from '../common/dom.ts';
import { readThemeColours } from '../common/theme.ts';
import { replaceChart } from './chart-slots.ts';
import { distanceChart } from './charts.ts';
import { distanceAlt, distanceCanvas, localityEmpty, localityStats, percentileTable } from './layout.ts';
import { received } from './page.ts';

export interface LocalityColumn {
  heading: string;
  title: string;
  pack: LocalityResult['packs'][number];
}

export function localityColumns(): LocalityColumn[] {
  const columns: LocalityColumn[] = [];
  const both = received.locality.primary !== undefined && received.locality.compare !== undefined;
  for (const slot of ['primary', 'compare'] as const) {
    const result = received.locality[slot];
    if (result === undefined) continue;
    const name = result.recording.command ?? baseName(result.recording.file);
    for (const pack of result.packs) {
      const packName = baseName(pack.pack).replace(/^(pack-[0-9a-f]{7})[0-9a-f]*\.pack$/, '$1…');
      const prefix = both ? `${slot === 'primary' ? 'A' : 'B'}: ` : '';
      columns.push({
        heading: `${prefix}${name} · ${packName}`,
        title: `${result.recording.file}\n${pack.pack}`,
        pack,
      });
    }
  }
  return columns;
}

export function renderLocality(): void {
  const columns = localityColumns();
  localityEmpty.hidden = columns.length > 0;
  for (const element of [localityStats, percentileTable, distanceCanvas.closest('figure')!])
    (element as HTMLElement).hidden = columns.length === 0;
  if (columns.length === 0) {
    replaceChart('distance', undefined);
    return;
  }
  const headRow = h(
    'tr',
    {},
    h('th', { scope: 'col' }, 'measure'),
    ...columns.map((c) => h('th', { scope: 'col', title: c.title }, c.heading)),
  );
  // [row words, shown text, exact value (data-value), hover for a rounded size (the exact bytes)].
  const statRows: [
    string,
    (p: LocalityColumn['pack']) => string,
    (p: LocalityColumn['pack']) => number,
    ((p: LocalityColumn['pack']) => string)?,
  ][] = [
    ['reads', (p) => formatCount(p.reads), (p) => p.reads],
    ['seeks', (p) => formatCount(p.seeks), (p) => p.seeks],
    ['share of seeks under 2 MiB', (p) => formatShare(p.shortSeekShare), (p) => p.shortSeekShare],
    ['backward seeks', (p) => formatShare(p.backwardSeekShare), (p) => p.backwardSeekShare],
    ['4 KiB pages touched', (p) => formatCount(p.pagesTouched), (p) => p.pagesTouched],
    ['byte span', (p) => formatBytes(p.byteSpan, 'compact'), (p) => p.byteSpan, (p) => formatExactBytes(p.byteSpan)],
    ['page faults (cold page cache)', (p) => formatCount(p.pageFaults), (p) => p.pageFaults],
  ];
  replaceChildren(
    localityStats,
    h('caption', {}, 'Reads and seeks per pack'),
    h('thead', {}, headRow),
    h(
      'tbody',
      {},
      ...statRows.map(([words, show, value, exact]) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, words),
          ...columns.map((c) => h('td', { 'data-value': value(c.pack), title: exact?.(c.pack) }, show(c.pack))),
        ),
      ),
    ),
  );
  renderPercentiles(columns, headRow);
  const series = columns
    .filter((c) => Array.isArray(c.pack.distanceQuantiles) && c.pack.distanceQuantiles.length > 0)
    .map((c) => ({ label: c.heading, quantiles: c.pack.distanceQuantiles }));
  distanceCanvas.setAttribute(
    'aria-label',
    `Cumulative distribution of seek distances (log scale) for ${series.map((s) => s.label).join(' and ')}; a dotted line marks 2 MiB. The tables have the numbers.`,
  );
  replaceChildren(
    distanceAlt,
    columns
      .map(
        (c) =>
          `${c.heading}: ${formatShare(c.pack.shortSeekShare)} of seeks under 2 MiB, ${formatShare(c.pack.backwardSeekShare)} backward.`,
      )
      .join(' '),
  );
  replaceChart(
    'distance',
    series.length === 0 ? undefined : () => distanceChart(distanceCanvas, series, readThemeColours()),
  );
}

/** The seek-distance percentiles, a column per pack under the same header as the reads and seeks. */
function renderPercentiles(columns: LocalityColumn[], headRow: HTMLTableRowElement): void {
  const percentiles = columns[0]!.pack.percentiles.map((p) => p.p);
  replaceChildren(
    percentileTable,
    h('caption', {}, 'Seek distance percentiles (nearest rank; hover a cell for the exact bytes)'),
    h('thead', {}, headRow.cloneNode(true) as HTMLTableRowElement),
    h(
      'tbody',
      {},
      ...percentiles.map((p) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, `${p}%`),
          ...columns.map((c) => {
            const bytes = c.pack.percentiles.find((q) => q.p === p)?.bytes;
            // Distances span bytes to hundreds of MiB: binary units read at a glance, the exact count is the hover.
            return h(
              'td',
              { 'data-value': bytes, title: bytes === undefined ? undefined : formatExactBytes(bytes) },
              bytes === undefined ? '—' : formatBytes(bytes, 'compact'),
            );
          }),
        ),
      ),
    ),
  );
  percentileTable.querySelector('thead th')!.textContent = 'percentile';
}
