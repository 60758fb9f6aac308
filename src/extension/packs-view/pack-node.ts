import vscode = require('vscode');
import type { ObjectDetails, PackListing, PackLoading, PackSummary } from '../../protocol/server-protocol.ts';
import { backgroundLoadingText } from '../model-progress.ts';
import { markdownCodeSpan, markdownText } from '../../common/markdown-text.ts';
import { formatCountOf } from '../../common/format.ts';
import { packLayoutLines, packMarkersText } from '../../presentation/storage-text.ts';
import { formatBytes, formatCount, shortPackName } from '../format-units.ts';
import { ObjectListNode } from './object-list-node.ts';
import { OBJECT_LISTS } from './object-lists.ts';
import { PacksNodeBase, type PacksNode } from './packs-node.ts';
import type { RepositoryNode } from './repository-node.ts';
import { RevealedNode } from './revealed-node.ts';
import { SummaryNode } from './summary-node.ts';

export class PackNode extends PacksNodeBase {
  readonly kind = 'pack';
  summary: PackSummary | undefined;
  /** Why the summary could not be had (a listing's own error is in `listing.error`). */
  failure: string | undefined;
  revealed: RevealedNode | undefined;
  private revealCount = 0;
  private readonly summaryNode: SummaryNode;
  private readonly lists: ObjectListNode[];

  constructor(
    readonly parent: RepositoryNode,
    public listing: PackListing,
  ) {
    super(shortPackName(listing.name), vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `${parent.id}|${listing.pack}`;
    this.summaryNode = new SummaryNode(this);
    this.lists = OBJECT_LISTS.map((definition) => new ObjectListNode(this, definition));
    this.update(listing);
  }

  /** The pack's lists of objects (the tree sets their filter). */
  objectLists(): readonly ObjectListNode[] {
    return this.lists;
  }

  get repositoryId(): string {
    return this.parent.listing.id;
  }

  update(listing: PackListing): void {
    this.listing = listing;
    this.summary = listing.summary ?? this.summary;
    this.background = listing.loading;
    this.failure = undefined;
    this.render();
  }

  setSummary(summary: PackSummary): void {
    this.summary = summary;
    this.render();
  }

  /** "indexing 34%…" while the model loads; undefined otherwise. */
  private loading: string | undefined;

  /** A request of the view (the Summary, a list) is building this pack's model now. */
  get requestLoading(): boolean {
    return this.loading !== undefined;
  }

  setLoading(text: string | undefined): void {
    this.loading = text;
    this.render();
  }

  /** How far the server's background build (the warm-up) of this pack is; undefined when none is under way. */
  background: PackLoading | undefined;

  setBackgroundLoad(loading: PackLoading | undefined): void {
    this.background = loading;
    this.render();
  }

  setFailure(message: string): void {
    this.failure = message;
    this.render();
  }

  /** A fresh "Revealed" node at the top of the pack (replacing the last one). */
  reveal(details: ObjectDetails): RevealedNode {
    this.revealCount += 1;
    this.revealed = new RevealedNode(this, details, this.revealCount);
    return this.revealed;
  }

  private render(): void {
    const error = this.listing.error ?? this.failure;
    const name = this.listing.name;
    this.label = shortPackName(name);
    if (error !== undefined) {
      this.description = error;
      this.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
      this.collapsibleState = vscode.TreeItemCollapsibleState.None;
      this.contextValue = 'pack error';
      this.tooltip = `${name}\n${error}`;
      return;
    }
    this.iconPath = new vscode.ThemeIcon('package');
    // A pack whose model is being built has its own Cancel beside it (package.json's menus).
    this.contextValue =
      this.summary === undefined && (this.loading ?? this.background) !== undefined ? 'pack loading' : 'pack';
    if (this.collapsibleState === vscode.TreeItemCollapsibleState.None)
      this.collapsibleState = vscode.TreeItemCollapsibleState.Collapsed;
    const summary = this.summary;
    const layout = this.listing.layout;
    const markers = layout === undefined ? '' : packMarkersText(layout);
    if (summary !== undefined) {
      // The lists' totals are known from the summary before any page loads (VS Code reads an item's
      // description when it draws it, not again after its children come).
      for (const list of this.lists) list.showTotal(list.totalIn(summary));
      this.description = `${formatCountOf(summary.objects, 'object')} · ${formatBytes(summary.bytes.inflated)} inflated · ${formatBytes(summary.bytes.onDisk)} on disk · depth ≤ ${summary.maxDepth}`;
    } else {
      const objects = this.listing.objects === undefined ? '' : formatCountOf(this.listing.objects, 'object');
      // A cancelled warm-up says so (expanding the pack loads it), rather than looking never tried.
      const state =
        this.loading ??
        (this.background !== undefined
          ? backgroundLoadingText(this.background)
          : this.listing.loadCancelled
            ? 'load cancelled: expand to load'
            : undefined);
      // "indexing n of N objects" says the count already (the row is narrow).
      this.description =
        state === undefined
          ? objects
          : objects === '' || this.background !== undefined
            ? state
            : `${state} · ${objects}`;
    }
    // Kind and markers first: they tell a cruft or kept pack apart before any model is built.
    if (markers !== '') this.description = this.description === '' ? markers : `${markers} · ${this.description}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${markdownText(name)}**${this.listing.local ? '' : ' (from an alternate)'}\n\n`);
    tooltip.appendMarkdown(`${markdownCodeSpan(this.listing.pack)}  \n`);
    if (this.listing.packFileBytes !== undefined)
      tooltip.appendMarkdown(`pack file: ${formatBytes(this.listing.packFileBytes)}  \n`);
    if (this.listing.objects !== undefined) tooltip.appendMarkdown(`objects: ${formatCount(this.listing.objects)}`);
    if (layout !== undefined) tooltip.appendMarkdown(`\n\n${packLayoutLines(layout).map(markdownText).join('  \n')}`);
    this.tooltip = tooltip;
  }

  override getChildren(): PacksNode[] {
    if (this.listing.error !== undefined || this.failure !== undefined) return [];
    return [...(this.revealed === undefined ? [] : [this.revealed]), this.summaryNode, ...this.lists];
  }
}
