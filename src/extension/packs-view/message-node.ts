import vscode = require('vscode');
import { PacksNodeBase, type PacksNode } from './packs-node.ts';

/** An info, warning or error line; with a command when clicking it can help (retry, restart). */
export class MessageNode extends PacksNodeBase {
  readonly kind = 'message';

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

/** The command of an item that says a load was cancelled or failed: load that node again. */
export const RETRY_COMMAND = 'packscope.retryItem';

export function retryNode(parent: PacksNode): MessageNode {
  return new MessageNode(parent, 'cancelled', 'Cancelled: click to load again', 'info', {
    title: 'Load again',
    command: RETRY_COMMAND,
    arguments: [parent],
  });
}
