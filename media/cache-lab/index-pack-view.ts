import { formatBytes, formatCount, formatLimit } from '../../src/common/format.ts';
import { baseName, h, replaceChildren } from '../common/dom.ts';
import { readThemeColours } from '../common/theme.ts';
import { charts, replaceChart } from './chart-slots.ts';
import { indexPackChart } from './charts.ts';
import { indexPackBox } from './layout.ts';
import { received } from './page.ts';

export const INDEX_PACK_COUNTS: [string, string][] = [
  ['inflations', 'inflations'],
  ['deltaApplications', 'delta applications'],
  ['reconstructions', 'base reconstructions'],
  ['peakBytes', 'peak base bytes'],
];

export function renderIndexPack(): void {
  const results = received.indexPack;
  for (const key of [...charts.keys()]) if (key.startsWith('index-pack-')) replaceChart(key, undefined);
  if (results === undefined || results.length === 0) {
    replaceChildren(
      indexPackBox,
      h('p', { class: 'explanation' }, results === undefined ? 'Not simulated yet.' : 'The recording names no pack.'),
    );
    return;
  }
  replaceChildren(indexPackBox);
  results.forEach((result, k) => {
    const variants = result.variants;
    const table = h(
      'table',
      { class: 'numbers index-pack-table' },
      h(
        'caption',
        {},
        `${baseName(result.pack)}: ${formatCount(result.objects ?? 0)} objects, core.deltaBaseCacheLimit=${formatLimit(result.limit)}`,
      ),
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col' }, 'count'), ...variants.map((v) => h('th', { scope: 'col' }, v.variant))),
      ),
      h(
        'tbody',
        {},
        ...INDEX_PACK_COUNTS.filter(([field]) => variants.some((v) => typeof v[field] === 'number')).map(
          ([field, words]) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, words),
              ...variants.map((v) => {
                const value = v[field];
                return h(
                  'td',
                  { 'data-value': typeof value === 'number' ? value : undefined },
                  typeof value === 'number'
                    ? field === 'peakBytes'
                      ? formatBytes(value, 'compact')
                      : formatCount(value)
                    : '—',
                );
              }),
            ),
        ),
      ),
    );
    const canvas = h('canvas', {
      role: 'img',
      'aria-label': `Bar chart of index-pack inflations per variant for ${baseName(result.pack)}: ${variants.map((v) => `${v.variant} ${v.inflations}`).join(', ')}.`,
    });
    indexPackBox.append(h('div', { class: 'side-by-side' }, table, h('div', { class: 'chart-box small' }, canvas)));
    replaceChart(`index-pack-${k}`, () => indexPackChart(canvas, result, readThemeColours()));
  });
}
