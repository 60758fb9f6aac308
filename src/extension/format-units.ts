// How numbers, sizes and names are written in the Packs view and object documents.

const COUNT = new Intl.NumberFormat('en-US');

/** `1,234,567`. */
export function formatCount(value: number): string {
  return COUNT.format(value);
}

/** `512 B`, `1.2 KiB`, `3.4 MiB`, … (binary units, as git's own `count-objects -H`). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** The first 10 hex digits: unique in all but huge repositories, and what the view has room for. */
export function shortOid(oid: string): string {
  return oid.slice(0, 10);
}

/** `pack-1a2b3c4….pack` → `pack-1a2b3c4…`. */
export function shortPackName(name: string): string {
  const match = /^pack-([0-9a-f]+)\.pack$/.exec(name);
  if (match === null) return name;
  return `pack-${match[1]!.slice(0, 7)}…`;
}
