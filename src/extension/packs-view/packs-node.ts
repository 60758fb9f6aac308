// The Packs view's nodes: one discriminated union (`kind`) of one class per kind, each in its own
// file here. A new list of objects is not a new kind: it is one definition file and one entry of
// object-lists.ts. Every node keeps what it has loaded, so that a refresh of one node returns the same
// instances (their ids make expansion and reveal stable).
import vscode = require('vscode');
import type { ObjectListFilter } from '../../protocol/server-protocol.ts';
import type { ServerClient } from '../server-client.ts';
import type { ConcernsNode } from './concerns-node.ts';
import type { FactNode } from './fact-node.ts';
import type { MessageNode } from './message-node.ts';
import type { MoreNode } from './more-node.ts';
import type { ObjectListNode } from './object-list-node.ts';
import type { ObjectNode } from './object-node.ts';
import type { PackNode } from './pack-node.ts';
import type { PathBlobNode } from './path-blob-node.ts';
import type { RepositoryNode } from './repository-node.ts';
import type { RevealedNode } from './revealed-node.ts';
import type { SizesNode } from './sizes-node.ts';
import type { SizesPathNode } from './sizes-path-node.ts';
import type { StorageNode } from './storage-node.ts';
import type { SummaryNode } from './summary-node.ts';

export type PacksNode =
  | RepositoryNode
  | PackNode
  | SummaryNode
  | FactNode
  | ObjectListNode
  | ObjectNode
  | MoreNode
  | RevealedNode
  | StorageNode
  | SizesNode
  | SizesPathNode
  | PathBlobNode
  | ConcernsNode
  | MessageNode;

/** What nodes need from the provider that owns them. */
export interface TreeContext {
  readonly server: ServerClient;
  pageSize(): number;
  /** The filter the ranked lists are paged with (object-filter.ts), if any. */
  objectFilter(): ObjectListFilter | undefined;
  /** Redraws one node and its children. */
  changed(node: PacksNode): void;
  /**
   * The view's message line while a model builds ("pack-1a2b…: Reading objects: n of N"), undefined
   * when it ends. A row's own text redraws only with its subtree, which VS Code holds back while an
   * expanded child (the Summary) waits for that very model; the message line never waits.
   */
  showBuildProgress(key: string, text: string | undefined): void;
}

/** What every kind of node is; `kind` tells them apart. */
export abstract class PacksNodeBase extends vscode.TreeItem {
  abstract readonly kind: PacksNode['kind'];
  abstract readonly parent: PacksNode | undefined;

  getChildren(_context: TreeContext): PacksNode[] | Promise<PacksNode[]> {
    return [];
  }
}
