// Every chart of the Cache Lab, drawn by Chart.js (v4, bundled; no eval, so the nonce CSP holds).
// The charts only place the numbers the host sent; the tables next to them hold the same numbers.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  Ticks,
  Tooltip,
  type Scale,
  type Tick,
  type ChartDataset,
  type ScaleOptionsByType,
  type TooltipItem,
} from 'chart.js';
import {
  GIT_DEFAULT_LIMIT,
  GIT_POLICY,
  REFERENCE_POLICY,
  type CacheLabMetric,
} from '../../src/protocol/cache-lab-protocol.ts';
import { metricWords } from '../../src/presentation/sweep-table.ts';
import { formatRatio, viewReference, type SweepChartPlan } from '../../src/presentation/sweep-chart-views.ts';
import type { IndexPackSimResult } from '../../src/protocol/server-protocol.ts';
import { formatBytes, formatCount, formatLimit } from '../../src/common/format.ts';
import type { ThemeColours } from '../common/theme.ts';

/**
 * Where each point was drawn, in CSS pixels of the canvas, after every render: `data-points` holds
 * one [[x, y], …] list per dataset. Chart.js draws on a canvas, so this is how a test (or a screen
 * reader's tooling) reads what the picture shows: that two series are apart, not only that they exist.
 */
const drawnPoints = {
  id: 'drawnPoints',
  afterRender(chart: Chart) {
    const points = chart.data.datasets.map((_, i) =>
      chart.getDatasetMeta(i).data.map((element) => [Math.round(element.x * 10) / 10, Math.round(element.y * 10) / 10]),
    );
    chart.canvas.dataset.points = JSON.stringify(points);
    // The tick labels each axis drew (after Chart.js skipped those it found no room for), with their
    // pixel: a bar without a label beside it is a bar nobody can name.
    chart.canvas.dataset.ticks = JSON.stringify(
      Object.fromEntries(
        Object.entries(chart.scales).map(([id, scale]) => [
          id,
          scale.ticks.map((tick, i) => [String(tick.label), Math.round(scale.getPixelForTick(i) * 10) / 10]),
        ]),
      ),
    );
  },
};

Chart.register(
  LineController,
  LineElement,
  PointElement,
  BarController,
  BarElement,
  LinearScale,
  LogarithmicScale,
  CategoryScale,
  Legend,
  Tooltip,
  drawnPoints,
);

const POINT_STYLES = ['circle', 'triangle', 'rect', 'rectRot', 'star', 'crossRot', 'rectRounded', 'cross'] as const;

/**
 * The cache-limit axis is logarithmic (1m … 1g spans three decades). Limit 0 ("no cache") has no
 * place on a log axis, so it is drawn two octaves left of the smallest non-zero limit, at a tick
 * labelled "0", and the segment joining it to that limit is dashed to show the axis break. The
 * tooltip and the table give its real value.
 */
export interface LimitAxis {
  /** Where a limit is drawn (bytes; 0 mapped to its stand-in position). */
  position(limit: number): number;
  label(position: number): string;
  zeroPosition: number | undefined;
  scale(colours: ThemeColours, title: string): ScaleOptionsByType<'logarithmic'>;
}

export function limitAxis(limits: readonly number[]): LimitAxis {
  const nonZero = limits.filter((l) => l > 0).sort((a, b) => a - b);
  const hasZero = limits.includes(0);
  const zeroPosition = hasZero ? (nonZero.length > 0 ? nonZero[0]! / 4 : 1024) : undefined;
  const position = (limit: number): number => (limit === 0 ? (zeroPosition ?? 1) : limit);
  const labels = new Map<number, string>();
  for (const limit of limits) labels.set(position(limit), formatLimit(limit));
  const positions = [...labels.keys()].sort((a, b) => a - b);
  const min = positions[0]! / 1.6;
  const max = positions[positions.length - 1]! * 1.6;
  return {
    position,
    zeroPosition,
    label: (value) => labels.get(value) ?? formatLimit(value),
    scale: (colours, title) =>
      ({
        type: 'logarithmic',
        min,
        max,
        title: { display: true, text: title, color: colours.foreground },
        grid: { color: colours.grid },
        border: { color: colours.grid },
        ticks: {
          color: colours.foreground,
          autoSkip: false,
          maxRotation: 0,
          callback: (value: number | string) => labels.get(Number(value)) ?? '',
        },
        afterBuildTicks: (axis: { ticks: { value: number }[] }) => {
          axis.ticks = positions.map((value) => ({ value }));
        },
      }) as unknown as ScaleOptionsByType<'logarithmic'>,
  };
}

function baseOptions(colours: ThemeColours, ariaTitle: string) {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false as const,
    color: colours.foreground,
    font: { family: colours.fontFamily, size: colours.fontSize },
    plugins: {
      legend: { labels: { color: colours.foreground, usePointStyle: true, boxHeight: 8 } },
      tooltip: { enabled: true },
      title: { display: false, text: ariaTitle },
    },
  };
}

/** Vertical marker drawn as a dataset (it shows in the legend, so it is named and not colour-only). */
function markerDataset(
  x: number,
  bottom: number,
  top: number,
  label: string,
  colour: string,
): ChartDataset<'line', { x: number; y: number }[]> {
  return {
    label,
    data: [
      { x, y: bottom },
      { x, y: top },
    ],
    borderColor: colour,
    backgroundColor: colour,
    borderDash: [2, 4],
    borderWidth: 1.5,
    pointRadius: 0,
    pointHoverRadius: 0,
    pointStyle: 'line',
    order: 10,
  };
}

export function policyLabel(policy: string): string {
  if (policy === GIT_POLICY) return "git (today's Git)";
  if (policy === REFERENCE_POLICY) return 'belady (reference bound)';
  return policy;
}

export interface SweepChartInput {
  /** What to plot (src/presentation/sweep-chart-views.ts: the view, the limits, the series, the y range). */
  plan: SweepChartPlan;
  metric: CacheLabMetric;
}

function metricTick(metric: CacheLabMetric, value: number): string {
  return metric === 'inflatedBytes' ? formatBytes(value, 'compact') : formatCount(value);
}

/** The y axis of each view: linear from 0, fitted linear (zoomed), ratio (relative), or logarithmic. */
function sweepYAxis(plan: SweepChartPlan, metric: CacheLabMetric, colours: ThemeColours) {
  const reference = viewReference(plan.view);
  const common = { grid: { color: colours.grid }, border: { color: colours.grid } };
  const words = metricWords(metric);
  if (reference !== undefined) {
    return {
      ...common,
      type: 'linear' as const,
      // Suggested, not fixed: the axis rounds the range out to whole ticks.
      suggestedMin: plan.yRange?.min,
      suggestedMax: plan.yRange?.max,
      title: { display: true, text: `${words} ÷ ${reference} (1× = ${reference})`, color: colours.foreground },
      ticks: {
        color: colours.foreground,
        callback(this: Scale, value: number | string, index: number, ticks: Tick[]) {
          return `${Ticks.formatters.numeric.call(this, Number(value), index, ticks)}×`;
        },
      },
    };
  }
  if (plan.view === 'log') {
    return {
      ...common,
      type: 'logarithmic' as const,
      min: plan.yRange?.min,
      max: plan.yRange?.max,
      title: { display: true, text: `${words} (log scale)`, color: colours.foreground },
      ticks: { color: colours.foreground, callback: (value: number | string) => metricTick(metric, Number(value)) },
      // The fitted range's own ends are not round numbers, and collide with the round ticks next to them.
      afterBuildTicks: (axis: { ticks: { value: number }[]; min: number; max: number }) => {
        const inner = axis.ticks.filter((t) => t.value !== axis.min && t.value !== axis.max);
        if (inner.length >= 2) axis.ticks = inner;
      },
    };
  }
  return {
    ...common,
    type: 'linear' as const,
    beginAtZero: plan.view === 'linear',
    suggestedMin: plan.view === 'zoomed' ? plan.yRange?.min : undefined,
    suggestedMax: plan.view === 'zoomed' ? plan.yRange?.max : undefined,
    title: {
      display: true,
      text: plan.view === 'zoomed' ? `${words} (axis fitted to the data, not from 0)` : words,
      color: colours.foreground,
    },
    ticks: { color: colours.foreground, callback: (value: number | string) => metricTick(metric, Number(value)) },
  };
}

// Stays long: one Chart.js configuration, its datasets and then its axes, which depend on the datasets' range.
export function sweepChart(
  canvas: HTMLCanvasElement,
  input: SweepChartInput,
  colours: ThemeColours,
): Chart<'line', { x: number; y: number }[]> {
  const { plan, metric } = input;
  const axis = limitAxis(plan.limits);
  const reference = viewReference(plan.view);
  let top = 0;
  let nextColour = 1;
  const datasets: ChartDataset<'line', { x: number; y: number }[]>[] = plan.series.map((series, index) => {
    const data = series.points.map((p) => {
      top = Math.max(top, p.y);
      return { x: axis.position(p.limit), y: p.y };
    });
    const policy = series.policy;
    const isGit = policy === GIT_POLICY;
    // Today's Git always gets the first colour; the others take the rest in order.
    const colour = isGit ? colours.series[0]! : colours.series[1 + ((nextColour++ - 1) % (colours.series.length - 1))]!;
    return {
      label: series.sameAs === undefined ? policyLabel(policy) : `${policyLabel(policy)} (same as ${series.sameAs})`,
      data,
      borderColor: colour,
      backgroundColor: colour,
      borderWidth: isGit ? 4 : colours.highContrast ? 2.5 : 1.75,
      borderDash: policy === REFERENCE_POLICY ? [6, 4] : series.sameAs !== undefined ? [3, 3] : undefined,
      pointStyle: POINT_STYLES[index % POINT_STYLES.length],
      // A series that coincides with an earlier one gets large hollow points: its marks ring the other's.
      pointRadius: isGit ? 5 : series.sameAs !== undefined ? 9 : 3.5,
      pointBackgroundColor: series.sameAs !== undefined ? 'transparent' : colour,
      pointBorderWidth: series.sameAs !== undefined ? 2 : 1,
      order: isGit ? 0 : 1 + index,
      segment: {
        borderDash: (context) =>
          axis.zeroPosition !== undefined && context.p0.parsed.x === axis.zeroPosition ? [2, 3] : undefined,
      },
    };
  });
  const sorted = [...plan.limits].sort((a, b) => a - b);
  const [low, high] = [axis.position(sorted[0]!), axis.position(sorted[sorted.length - 1]!)];
  if (GIT_DEFAULT_LIMIT >= low && GIT_DEFAULT_LIMIT <= high) {
    const bottom = plan.view === 'linear' ? 0 : (plan.yRange?.min ?? 0);
    datasets.push(
      markerDataset(
        GIT_DEFAULT_LIMIT,
        bottom,
        plan.view === 'linear' ? top : (plan.yRange?.max ?? top),
        "96m: Git's default core.deltaBaseCacheLimit",
        colours.muted,
      ),
    );
  }
  const options = baseOptions(colours, `${metricWords(metric)} by cache limit`);
  const zeroOnAxis = axis.zeroPosition !== undefined;
  return new Chart(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      ...options,
      parsing: false,
      interaction: { mode: 'nearest', intersect: false, axis: 'x' },
      scales: {
        x: axis.scale(
          colours,
          zeroOnAxis ? 'cache limit (log scale; 0 = no cache, left of the axis break)' : 'cache limit (log scale)',
        ),
        y: sweepYAxis(plan, metric, colours),
      },
      plugins: {
        ...options.plugins,
        tooltip: {
          filter: (item: TooltipItem<'line'>) => item.datasetIndex < plan.series.length,
          callbacks: {
            title: (items: TooltipItem<'line'>[]) => (items[0] ? `limit ${axis.label(items[0].parsed.x ?? 0)}` : ''),
            label: (item: TooltipItem<'line'>) => {
              const point = plan.series[item.datasetIndex]?.points[item.dataIndex];
              const value = metricTick(metric, point?.value ?? item.parsed.y ?? 0);
              return reference === undefined
                ? `${item.dataset.label}: ${value}`
                : `${item.dataset.label}: ${formatRatio(item.parsed.y ?? 0)} (${value})`;
            },
          },
        },
      },
    },
  });
}

/** Limit 0 (no cache) on a panel of its own: one bar per policy, from 0, so it never flattens the sweep chart. */
export function zeroLimitChart(
  canvas: HTMLCanvasElement,
  values: { policy: string; value: number }[],
  metric: CacheLabMetric,
  colours: ThemeColours,
): Chart<'bar'> {
  const options = baseOptions(colours, `${metricWords(metric)} at limit 0`);
  let nextColour = 1;
  const barColours = values.map((v) =>
    v.policy === GIT_POLICY
      ? colours.series[0]!
      : colours.series[1 + ((nextColour++ - 1) % (colours.series.length - 1))]!,
  );
  return new Chart(canvas, {
    type: 'bar',
    data: {
      labels: values.map((v) => v.policy),
      datasets: [
        {
          label: `${metricWords(metric)} at limit 0 (no cache)`,
          data: values.map((v) => v.value),
          backgroundColor: barColours,
          borderColor: colours.foreground,
          borderWidth: colours.highContrast ? 1 : 0,
        },
      ],
    },
    options: {
      ...options,
      indexAxis: 'y',
      plugins: {
        ...options.plugins,
        legend: { display: false },
        tooltip: {
          callbacks: {
            label: (item: TooltipItem<'bar'>) =>
              `${policyLabel(String(item.label))}: ${metricTick(metric, Number(item.parsed.x))}`,
          },
        },
      },
      scales: {
        x: {
          beginAtZero: true,
          grid: { color: colours.grid },
          ticks: { color: colours.foreground, callback: (v) => metricTick(metric, Number(v)) },
          title: { display: true, text: `${metricWords(metric)} at limit 0 (no cache)`, color: colours.foreground },
        },
        // Every bar named: Chart.js skips category labels it finds crowded (8 bars showed 4 names);
        // the box grows with the bars instead (zeroBoxHeight).
        y: { grid: { display: false }, ticks: { color: colours.foreground, autoSkip: false } },
      },
    },
  });
}

/** The limit-0 panel's height in CSS pixels: room for a labelled bar per policy under the title and axis. */
export function zeroBoxHeight(bars: number): number {
  return Math.max(150, 70 + bars * 20);
}

export function indexPackChart(
  canvas: HTMLCanvasElement,
  result: IndexPackSimResult,
  colours: ThemeColours,
): Chart<'bar'> {
  const options = baseOptions(colours, 'index-pack inflations by variant');
  return new Chart(canvas, {
    type: 'bar',
    data: {
      labels: result.variants.map((v) => v.variant),
      datasets: [
        {
          label: `inflations at ${formatLimit(result.limit)}`,
          data: result.variants.map((v) => v.inflations),
          backgroundColor: result.variants.map((_, i) => colours.series[i % colours.series.length]!),
          borderColor: colours.foreground,
          borderWidth: colours.highContrast ? 1 : 0,
        },
      ],
    },
    options: {
      ...options,
      indexAxis: 'y',
      plugins: { ...options.plugins, legend: { display: false } },
      scales: {
        x: {
          beginAtZero: true,
          grid: { color: colours.grid },
          ticks: { color: colours.foreground },
          title: { display: true, text: 'inflations', color: colours.foreground },
        },
        y: { grid: { display: false }, ticks: { color: colours.foreground } },
      },
    },
  });
}

export interface MeasureChartInput {
  limits: number[];
  /** Simulated inflations of `git` at each limit (null where the sweep has no such cell). */
  simulated: (number | null)[];
  /** Best wall time (seconds) at each limit. */
  measured: (number | null)[];
}

/** Two y axes over one limit axis: simulated inflations (left) and measured wall time (right). */
export function measureChart(
  canvas: HTMLCanvasElement,
  input: MeasureChartInput,
  colours: ThemeColours,
): Chart<'line', { x: number; y: number }[]> {
  const axis = limitAxis(input.limits);
  const points = (values: (number | null)[]) =>
    input.limits
      .map((limit, i) => ({ limit, value: values[i] }))
      .filter((p): p is { limit: number; value: number } => p.value !== null && p.value !== undefined)
      .sort((a, b) => a.limit - b.limit)
      .map((p) => ({ x: axis.position(p.limit), y: p.value }));
  const options = baseOptions(colours, 'measured wall time and simulated inflations by cache limit');
  const simulatedColour = colours.series[0]!;
  const measuredColour = colours.series[5]!;
  return new Chart(canvas, {
    type: 'line',
    data: {
      datasets: [
        {
          label: 'simulated inflations (git)',
          data: points(input.simulated),
          yAxisID: 'y',
          borderColor: simulatedColour,
          backgroundColor: simulatedColour,
          borderWidth: 3,
          pointStyle: 'circle',
          pointRadius: 4,
        },
        {
          label: 'measured wall time, best of N (s)',
          data: points(input.measured),
          yAxisID: 'y1',
          borderColor: measuredColour,
          backgroundColor: measuredColour,
          borderWidth: 2,
          borderDash: [5, 3],
          pointStyle: 'triangle',
          pointRadius: 5,
        },
      ],
    },
    options: {
      ...options,
      parsing: false,
      scales: {
        x: axis.scale(colours, 'cache limit (log scale)'),
        y: {
          type: 'linear',
          position: 'left',
          beginAtZero: true,
          title: { display: true, text: 'simulated inflations', color: simulatedColour },
          grid: { color: colours.grid },
          ticks: { color: colours.foreground },
        },
        y1: {
          type: 'linear',
          position: 'right',
          beginAtZero: true,
          title: { display: true, text: 'wall time (s)', color: measuredColour },
          grid: { drawOnChartArea: false },
          ticks: { color: colours.foreground },
        },
      },
      plugins: {
        ...options.plugins,
        tooltip: {
          callbacks: {
            title: (items: TooltipItem<'line'>[]) => (items[0] ? `limit ${axis.label(items[0].parsed.x ?? 0)}` : ''),
          },
        },
      },
    },
  });
}

function formatBinaryTick(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let unit = 0;
  let value = bytes;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Math.round(value)} ${units[unit]}`;
}

export interface CdfSeries {
  label: string;
  /** Seek distances at p = 0 … 100 (the server's distanceQuantiles). */
  quantiles: number[];
}

/** The seek-distance CDF on a log axis: distance 0 (re-reading the same entry) is drawn at 1 B. */
export function distanceChart(
  canvas: HTMLCanvasElement,
  series: CdfSeries[],
  colours: ThemeColours,
): Chart<'line', { x: number; y: number }[]> {
  const datasets: ChartDataset<'line', { x: number; y: number }[]>[] = series.map((s, i) => {
    const colour = colours.series[i % colours.series.length]!;
    return {
      label: s.label,
      data: s.quantiles.map((bytes, p) => ({ x: Math.max(1, bytes), y: p / 100 })),
      borderColor: colour,
      backgroundColor: colour,
      borderWidth: 2,
      pointRadius: 0,
      stepped: 'after' as const,
      borderDash: i % 2 === 1 ? [6, 3] : undefined,
    };
  });
  datasets.push(markerDataset(2 * 1024 * 1024, 0, 1, '2 MiB: a short seek', colours.muted));
  const options = baseOptions(colours, 'seek distance CDF');
  return new Chart(canvas, {
    type: 'line',
    data: { datasets },
    options: {
      ...options,
      parsing: false,
      interaction: { mode: 'nearest', intersect: false },
      scales: {
        x: {
          type: 'logarithmic',
          min: 1,
          title: { display: true, text: 'seek distance (log scale; 0 drawn at 1 B)', color: colours.foreground },
          grid: { color: colours.grid },
          ticks: {
            color: colours.foreground,
            autoSkip: false,
            maxRotation: 0,
            callback: (value) => formatBinaryTick(Number(value)),
          },
          // Binary steps (1 B, 32 B, 1 KiB, 32 KiB, 1 MiB, …) instead of powers of ten, which read badly in KiB/MiB.
          afterBuildTicks: (axis: { ticks: { value: number }[]; max: number }) => {
            const ticks: { value: number }[] = [];
            for (let value = 1; value <= axis.max * 1.001; value *= 32) ticks.push({ value });
            axis.ticks = ticks;
          },
        },
        y: {
          type: 'linear',
          min: 0,
          max: 1,
          title: { display: true, text: 'share of seeks at most this far', color: colours.foreground },
          grid: { color: colours.grid },
          ticks: { color: colours.foreground, callback: (value) => `${Math.round(Number(value) * 100)}%` },
        },
      },
      plugins: {
        ...options.plugins,
        tooltip: {
          filter: (item: TooltipItem<'line'>) => item.datasetIndex < series.length,
          callbacks: {
            label: (item: TooltipItem<'line'>) =>
              `${item.dataset.label}: ${Math.round((item.parsed.y ?? 0) * 100)}% within ${formatBytes(item.parsed.x ?? 0, 'compact')}`,
          },
        },
      },
    },
  });
}
