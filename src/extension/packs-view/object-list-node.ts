import vscode = require('vscode');
import type { ObjectItem, ObjectListKind, PackSummary } from '../../protocol/server-protocol.ts';
import { listTotalText } from '../../presentation/packs-view-text.ts';
import { shortPackName } from '../format-units.ts';
import { ObjectNode, type ObjectPresentation } from './object-node.ts';
import type { PackNode } from './pack-node.ts';
import { ObjectPages, PagedNode } from './paged-node.ts';

/** What makes one list of a pack's objects: the server's ranking, its title, its icon, how its objects show. */
export interface ObjectListDefinition {
  /** The ranking `packscope/objectList` returns. */
  listKind: Exclude<ObjectListKind, 'children'>;
  title: string;
  icon: string;
  /** How its objects show and what they expand to. */
  objects: ObjectPresentation;
  /** How many entries the list has, known from the pack's summary before a page loads. */
  totalIn(summary: PackSummary): number;
}

/** A list of a pack's objects, paged; each list's definition is a file of its own (object-lists.ts names them). */
export class ObjectListNode extends PagedNode {
  readonly kind = 'objectList';
  readonly pages: ObjectPages;

  constructor(
    readonly parent: PackNode,
    readonly definition: ObjectListDefinition,
  ) {
    super(definition.title, vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `${parent.id}|list:${definition.listKind}`;
    this.iconPath = new vscode.ThemeIcon(definition.icon);
    this.contextValue = `list ${definition.listKind}`;
    this.pages = new ObjectPages(
      parent,
      definition.listKind,
      `${definition.title} of ${shortPackName(parent.listing.name)}`,
    );
  }

  totalIn(summary: PackSummary): number {
    return this.definition.totalIn(summary);
  }

  /** The filter the list is paged with, in words (`blob · depth 2–6`), set by the tree when it changes. */
  filterText: string | undefined;

  /**
   * The total the pack's summary gives, before a page loads: `849,014 objects, deepest first`, what
   * the count counts and its order. A filtered list's total is only known from its first page.
   */
  showTotal(total: number): void {
    this.description =
      this.filterText === undefined ? listTotalText(this.definition.listKind, total) : `filtered: ${this.filterText}`;
  }

  protected override pagesLoaded(): void {
    if (this.pages.total === undefined) return;
    const total = listTotalText(this.definition.listKind, this.pages.total);
    this.description = this.filterText === undefined ? total : `${total} · filtered: ${this.filterText}`;
  }

  protected asNode(): ObjectListNode {
    return this;
  }

  protected objectNode(item: ObjectItem): ObjectNode {
    return new ObjectNode(this, this.parent, item, this.definition.objects);
  }
}
