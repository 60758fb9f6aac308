import { errorMessage } from '../../common/error-message.ts';
import vscode = require('vscode');
import { SizesRequest, type SizesDocument } from '../../protocol/server-protocol.ts';
import {
  directoryTree,
  sizesCommitText,
  sizesRowText,
  sizesSummary,
  type DirectoryEntry,
  type SizesRowText,
} from '../../presentation/sizes-text.ts';
import { isCancellation, withModelProgress } from '../model-progress.ts';
import { FactNode } from './fact-node.ts';
import { MessageNode, retryNode } from './message-node.ts';
import { PacksNodeBase, type PacksNode, type TreeContext } from './packs-node.ts';
import type { RepositoryNode } from './repository-node.ts';

/** Paths, extensions and commits listed under each heading (the directories are a tree of their own). */
const LISTED_ROWS = 20;

/**
 * "Where the bytes go": the history's bytes by directory (a tree, largest first), the largest
 * paths, the deleted paths still in history, the extensions and the commits that added the most,
 * by git filter-repo --analyze's rules (packscope/sizes). Asked for when first expanded: it reads
 * the whole history with git, seconds on a large one.
 */
export class SizesNode extends PacksNodeBase {
  readonly kind = 'sizes';
  private rows: PacksNode[] | undefined;
  private pending: Promise<PacksNode[]> | undefined;
  /** What the last load ended with when it gave no rows (the retry line, or the error), until a retry. */
  private ended: PacksNode[] | undefined;

  constructor(readonly parent: RepositoryNode) {
    super('Where the bytes go', vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `${parent.id}|sizes`;
    this.iconPath = new vscode.ThemeIcon('pie-chart');
    this.contextValue = 'sizes';
    this.description = 'by path, directory, extension and commit';
    this.tooltip =
      "Bytes of the repository's history per directory, path, extension and commit, as git filter-repo --analyze counts them: a blob once at each path it was at, on disk (its pack entry) and inflated.";
  }

  /** "Load again" (and a changed repository): the next ask reads the history anew. */
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
      const document = await withModelProgress(
        context.server,
        `PackScope: where the bytes go in ${this.parent.listing.name}`,
        (workDoneToken, token) =>
          context.server.request(
            SizesRequest,
            { repository: this.parent.listing.id, rows: LISTED_ROWS, top: LISTED_ROWS, workDoneToken },
            token,
          ),
      );
      this.description = sizesSummary(document);
      context.changed(this);
      // No ids below: an ask VS Code abandoned may have registered rows already (as the Summary's).
      this.rows = sizesRows(this, document).map((row) => (row instanceof FactNode ? row.withoutIds() : row));
      return this.rows;
    } catch (error) {
      if (isCancellation(error)) return (this.ended = [retryNode(this)]);
      return (this.ended = [new MessageNode(this, 'error', errorMessage(error), 'error')]);
    }
  }
}

function sizesRows(parent: SizesNode, document: SizesDocument): PacksNode[] {
  const group = (key: string, label: string, rows: SizesRowText[], expanded = false): FactNode => {
    const node = new FactNode(parent, key, label, undefined, rows.length > 0 ? expanded : undefined);
    for (const row of rows) node.add(row.key, row.label, row.description).tooltip = row.tooltip;
    return node;
  };
  const directories = new FactNode(parent, 'directories', 'Directories', 'largest on disk first', true);
  addDirectories(directories, directoryTree(document));
  // The largest paths come first in `paths`; the largest deleted ones were kept besides them.
  const deleted = document.paths.filter((r) => r.deleted !== null).slice(0, LISTED_ROWS);
  return [
    directories,
    group(
      'paths',
      'Largest paths',
      document.paths.slice(0, LISTED_ROWS).map((r) => sizesRowText(r)),
    ),
    group(
      'deleted',
      'Deleted paths still in history',
      deleted.map((r) => sizesRowText(r)),
    ),
    group(
      'extensions',
      'Extensions',
      document.extensions.slice(0, LISTED_ROWS).map((r) => sizesRowText(r, '(no extension)')),
    ),
    group('commits', 'Commits that added the most', document.commits.map(sizesCommitText)),
  ];
}

function addDirectories(node: FactNode, entries: DirectoryEntry[]): void {
  for (const entry of entries) {
    const row = node.add(entry.key, entry.label, entry.description, entry.children.length > 0 ? false : undefined);
    row.tooltip = entry.tooltip;
    addDirectories(row, entry.children);
    if (entry.more > 0) row.add('more', `… ${entry.more} more directories`);
  }
}
