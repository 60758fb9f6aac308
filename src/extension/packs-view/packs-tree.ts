import { errorMessage } from '../../common/error-message.ts';
import vscode = require('vscode');
import { ListRepositoriesRequest, ObjectRequest } from '../../protocol/server-protocol.ts';
import { Disposable } from '../dispose.ts';
import type { GitLocation } from '../git-locator.ts';
import { type ServerClient } from '../server-client.ts';
import type {
  LoadProgressParams,
  ObjectListFilter,
  ObjectDetails,
  RepositoryListing,
} from '../../protocol/server-protocol.ts';
import { shortPackName } from '../format-units.ts';
import { backgroundLoadingText, setBackgroundLoads } from '../model-progress.ts';
import { MessageNode } from './message-node.ts';
import { askForObjectFilter, ObjectFilterStore } from './object-filter.ts';
import { objectTooltip, type ObjectNode } from './object-node.ts';
import type { PackNode } from './pack-node.ts';
import type { PagedKind } from './paged-node.ts';
import type { PacksNode, TreeContext } from './packs-node.ts';
import { RepositoryNode } from './repository-node.ts';

/** Up to this many repositories start expanded. */
const EXPANDED_REPOSITORIES = 3;

/**
 * The Packs view: repositories → packs → summary and object lists, all fed by server requests and
 * paged (`packscope.view.pageSize` items at a time).
 */
/** How long a tooltip that says "resolving names…" stays before its row asks again. */
const TOOLTIP_RETRY_MS = 2000;

export class PacksTreeProvider extends Disposable implements vscode.TreeDataProvider<PacksNode>, TreeContext {
  private readonly changeEmitter = this._register(new vscode.EventEmitter<PacksNode | undefined>());
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private repositories = new Map<string, RepositoryNode>();
  /** The last listing asked for; listings run one after the other, never overlapping. */
  private listed: Promise<void> | undefined;
  private readonly changedRepositories = new Set<string>();
  private changeTimer: NodeJS.Timeout | undefined;
  private changeFlush: Promise<void> | undefined;
  private resolveChangeFlush: (() => void) | undefined;
  private listError: string | undefined;
  private gitNotice: MessageNode | undefined;
  private treeView: vscode.TreeView<PacksNode> | undefined;

  private readonly filterStore: ObjectFilterStore;

  constructor(
    readonly server: ServerClient,
    readonly pageSize: () => number,
    /** Where the object filter is kept (the workspace's state); none: not kept. */
    filterMemento?: vscode.Memento,
  ) {
    super();
    this.filterStore = new ObjectFilterStore(filterMemento);
    // A change timer still pending when the view goes away must not fire into a disposed emitter.
    this._register({ dispose: () => clearTimeout(this.changeTimer) });
  }

  attach(treeView: vscode.TreeView<PacksNode>): void {
    this.treeView = treeView;
    const text = this.filterStore.text;
    treeView.description = text === undefined ? undefined : `filtered: ${text}`;
  }

  changed(node: PacksNode | undefined): void {
    this.changeEmitter.fire(node);
  }

  private readonly buildProgress = new Map<string, string>();

  showBuildProgress(key: string, text: string | undefined): void {
    if (text === undefined) this.buildProgress.delete(key);
    else this.buildProgress.set(key, text);
    if (this.treeView !== undefined)
      this.treeView.message =
        this.buildProgress.size === 0 ? undefined : `Building: ${[...this.buildProgress.values()].join(' · ')}`;
  }

  /**
   * `packscope/loadProgress`: the server's background build of a pack (the warm-up) goes on or ended.
   * The pack's row and its repository's say how far it is, the view's message line too, and Cancel
   * Loading is offered while any is under way.
   */
  showBackgroundLoad({ repository, pack, loading }: LoadProgressParams): void {
    const repositoryNode = this.repositories.get(repository);
    const packNode = repositoryNode?.packNode(pack);
    if (repositoryNode === undefined || packNode === undefined) return;
    packNode.setBackgroundLoad(loading);
    this.changed(packNode);
    repositoryNode.describe();
    this.changed(repositoryNode);
    this.showBackgroundLoads();
  }

  /** The view's message line and Cancel Loading for the packs being built in the background, as the rows say. */
  private showBackgroundLoads(): void {
    let count = 0;
    for (const repository of this.repositories.values()) {
      for (const pack of repository.packNodes()) {
        const loading = pack.summary === undefined ? pack.background : undefined;
        if (loading !== undefined) count += 1;
        // Waiting packs are said on their rows; the message line names those being built, once
        // (a request that joined the same build says it already).
        this.showBuildProgress(
          `background|${pack.listing.pack}`,
          loading === undefined || loading.waiting === true || pack.requestLoading
            ? undefined
            : `${shortPackName(pack.listing.name)}: ${backgroundLoadingText(loading)}`,
        );
      }
    }
    setBackgroundLoads(count);
  }

  /** Shows "git was not found: …" at the top of the view (everything else works without git). */
  setGitLocation(location: GitLocation): void {
    this.gitNotice = location.found
      ? undefined
      : new MessageNode(undefined, 'git', `git was not found: ${location.reason}`, 'warning');
    this.changed(undefined);
  }

  objectFilter(): ObjectListFilter | undefined {
    return this.filterStore.filter;
  }

  /**
   * `packscope.filterObjects`: a filter given (a command argument; `null` clears), else asked for.
   * Every list pages again from the start, and the view's title says what is filtered.
   */
  async filterObjects(value?: unknown): Promise<void> {
    const next = value === undefined ? await askForObjectFilter(this.filterStore.filter) : value;
    if (next === undefined) return;
    await this.filterStore.set(next);
    this.applyFilter();
    this.changed(undefined);
  }

  /** Gives every list the current filter; a list whose filter changed pages again from the start. */
  private applyFilter(): void {
    const text = this.filterStore.text;
    if (this.treeView !== undefined) this.treeView.description = text === undefined ? undefined : `filtered: ${text}`;
    for (const repository of this.repositories.values()) {
      for (const pack of repository.packNodes()) {
        for (const list of pack.objectLists()) {
          if (list.filterText === text) continue;
          list.filterText = text;
          list.resetPages();
          if (pack.summary !== undefined) list.showTotal(list.totalIn(pack.summary));
        }
      }
    }
  }

  getTreeItem(node: PacksNode): vscode.TreeItem {
    return node;
  }

  getParent(node: PacksNode): PacksNode | undefined {
    return node.parent;
  }

  async getChildren(node?: PacksNode): Promise<PacksNode[]> {
    if (node !== undefined) return node.getChildren(this);
    await this.ensureListed();
    const roots: PacksNode[] = this.gitNotice === undefined ? [] : [this.gitNotice];
    if (this.listError !== undefined) {
      roots.push(
        new MessageNode(undefined, 'server', `The PackScope server is not answering: ${this.listError}`, 'error', {
          title: 'Restart Server',
          command: 'packscope.restartServer',
        }),
      );
    }
    roots.push(...this.repositories.values());
    return roots;
  }

  /** Object rows whose tooltip is complete (names known): not asked again. */
  private readonly finalTooltips = new WeakSet<PacksNode>();

  async resolveTreeItem(
    item: vscode.TreeItem,
    node: PacksNode,
    token: vscode.CancellationToken,
  ): Promise<vscode.TreeItem> {
    if (node.kind !== 'object' || this.finalTooltips.has(node)) return item;
    try {
      const result = await this.server.request(
        ObjectRequest,
        { oid: node.item.oid, repository: node.pack.repositoryId, introducedBy: true },
        token,
      );
      const tooltip = result.found ? objectTooltip(result.object) : result.reason;
      item.tooltip = tooltip;
      // A tooltip still resolving names is shown, not kept: a moment later the row is drawn again
      // without it, so that the next hover asks anew (VS Code resolves a row's tooltip once per drawing).
      const resolving = result.found && (result.object.namesPending || result.object.introducedBy?.resolving);
      if (!resolving) this.finalTooltips.add(node);
      else {
        const timer = setTimeout(() => {
          if (this.finalTooltips.has(node)) return;
          node.tooltip = undefined;
          this.changed(node);
        }, TOOLTIP_RETRY_MS);
        this._register({ dispose: () => clearTimeout(timer) });
      }
    } catch {
      return item; // cancelled (the pointer moved on) or the server is away: try again on the next hover
    }
    return item;
  }

  /** The repositories as last listed (what tests and the reveal command look at). */
  repositoryNodes(): RepositoryNode[] {
    return [...this.repositories.values()];
  }

  /** `packscope.refresh`: lists the repositories and their packs again. */
  async refreshAll(): Promise<void> {
    await this.relist();
    this.changed(undefined);
  }

  /**
   * `packscope/packsChanged`: lists again and redraws the repositories that changed, unless the set
   * of repositories changed. A repack sends several in a row; they are handled as one after 100 ms.
   */
  refreshRepository(id: string): Promise<void> {
    this.changedRepositories.add(id);
    if (this.changeTimer === undefined) {
      this.changeFlush = new Promise<void>((resolve) => (this.resolveChangeFlush = resolve));
      this.changeTimer = setTimeout(() => {
        this.changeTimer = undefined;
        const resolve = this.resolveChangeFlush;
        void this.redrawChanged().finally(() => resolve?.());
      }, 100);
    }
    return this.changeFlush ?? Promise.resolve();
  }

  private async redrawChanged(): Promise<void> {
    const ids = [...this.changedRepositories];
    this.changedRepositories.clear();
    const before = [...this.repositories.keys()].join('\n');
    await this.relist();
    const nodes = ids.map((id) => this.repositories.get(id));
    if (nodes.includes(undefined) || [...this.repositories.keys()].join('\n') !== before) this.changed(undefined);
    else for (const node of nodes) this.changed(node);
  }

  private relist(): Promise<void> {
    const previous = this.listed ?? Promise.resolve();
    this.listed = previous.then(() => this.list());
    return this.listed;
  }

  /** "Show N more…". */
  async loadMore(owner: PagedKind): Promise<void> {
    try {
      await owner.loadMore(this);
    } catch (error) {
      void vscode.window.showWarningMessage(`PackScope: ${errorMessage(error)}`);
    }
    this.changed(owner);
  }

  retry(node: PacksNode): void {
    if (
      node.kind === 'object' ||
      node.kind === 'objectList' ||
      node.kind === 'summary' ||
      node.kind === 'sizes' ||
      node.kind === 'concerns'
    )
      node.reload();
    this.changed(node);
  }

  /** Reveals an object under its pack: a "Revealed" node with its chain, root first, the object selected. */
  async reveal(oid: string, repository?: string): Promise<ObjectNode | undefined> {
    const result = await this.server.request(ObjectRequest, { oid, repository });
    if (!result.found) {
      void vscode.window.showWarningMessage(`PackScope: ${result.reason}`);
      return undefined;
    }
    const details = result.object;
    let pack = await this.packNodeFor(details);
    if (pack === undefined) {
      await this.refreshAll();
      pack = await this.packNodeFor(details);
    }
    if (pack === undefined) {
      void vscode.window.showWarningMessage(`PackScope: ${details.packName} is not in the Packs view.`);
      return undefined;
    }
    const revealed = pack.reveal(details);
    this.changed(pack);
    await this.treeView?.reveal(revealed.target, { select: true, focus: true, expand: true });
    return revealed.target;
  }

  private async packNodeFor(details: ObjectDetails): Promise<PackNode | undefined> {
    await this.ensureListed();
    return this.repositories.get(details.repository)?.packNode(details.pack);
  }

  private ensureListed(): Promise<void> {
    this.listed ??= this.list();
    return this.listed;
  }

  private async list(): Promise<void> {
    let listings: RepositoryListing[];
    try {
      listings = (await this.server.request(ListRepositoriesRequest, {})).repositories;
      this.listError = undefined;
    } catch (error) {
      this.listError = errorMessage(error);
      this.listed = undefined; // the next look at the view asks again
      return;
    }
    const expanded = listings.length <= EXPANDED_REPOSITORIES;
    const next = new Map<string, RepositoryNode>();
    for (const listing of listings) {
      const existing = this.repositories.get(listing.id);
      if (existing === undefined) next.set(listing.id, new RepositoryNode(listing, expanded));
      else {
        existing.update(listing);
        next.set(listing.id, existing);
      }
    }
    this.repositories = next;
    // The empty view's "no repository was found" is for a listing that found none, never for one not yet had.
    void vscode.commands.executeCommand('setContext', 'packscope.noRepositoryFound', listings.length === 0);
    // New packs' lists take the filter too (they are made without one).
    this.applyFilter();
    this.showBackgroundLoads();
  }
}
