import vscode = require('vscode');
import { ConcernsRequest, type ConcernsDocument } from '../../protocol/server-protocol.ts';
import { concernSections, concernsSummary } from '../../presentation/concerns-text.ts';
import type { ServerClient } from '../server-client.ts';
import { FactNode } from './fact-node.ts';
import { MessageNode } from './message-node.ts';
import type { PacksNode } from './packs-node.ts';
import type { RepositoryNode } from './repository-node.ts';
import { RequestedDocumentNode } from './requested-document-node.ts';

/**
 * "git-sizer's concerns": git-sizer's figures for the objects the refs reach, each with its level
 * of concern (packscope/concerns). Asked for when first expanded: it reads every tree the refs
 * reach, a minute on git/git.
 */
export class ConcernsNode extends RequestedDocumentNode<ConcernsDocument> {
  readonly kind = 'concerns';

  constructor(parent: RepositoryNode) {
    super(parent, "git-sizer's concerns");
    this.id = `${parent.id}|concerns`;
    this.iconPath = new vscode.ThemeIcon('warning');
    this.contextValue = 'concerns';
    this.description = 'biggest objects, checkouts, history';
    this.tooltip =
      "git-sizer's figures, by its definitions, for every object the refs reach: the repository's size, the biggest objects, the history's structure and the biggest checkouts, each with a star per multiple of git-sizer's reference value. Read from the packs, without git.";
  }

  protected progressTitle(): string {
    return `PackScope: git-sizer's concerns in ${this.parent.listing.name}`;
  }

  protected request(
    server: ServerClient,
    workDoneToken: string,
    token: vscode.CancellationToken,
  ): Promise<ConcernsDocument> {
    return server.request(ConcernsRequest, { repository: this.parent.listing.id, workDoneToken }, token);
  }

  protected summary(document: ConcernsDocument): string {
    return concernsSummary(document);
  }

  protected asNode(): PacksNode {
    return this;
  }

  protected rowsOf(document: ConcernsDocument): PacksNode[] {
    return concernRows(this, document);
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
