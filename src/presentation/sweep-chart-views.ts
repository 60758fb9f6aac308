/**
 * What the Cache Lab's sweep chart plots in each of its views. On a linear axis from 0 the worst
 * cell (libgit2 at limit 0, no cache) sets the scale and every policy from 1m up is one flat line:
 * the 3–25% differences the table shows are a few pixels. The views that make them visible: a log
 * axis, a linear axis fitted to the data without limit 0 ("zoomed"), and each policy's ratio to the
 * reference bound or to today's Git at the same limit; limit 0 can move to its own panel. Pure: the
 * webview draws with it, the tests check it.
 */
import {
  GIT_POLICY,
  REFERENCE_POLICY,
  type CacheLabMetric,
  type SweepChartView,
} from '../protocol/cache-lab-protocol.ts';
import { formatLimit } from '../common/format.ts';
import type { SweepResult } from '../protocol/server-protocol.ts';
import { sweepCell } from './sweep-table.ts';

export const SWEEP_CHART_VIEWS: readonly { view: SweepChartView; label: string }[] = [
  { view: 'zoomed', label: 'Zoomed (fitted to the data, limit 0 aside)' },
  { view: 'relative-belady', label: 'Relative to belady (ratio)' },
  { view: 'relative-git', label: 'Relative to git (ratio)' },
  { view: 'log', label: 'Log scale' },
  { view: 'linear', label: 'Linear from 0' },
];

/** The policy a relative view divides by, or undefined for the absolute views. */
export function viewReference(view: SweepChartView): string | undefined {
  if (view === 'relative-belady') return REFERENCE_POLICY;
  if (view === 'relative-git') return GIT_POLICY;
  return undefined;
}

export interface PlottedPoint {
  limit: number;
  /** What the y axis shows: the metric, or its ratio to the reference policy at the same limit. */
  y: number;
  /** The metric itself (the tooltip's number). */
  value: number;
}

export interface PlottedSeries {
  policy: string;
  points: PlottedPoint[];
  /** The first policy (in the chart's order) this one coincides with at every limit plotted. */
  sameAs?: string;
}

export interface SweepChartPlan {
  view: SweepChartView;
  /** The limits on the main chart's x axis (without 0 when limit 0 has its own panel). */
  limits: number[];
  series: PlottedSeries[];
  /** Limit 0's value per policy, when limit 0 is drawn in its own panel and the sweep has it. */
  zeroPanel?: { policy: string; value: number }[];
  /** The y axis range of the views that do not start at 0 (zoomed, relative, log). */
  yRange?: { min: number; max: number };
  /** Set when a relative view's reference policy is not in the sweep: the chart falls back to zoomed. */
  missingReference?: string;
  /** Points a log axis cannot place (a value of 0). */
  droppedZeroValues: number;
  /** Sentences for the caption: which series coincide, in the chart and at limit 0. */
  coincidences: string[];
}

/** Groups of policies with identical values at every given limit (each group in the chart's order). */
function coincidingGroups(entries: { policy: string; values: (number | undefined)[] }[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const entry of entries) {
    if (entry.values.length === 0 || entry.values.some((v) => v === undefined)) continue;
    const key = entry.values.join(',');
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [entry.policy]);
    else group.push(entry.policy);
  }
  return [...groups.values()].filter((group) => group.length > 1);
}

function listWords(items: readonly string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The range of `values` with a margin of `margin` of the span (and of the value when all are equal). */
function paddedRange(
  values: readonly number[],
  margin: number,
  floor?: number,
): { min: number; max: number } | undefined {
  if (values.length === 0) return undefined;
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high > low ? high - low : Math.max(Math.abs(high) * 0.05, 1e-9);
  let min = low - span * margin;
  if (floor !== undefined) min = Math.max(floor, min);
  return { min, max: high + span * margin };
}

// Stays long: one chart plan: the view chosen, then its series and axes, each depending on the one before.
export function planSweepChart(
  result: SweepResult,
  limits: readonly number[],
  policies: readonly string[],
  metric: CacheLabMetric,
  requestedView: SweepChartView,
  zeroApart: boolean,
): SweepChartPlan {
  let view = requestedView;
  let missingReference: string | undefined;
  const wantedReference = viewReference(view);
  if (wantedReference !== undefined && !policies.includes(wantedReference)) {
    missingReference = wantedReference;
    view = 'zoomed';
  }
  const reference = viewReference(view);
  const sorted = [...limits].sort((a, b) => a - b);
  // The zoomed view always fits its axis without limit 0; with limit 0 kept on the chart its points lie above the top.
  const plottedLimits = zeroApart && sorted.some((l) => l > 0) ? sorted.filter((l) => l > 0) : sorted;
  let droppedZeroValues = 0;

  const series: PlottedSeries[] = policies.map((policy) => {
    const points = plottedLimits.flatMap((limit): PlottedPoint[] => {
      const cell = sweepCell(result.results, policy, limit);
      if (cell === undefined) return [];
      const value = cell[metric];
      if (reference === undefined) {
        if (view === 'log' && value <= 0) {
          droppedZeroValues++;
          return [];
        }
        return [{ limit, y: value, value }];
      }
      const base = sweepCell(result.results, reference, limit)?.[metric];
      if (base === undefined) return [];
      if (base === 0) return value === 0 ? [{ limit, y: 1, value }] : [];
      return [{ limit, y: value / base, value }];
    });
    return { policy, points };
  });

  const coincidences: string[] = [];
  const groups = coincidingGroups(
    series.map((s) => ({
      policy: s.policy,
      values: plottedLimits.map((limit) => s.points.find((p) => p.limit === limit)?.value),
    })),
  );
  for (const group of groups) {
    for (const policy of group.slice(1)) series.find((s) => s.policy === policy)!.sameAs = group[0];
    coincidences.push(
      `${listWords(group)} coincide at every limit shown (one line hides the other${group.length > 2 ? 's' : ''}).`,
    );
  }

  let zeroPanel: SweepChartPlan['zeroPanel'];
  if (plottedLimits.length < sorted.length) {
    zeroPanel = policies.flatMap((policy) => {
      const cell = sweepCell(result.results, policy, 0);
      return cell === undefined ? [] : [{ policy, value: cell[metric] }];
    });
    for (const group of coincidingGroups(zeroPanel.map((z) => ({ policy: z.policy, values: [z.value] })))) {
      coincidences.push(`At limit ${formatLimit(0)} (no cache), ${listWords(group)} coincide.`);
    }
  }

  let yRange: SweepChartPlan['yRange'];
  if (view !== 'linear') {
    // Limit 0 never sets the scale (it is what flattened the linear chart), unless it is all there is; the log axis takes it all.
    const onlyZero = plottedLimits.every((l) => l === 0);
    const fitted = series.flatMap((s) =>
      s.points.filter((p) => view === 'log' || onlyZero || p.limit > 0).map((p) => p.y),
    );
    if (view === 'log') {
      const positive = fitted.filter((y) => y > 0);
      if (positive.length > 0) yRange = { min: Math.min(...positive) / 1.15, max: Math.max(...positive) * 1.15 };
    } else yRange = paddedRange(fitted, 0.08, view === 'zoomed' ? 0 : undefined);
  }

  return { view, limits: plottedLimits, series, zeroPanel, yRange, missingReference, droppedZeroValues, coincidences };
}

/** A ratio as the relative views' axis and tooltips write it: `1.05×`. */
export function formatRatio(ratio: number): string {
  return `${ratio.toFixed(Math.abs(ratio - 1) < 0.1 ? 3 : 2)}×`;
}
