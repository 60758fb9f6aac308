import vscode = require('vscode');
import type { ObjectDetails } from '../../protocol/server-protocol.ts';
import { shortOid } from '../format-units.ts';
import { CHAIN_LINK, ObjectNode } from './object-node.ts';
import type { PackNode } from './pack-node.ts';
import { PacksNodeBase, type PacksNode } from './packs-node.ts';

/** "Revealed: <id> <type>" at the top of a pack: the chain from the root down to the object. */
export class RevealedNode extends PacksNodeBase {
  readonly kind = 'revealed';
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
    this.links = [...details.chain].reverse().map((link) => new ObjectNode(this, parent, link, CHAIN_LINK));
    this.target = this.links[this.links.length - 1]!;
  }

  override getChildren(): PacksNode[] {
    return this.links;
  }
}
