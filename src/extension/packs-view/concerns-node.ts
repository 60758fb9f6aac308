import { errorMessage } from '../../common/error-message.ts';
import vscode = require('vscode');
import { ConcernsRequest, type ConcernsDocument } from '../../protocol/server-protocol.ts';
import { concernSections, concernsSummary } from '../../presentation/concerns-text.ts';
import { isCancellation, withModelProgress } from '../model-progress.ts';
import { FactNode } from './fact-node.ts';
import { MessageNode, retryNode } from './message-node.ts';
import { PacksNodeBase, type PacksNode, type TreeContext } from './packs-node.ts';
import type { RepositoryNode } from './repository-node.ts';

/**
 * "git-sizer's concerns": git-sizer's figures for the objects the refs reach, each with its level
 * of concern (packscope/concerns). Asked for when first expanded: it reads every tree the refs
 * reach, a minute on git/git.
 */
export class ConcernsNode extends PacksNodeBase {
  readonly kind = 'concerns';
  private rows: PacksNode[] | undefined;
  private pending: Promise<PacksNode[]> | undefined;
  /** What the last load ended with when it gave no rows (the retry line, or the error), until a retry. */
  private ended: PacksNode[] | undefined;

  constructor(readonly parent: RepositoryNode) {
    super("git-sizer's concerns", vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `${parent.id}|concerns`;
    this.iconPath = new vscode.ThemeIcon('warning');
    this.contextValue = 'concerns';
    this.description = 'biggest objects, checkouts, history';
    this.tooltip =
      "git-sizer's figures, by its definitions, for every object the refs reach: the repository's size, the biggest objects, the history's structure and the biggest checkouts, each with a star per multiple of git-sizer's reference value. Read from the packs, without git.";
  }

  /** "Load again" (and a changed repository): the next ask reads the objects anew. */
  reload(): void {
    this.rows = undefined;
    this.ended = undefined;
  }

  override getChildren(context: TreeContext): Promise<PacksNode[]> | PacksNode[] {
    if (this.rows !== undefined) return this.rows;
    if (this.ended !== undefined) return this.ended;
    this.pending ??= this.load(context).finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async load(context: TreeContext): Promise<PacksNode[]> {
    try {
      const document = await withModelProgress(
        context.server,
        `PackScope: git-sizer's concerns in ${this.parent.listing.name}`,
        (workDoneToken, token) =>
          context.server.request(ConcernsRequest, { repository: this.parent.listing.id, workDoneToken }, token),
      );
      this.description = concernsSummary(document);
      context.changed(this);
      // No ids below: an ask VS Code abandoned may have registered rows already (as the Summary's).
      this.rows = concernRows(this, document).map((row) => (row instanceof FactNode ? row.withoutIds() : row));
      return this.rows;
    } catch (error) {
      if (isCancellation(error)) return (this.ended = [retryNode(this)]);
      return (this.ended = [new MessageNode(this, 'error', errorMessage(error), 'error')]);
    }
  }
}

function concernRows(parent: ConcernsNode, document: ConcernsDocument): PacksNode[] {
  const rows: PacksNode[] = concernSections(document).map((section) => {
    const node = new FactNode(parent, section.key, section.label, section.description, section.description !== '');
    for (const row of section.rows) node.add(row.key, row.label, row.description).tooltip = row.tooltip;
    return node;
  });
  for (const [i, problem] of document.problems.entries())
    rows.push(new MessageNode(parent, `problem-${i}`, `not counted: ${problem}`, 'warning'));
  return rows;
}
