import { errorMessage } from '../../common/error-message.ts';
import vscode = require('vscode');
import { moreBlobsText, type SizesRowText } from '../../presentation/sizes-text.ts';
import { PathBlobsRequest } from '../../protocol/server-protocol.ts';
import { MessageNode } from './message-node.ts';
import type { PacksNode, TreeContext } from './packs-node.ts';
import { PacksNodeBase } from './packs-node.ts';
import { PathBlobNode } from './path-blob-node.ts';

/** Blobs listed under a path; the rest are counted on one line (a path of a long history may have had thousands). */
export const LISTED_BLOBS = 50;

/**
 * A path of "Where the bytes go" (largest paths, deleted paths): it expands to every blob that was
 * at the path (packscope/pathBlobs, from the server's sizes walk), newest first, asked for when
 * first expanded and kept.
 */
export class SizesPathNode extends PacksNodeBase {
  readonly kind = 'sizesPath';
  private rows: PacksNode[] | undefined;

  constructor(
    readonly parent: PacksNode,
    readonly repositoryId: string,
    readonly path: string,
    text: SizesRowText,
  ) {
    super(text.label, vscode.TreeItemCollapsibleState.Collapsed);
    this.description = text.description;
    this.tooltip = `${text.tooltip}\nExpand for every blob that was at this path.`;
    this.iconPath = vscode.ThemeIcon.File;
    this.resourceUri = vscode.Uri.file(`/${path}`);
    this.contextValue = 'sizesPath';
  }

  override async getChildren(context: TreeContext): Promise<PacksNode[]> {
    if (this.rows !== undefined) return this.rows;
    try {
      const answer = await context.server.request(PathBlobsRequest, {
        repository: this.repositoryId,
        path: this.path,
        count: LISTED_BLOBS,
      });
      const rows: PacksNode[] = answer.blobs.map((blob) => new PathBlobNode(this, blob));
      if (answer.total > answer.blobs.length)
        rows.push(this.message('more', moreBlobsText(answer.blobs.length, answer.total), 'info'));
      if (answer.total === 0) rows.push(this.message('none', 'No blob of the history was at this path.', 'info'));
      return (this.rows = rows);
    } catch (error) {
      // Not kept: collapsing and expanding the row asks again.
      return [this.message('error', errorMessage(error), 'error')];
    }
  }

  /** A line under the path; without an id, as the rows of "Where the bytes go" are (its path rows have none). */
  private message(key: string, text: string, icon: 'info' | 'error'): MessageNode {
    const node = new MessageNode(this, key, text, icon);
    node.id = undefined;
    return node;
  }
}
