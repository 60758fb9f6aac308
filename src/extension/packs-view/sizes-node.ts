import vscode = require('vscode');
import { SizesRequest, type SizesDocument, type SizesRow } from '../../protocol/server-protocol.ts';
import {
  directoryTree,
  sizesCommitText,
  sizesRowText,
  sizesSummary,
  type DirectoryEntry,
  type SizesRowText,
} from '../../presentation/sizes-text.ts';
import type { ServerClient } from '../server-client.ts';
import { FactNode } from './fact-node.ts';
import type { PacksNode } from './packs-node.ts';
import type { RepositoryNode } from './repository-node.ts';
import { RequestedDocumentNode } from './requested-document-node.ts';
import { SizesPathNode } from './sizes-path-node.ts';

/** Paths, extensions and commits listed under each heading (the directories are a tree of their own). */
const LISTED_ROWS = 20;

/**
 * "Where the bytes go": the history's bytes by directory (a tree, largest first), the largest
 * paths, the deleted paths still in history, the extensions and the commits that added the most,
 * by git filter-repo --analyze's rules (packscope/sizes). Asked for when first expanded: it reads
 * the whole history with git, seconds on a large one.
 */
export class SizesNode extends RequestedDocumentNode<SizesDocument> {
  readonly kind = 'sizes';

  constructor(parent: RepositoryNode) {
    super(parent, 'Where the bytes go');
    this.id = `${parent.id}|sizes`;
    this.iconPath = new vscode.ThemeIcon('pie-chart');
    this.contextValue = 'sizes';
    this.description = 'by path, directory, extension and commit';
    this.tooltip =
      "Bytes of the repository's history per directory, path, extension and commit, as git filter-repo --analyze counts them: a blob once at each path it was at, on disk (its pack entry) and inflated.";
  }

  protected progressTitle(): string {
    return `PackScope: where the bytes go in ${this.parent.listing.name}`;
  }

  protected request(
    server: ServerClient,
    workDoneToken: string,
    token: vscode.CancellationToken,
  ): Promise<SizesDocument> {
    return server.request(
      SizesRequest,
      { repository: this.parent.listing.id, rows: LISTED_ROWS, top: LISTED_ROWS, workDoneToken },
      token,
    );
  }

  protected summary(document: SizesDocument): string {
    return sizesSummary(document);
  }

  protected asNode(): PacksNode {
    return this;
  }

  protected rowsOf(document: SizesDocument): PacksNode[] {
    return sizesRows(this, document);
  }
}

function sizesRows(parent: SizesNode, document: SizesDocument): PacksNode[] {
  const group = (key: string, label: string, rows: SizesRowText[], expanded = false): FactNode => {
    const node = new FactNode(parent, key, label, undefined, rows.length > 0 ? expanded : undefined);
    for (const row of rows) node.add(row.key, row.label, row.description).tooltip = row.tooltip;
    return node;
  };
  // A path's row expands to the blobs that were at it.
  const paths = (key: string, label: string, rows: SizesRow[]): FactNode => {
    const node = new FactNode(parent, key, label, undefined, rows.length > 0 ? false : undefined);
    for (const row of rows) node.adopt(new SizesPathNode(node, parent.parent.listing.id, row.path, sizesRowText(row)));
    return node;
  };
  const directories = new FactNode(parent, 'directories', 'Directories', 'largest on disk first', true);
  addDirectories(directories, directoryTree(document));
  // The largest paths come first in `paths`; the largest deleted ones were kept besides them.
  const deleted = document.paths.filter((r) => r.deleted !== null).slice(0, LISTED_ROWS);
  return [
    directories,
    paths('paths', 'Largest paths', document.paths.slice(0, LISTED_ROWS)),
    paths('deleted', 'Deleted paths still in history', deleted),
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
