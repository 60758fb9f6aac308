import vscode = require('vscode');
import { storageRows, type StorageRow } from '../../presentation/storage-text.ts';
import { FactNode } from './fact-node.ts';
import { PacksNodeBase, type PacksNode } from './packs-node.ts';
import type { RepositoryNode } from './repository-node.ts';

/**
 * A repository's storage beside its packs: loose objects (as `git count-objects -v` counts them),
 * each multi-pack-index with the packs it covers, and the alternates. From the listing: nothing
 * is requested when it opens.
 */
export class StorageNode extends PacksNodeBase {
  readonly kind = 'storage';

  constructor(readonly parent: RepositoryNode) {
    super('Storage', vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `${parent.id}|storage`;
    this.iconPath = new vscode.ThemeIcon('database');
    this.contextValue = 'storage';
    this.update();
  }

  /** The one-line summary: `3 loose objects · MIDX over 4 packs · 1 alternate`. */
  update(): void {
    const storage = this.parent.listing.storage;
    if (storage === undefined) {
      this.description = '';
      return;
    }
    const parts = [`${storage.loose.count} loose`];
    for (const m of storage.midx) parts.push(`MIDX over ${m.packs.length}${m.bitmap ? ' with bitmap' : ''}`);
    if (storage.alternates.length > 0)
      parts.push(`${storage.alternates.length} alternate${storage.alternates.length === 1 ? '' : 's'}`);
    this.description = parts.join(' · ');
  }

  override getChildren(): PacksNode[] {
    return storageRows(this.parent.listing).map((row) => factFor(this, row));
  }
}

function factFor(parent: PacksNode, row: StorageRow): FactNode {
  const node = new FactNode(
    parent,
    row.key,
    row.label,
    row.description,
    row.rows !== undefined && row.rows.length > 0 ? false : undefined,
  );
  if (row.tooltip !== undefined) node.tooltip = row.tooltip;
  for (const child of row.rows ?? []) {
    const added = node.add(child.key, child.label, child.description);
    if (child.tooltip !== undefined) added.tooltip = child.tooltip;
  }
  return node;
}
