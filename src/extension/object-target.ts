// What the object commands (copy id, show chain, reveal, open) are about: an argument VS Code or a
// caller passed, or an id the user types.
import { errorMessage } from '../common/error-message.ts';
import vscode = require('vscode');
import { ObjectRequest, type ObjectDetails } from '../protocol/server-protocol.ts';
import { ObjectNode } from './packs-view/object-node.ts';
import { type ServerClient } from './server-client.ts';

/**
 * The object a command is about: an item of the Packs view, `{ oid, repository }` (the server's hover
 * links pass that), or an id and a repository as two arguments.
 */
export function objectTarget(target: unknown, repository?: unknown): { oid: string; repository?: string } | undefined {
  if (target instanceof ObjectNode) return { oid: target.item.oid, repository: target.pack.repositoryId };
  if (typeof target === 'string')
    return { oid: target, repository: typeof repository === 'string' ? repository : undefined };
  if (typeof target === 'object' && target !== null && 'oid' in target && typeof target.oid === 'string') {
    const inner = 'repository' in target && typeof target.repository === 'string' ? target.repository : undefined;
    return { oid: target.oid, repository: inner };
  }
  return undefined;
}

/** An input box that accepts an id or a unique prefix, checked with `packscope/object` as the user types. */
export async function askForObject(server: ServerClient): Promise<ObjectDetails | undefined> {
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
      return `The PackScope server could not look it up: ${errorMessage(error)}`;
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
