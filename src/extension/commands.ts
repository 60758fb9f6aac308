import vscode = require('vscode');
import { ObjectRequest, type ObjectDetails } from '../protocol/server-protocol.ts';
import { openObjectDocument } from './object-document.ts';
import type { PacksTreeProvider } from './packs-tree.ts';
import { MoreNode, ObjectNode, PacksNode, RETRY_COMMAND } from './packs-tree-items.ts';
import { describe, type ServerClient } from './server-client.ts';

interface CommandDependencies {
  server: ServerClient;
  tree: PacksTreeProvider;
  output: vscode.LogOutputChannel;
}

/** Every `packscope.*` command; the ones in package.json and the two the view's own items run. */
export function registerCommands({ server, tree, output }: CommandDependencies): vscode.Disposable[] {
  const run = (name: string, action: (...args: unknown[]) => Promise<unknown> | unknown): vscode.Disposable =>
    vscode.commands.registerCommand(name, async (...args: unknown[]) => {
      try {
        return await action(...args);
      } catch (error) {
        output.error(`${name} failed: ${describe(error)}`);
        void vscode.window.showErrorMessage(`PackScope: ${describe(error)}`);
        return undefined;
      }
    });

  return [
    run('packscope.refresh', () => tree.refreshAll()),
    run('packscope.copyObjectId', async (node) => {
      const object = objectTarget(node);
      if (object === undefined) return;
      await vscode.env.clipboard.writeText(object.oid);
      vscode.window.setStatusBarMessage(`Copied ${object.oid}`, 3000);
    }),
    run('packscope.showChain', (node) => {
      const object = objectTarget(node);
      return object === undefined ? undefined : tree.reveal(object.oid, object.repository);
    }),
    run('packscope.revealObject', (target, repository) => {
      const object = objectTarget(target, repository);
      if (object === undefined) throw new Error('packscope.revealObject needs an object id');
      return tree.reveal(object.oid, object.repository);
    }),
    run('packscope.openObject', async (target, repository) => {
      const object = objectTarget(target, repository);
      if (object !== undefined) return openObjectDocument(object.oid, object.repository);
      const details = await askForObject(server);
      return details === undefined ? undefined : openObjectDocument(details.oid, details.repository);
    }),
    run('packscope.showServerOutput', () => output.show(true)),
    run('packscope.restartServer', async () => {
      await server.restart();
      await tree.refreshAll();
    }),
    run('packscope.loadMore', (node) => (node instanceof MoreNode ? tree.loadMore(node.parent) : undefined)),
    run(RETRY_COMMAND, (node) => (node instanceof PacksNode ? tree.retry(node) : undefined)),
  ];
}

/**
 * The object a command is about: an item of the Packs view, `{ oid, repository }` (the server's hover
 * links pass that), or an id and a repository as two arguments.
 */
function objectTarget(target: unknown, repository?: unknown): { oid: string; repository?: string } | undefined {
  if (target instanceof ObjectNode) return { oid: target.item.oid, repository: target.pack.repositoryId };
  if (typeof target === 'string') return { oid: target, repository: typeof repository === 'string' ? repository : undefined };
  if (typeof target === 'object' && target !== null && 'oid' in target && typeof target.oid === 'string') {
    const inner = 'repository' in target && typeof target.repository === 'string' ? target.repository : undefined;
    return { oid: target.oid, repository: inner };
  }
  return undefined;
}

/** An input box that accepts an id or a unique prefix, checked with `packscope/object` as the user types. */
async function askForObject(server: ServerClient): Promise<ObjectDetails | undefined> {
  const found = new Map<string, ObjectDetails>();
  const check = async (text: string): Promise<string | undefined> => {
    const oid = text.trim().toLowerCase();
    if (oid === '') return undefined;
    if (!/^[0-9a-f]{4,64}$/.test(oid)) return 'An object id is 4 to 64 hex digits.';
    try {
      const result = await server.request(ObjectRequest, { oid });
      if (!result.found) return result.reason;
      found.set(oid, result.object);
      return undefined;
    } catch (error) {
      return `The PackScope server could not look it up: ${describe(error)}`;
    }
  };
  const text = await vscode.window.showInputBox({
    title: 'PackScope: Open Object',
    prompt: 'An object id, or a prefix of at least 4 hex digits naming one object in a workspace pack',
    placeHolder: 'e.g. 1a2b3c4d',
    ignoreFocusOut: true,
    validateInput: check,
  });
  if (text === undefined) return undefined;
  const oid = text.trim().toLowerCase();
  if (!found.has(oid) && (await check(oid)) !== undefined) return undefined;
  return found.get(oid);
}
