/**
 * The words of the Packs view's rows: what a list's count counts and in which order, what an
 * object row's sizes measure, and the depth histogram's bars. Pure (no vscode): the tree's nodes
 * show these strings, the unit tests read them.
 */
import { formatBytes, formatCountOf } from '../common/format.ts';
import { OBJECT_TYPE_NAMES } from '../common/object-types.ts';
import type { ObjectItem, ObjectListFilter, ObjectListKind } from '../protocol/server-protocol.ts';

type RankedList = Exclude<ObjectListKind, 'children'>;

/** What each list holds and how it is ordered: `849,014 objects, deepest first`. */
const LIST_ORDER: Record<RankedList, { noun: [string, string]; order: string }> = {
  families: { noun: ['family', 'families'], order: 'largest first (objects in the family)' },
  deepest: { noun: ['object', 'objects'], order: 'deepest first' },
  largest: { noun: ['object', 'objects'], order: 'largest inflated size first' },
  largestOnDisk: { noun: ['object', 'objects'], order: 'largest entry in the pack first' },
  mostUsedBases: { noun: ['object', 'objects'], order: 'most delta children first' },
};

export function listTotalText(kind: RankedList, total: number): string {
  const { noun, order } = LIST_ORDER[kind];
  return `${formatCountOf(total, noun[0], noun[1])}, ${order}`;
}

const deltaChildren = (n: number): string => formatCountOf(n, 'delta child', 'delta children');

/**
 * A delta family's root: how many objects the family has and the root's own size (for a family,
 * "5.6 MiB" alone read as the family's total); a member: its place in the family.
 */
export function familyMemberText(item: ObjectItem): string {
  if (item.depth === 0)
    return `family of ${formatCountOf(item.familySize, 'object')} · root ${formatBytes(item.size)} inflated · ${deltaChildren(item.children)}`;
  return `${item.inPackType} · depth ${item.depth} · ${formatBytes(item.size)} inflated · ${deltaChildren(item.children)}`;
}

/** A deepest-list entry (it expands to its chain). */
export function chainEndText(item: ObjectItem): string {
  return `depth ${item.depth} · ${formatBytes(item.size)} inflated`;
}

/** An entry of a list by size. */
export function sizedObjectText(item: ObjectItem): string {
  return `${formatBytes(item.size)} inflated · ${formatBytes(item.diskSize)} on disk`;
}

/** One link of a shown chain. */
export function chainLinkText(item: ObjectItem): string {
  return `${item.inPackType} · depth ${item.depth} · ${formatBytes(item.size)} inflated`;
}

/** A most-used base. */
export function mostUsedBaseText(item: ObjectItem): string {
  return `${deltaChildren(item.children)} · depth ${item.depth} · ${formatBytes(item.size)} inflated`;
}

/** Widest bar, in character cells: at 16 the widest row pushed its depth and count past a default-width side bar. */
const BAR_CELLS = 10;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/**
 * A histogram bar on a log scale, in eighths of a character cell: on a linear scale the tail of a
 * deep pack (depths 7 to 50, a few hundred objects each against 300,000 at depth 0) was one block
 * per row, every row alike. log(1 + count) keeps 1, 10, 100 and 1,000 objects apart; any non-zero
 * count shows at least an eighth.
 */
export function logBar(count: number, widest: number): string {
  if (count <= 0 || widest <= 0) return '';
  const eighths = Math.max(1, Math.round((BAR_CELLS * 8 * Math.log1p(count)) / Math.log1p(widest)));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]!;
}

/**
 * A histogram bar on a linear scale, in eighths of a character cell: lengths in proportion to the
 * counts, so that 33.9% is 24 times as long as 1.4% (on the log scale it was 1.5 times); any
 * non-zero count shows at least an eighth.
 */
export function linearBar(count: number, widest: number): string {
  if (count <= 0 || widest <= 0) return '';
  const eighths = Math.max(1, Math.round((BAR_CELLS * 8 * count) / widest));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]!;
}

/** How the depth histogram's bars are scaled (the setting packscope.view.depthScale). */
export type DepthScale = 'linear' | 'log';

/**
 * One row of the depth histogram: the bar and the share it stands for in the label, the depth and
 * its count in the description. The bar leads the row so that every bar starts at the same place
 * (after a label of varying width, as the description is, the bars were ragged), and the share is
 * printed beside it, so that the picture can be read as a number.
 */
export function depthRowText(
  depth: number,
  count: number,
  total: number,
  widest: number,
  scale: DepthScale = 'linear',
): { label: string; description: string } {
  const share = total > 0 ? (100 * count) / total : 0;
  const percent = count === 0 ? '0%' : share >= 0.1 ? `${share.toFixed(1)}%` : '<0.1%';
  const bar = scale === 'log' ? logBar(count, widest) : linearBar(count, widest);
  return {
    label: bar === '' ? percent : `${bar} ${percent}`,
    description: `depth ${depth}: ${formatCountOf(count, 'object')}`,
  };
}

/** The histogram row's own description: what the bars measure. */
export function depthHistogramDescription(meanDepth: number, scale: DepthScale = 'linear'): string {
  return `mean ${meanDepth.toFixed(2)} · bars: ${scale === 'log' ? 'log scale (lengths by log(1 + count))' : 'linear scale'}`;
}

/** The filter as the view's rows and title say it: `blob, tree · depth 2–6`; undefined when it keeps everything. */
export function objectFilterText(filter: ObjectListFilter | undefined): string | undefined {
  if (filter === undefined) return undefined;
  const parts: string[] = [];
  if (filter.types !== undefined) parts.push(filter.types.length === 0 ? 'no type' : filter.types.join(', '));
  const { minDepth, maxDepth } = filter;
  if (minDepth !== undefined && maxDepth !== undefined)
    parts.push(minDepth === maxDepth ? `depth ${minDepth}` : `depth ${minDepth}–${maxDepth}`);
  else if (minDepth !== undefined) parts.push(`depth ≥ ${minDepth}`);
  else if (maxDepth !== undefined) parts.push(`depth ≤ ${maxDepth}`);
  return parts.length === 0 ? undefined : parts.join(' · ');
}

/**
 * A depth range as typed in the filter's input box: `3` (exactly), `2-6` or `2–6`, `5-` (5 and
 * deeper), `-6` (up to 6), empty (any depth). Undefined when it is none of those or runs backwards.
 */
export function parseDepthRange(text: string): { minDepth?: number; maxDepth?: number } | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  const match = /^(\d{1,4})?\s*(?:([-–])\s*(\d{1,4})?)?$/.exec(trimmed);
  if (match === null || (match[1] === undefined && match[3] === undefined)) return undefined;
  const low = match[1] === undefined ? undefined : Number(match[1]);
  const high = match[2] === undefined ? low : match[3] === undefined ? undefined : Number(match[3]);
  if (low !== undefined && high !== undefined && low > high) return undefined;
  return { ...(low === undefined ? {} : { minDepth: low }), ...(high === undefined ? {} : { maxDepth: high }) };
}

/** A filter from outside (the workspace's saved state, a command's argument) made safe; undefined when it keeps everything or is no filter. */
export function normalizeObjectFilter(value: unknown): ObjectListFilter | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const filter: ObjectListFilter = {};
  if (Array.isArray(v.types) && v.types.every((t) => (OBJECT_TYPE_NAMES as readonly unknown[]).includes(t))) {
    // All four types is no type filter.
    const types = OBJECT_TYPE_NAMES.filter((t) => (v.types as unknown[]).includes(t));
    if (types.length < OBJECT_TYPE_NAMES.length) filter.types = types;
  }
  const depth = (x: unknown): number | undefined =>
    typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : undefined;
  const minDepth = depth(v.minDepth);
  const maxDepth = depth(v.maxDepth);
  if (minDepth !== undefined && minDepth > 0) filter.minDepth = minDepth;
  if (maxDepth !== undefined && (minDepth === undefined || maxDepth >= minDepth)) filter.maxDepth = maxDepth;
  return objectFilterText(filter) === undefined ? undefined : filter;
}
