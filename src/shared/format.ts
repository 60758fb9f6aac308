/**
 * Number formatting shared by every side that shows PackScope's numbers to people (CLI, server
 * hovers, extension views, webviews), so a size reads the same everywhere. Pure functions only.
 */

/** Binary units, one decimal: `312 B`, `1.2 KiB`, `496.3 MiB`. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

let countFormat: Intl.NumberFormat | undefined;

/**
 * Thousands separated: `849,014`. One shared formatter (toLocaleString builds one per call), made on
 * first use: creating it loads ICU data, a dozen milliseconds the extension's activation cannot spare.
 */
export function formatCount(n: number): string {
  countFormat ??= new Intl.NumberFormat('en-US');
  return countFormat.format(n);
}
