import { formatLimit } from '../../src/common/format.ts';
import { kneeSentences, timeLabel, timeTableRows } from '../../src/presentation/time-view-text.ts';
import { h, replaceChildren } from '../common/dom.ts';
import { policyLabel } from './charts.ts';
import { kneeList, recommendationText, timeLabelText, timeTable } from './layout.ts';
import { received } from './page.ts';

/** The Time section: predicted seconds per limit and policy, the knees, the recommendation, all labelled an estimate. */
export function renderTime(): void {
  const sweep = received.sweep;
  const time = sweep?.result.time;
  timeTable.hidden = time === undefined;
  kneeList.hidden = time === undefined;
  recommendationText.hidden = time === undefined;
  if (sweep === undefined || time === undefined) {
    replaceChildren(timeTable);
    replaceChildren(kneeList);
    replaceChildren(recommendationText);
    replaceChildren(
      timeLabelText,
      sweep === undefined
        ? 'Run a sweep to see its predicted seconds.'
        : sweep.timePending
          ? 'Estimating time after the other results (the first time on a pack, git is timed on it for a calibration; then it is kept)…'
          : `No time estimate: ${sweep.result.timeError ?? 'the server gave none'}`,
    );
    return;
  }
  const { limits, policies } = sweep.request;
  const [header, ...rows] = timeTableRows(time, limits, policies);
  replaceChildren(timeLabelText, timeLabel(time));
  replaceChildren(
    timeTable,
    h(
      'caption',
      {},
      `Predicted seconds of the whole command (estimate) and speed-up against your ${formatLimit(time.currentLimit)}, by cache limit (rows) and policy (columns)`,
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...header!.map((text, i) => h('th', { scope: 'col', 'data-policy': i === 0 ? undefined : text }, text)),
      ),
    ),
    h(
      'tbody',
      {},
      ...rows.map((row, r) =>
        h(
          'tr',
          { 'data-limit': limits[r]!, class: limits[r] === time.currentLimit ? 'default-limit' : undefined },
          h(
            'th',
            { scope: 'row' },
            row[0]!,
            limits[r] === time.currentLimit ? h('span', { class: 'note' }, ' yours') : null,
          ),
          ...row.slice(1).map((text, c) => {
            const cell = time.cells.find((x) => x.policy === header![c + 1] && x.limit === limits[r]);
            return h(
              'td',
              {
                'data-policy': header![c + 1]!,
                'data-seconds': cell?.predictedSeconds,
                'data-speed-up': cell?.speedUp,
              },
              text === '' ? '—' : text,
            );
          }),
        ),
      ),
    ),
  );
  replaceChildren(kneeList, ...kneeSentences(time, policyLabel).map((sentence) => h('li', {}, sentence)));
  replaceChildren(recommendationText, h('strong', {}, 'Recommendation (estimate): '), time.recommendation);
}
