import { errorMessage } from '../../common/error-message.ts';
import vscode = require('vscode');
import type { ServerClient } from '../server-client.ts';
import { isCancellation, withModelProgress } from '../model-progress.ts';
import { FactNode } from './fact-node.ts';
import { MessageNode, retryNode } from './message-node.ts';
import { PacksNodeBase, type PacksNode, type TreeContext } from './packs-node.ts';
import type { RepositoryNode } from './repository-node.ts';

/**
 * A repository row whose rows come from one server document asked for when the row is first
 * expanded (Where the bytes go, git-sizer's concerns: each reads the whole history or every tree,
 * seconds to a minute): the ask under a cancellable notification, the rows kept until "Load again",
 * a cancelled ask leaving a retry line and a failed one its error.
 */
export abstract class RequestedDocumentNode<Document> extends PacksNodeBase {
  private rows: PacksNode[] | undefined;
  private pending: Promise<PacksNode[]> | undefined;
  /** What the last load ended with when it gave no rows (the retry line, or the error), until a retry. */
  private ended: PacksNode[] | undefined;

  constructor(
    readonly parent: RepositoryNode,
    label: string,
  ) {
    super(label, vscode.TreeItemCollapsibleState.Collapsed);
  }

  /** The notification's title while the server works. */
  protected abstract progressTitle(): string;
  /** The server's request for the document. */
  protected abstract request(
    server: ServerClient,
    workDoneToken: string,
    token: vscode.CancellationToken,
  ): Promise<Document>;
  /** The row's description once the document is in. */
  protected abstract summary(document: Document): string;
  /** The rows under this one. */
  protected abstract rowsOf(document: Document): PacksNode[];
  /** This row as one of the view's node kinds (the union the retry line's parent must be). */
  protected abstract asNode(): PacksNode;

  /** "Load again" (and a changed repository): the next ask reads the repository anew. */
  reload(): void {
    this.rows = undefined;
    this.ended = undefined;
  }

  override getChildren(context: TreeContext): Promise<PacksNode[]> | PacksNode[] {
    if (this.rows !== undefined) return this.rows;
    if (this.ended !== undefined) return this.ended;
    // A second ask while the first waits (a refresh of the repository row) gets the same answer.
    this.pending ??= this.load(context).finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async load(context: TreeContext): Promise<PacksNode[]> {
    try {
      const document = await withModelProgress(context.server, this.progressTitle(), (workDoneToken, token) =>
        this.request(context.server, workDoneToken, token),
      );
      this.description = this.summary(document);
      context.changed(this.asNode());
      // No ids below: an ask VS Code abandoned may have registered rows already (as the Summary's).
      this.rows = this.rowsOf(document).map((row) => (row instanceof FactNode ? row.withoutIds() : row));
      return this.rows;
    } catch (error) {
      if (isCancellation(error)) return (this.ended = [retryNode(this.asNode())]);
      return (this.ended = [new MessageNode(this.asNode(), 'error', errorMessage(error), 'error')]);
    }
  }
}
