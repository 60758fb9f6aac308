/**
 * The words of the Packs view's storage rows: a pack's kind and marker files, the
 * multi-pack-index, loose objects as `git count-objects -v` counts them, and the alternates. Pure
 * (no vscode): the tree's nodes show these strings, the unit tests read them.
 */
import { formatBytes, formatCount, formatCountOf } from '../common/format.ts';
import type { ObjectWhereabouts, PackLayout, RepositoryListing } from '../protocol/server-protocol.ts';

/**
 * What a promisor pack is and what it means for a repack preview: the pack row's tooltip says it
 * (the row itself only says "promisor").
 */
export const PROMISOR_MEANING =
  'fetched from a promisor remote of a partial clone: objects it refers to may be missing here, and git fetches them when it needs them; a repack preview leaves its objects out, as git repack does, and fetches nothing';

/** The start of a pack's description: `cruft · .keep · .bitmap · in MIDX` (empty for a plain pack nothing marks). */
export function packMarkersText(layout: PackLayout): string {
  const parts: string[] = [];
  if (layout.kind !== 'normal') parts.push(layout.kind);
  for (const marker of layout.markers) {
    // The kind already says .mtimes / .promisor.
    if ((marker === 'mtimes' && layout.kind === 'cruft') || (marker === 'promisor' && layout.kind === 'promisor'))
      continue;
    parts.push(`.${marker}`);
  }
  if (layout.inMidx) parts.push('in MIDX');
  return parts.join(' · ');
}

/** The tooltip's lines about a pack's kind, markers and where git's search finds it. */
export function packLayoutLines(layout: PackLayout): string[] {
  const lines = [
    `kind: ${layout.kind}${layout.kind === 'cruft' ? ' (unreachable objects, with their mtimes in .mtimes)' : layout.kind === 'promisor' ? ` (${PROMISOR_MEANING})` : ''}`,
  ];
  if (layout.markers.length > 0) lines.push(`marker files: ${layout.markers.map((m) => `.${m}`).join(', ')}`);
  if (layout.keepReason !== undefined) lines.push(`kept: ${layout.keepReason}`);
  else if (layout.keepProblem !== undefined) lines.push(`kept (.keep unreadable: ${layout.keepProblem})`);
  if (layout.bitmapCommits !== undefined) lines.push(`bitmap: ${formatCountOf(layout.bitmapCommits, 'commit')}`);
  lines.push(
    layout.inMidx
      ? 'git finds its objects through the multi-pack-index'
      : `searched ${formatCount(layout.searchOrder + 1)}${ordinalSuffix(layout.searchOrder + 1)} by git (local before alternates, newer first)`,
  );
  return lines;
}

function ordinalSuffix(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return 'th';
  return ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
}

/** One row of the repository's Storage node: key (for the id), label, description, and rows below. */
export interface StorageRow {
  key: string;
  label: string;
  description: string;
  tooltip?: string;
  rows?: StorageRow[];
}

/** The Storage node's rows: loose objects, each multi-pack-index, each alternate. */
export function storageRows(listing: RepositoryListing): StorageRow[] {
  const storage = listing.storage;
  if (storage === undefined) return [];
  const rows: StorageRow[] = [];
  const l = storage.loose;
  const packable = l.prunePackable === undefined ? '' : ` · ${formatCount(l.prunePackable)} also packed`;
  rows.push({
    key: 'loose',
    label: 'Loose objects',
    description: `${formatCountOf(l.count, 'object')} · ${formatBytes(l.looseBytesOnDisk)} on disk${packable}${l.garbage > 0 ? ` · ${formatCountOf(l.garbage, 'garbage file')}` : ''}`,
    tooltip: `git count-objects -v: count ${l.count}, size ${l.size}, in-pack ${l.inPack}, packs ${l.packs}, size-pack ${l.sizePack}${l.prunePackable === undefined ? '' : `, prune-packable ${l.prunePackable}`}, garbage ${l.garbage}, size-garbage ${l.sizeGarbage}`,
    rows: l.garbageFiles.map((g, i) => ({
      key: `garbage-${i}`,
      label: g.path.split(/[\\/]/).pop()!,
      description: g.reason,
      tooltip: g.path,
    })),
  });
  for (const [i, m] of storage.midx.entries()) {
    const parts = [
      `${formatCountOf(m.packs.length, 'pack')}`,
      `${formatCountOf(m.objects, 'object')}`,
      m.bitmap
        ? `bitmap${m.bitmapCommits === undefined ? '' : ` (${formatCountOf(m.bitmapCommits, 'commit')})`}`
        : 'no bitmap',
    ];
    if (m.preferredPack !== undefined)
      parts.push(`preferred ${m.preferredPack.replace(/^pack-([0-9a-f]{7})[0-9a-f]*\.idx$/, 'pack-$1…')}`);
    if (m.missingPacks.length > 0) parts.push(`${formatCountOf(m.missingPacks.length, 'missing pack')}`);
    rows.push({
      key: `midx-${i}`,
      label: m.layers > 1 ? `Multi-pack-index (${m.layers} layers)` : 'Multi-pack-index',
      description: parts.join(' · '),
      tooltip: [
        m.file,
        m.reverseIndexChunk
          ? 'reverse index: RIDX chunk'
          : m.reverseIndexFile
            ? 'reverse index: .rev file'
            : 'no reverse index',
        ...(m.problem === undefined ? [] : [`problem: ${m.problem}`]),
      ].join('\n'),
      rows: m.packs.map((name, k) => ({
        key: `pack-${k}`,
        label: name,
        description: m.missingPacks.includes(name) ? 'missing' : name === m.preferredPack ? 'preferred' : '',
      })),
    });
  }
  for (const [i, alternate] of storage.alternates.entries())
    rows.push({ key: `alternate-${i}`, label: 'Alternate', description: alternate, tooltip: alternate });
  return rows;
}

/** An object tooltip's line on where git reads it: "git reads it from pack-1a2b3c4… (through the multi-pack-index) · also in 1 other pack · also loose". */
export function whereaboutsText(where: ObjectWhereabouts): string {
  const base = (file: string): string => file.split(/[\\/]/).pop()!;
  const parts = [
    'pack' in where.answeredBy
      ? `git reads it from ${base(where.answeredBy.pack)}${where.answeredBy.viaMidx ? ' (through the multi-pack-index)' : ''}`
      : `git reads it loose (${base(where.answeredBy.loose)})`,
  ];
  if (where.alsoInPacks.length > 0)
    parts.push(
      `also in ${formatCountOf(where.alsoInPacks.length, 'other pack')}: ${where.alsoInPacks.map(base).join(', ')}`,
    );
  if (where.alsoLoose.length > 0)
    parts.push(where.alsoLoose.length === 1 ? 'also loose' : `also loose (${where.alsoLoose.length} copies)`);
  return parts.join(' · ');
}
