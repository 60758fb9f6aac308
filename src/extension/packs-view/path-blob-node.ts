import vscode = require('vscode');
import { pathBlobText } from '../../presentation/sizes-text.ts';
import type { PathBlob } from '../../protocol/server-protocol.ts';
import { PacksNodeBase } from './packs-node.ts';
import type { SizesPathNode } from './sizes-path-node.ts';

/**
 * One blob that was at a path: its sizes and delta depth; a click opens its object document (with
 * its delta chain). `oid` and `repository` are what the object commands (copy id, show chain,
 * open) read from an argument (object-target.ts), so the object menu applies to it as to any object row.
 */
export class PathBlobNode extends PacksNodeBase {
  readonly kind = 'pathBlob';
  readonly oid: string;
  readonly repository: string;

  constructor(
    readonly parent: SizesPathNode,
    readonly blob: PathBlob,
  ) {
    const text = pathBlobText(blob);
    super(text.label, vscode.TreeItemCollapsibleState.None);
    this.oid = blob.oid;
    this.repository = parent.repositoryId;
    this.description = text.description;
    this.tooltip = text.tooltip;
    this.iconPath = new vscode.ThemeIcon('file-binary');
    // A blob no pack or loose file holds has no document to open.
    this.contextValue = blob.stored === 'missing' ? 'pathBlob missing' : 'pathBlob object';
    if (blob.stored !== 'missing')
      this.command = {
        title: 'Open Object',
        command: 'packscope.openObject',
        arguments: [{ oid: blob.oid, repository: this.repository }],
      };
  }
}
