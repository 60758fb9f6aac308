// The charts on the page, one per slot: a new one replaces the one before (Chart.js keeps its canvas).
import type { Chart, ChartType } from 'chart.js';

export const charts = new Map<string, { destroy(): void }>();

/** Each chart kind keeps its own type (a bar chart's options are not a line chart's), hence the parameter. */
export function replaceChart<T extends ChartType>(key: string, make: (() => Chart<T>) | undefined): void {
  charts.get(key)?.destroy();
  charts.delete(key);
  if (make === undefined) return;
  const chart = make();
  charts.set(key, chart);
  // What was drawn, readable from the DOM (Chart.js draws on a canvas): the series, the colours, the axis types.
  const canvas = chart.canvas;
  canvas.dataset.series = JSON.stringify(chart.data.datasets.map((d) => d.label ?? ''));
  canvas.dataset.colours = JSON.stringify(chart.data.datasets.map((d) => String(d.borderColor ?? '')));
  canvas.dataset.scales = JSON.stringify(
    Object.fromEntries(Object.entries(chart.scales).map(([id, scale]) => [id, scale.type])),
  );
  // The plotted values, per series (y of each point): the workbench scenario checks a relative view against the CLI.
  canvas.dataset.values = JSON.stringify(
    chart.data.datasets.map((d) =>
      (d.data as unknown[]).map((p) => (typeof p === 'object' && p !== null && 'y' in p ? (p as { y: unknown }).y : p)),
    ),
  );
}
