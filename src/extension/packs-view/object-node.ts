import vscode = require('vscode');
import { ObjectRequest, type ObjectDetails, type ObjectItem } from '../../protocol/server-protocol.ts';
import { formatBytes, formatCount, shortOid } from '../format-units.ts';
import { MessageNode } from './message-node.ts';
import { ObjectPages, PagedNode } from './paged-node.ts';
import type { PackNode } from './pack-node.ts';
import type { PacksNode, TreeContext } from './packs-node.ts';

/**
 * How an object item shows and what it expands to: a family member expands to its delta children,
 * a deepest-chain entry to its chain (down to the root), the others not at all.
 */
export type ObjectRole = 'family' | 'deepest' | 'largest' | 'link' | 'revealed';

const TYPE_ICONS: Record<string, string> = { commit: 'git-commit', tree: 'list-tree', blob: 'file', tag: 'tag' };

export class ObjectNode extends PagedNode {
  readonly kind = 'object';
  readonly pages: ObjectPages;
  private chain: ObjectNode[] | undefined;

  constructor(
    readonly parent: PacksNode,
    readonly pack: PackNode,
    readonly item: ObjectItem,
    readonly role: ObjectRole,
  ) {
    super(`${shortOid(item.oid)} ${item.type}`, collapsibleFor(item, role));
    this.id = `${parent.id}/${item.oid}`;
    this.iconPath = new vscode.ThemeIcon(TYPE_ICONS[item.type] ?? 'symbol-misc');
    this.contextValue = item.depth > 0 ? 'object delta' : 'object';
    this.description = describeObject(item, role);
    this.pages = new ObjectPages(pack, 'children', `delta children of ${shortOid(item.oid)}`, item.oid);
  }

  override async getChildren(context: TreeContext): Promise<PacksNode[]> {
    if (this.role === 'family') return super.getChildren(context);
    if (this.role !== 'deepest' || this.item.depth === 0) return [];
    if (this.chain !== undefined) return this.chain;
    const result = await context.server.request(ObjectRequest, { oid: this.item.oid, repository: this.pack.repositoryId });
    if (!result.found) return [new MessageNode(this, 'not-found', result.reason, 'warning')];
    this.chain = result.object.chain.slice(1).map((link) => new ObjectNode(this, this.pack, link, 'link'));
    return this.chain;
  }

  protected asNode(): ObjectNode {
    return this;
  }

  protected objectNode(item: ObjectItem): ObjectNode {
    return new ObjectNode(this, this.pack, item, 'family');
  }
}

function collapsibleFor(item: ObjectItem, role: ObjectRole): vscode.TreeItemCollapsibleState {
  const expandable = (role === 'family' && item.children > 0) || (role === 'deepest' && item.depth > 0);
  return expandable ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
}

function describeObject(item: ObjectItem, role: ObjectRole): string {
  switch (role) {
    case 'family':
      return item.depth === 0
        ? `family of ${formatCount(item.familySize)} · ${formatBytes(item.size)}`
        : `${item.inPackType} · depth ${item.depth} · ${formatBytes(item.size)} · ${formatCount(item.children)} children`;
    case 'deepest':
      return `depth ${item.depth} · ${formatBytes(item.size)}`;
    case 'largest':
      return `${formatBytes(item.size)} inflated · ${formatBytes(item.diskSize)} on disk`;
    case 'link':
    case 'revealed':
      return `${item.inPackType} · depth ${item.depth} · ${formatBytes(item.size)}`;
  }
}

/** The lazy tooltip of an object item (`resolveTreeItem`). */
export function objectTooltip(details: ObjectDetails): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString();
  tooltip.appendMarkdown(`**${details.type}** \`${details.oid}\`\n\n`);
  tooltip.appendMarkdown(`stored as ${details.inPackType}  \n`);
  tooltip.appendMarkdown(`size ${formatBytes(details.size)} (${formatCount(details.size)} bytes) · on disk ${formatBytes(details.diskSize)} (${formatCount(details.diskSize)} bytes)  \n`);
  tooltip.appendMarkdown(`offset ${formatCount(details.offset)} in ${details.packName}  \n`);
  tooltip.appendMarkdown(`depth ${details.depth}${details.depth > 0 ? ` · chain root \`${shortOid(details.root)}\`` : ''}  \n`);
  tooltip.appendMarkdown(`family of ${formatCount(details.familySize)} · ${formatCount(details.children)} delta children`);
  return tooltip;
}
