// Measure for real: the measured wall times against the simulation and the prediction.
import { formatCount, formatLimit } from '../../src/common/format.ts';
import { sweepCell, sweepCellText } from '../../src/presentation/sweep-table.ts';
import {
  faultSentence,
  faultsOfBestRun,
  heapSentence,
  measuredAgainstPredicted,
  measuredSentences,
  type MeasuredComparison,
} from '../../src/presentation/time-view-text.ts';
import type { SimCell } from '../../src/protocol/server-protocol.ts';
import { GIT_POLICY } from '../../src/protocol/cache-lab-protocol.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { readThemeColours } from '../common/theme.ts';
import { replaceChart } from './chart-slots.ts';
import { measureChart } from './charts.ts';
import { measureCanvas, measureCommand, measureFigure, measureNotes, measureTable } from './layout.ts';
import { received } from './page.ts';

type Measure = NonNullable<typeof received.measure>;

export function renderMeasure(): void {
  const measure = received.measure;
  measureFigure.hidden = measure === undefined;
  measureTable.hidden = measure === undefined;
  measureCommand.hidden = measure === undefined;
  measureNotes.hidden = measure === undefined;
  renderCommandLine(measure);
  if (measure === undefined) {
    replaceChart('measure', undefined);
    return;
  }
  const limits = measure.result.results.map((r) => r.limit);
  const simulatedCells = limits.map((limit) =>
    received.sweep === undefined ? undefined : sweepCell(received.sweep.result.results, GIT_POLICY, limit),
  );
  const simulated = simulatedCells.map((cell) => cell?.inflations ?? null);
  const measured = measure.result.results.map((r) => r.bestSeconds);
  const time = received.sweep?.result.time;
  const comparison = time === undefined ? undefined : measuredAgainstPredicted(time, measure.result);
  renderNotes(measure, comparison);
  renderTable(measure, simulatedCells, comparison);
  measureCanvas.setAttribute(
    'aria-label',
    `Chart with two vertical axes: simulated inflations of Git's LRU (left) and measured best wall time in seconds (right) against the cache limit (log scale). The table below has the same numbers.`,
  );
  replaceChildren(
    document.getElementById('measure-chart-alt')!,
    `Measured ${measure.command} at ${limits.length} limits; see the table for the numbers.`,
  );
  replaceChart('measure', () => measureChart(measureCanvas, { limits, simulated, measured }, readThemeColours()));
}

/** The command that ran, where, and whether its line was rebuilt from a bare trace. */
function renderCommandLine(measure: Measure | undefined): void {
  if (measure === undefined) {
    replaceChildren(measureCommand);
    return;
  }
  replaceChildren(
    measureCommand,
    'Ran ',
    h('code', {}, measure.command),
    measure.cwd === undefined ? '' : ` in ${measure.cwd}`,
    '.',
  );
  if (measure.reconstructed === true) {
    measureCommand.append(
      h('br'),
      h(
        'span',
        { class: 'warning', id: 'measure-reconstructed' },
        '⚠ The command line was reconstructed from the trace (it has no recording metadata) and may be inexact.',
      ),
    );
  }
}

/** What the measured times say against the prediction, the page faults, the heap and the kept split. */
function renderNotes(measure: Measure, comparison: MeasuredComparison | undefined): void {
  const faults = faultSentence(
    measure.result.results.map((r) => ({ limit: r.limit, minorFaults: faultsOfBestRun(r) })),
  );
  measureNotes.hidden = false;
  replaceChildren(
    measureNotes,
    ...(comparison === undefined
      ? [
          h('li', {}, 'No predicted time to compare with: run the sweep in a trusted workspace for its time estimate.'),
          ...(faults === undefined ? [] : [h('li', {}, faults)]),
        ]
      : measuredSentences(comparison).map((sentence) => h('li', {}, sentence))),
    ...[heapSentence(measure.result.results)].flatMap((sentence) =>
      sentence === undefined ? [] : [h('li', {}, sentence)],
    ),
    ...(measure.result.kept ? [h('li', {}, `The split of this command's time: ${measure.result.kept.note}.`)] : []),
  );
}

// Stays long: one table built as the DOM it is, a column per figure in the order the header names them.
function renderTable(
  measure: Measure,
  simulatedCells: (SimCell | undefined)[],
  comparison: MeasuredComparison | undefined,
): void {
  const keptHeap = measure.result.results.some((r) => r.keptHeap !== undefined);
  replaceChildren(
    measureTable,
    h(
      'caption',
      {},
      `${measure.command}: measured wall time (git ${measure.result.gitVersion}) and simulated inflations of Git's LRU, by core.deltaBaseCacheLimit`,
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'limit'),
        h('th', { scope: 'col' }, 'simulated inflations (git)'),
        h('th', { scope: 'col' }, 'best wall time (s)'),
        h('th', { scope: 'col' }, 'predicted (s, estimate)'),
        h('th', { scope: 'col' }, 'error'),
        h('th', { scope: 'col' }, 'page faults (best run)'),
        ...(keptHeap ? [h('th', { scope: 'col' }, 'kept heap: best (s), page faults')] : []),
        h('th', { scope: 'col' }, 'all runs (s)'),
      ),
    ),
    h(
      'tbody',
      {},
      ...measure.result.results.map((r, i) =>
        h(
          'tr',
          { 'data-limit': r.limit },
          h('th', { scope: 'row' }, formatLimit(r.limit)),
          h(
            'td',
            { 'data-value': simulatedCells[i]?.inflations ?? undefined },
            simulatedCells[i] === undefined ? '—' : sweepCellText(simulatedCells[i]!, 'inflations', formatCount),
          ),
          h('td', { 'data-value': r.bestSeconds }, r.bestSeconds.toFixed(3)),
          h(
            'td',
            { class: 'predicted', 'data-value': comparison?.rows[i]?.predicted ?? undefined },
            comparison?.rows[i]?.needs
              ? `needs completion at ${comparison.rows[i]!.needs!.limits.map(formatLimit).join(', ')}`
              : comparison?.rows[i]?.predicted == null
                ? '—'
                : comparison.rows[i]!.predicted!.toFixed(3),
          ),
          h(
            'td',
            { class: 'error', 'data-value': comparison?.rows[i]?.error ?? undefined },
            comparison?.rows[i]?.error == null
              ? '—'
              : `${comparison.rows[i]!.error! >= 0 ? '+' : ''}${(comparison.rows[i]!.error! * 100).toFixed(1)}%`,
          ),
          h(
            'td',
            { class: 'faults', 'data-value': faultsOfBestRun(r) ?? undefined },
            faultsOfBestRun(r) === null ? '—' : formatCount(faultsOfBestRun(r)!),
          ),
          ...(keptHeap
            ? [
                h(
                  'td',
                  { class: 'kept-heap', 'data-value': r.keptHeap?.bestSeconds ?? undefined },
                  r.keptHeap === undefined
                    ? '—'
                    : `${r.keptHeap.bestSeconds.toFixed(3)}, ${faultsOfBestRun(r.keptHeap) === null ? '—' : formatCount(faultsOfBestRun(r.keptHeap)!)}`,
                ),
              ]
            : []),
          h('td', {}, r.seconds.map((s) => s.toFixed(3)).join(', ')),
        ),
      ),
    ),
  );
}
