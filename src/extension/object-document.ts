import { errorMessage } from '../common/error-message.ts';
import vscode = require('vscode');
import { OBJECT_DOCUMENT_SCHEME, ObjectContentRequest } from '../protocol/server-protocol.ts';
import { renderObjectDocument } from './object-document-text.ts';
import { type ServerClient } from './server-client.ts';
import type { ViewSettings } from './settings.ts';

/** `packscope:/<oid>?<repository id>`; without a repository the server looks in every one. */
export function objectDocumentUri(oid: string, repository?: string): vscode.Uri {
  return vscode.Uri.from({ scheme: OBJECT_DOCUMENT_SCHEME, path: `/${oid}`, query: repository ?? '' });
}

export function parseObjectDocumentUri(uri: vscode.Uri): { oid: string; repository?: string } {
  const oid = uri.path.replace(/^\//, '');
  return uri.query === '' ? { oid } : { oid, repository: uri.query };
}

export async function openObjectDocument(oid: string, repository?: string): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(objectDocumentUri(oid, repository));
  return vscode.window.showTextDocument(document, { preview: true });
}

/** Read-only object documents, rendered from `packscope/objectContent`. */
export class ObjectDocumentProvider implements vscode.TextDocumentContentProvider {
  constructor(
    private readonly server: ServerClient,
    private readonly settings: () => ViewSettings,
  ) {}

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const { oid, repository } = parseObjectDocumentUri(uri);
    const { maxContentBytes, maxInstructions } = this.settings();
    try {
      const result = await this.server.request(
        ObjectContentRequest,
        { oid, repository, maxContentBytes, maxInstructions },
        token,
      );
      if (!result.found) return `${oid}: ${result.reason}\n`;
      return renderObjectDocument(result.content);
    } catch (error) {
      return `${oid}: the PackScope server could not read this object: ${errorMessage(error)}\n`;
    }
  }
}
