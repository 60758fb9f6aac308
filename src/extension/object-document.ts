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

/** While the server is still naming an object, its document asks again this often, at most this many times. */
const REFRESH_MS = 2000;
const MAX_REFRESHES = 60;

/** Read-only object documents, rendered from `packscope/objectContent`; rendered again when names arrive. */
export class ObjectDocumentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** How many times each document has asked again for names still resolving. */
  private readonly refreshes = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly server: ServerClient,
    private readonly settings: () => ViewSettings,
  ) {}

  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.changed.dispose();
  }

  /** "resolving names…" in a document: asks for it again in a while (a bounded number of times). */
  private refreshLater(uri: vscode.Uri): void {
    const key = uri.toString();
    const count = this.refreshes.get(key) ?? 0;
    if (count >= MAX_REFRESHES) return;
    this.refreshes.set(key, count + 1);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.changed.fire(uri);
    }, REFRESH_MS);
    this.timers.add(timer);
  }

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
      const details = result.content.details;
      if (details.namesPending || details.introducedBy?.resolving) this.refreshLater(uri);
      else this.refreshes.delete(uri.toString());
      return renderObjectDocument(result.content);
    } catch (error) {
      return `${oid}: the PackScope server could not read this object: ${errorMessage(error)}\n`;
    }
  }
}
