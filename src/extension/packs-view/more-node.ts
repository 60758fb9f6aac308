import vscode = require('vscode');
import { formatCount } from '../format-units.ts';
import type { ObjectPages, PagedKind } from './paged-node.ts';
import { PacksNodeBase } from './packs-node.ts';

export class MoreNode extends PacksNodeBase {
  readonly kind = 'more';
  constructor(readonly parent: PagedKind) {
    super('Show more…', vscode.TreeItemCollapsibleState.None);
    this.id = `${parent.id}/more`;
    this.iconPath = new vscode.ThemeIcon('ellipsis');
    this.contextValue = 'more';
    this.command = { title: 'Show more', command: 'packscope.loadMore', arguments: [this] };
  }

  render(pages: ObjectPages, pageSize: number): void {
    const total = pages.total ?? 0;
    this.label = `Show ${formatCount(Math.min(pageSize, total - pages.items.length))} more…`;
    this.description = `${formatCount(pages.items.length)} of ${formatCount(total)}`;
  }
}
