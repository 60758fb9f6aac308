// The Sweep tab's sweep: the chart (by view), the table and its notes, the reference sentences.
import { formatCount, formatLimit } from '../../src/common/format.ts';
import { checkedSuffix } from '../../src/common/checked-policies.ts';
import { planSweepChart, viewReference } from '../../src/presentation/sweep-chart-views.ts';
import {
  gitVersusReferenceSentences,
  metricWords,
  sweepCell,
  sweepCellText,
  sweepTableNotes,
  sweepTableTitle,
} from '../../src/presentation/sweep-table.ts';
import {
  type CacheLabState,
  GIT_DEFAULT_LIMIT,
  GIT_POLICY,
  REFERENCE_POLICY,
} from '../../src/protocol/cache-lab-protocol.ts';
import type { SweepResult } from '../../src/protocol/server-protocol.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { readThemeColours } from '../common/theme.ts';
import { replaceChart } from './chart-slots.ts';
import { policyLabel, sweepChart, zeroBoxHeight, zeroLimitChart } from './charts.ts';
import {
  copyMarkdownButton,
  copyTextButton,
  referenceList,
  sweepCanvas,
  sweepChartAlt,
  sweepNotes,
  sweepTable,
  zeroBox,
  zeroCanvas,
} from './layout.ts';
import { currentSweepPlaceholder, received, state } from './page.ts';
import { renderSummary } from './summary-view.ts';
import { renderTime } from './time-view.ts';
import { renderCompletion } from './completion-view.ts';

export function renderSweep(): void {
  renderSummary();
  renderCompletion();
  const sweep = received.sweep;
  copyTextButton.disabled = sweep === undefined;
  copyMarkdownButton.disabled = sweep === undefined;
  if (sweep === undefined) {
    replaceChildren(sweepTable);
    replaceChildren(referenceList);
    const placeholder = currentSweepPlaceholder();
    replaceChildren(sweepChartAlt, placeholder.chart);
    sweepCanvas.setAttribute('aria-label', placeholder.chart);
    replaceChildren(sweepNotes);
    zeroBox.hidden = true;
    replaceChart('sweep', undefined);
    replaceChart('sweep-zero', undefined);
    renderTime();
    return;
  }
  renderTime();
  const { limits, policies } = sweep.request;
  const { result } = sweep;
  const metric = state.metric;
  const title = sweepTableTitle(result, metric);

  renderSweepTable(result, limits, policies, metric, title);

  const sentences = gitVersusReferenceSentences(result, limits, metric);
  replaceChildren(
    referenceList,
    ...(sentences.length > 0
      ? sentences.map((s) => h('li', {}, s))
      : [h('li', {}, `Select both “${GIT_POLICY}” and “${REFERENCE_POLICY}” to compare them.`)]),
  );

  renderSweepChart(result, limits, policies, metric, title);
}

/** The table: rows = limits, columns = policies, as the delta-base-cache thread lays them out. */
function renderSweepTable(
  result: SweepResult,
  limits: number[],
  policies: string[],
  metric: CacheLabState['metric'],
  title: string,
): void {
  const head = h(
    'tr',
    {},
    h('th', { scope: 'col' }, 'limit'),
    ...policies.map((p) => {
      // A policy checked against a real build of git says which (docs/policies.md); the others are what-ifs.
      const build = result.results.find((cell) => cell.policy === p)?.checkedAgainst;
      return h(
        'th',
        { scope: 'col', class: classFor(p), 'data-policy': p, title: policyLabel(p) + checkedSuffix(build) },
        p,
        build ? h('span', { class: 'note', 'data-checked': build }, ' ✓') : null,
      );
    }),
  );
  const body = limits.map((limit) =>
    h(
      'tr',
      { class: limit === GIT_DEFAULT_LIMIT ? 'default-limit' : undefined, 'data-limit': limit },
      h(
        'th',
        { scope: 'row' },
        formatLimit(limit),
        limit === GIT_DEFAULT_LIMIT ? h('span', { class: 'note' }, ' default') : null,
      ),
      ...policies.map((policy) => {
        const cell = sweepCell(result.results, policy, limit);
        const value = cell?.[metric];
        if (cell === undefined || value === undefined)
          return h('td', { class: classFor(policy), 'data-policy': policy }, '—');
        // A cell that is not exact shows its bounds (or ≈), with why in the tooltip (git-internals §8.1).
        const exact = cell.exact === true;
        const tooltip = exact
          ? undefined
          : `Not exact: ${cell.exactness ?? 'unknown'}.${cell.bounds ? ` Git's count lies in ${sweepCellText(cell, metric, formatCount)}; the replay without hidden reads gives ${formatCount(value)}.` : ''}`;
        return h(
          'td',
          {
            class: classFor(policy) + (exact ? '' : ' inexact'),
            'data-policy': policy,
            'data-value': value,
            'data-exact': String(exact),
            title: tooltip,
          },
          sweepCellText(cell, metric, formatCount),
        );
      }),
    ),
  );
  replaceChildren(
    sweepTable,
    h(
      'caption',
      {},
      `${title[0]!.toUpperCase()}${title.slice(1)}, by cache limit (rows) and policy (columns). Git’s default limit is 96m.`,
    ),
    h('thead', {}, head),
    h('tbody', {}, ...body),
    ...(sweepTableNotes(result).length > 0
      ? [
          h(
            'tfoot',
            {},
            ...sweepTableNotes(result).map((note) =>
              h('tr', {}, h('td', { colspan: String(policies.length + 1), class: 'note' }, note)),
            ),
          ),
        ]
      : []),
  );
}

export const VIEW_WORDS: Record<CacheLabState['sweepView'], string> = {
  zoomed: 'vertical axis fitted to the data (not from 0)',
  'relative-belady': 'each policy divided by belady at the same limit (1× = belady)',
  'relative-git': "each policy divided by git at the same limit (1× = today's Git)",
  log: 'vertical log scale',
  linear: 'vertical axis from 0',
};

export function renderSweepChart(
  result: SweepResult,
  limits: number[],
  policies: string[],
  metric: CacheLabState['metric'],
  title: string,
): void {
  const plan = planSweepChart(result, limits, policies, metric, state.sweepView, state.zeroApart);
  const notes: string[] = [];
  if (plan.missingReference !== undefined)
    notes.push(
      `${plan.missingReference} is not in this sweep, so there is nothing to divide by: the chart shows the zoomed view. Select ${plan.missingReference} and press Run.`,
    );
  notes.push(...plan.coincidences);
  const zeroOnChart = plan.limits.includes(0);
  if (zeroOnChart && plan.view !== 'linear' && plan.view !== 'log' && plan.limits.length > 1)
    notes.push('Limit 0 does not set the scale: its points may lie above the top of the chart (the table has them).');
  if (plan.droppedZeroValues > 0)
    notes.push(
      `${formatCount(plan.droppedZeroValues)} ${plan.droppedZeroValues === 1 ? 'cell is' : 'cells are'} 0, which a log scale cannot show (the table has ${plan.droppedZeroValues === 1 ? 'it' : 'them'}).`,
    );
  replaceChildren(sweepNotes, ...notes.map((n) => h('li', {}, n)));
  const reference = viewReference(plan.view);
  const what = reference === undefined ? metricWords(metric) : `${metricWords(metric)} relative to ${reference}`;
  sweepCanvas.setAttribute(
    'aria-label',
    `Line chart: ${what} (vertical; ${VIEW_WORDS[plan.view]}) against the cache limit (horizontal, log scale${zeroOnChart ? ', 0 left of an axis break' : ''}), one line per policy: ${policies.join(', ')}. Today's Git is the thick line; a dotted vertical line marks the 96m default. The table below has the same numbers.`,
  );
  sweepCanvas.dataset.view = plan.view;
  const zeroWords =
    plan.zeroPanel !== undefined
      ? ' Limit 0 (no cache) is in the panel below it, on its own scale.'
      : zeroOnChart
        ? ' Limit 0 (no cache) sits left of the axis break (dashed).'
        : '';
  replaceChildren(
    sweepChartAlt,
    `${title[0]!.toUpperCase()}${title.slice(1)} by cache limit, one line per policy, ${VIEW_WORDS[plan.view]}.${zeroWords} The table below holds the same numbers.`,
  );
  replaceChart('sweep', () => sweepChart(sweepCanvas, { plan, metric }, readThemeColours()));
  const zero = plan.zeroPanel;
  zeroBox.hidden = zero === undefined || zero.length === 0;
  if (zero === undefined || zero.length === 0) replaceChart('sweep-zero', undefined);
  else {
    zeroCanvas.setAttribute(
      'aria-label',
      `Bar chart: ${metricWords(metric)} at limit 0 (no cache), one bar per policy: ${zero.map((z) => `${z.policy} ${z.value}`).join(', ')}.`,
    );
    // Through the CSSOM: inline style attributes would need 'unsafe-inline' under the CSP.
    zeroBox.style.height = `${zeroBoxHeight(zero.length)}px`;
    replaceChart('sweep-zero', () => zeroLimitChart(zeroCanvas, zero, metric, readThemeColours()));
  }
}

export function classFor(policy: string): string | undefined {
  if (policy === GIT_POLICY) return 'policy-git';
  if (policy === REFERENCE_POLICY) return 'policy-reference';
  return undefined;
}
