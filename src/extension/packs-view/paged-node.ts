import { errorMessage } from '../../common/error-message.ts';
import { ObjectListRequest, type ObjectItem, type ObjectListKind } from '../../protocol/server-protocol.ts';
import { isCancellation, withModelProgress } from '../model-progress.ts';
import { MessageNode, retryNode, RETRY_COMMAND } from './message-node.ts';
import { MoreNode } from './more-node.ts';
import type { ObjectListNode } from './object-list-node.ts';
import type { ObjectNode } from './object-node.ts';
import type { PackNode } from './pack-node.ts';
import { PacksNodeBase, type PacksNode, type TreeContext } from './packs-node.ts';

/** One page after another of an object list (`packscope/objectList`), never the whole list at once. */
export class ObjectPages {
  readonly items: ObjectItem[] = [];
  total: number | undefined;
  private loading: Promise<void> | undefined;
  private generation = 0;

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
    const generation = this.generation;
    const result = await withModelProgress(context.server, `PackScope: ${this.title}`, (workDoneToken, token) =>
      context.server.request(
        ObjectListRequest,
        {
          pack: this.pack.listing.pack,
          kind: this.kind,
          oid: this.oid,
          start,
          count: context.pageSize(),
          filter: this.kind === 'children' ? undefined : context.objectFilter(),
          workDoneToken,
        },
        token,
      ),
    );
    // A concurrent load may have appended the same page; keep the list in order and without repeats.
    if (this.items.length === start && this.generation === generation) {
      this.items.push(...result.items);
      this.total = result.total;
    }
  }

  /** Forgets every page (the filter changed); a page still on its way is dropped when it comes. */
  clear(): void {
    this.generation += 1;
    this.items.length = 0;
    this.total = undefined;
    this.loading = undefined;
  }
}

/** The kinds whose children are object pages. */
export type PagedKind = ObjectNode | ObjectListNode;

/** An item whose children are object pages, with a "Show N more…" item after the last one loaded. */
export abstract class PagedNode extends PacksNodeBase {
  abstract readonly pages: ObjectPages;
  private nodes: PacksNode[] = [];
  private more: MoreNode | undefined;
  private failure: MessageNode | undefined;

  protected abstract objectNode(item: ObjectItem): ObjectNode;

  /** This node as its kind (every subclass is one of these two). */
  protected abstract asNode(): PagedKind;

  reload(): void {
    this.failure = undefined;
  }

  /** Drops what was loaded: the next look at the node pages from the start (a new filter). */
  resetPages(): void {
    this.pages.clear();
    this.nodes = [];
    this.more = undefined;
    this.failure = undefined;
  }

  override async getChildren(context: TreeContext): Promise<PacksNode[]> {
    if (this.failure !== undefined) return [this.failure];
    if (this.pages.total === undefined) {
      try {
        await this.pages.loadNext(context);
      } catch (error) {
        if (isCancellation(error)) return [retryNode(this.asNode())];
        this.failure = new MessageNode(this.asNode(), 'error', errorMessage(error), 'error', {
          title: 'Load again',
          command: RETRY_COMMAND,
          arguments: [this],
        });
        return [this.failure];
      }
      this.pagesLoaded();
    }
    while (this.nodes.length < this.pages.items.length)
      this.nodes.push(this.objectNode(this.pages.items[this.nodes.length]!));
    if (this.pages.complete) return this.nodes;
    this.more ??= new MoreNode(this.asNode());
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
