/**
 * Number formatting shared by every side that shows PackScope's numbers to people (CLI, server
 * hovers, extension views, webviews), so a size reads the same everywhere. Pure functions only.
 */

/**
 * Binary units: `312 B`, `1.2 KiB`, `496.3 MiB`. 'compact' (the Cache Lab's tables and chart axes,
 * where columns are narrow) drops the decimal from 100 up: `496 MiB`.
 */
export function formatBytes(bytes: number, style: 'one-decimal' | 'compact' = 'one-decimal'): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${bytes} B`;
  return `${style === 'compact' && value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** The exact count behind a rounded size, for a hover (title): `1,234,567 bytes`, `1 byte`. */
export function formatExactBytes(bytes: number): string {
  return `${formatCount(bytes)} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

/** A share as a percentage with one decimal: `12.5%`; `–` when there is none. */
export function formatShare(share: number | null | undefined): string {
  return share === null || share === undefined ? '–' : `${(share * 100).toFixed(1)}%`;
}

let countFormat: Intl.NumberFormat | undefined;

/**
 * Thousands separated: `849,014`. Whole numbers are grouped here: making an Intl.NumberFormat loads
 * ICU data, a dozen milliseconds that the extension's activation and a CLI run that reopens a stored
 * model (its whole work some 50 ms) cannot spare. Anything else goes to one shared formatter
 * (toLocaleString builds one per call), made on first use.
 */
export function formatCount(n: number): string {
  if (Number.isSafeInteger(n)) {
    const digits = String(Math.abs(n));
    let grouped = digits.slice(0, ((digits.length - 1) % 3) + 1);
    for (let at = grouped.length; at < digits.length; at += 3) grouped += `,${digits.slice(at, at + 3)}`;
    return n < 0 || Object.is(n, -0) ? `-${grouped}` : grouped;
  }
  countFormat ??= new Intl.NumberFormat('en-US');
  return countFormat.format(n);
}

/**
 * A simulated count as it may be shown (git-internals §8.1: a recording can hide reads): the
 * number when the cell is exact, `min–max` when it has bounds that differ, `≈n` when it has
 * neither (the policy or the recording allows no bounds). Never a bare number for a cell that is
 * not exact.
 */
export function formatSimulatedCount(
  value: number,
  exact: boolean,
  range: readonly [number, number] | null | undefined,
  show: (n: number) => string = String,
): string {
  if (exact) return show(value);
  if (range && range[0] === range[1]) return show(range[0]);
  if (range) return `${show(range[0])}–${show(range[1])}`;
  return `≈${show(value)}`;
}

/** `0`, `512k`, `96m`, `1g`: a cache limit in git's size suffixes (base 1024) when it has an exact one, else in bytes. */
export function formatLimit(bytes: number): string {
  if (bytes === 0) return '0';
  for (const [unit, scale] of [
    ['g', 1024 ** 3],
    ['m', 1024 ** 2],
    ['k', 1024],
  ] as const) {
    if (bytes % scale === 0) return `${bytes / scale}${unit}`;
  }
  return String(bytes);
}

/**
 * How a signed percentage is written. 'ascii': the CLI's text (README "Previewing a repack"):
 * `+0.8%`, `-1.1%`, `+0.0%`, easy to grep and to type. 'typographic': the views' text: a true minus
 * sign (`−1.1%`) and no sign on zero (`0.0%`).
 */
export type SignStyle = 'ascii' | 'typographic';

/** A percentage with its sign, one decimal. */
export function formatSignedPercent(percent: number, style: SignStyle): string {
  if (style === 'ascii') return `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}%`;
  return `${percent > 0 ? '+' : percent < 0 ? '−' : ''}${Math.abs(percent).toFixed(1)}%`;
}

/** The change from `before` to `after` in percent of `before`: `new` when only `after` is non-zero, `–` when either is unknown. */
export function formatPercentChange(before: number | null, after: number | null, style: SignStyle): string {
  if (before === null || after === null) return '–';
  if (before === 0) return after === 0 ? (style === 'ascii' ? '0%' : '0.0%') : 'new';
  return formatSignedPercent(((after - before) / before) * 100, style);
}

/**
 * A count with its noun, singular for exactly one: `1 object`, `849,014 objects`, `0 delta
 * children` (pass the plural when it is not the singular plus "s").
 */
export function formatCountOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : plural}`;
}

/** `done` of `total` as a whole percentage for a progress line, at most 100 (100 when there is nothing to do). */
export function percent(done: number, total: number): number {
  return total === 0 ? 100 : Math.min(100, Math.floor((100 * done) / total));
}
