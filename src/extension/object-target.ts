// What the object commands (copy id, show chain, reveal, open) are about: an argument VS Code or a
// caller passed, or an id the user types.
import { errorMessage } from '../common/error-message.ts';
import vscode = require('vscode');
import { ObjectRequest, ResolveNameRequest, type ObjectDetails } from '../protocol/server-protocol.ts';
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

/** What the server looks up itself: an id or a prefix of one. */
const HEX_NAME = /^[0-9a-fA-F]{4,64}$/;

/**
 * "Go to Object…": an input box taking an id, a prefix, or in a trusted workspace any name
 * `git rev-parse --verify` takes (HEAD:Makefile, v1.0^{tree}), resolved by the server (through git,
 * read-only). It stays open with the server's reason when the name is unknown or ambiguous; in
 * Restricted Mode it takes hex ids only and says why.
 */
export async function askForObjectName(server: ServerClient): Promise<{ oid: string; repository: string } | undefined> {
  const trusted = vscode.workspace.isTrusted;
  const box = vscode.window.createInputBox();
  box.title = 'PackScope: Go to Object';
  box.placeholder = trusted ? 'e.g. 1a2b3c4d, HEAD:Makefile, v1.0^{tree}, main~3' : 'e.g. 1a2b3c4d';
  box.prompt = trusted
    ? 'An object id, a prefix of at least 4 hex digits, or any name git rev-parse takes (git resolves it, read-only)'
    : 'Restricted Mode: object ids only (4 to 64 hex digits). PackScope runs no git in an untrusted workspace, so names like HEAD:Makefile need the workspace trusted.';
  box.ignoreFocusOut = true;
  const restricted = (text: string): string | undefined =>
    !trusted && text.trim() !== '' && !HEX_NAME.test(text.trim())
      ? `"${text.trim()}" is not an object id; in Restricted Mode PackScope runs no git, so only hex ids are accepted (trust the workspace to use names like HEAD:Makefile).`
      : undefined;
  try {
    return await new Promise((resolve) => {
      let accepting = false;
      box.onDidChangeValue((text) => (box.validationMessage = restricted(text)));
      box.onDidHide(() => resolve(undefined));
      box.onDidAccept(async () => {
        const name = box.value.trim();
        if (name === '' || accepting) return;
        const refused = restricted(name);
        if (refused !== undefined) {
          box.validationMessage = refused;
          return;
        }
        accepting = true;
        box.busy = true;
        try {
          const result = await server.request(ResolveNameRequest, { name });
          if (result.found) {
            resolve({ oid: result.oid, repository: result.repository });
            box.hide();
          } else box.validationMessage = result.reason;
        } catch (error) {
          box.validationMessage = `The PackScope server could not resolve it: ${errorMessage(error)}`;
        } finally {
          accepting = false;
          box.busy = false;
        }
      });
      box.show();
    });
  } finally {
    box.dispose();
  }
}
