import vscode = require('vscode');
import type { RepositoryListing } from '../../protocol/server-protocol.ts';
import { markdownCodeSpan, markdownText } from '../../common/markdown-text.ts';
import { backgroundLoadingText } from '../model-progress.ts';
import { ConcernsNode } from './concerns-node.ts';
import { MessageNode } from './message-node.ts';
import { PackNode } from './pack-node.ts';
import { PacksNodeBase, type PacksNode } from './packs-node.ts';
import { SizesNode } from './sizes-node.ts';
import { StorageNode } from './storage-node.ts';

export class RepositoryNode extends PacksNodeBase {
  readonly kind = 'repository';
  readonly parent = undefined;
  private readonly packs = new Map<string, PackNode>();
  private storage: StorageNode | undefined;
  /** Made once: it keeps the sizes it read until its packs change or a retry. */
  private readonly sizes: SizesNode;
  /** Made once, as the sizes: it keeps git-sizer's figures until the packs change or a retry. */
  private readonly concerns: ConcernsNode;

  constructor(
    public listing: RepositoryListing,
    expanded: boolean,
  ) {
    super(
      listing.name,
      expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
    );
    this.id = `repository:${listing.id}`;
    this.iconPath = new vscode.ThemeIcon('repo');
    this.contextValue = 'repository';
    this.sizes = new SizesNode(this);
    this.concerns = new ConcernsNode(this);
    this.update(listing);
  }

  /** "indexing 34%…" while a model of one of its packs loads. */
  private loading: string | undefined;

  setLoading(text: string | undefined): void {
    this.loading = text;
    this.describe();
  }

  /** The path, after what a load of one of its packs is doing (a request's, else the warm-up's). */
  describe(): void {
    const where = this.listing.workTree ?? this.listing.gitDir;
    const background = this.packNodes().find((pack) => pack.background !== undefined)?.background;
    const text = this.loading ?? (background === undefined ? undefined : backgroundLoadingText(background));
    this.description = text === undefined ? where : `${text} · ${where}`;
  }

  /** Takes a new listing; packs that are still there keep what they loaded (a pack's name is its checksum). */
  update(listing: RepositoryListing): void {
    this.listing = listing;
    this.label = listing.name;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${markdownText(listing.name)}**\n\n`);
    tooltip.appendMarkdown(
      `git directory: ${markdownCodeSpan(listing.gitDir)}  \nobject format: ${markdownText(listing.objectFormat)}  \npacks: ${listing.packs.length}`,
    );
    this.tooltip = tooltip;
    // New or removed packs: the history the sizes read may have changed (a fetch, a gc).
    if (listing.packs.length !== this.packs.size || listing.packs.some((p) => !this.packs.has(p.pack))) {
      this.sizes.reload();
      this.concerns.reload();
    }
    const seen = new Set<string>();
    for (const pack of listing.packs) {
      seen.add(pack.pack);
      const existing = this.packs.get(pack.pack);
      if (existing === undefined) this.packs.set(pack.pack, new PackNode(this, pack));
      else existing.update(pack);
    }
    for (const path of [...this.packs.keys()]) if (!seen.has(path)) this.packs.delete(path);
    this.describe();
    if (listing.storage === undefined) this.storage = undefined;
    else if (this.storage === undefined) this.storage = new StorageNode(this);
    else this.storage.update();
  }

  packNode(pack: string): PackNode | undefined {
    return this.packs.get(pack);
  }

  packNodes(): PackNode[] {
    return [...this.packs.values()];
  }

  override getChildren(): PacksNode[] {
    const children: PacksNode[] = [];
    if (this.listing.error !== undefined) children.push(new MessageNode(this, 'error', this.listing.error, 'error'));
    children.push(...this.packs.values());
    if (this.storage !== undefined) children.push(this.storage);
    if (this.listing.error === undefined) children.push(this.sizes, this.concerns);
    // A repository that could not be opened has no packs to speak of: its error says why.
    if (this.listing.packs.length === 0 && (this.listing.error === undefined || this.listing.storage !== undefined))
      children.push(new MessageNode(this, 'no-packs', 'No packs: every object is loose (git gc packs them)', 'info'));
    return children;
  }
}
