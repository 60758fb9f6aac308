// The Packs view's items, one class per kind. Each item keeps what it has loaded, so that a refresh
// of one node returns the same instances (their ids make expansion and reveal stable).
import vscode = require('vscode');
import {
  ObjectListRequest,
  ObjectRequest,
  PackSummaryRequest,
  type ObjectDetails,
  type ObjectItem,
  type ObjectListKind,
  type PackListing,
  type PackSummary,
  type RepositoryListing,
} from '../protocol/server-protocol.ts';
import { formatBytes, formatCount, shortOid, shortPackName } from './format-units.ts';
import { isCancellation, withModelProgress } from './model-progress.ts';
import { describe, type ServerClient } from './server-client.ts';

/** What items need from the provider that owns them. */
export interface TreeContext {
  readonly server: ServerClient;
  pageSize(): number;
  /** Redraws one item and its children. */
  changed(node: PacksNode): void;
}

export abstract class PacksNode extends vscode.TreeItem {
  abstract readonly parent: PacksNode | undefined;

  getChildren(_context: TreeContext): PacksNode[] | Promise<PacksNode[]> {
    return [];
  }
}

/** An info, warning or error line; with a command when clicking it can help (retry, restart). */
export class MessageNode extends PacksNode {
  constructor(
    readonly parent: PacksNode | undefined,
    key: string,
    label: string,
    icon: 'info' | 'warning' | 'error',
    command?: vscode.Command,
  ) {
    super(label, vscode.TreeItemCollapsibleState.None);
    this.id = `${parent?.id ?? ''}/message:${key}`;
    this.iconPath = new vscode.ThemeIcon(icon, icon === 'error' ? new vscode.ThemeColor('errorForeground') : undefined);
    this.tooltip = label;
    this.contextValue = `message ${icon}`;
    if (command !== undefined) this.command = command;
  }
}

/** A fact row (`commit: 12`, `depth 3: 40 ▇▇`), possibly with rows below it. */
export class FactNode extends PacksNode {
  private readonly rows: FactNode[] = [];

  constructor(
    readonly parent: PacksNode,
    key: string,
    label: string,
    description?: string,
    expanded?: boolean,
  ) {
    super(label, expanded === undefined ? vscode.TreeItemCollapsibleState.None : expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `${parent.id}/${key}`;
    if (description !== undefined) this.description = description;
    this.contextValue = 'fact';
  }

  add(key: string, label: string, description?: string): FactNode {
    const row = new FactNode(this, key, label, description);
    this.rows.push(row);
    return row;
  }

  override getChildren(): PacksNode[] {
    return this.rows;
  }
}

export class RepositoryNode extends PacksNode {
  readonly parent = undefined;
  private readonly packs = new Map<string, PackNode>();

  constructor(
    public listing: RepositoryListing,
    expanded: boolean,
  ) {
    super(listing.name, expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `repository:${listing.id}`;
    this.iconPath = new vscode.ThemeIcon('repo');
    this.contextValue = 'repository';
    this.update(listing);
  }

  /** Takes a new listing; packs that are still there keep what they loaded (a pack's name is its checksum). */
  update(listing: RepositoryListing): void {
    this.listing = listing;
    this.label = listing.name;
    this.description = listing.workTree ?? listing.gitDir;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${escapeMarkdown(listing.name)}**\n\n`);
    tooltip.appendMarkdown(`git directory: \`${listing.gitDir}\`  \nobject format: ${listing.objectFormat}  \npacks: ${listing.packs.length}`);
    this.tooltip = tooltip;
    const seen = new Set<string>();
    for (const pack of listing.packs) {
      seen.add(pack.pack);
      const existing = this.packs.get(pack.pack);
      if (existing === undefined) this.packs.set(pack.pack, new PackNode(this, pack));
      else existing.update(pack);
    }
    for (const path of [...this.packs.keys()]) if (!seen.has(path)) this.packs.delete(path);
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
    if (this.listing.packs.length === 0) children.push(new MessageNode(this, 'no-packs', 'No packs: every object is loose (git gc packs them)', 'info'));
    return children;
  }
}

const LIST_TITLES: Record<Exclude<ObjectListKind, 'children'>, string> = {
  families: 'Delta families',
  deepest: 'Deepest chains',
  largest: 'Largest objects',
  largestOnDisk: 'Largest on disk',
};

export class PackNode extends PacksNode {
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
    this.lists = (Object.keys(LIST_TITLES) as (keyof typeof LIST_TITLES)[]).map((kind) => new ObjectListNode(this, kind, LIST_TITLES[kind]));
    this.update(listing);
  }

  get repositoryId(): string {
    return this.parent.listing.id;
  }

  update(listing: PackListing): void {
    this.listing = listing;
    this.summary = listing.summary ?? this.summary;
    this.failure = undefined;
    this.render();
  }

  setSummary(summary: PackSummary): void {
    this.summary = summary;
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
    this.contextValue = 'pack';
    if (this.collapsibleState === vscode.TreeItemCollapsibleState.None) this.collapsibleState = vscode.TreeItemCollapsibleState.Collapsed;
    const summary = this.summary;
    if (summary !== undefined) {
      // The lists' totals are known from the summary before any page loads (VS Code reads an item's
      // description when it draws it, not again after its children come).
      for (const list of this.lists) list.description = formatCount(list.kind === 'families' ? summary.families : summary.objects);
      this.description = `${formatCount(summary.objects)} objects · ${formatBytes(summary.bytes.inflated)} inflated · ${formatBytes(summary.bytes.onDisk)} on disk · depth ≤ ${summary.maxDepth}`;
    } else {
      this.description = this.listing.objects === undefined ? '' : `${formatCount(this.listing.objects)} objects`;
    }
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${name}**${this.listing.local ? '' : ' (from an alternate)'}\n\n`);
    tooltip.appendMarkdown(`\`${this.listing.pack}\`  \n`);
    if (this.listing.packFileBytes !== undefined) tooltip.appendMarkdown(`pack file: ${formatBytes(this.listing.packFileBytes)}  \n`);
    if (this.listing.objects !== undefined) tooltip.appendMarkdown(`objects: ${formatCount(this.listing.objects)}`);
    this.tooltip = tooltip;
  }

  override getChildren(): PacksNode[] {
    if (this.listing.error !== undefined || this.failure !== undefined) return [];
    return [...(this.revealed === undefined ? [] : [this.revealed]), this.summaryNode, ...this.lists];
  }
}

/** Requests a pack's summary, building its model in the server when needed (with progress). */
export async function loadSummary(context: TreeContext, pack: PackNode): Promise<PackSummary> {
  if (pack.summary !== undefined) return pack.summary;
  const summary = await withModelProgress(context.server, `PackScope: reading ${shortPackName(pack.listing.name)}`, (workDoneToken, token) =>
    context.server.request(PackSummaryRequest, { pack: pack.listing.pack, workDoneToken }, token),
  );
  pack.setSummary(summary);
  context.changed(pack);
  return summary;
}

export class SummaryNode extends PacksNode {
  private rows: PacksNode[] | undefined;

  constructor(readonly parent: PackNode) {
    super('Summary', vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `${parent.id}|summary`;
    this.iconPath = new vscode.ThemeIcon('graph');
    this.contextValue = 'summary';
  }

  override async getChildren(context: TreeContext): Promise<PacksNode[]> {
    if (this.rows !== undefined) return this.rows;
    try {
      const summary = await loadSummary(context, this.parent);
      this.rows = summaryRows(this, summary);
      return this.rows;
    } catch (error) {
      if (isCancellation(error)) return [retryNode(this)];
      this.parent.setFailure(describe(error));
      context.changed(this.parent);
      return [];
    }
  }
}

function summaryRows(parent: SummaryNode, summary: PackSummary): PacksNode[] {
  const row = (key: string, label: string, description?: string): FactNode => new FactNode(parent, key, label, description);
  const rows: PacksNode[] = [
    row('objects', `objects: ${formatCount(summary.objects)}`),
    row('commit', `commit: ${formatCount(summary.byType.commit)}`),
    row('tree', `tree: ${formatCount(summary.byType.tree)}`),
    row('blob', `blob: ${formatCount(summary.byType.blob)}`),
    row('tag', `tag: ${formatCount(summary.byType.tag)}`),
    row('ofs', `OFS deltas: ${formatCount(summary.deltas.ofs)}`),
    row('ref', `REF deltas: ${formatCount(summary.deltas.ref)}`),
  ];
  const depths = new FactNode(parent, 'depths', `depths: ≤ ${summary.maxDepth}`, `mean ${summary.meanDepth.toFixed(2)}`, true);
  const widest = Math.max(1, ...summary.depthHistogram);
  summary.depthHistogram.forEach((count, depth) => {
    depths.add(`depth:${depth}`, `depth ${depth}: ${formatCount(count)}`, count === 0 ? '' : '▇'.repeat(Math.max(1, Math.round((20 * count) / widest))));
  });
  rows.push(
    depths,
    row('inflated', `inflated: ${formatBytes(summary.bytes.inflated)}`, `${formatCount(summary.bytes.inflated)} bytes`),
    row('on-disk', `on disk: ${formatBytes(summary.bytes.onDisk)}`, `${formatCount(summary.bytes.onDisk)} bytes`),
    row('pack-file', `pack file: ${formatBytes(summary.packFileBytes)}`, `${formatCount(summary.packFileBytes)} bytes`),
    row('families', `families: ${formatCount(summary.families)}`),
    row('format', `format: pack v${summary.packVersion} · idx v${summary.idxVersion} · ${summary.hasRev ? 'with' : 'no'} .rev`),
    row('model', summary.source === 'persisted' ? `model: persisted, loaded in ${summary.loadMs} ms` : `model: built in ${summary.loadMs} ms`),
    row('checksum', `checksum: ${summary.checksum}`),
  );
  return rows;
}

/** The command of an item that says a load was cancelled or failed: load that node again. */
export const RETRY_COMMAND = 'packscope.retryItem';

function retryNode(parent: PacksNode): MessageNode {
  return new MessageNode(parent, 'cancelled', 'Cancelled: click to load again', 'info', { title: 'Load again', command: RETRY_COMMAND, arguments: [parent] });
}

/** One page after another of an object list (`packscope/objectList`), never the whole list at once. */
class ObjectPages {
  readonly items: ObjectItem[] = [];
  total: number | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly pack: PackNode,
    private readonly kind: ObjectListKind,
    private readonly title: string,
    private readonly oid?: string,
  ) {}

  get complete(): boolean {
    return this.total !== undefined && this.items.length >= this.total;
  }

  loadNext(context: TreeContext): Promise<void> {
    this.loading ??= this.fetch(context).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async fetch(context: TreeContext): Promise<void> {
    const start = this.items.length;
    const result = await withModelProgress(context.server, `PackScope: ${this.title}`, (workDoneToken, token) =>
      context.server.request(
        ObjectListRequest,
        { pack: this.pack.listing.pack, kind: this.kind, oid: this.oid, start, count: context.pageSize(), workDoneToken },
        token,
      ),
    );
    // A concurrent load may have appended the same page; keep the list in order and without repeats.
    if (this.items.length === start) this.items.push(...result.items);
    this.total = result.total;
  }
}

/** An item whose children are object pages, with a "Show N more…" item after the last one loaded. */
export abstract class PagedNode extends PacksNode {
  abstract readonly pages: ObjectPages;
  private nodes: PacksNode[] = [];
  private more: MoreNode | undefined;
  private failure: MessageNode | undefined;

  protected abstract objectNode(item: ObjectItem): ObjectNode;

  reload(): void {
    this.failure = undefined;
  }

  override async getChildren(context: TreeContext): Promise<PacksNode[]> {
    if (this.failure !== undefined) return [this.failure];
    if (this.pages.total === undefined) {
      try {
        await this.pages.loadNext(context);
      } catch (error) {
        if (isCancellation(error)) return [retryNode(this)];
        this.failure = new MessageNode(this, 'error', describe(error), 'error', { title: 'Load again', command: RETRY_COMMAND, arguments: [this] });
        return [this.failure];
      }
      this.pagesLoaded();
    }
    while (this.nodes.length < this.pages.items.length) this.nodes.push(this.objectNode(this.pages.items[this.nodes.length]!));
    if (this.pages.complete) return this.nodes;
    this.more ??= new MoreNode(this);
    this.more.render(this.pages, context.pageSize());
    return [...this.nodes, this.more];
  }

  /** Loads the next page; the provider then redraws this node only. */
  async loadMore(context: TreeContext): Promise<void> {
    await this.pages.loadNext(context);
    this.pagesLoaded();
  }

  protected pagesLoaded(): void {}
}

export class MoreNode extends PacksNode {
  constructor(readonly parent: PagedNode) {
    super('Show more…', vscode.TreeItemCollapsibleState.None);
    this.id = `${parent.id}/more`;
    this.iconPath = new vscode.ThemeIcon('ellipsis');
    this.contextValue = 'more';
    this.command = { title: 'Show more', command: 'packscope.loadMore', arguments: [this] };
  }

  render(pages: ObjectPages, pageSize: number): void {
    const total = pages.total ?? 0;
    this.label = `Show ${formatCount(Math.min(pageSize, total - pages.items.length))} more…`;
    this.description = `${formatCount(pages.items.length)} of ${formatCount(total)}`;
  }
}

export class ObjectListNode extends PagedNode {
  readonly pages: ObjectPages;

  constructor(
    readonly parent: PackNode,
    readonly kind: Exclude<ObjectListKind, 'children'>,
    title: string,
  ) {
    super(title, vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `${parent.id}|list:${kind}`;
    this.iconPath = new vscode.ThemeIcon(kind === 'families' ? 'type-hierarchy' : kind === 'deepest' ? 'list-ordered' : 'arrow-both');
    this.contextValue = `list ${kind}`;
    this.pages = new ObjectPages(parent, kind, `${title} of ${shortPackName(parent.listing.name)}`);
  }

  protected override pagesLoaded(): void {
    if (this.pages.total !== undefined) this.description = formatCount(this.pages.total);
  }

  protected objectNode(item: ObjectItem): ObjectNode {
    const role = this.kind === 'families' ? 'family' : this.kind === 'deepest' ? 'deepest' : 'largest';
    return new ObjectNode(this, this.parent, item, role);
  }
}

/**
 * How an object item shows and what it expands to: a family member expands to its delta children,
 * a deepest-chain entry to its chain (down to the root), the others not at all.
 */
export type ObjectRole = 'family' | 'deepest' | 'largest' | 'link' | 'revealed';

const TYPE_ICONS: Record<string, string> = { commit: 'git-commit', tree: 'list-tree', blob: 'file', tag: 'tag' };

export class ObjectNode extends PagedNode {
  readonly pages: ObjectPages;
  private chain: ObjectNode[] | undefined;

  constructor(
    readonly parent: PacksNode,
    readonly pack: PackNode,
    readonly item: ObjectItem,
    readonly role: ObjectRole,
  ) {
    super(`${shortOid(item.oid)} ${item.type}`, collapsibleFor(item, role));
    this.id = `${parent.id}/${item.oid}`;
    this.iconPath = new vscode.ThemeIcon(TYPE_ICONS[item.type] ?? 'symbol-misc');
    this.contextValue = item.depth > 0 ? 'object delta' : 'object';
    this.description = describeObject(item, role);
    this.pages = new ObjectPages(pack, 'children', `delta children of ${shortOid(item.oid)}`, item.oid);
  }

  override async getChildren(context: TreeContext): Promise<PacksNode[]> {
    if (this.role === 'family') return super.getChildren(context);
    if (this.role !== 'deepest' || this.item.depth === 0) return [];
    if (this.chain !== undefined) return this.chain;
    const result = await context.server.request(ObjectRequest, { oid: this.item.oid, repository: this.pack.repositoryId });
    if (!result.found) return [new MessageNode(this, 'not-found', result.reason, 'warning')];
    this.chain = result.object.chain.slice(1).map((link) => new ObjectNode(this, this.pack, link, 'link'));
    return this.chain;
  }

  protected objectNode(item: ObjectItem): ObjectNode {
    return new ObjectNode(this, this.pack, item, 'family');
  }
}

function collapsibleFor(item: ObjectItem, role: ObjectRole): vscode.TreeItemCollapsibleState {
  const expandable = (role === 'family' && item.children > 0) || (role === 'deepest' && item.depth > 0);
  return expandable ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
}

function describeObject(item: ObjectItem, role: ObjectRole): string {
  switch (role) {
    case 'family':
      return item.depth === 0
        ? `family of ${formatCount(item.familySize)} · ${formatBytes(item.size)}`
        : `${item.inPackType} · depth ${item.depth} · ${formatBytes(item.size)} · ${formatCount(item.children)} children`;
    case 'deepest':
      return `depth ${item.depth} · ${formatBytes(item.size)}`;
    case 'largest':
      return `${formatBytes(item.size)} inflated · ${formatBytes(item.diskSize)} on disk`;
    case 'link':
    case 'revealed':
      return `${item.inPackType} · depth ${item.depth} · ${formatBytes(item.size)}`;
  }
}

/** The lazy tooltip of an object item (`resolveTreeItem`). */
export function objectTooltip(details: ObjectDetails): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString();
  tooltip.appendMarkdown(`**${details.type}** \`${details.oid}\`\n\n`);
  tooltip.appendMarkdown(`stored as ${details.inPackType}  \n`);
  tooltip.appendMarkdown(`size ${formatBytes(details.size)} (${formatCount(details.size)} bytes) · on disk ${formatBytes(details.diskSize)} (${formatCount(details.diskSize)} bytes)  \n`);
  tooltip.appendMarkdown(`offset ${formatCount(details.offset)} in ${details.packName}  \n`);
  tooltip.appendMarkdown(`depth ${details.depth}${details.depth > 0 ? ` · chain root \`${shortOid(details.root)}\`` : ''}  \n`);
  tooltip.appendMarkdown(`family of ${formatCount(details.familySize)} · ${formatCount(details.children)} delta children`);
  return tooltip;
}

/** "Revealed: <id> <type>" at the top of a pack: the chain from the root down to the object. */
export class RevealedNode extends PacksNode {
  readonly links: ObjectNode[];
  readonly target: ObjectNode;

  constructor(
    readonly parent: PackNode,
    readonly details: ObjectDetails,
    count: number,
  ) {
    super(`Revealed: ${shortOid(details.oid)} ${details.type}`, vscode.TreeItemCollapsibleState.Expanded);
    this.id = `${parent.id}|revealed:${count}`;
    this.iconPath = new vscode.ThemeIcon('eye');
    this.contextValue = 'revealed';
    this.description = details.depth === 0 ? 'not a delta' : `chain of ${details.chain.length}, root first`;
    this.links = [...details.chain].reverse().map((link) => new ObjectNode(this, parent, link, link.oid === details.oid ? 'revealed' : 'link'));
    this.target = this.links[this.links.length - 1]!;
  }

  override getChildren(): PacksNode[] {
    return this.links;
  }
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
