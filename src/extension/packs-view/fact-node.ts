import vscode = require('vscode');
import { PacksNodeBase, type PacksNode } from './packs-node.ts';

/** A fact row (`commit: 12`, `depth 3: 40 ▇▇`), possibly with rows below it. */
export class FactNode extends PacksNodeBase {
  readonly kind = 'fact';
  private readonly rows: PacksNode[] = [];

  constructor(
    readonly parent: PacksNode,
    key: string,
    label: string,
    description?: string,
    expanded?: boolean,
  ) {
    super(
      label,
      expanded === undefined
        ? vscode.TreeItemCollapsibleState.None
        : expanded
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed,
    );
    this.id = `${parent.id}/${key}`;
    if (description !== undefined) this.description = description;
    this.contextValue = 'fact';
  }

  /** A row below this one; `expanded` (true or false) makes it a row with rows of its own. */
  add(key: string, label: string, description?: string, expanded?: boolean): FactNode {
    const row = new FactNode(this, key, label, description, expanded);
    this.rows.push(row);
    return row;
  }

  /** A row of another kind below this one (a path of "Where the bytes go", which expands to its blobs). */
  adopt<N extends PacksNode>(row: N): N {
    this.rows.push(row);
    return row;
  }

  override getChildren(): PacksNode[] {
    return this.rows;
  }

  /**
   * Leaves this row and those below it without ids: VS Code then names them by their place and
   * label, and never refuses them as "already registered" when two asks for the rows overlap.
   */
  withoutIds(): this {
    this.id = undefined;
    for (const row of this.rows) {
      if (row instanceof FactNode) row.withoutIds();
      else row.id = undefined;
    }
    return this;
  }
}
