// How numbers, sizes and names are written in the Packs view and object documents.

// Counts and sizes read the same in the CLI, hovers, views and webviews: one definition, shared.
export { formatBytes, formatCount } from '../common/format.ts';

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
