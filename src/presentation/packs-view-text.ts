/**
 * The words of the Packs view's rows: what a list's count counts and in which order, what an
 * object row's sizes measure, and the depth histogram's bars. Pure (no vscode): the tree's nodes
 * show these strings, the unit tests read them.
 */
import { formatBytes, formatCountOf } from '../common/format.ts';
import type { ObjectItem, ObjectListKind } from '../protocol/server-protocol.ts';

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
  if (item.depth === 0) return `family of ${formatCountOf(item.familySize, 'object')} · root ${formatBytes(item.size)} inflated · ${deltaChildren(item.children)}`;
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

/** Widest bar, in character cells. */
const BAR_CELLS = 16;
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

/** One row of the depth histogram: label and description. */
export function depthRowText(depth: number, count: number, total: number, widest: number): { label: string; description: string } {
  const share = total > 0 ? (100 * count) / total : 0;
  const percent = count === 0 ? '' : share >= 0.1 ? ` ${share.toFixed(1)}%` : ' <0.1%';
  return { label: `depth ${depth}: ${formatCountOf(count, 'object')}`, description: `${logBar(count, widest)}${percent}` };
}

/** The histogram row's own description: what the bars measure. */
export function depthHistogramDescription(meanDepth: number): string {
  return `mean ${meanDepth.toFixed(2)} · bars: log scale`;
}

