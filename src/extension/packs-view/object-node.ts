import vscode = require('vscode');
import { whereaboutsText } from '../../presentation/storage-text.ts';
import { ObjectRequest, type ObjectDetails, type ObjectItem } from '../../protocol/server-protocol.ts';
import { markdownCodeSpan, markdownText } from '../../common/markdown-text.ts';
import { formatCountOf } from '../../common/format.ts';
import { chainEndText, chainLinkText, familyMemberText, sizedObjectText } from '../../presentation/packs-view-text.ts';
import { formatBytes, formatCount, shortOid } from '../format-units.ts';
import { MessageNode } from './message-node.ts';
import { ObjectPages, PagedNode } from './paged-node.ts';
import type { PackNode } from './pack-node.ts';
import type { PacksNode, TreeContext } from './packs-node.ts';

/**
 * How an object item shows (its description) and what it expands to: its delta children (paged),
 * its chain down to the root, or nothing. A list of objects names its presentation in its definition
 * file, so a new list with its own description needs no edit here.
 */
export interface ObjectPresentation {
  describe(item: ObjectItem): string;
  expandsTo: 'children' | 'chain' | 'nothing';
}

/** A member of a delta family: a root shows its family, a delta its place in it; both expand to their delta children. */
export const FAMILY_MEMBER: ObjectPresentation = { describe: familyMemberText, expandsTo: 'children' };

/** A deepest-chain entry; it expands to its chain, down to the root. */
export const CHAIN_END: ObjectPresentation = { describe: chainEndText, expandsTo: 'chain' };

/** An entry of a list by size. */
export const SIZED_OBJECT: ObjectPresentation = { describe: sizedObjectText, expandsTo: 'nothing' };

/** One link of a shown chain (an expanded deepest entry, a revealed object's chain). */
export const CHAIN_LINK: ObjectPresentation = { describe: chainLinkText, expandsTo: 'nothing' };

const TYPE_ICONS: Record<string, string> = { commit: 'git-commit', tree: 'list-tree', blob: 'file', tag: 'tag' };

export class ObjectNode extends PagedNode {
  readonly kind = 'object';
  readonly pages: ObjectPages;
  private chain: ObjectNode[] | undefined;

  constructor(
    readonly parent: PacksNode,
    readonly pack: PackNode,
    readonly item: ObjectItem,
    readonly presentation: ObjectPresentation,
  ) {
    super(`${shortOid(item.oid)} ${item.type}`, collapsibleFor(item, presentation));
    this.id = `${parent.id}/${item.oid}`;
    this.iconPath = new vscode.ThemeIcon(TYPE_ICONS[item.type] ?? 'symbol-misc');
    this.contextValue = item.depth > 0 ? 'object delta' : 'object';
    this.description = withNames(presentation.describe(item), item);
    this.pages = new ObjectPages(pack, 'children', `delta children of ${shortOid(item.oid)}`, item.oid);
  }

  override async getChildren(context: TreeContext): Promise<PacksNode[]> {
    if (this.presentation.expandsTo === 'children') return super.getChildren(context);
    if (this.presentation.expandsTo !== 'chain' || this.item.depth === 0) return [];
    if (this.chain !== undefined) return this.chain;
    const result = await context.server.request(ObjectRequest, {
      oid: this.item.oid,
      repository: this.pack.repositoryId,
    });
    if (!result.found) return [new MessageNode(this, 'not-found', result.reason, 'warning')];
    this.chain = result.object.chain.slice(1).map((link) => new ObjectNode(this, this.pack, link, CHAIN_LINK));
    return this.chain;
  }

  protected asNode(): ObjectNode {
    return this;
  }

  protected objectNode(item: ObjectItem): ObjectNode {
    return new ObjectNode(this, this.pack, item, FAMILY_MEMBER);
  }
}

/** A row's description ends with what a person knows the object by: its path, or a commit's subject. */
function withNames(description: string, item: ObjectItem): string {
  if (item.subject !== undefined) return `${description} · ${item.subject}`;
  if (item.path) return `${description} · ${item.path}`;
  if (item.path === undefined && item.namesPending) return `${description} · resolving names…`;
  return item.path === '' ? `${description} · root tree` : description;
}

function collapsibleFor(item: ObjectItem, presentation: ObjectPresentation): vscode.TreeItemCollapsibleState {
  const expandable =
    (presentation.expandsTo === 'children' && item.children > 0) ||
    (presentation.expandsTo === 'chain' && item.depth > 0);
  return expandable ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
}

/** The lazy tooltip of an object item (`resolveTreeItem`). */
export function objectTooltip(details: ObjectDetails): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString();
  tooltip.appendMarkdown(`**${markdownText(details.type)}** ${markdownCodeSpan(details.oid)}\n\n`);
  for (const line of namesLines(details)) tooltip.appendMarkdown(`${line}  \n`);
  tooltip.appendMarkdown(`stored as ${markdownText(details.inPackType)}  \n`);
  tooltip.appendMarkdown(
    `size ${formatBytes(details.size)} (${formatCount(details.size)} bytes) · on disk ${formatBytes(details.diskSize)} (${formatCount(details.diskSize)} bytes)  \n`,
  );
  tooltip.appendMarkdown(`offset ${formatCount(details.offset)} in ${markdownText(details.packName)}  \n`);
  tooltip.appendMarkdown(
    `depth ${details.depth}${details.depth > 0 ? ` · chain root ${markdownCodeSpan(shortOid(details.root))}` : ''}  \n`,
  );
  tooltip.appendMarkdown(
    `family of ${formatCountOf(details.familySize, 'object')} · ${formatCountOf(details.children, 'delta child', 'delta children')}`,
  );
  // The answer is git's copy: when the object is in several packs, this says which one and where else.
  if (details.whereabouts !== undefined)
    tooltip.appendMarkdown(`  \n${markdownText(whereaboutsText(details.whereabouts))}`);
  return tooltip;
}

/** The tooltip's path and introducing-commit lines (Markdown), "resolving names…" while the server looks. */
function namesLines(details: ObjectDetails): string[] {
  const lines: string[] = [];
  const label = details.type === 'tag' ? 'tag name' : 'path';
  if (details.subject !== undefined) lines.push(markdownText(details.subject));
  if (details.path === '') lines.push('a root tree');
  else if (details.path) lines.push(`${label} ${markdownCodeSpan(details.path)}`);
  else if (details.path === null) lines.push('no ref reaches it');
  else if (details.namesPending)
    lines.push(
      `${label} *resolving names…${details.namesProgress === undefined ? '' : ` (${details.namesProgress})`}*`,
    );
  const introduced = details.introducedBy;
  if (introduced?.commit)
    lines.push(
      `introduced by ${markdownCodeSpan(shortOid(introduced.commit))}${introduced.subject === undefined ? '' : ` ${markdownText(introduced.subject)}`}`,
    );
  else if (introduced?.resolving) lines.push('introduced by *resolving names…*');
  else if (introduced?.reason !== undefined) lines.push(`introduced by: unknown (${markdownText(introduced.reason)})`);
  return lines;
}
