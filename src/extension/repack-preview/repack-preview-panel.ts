import vscode = require('vscode');
import {
  isWebviewToHost,
  REPACK_PREVIEW_PROTOCOL_VERSION,
  type HostToWebview,
  type RepackPreviewRun,
  type WebviewToHost,
} from '../../protocol/repack-preview-protocol.ts';
import { equivalentCommand, repackPreviewMarkdown } from '../../presentation/repack-preview-tables.ts';
import { PanelHost } from '../webview-panel.ts';
import { REPACK_PREVIEW_PAGE } from './repack-preview-html.ts';

export interface RepackPreviewPanelDependencies {
  extensionUri: vscode.Uri;
  output: vscode.LogOutputChannel;
}

export function panelTitle(run: RepackPreviewRun): string {
  return `${run.result.preview === null ? 'Repack Estimate' : 'Repack Preview'}: ${run.repositoryName} (${run.request.label})`;
}

/**
 * One finished repack preview in a webview panel: the host sends the run once the webview says it
 * is ready (again after a reload, from the state the serializer hands back), and answers the
 * webview's Export and Copy buttons.
 */
export class RepackPreviewPanel extends PanelHost<HostToWebview, WebviewToHost> {
  private readonly shownEmitter: vscode.EventEmitter<void>;
  /** Fires once the webview has been sent the run. */
  readonly onDidShow: vscode.Event<void>;

  constructor(
    panel: vscode.WebviewPanel,
    private readonly deps: RepackPreviewPanelDependencies,
    readonly run: RepackPreviewRun,
  ) {
    super(panel, { extensionUri: deps.extensionUri, page: REPACK_PREVIEW_PAGE, output: deps.output, logName: 'Repack preview', accepts: isWebviewToHost });
    this.shownEmitter = this._register(new vscode.EventEmitter<void>());
    this.onDidShow = this.shownEmitter.event;
    panel.title = panelTitle(run);
  }

  /** True once the webview has the run. */
  get shown(): boolean {
    return this.posted.some((m) => m.type === 'show');
  }

  get markdown(): string {
    return repackPreviewMarkdown(this.run);
  }

  protected send(message: HostToWebview): void {
    if (!this.ready || this.isDisposed) return;
    this.deliver(message);
    if (message.type === 'show') this.shownEmitter.fire();
  }

  /** What it returns answers the webview's request (RepackPreviewReplies). */
  protected async onMessage(message: WebviewToHost): Promise<HostToWebview | undefined> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        if (message.version !== REPACK_PREVIEW_PROTOCOL_VERSION) this.deps.output.warn(`Repack preview webview speaks protocol ${message.version}, the host ${REPACK_PREVIEW_PROTOCOL_VERSION}.`);
        return { type: 'show', version: REPACK_PREVIEW_PROTOCOL_VERSION, run: this.run };
      case 'exportMarkdown': {
        const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: this.markdown });
        await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: false });
        return undefined;
      }
      case 'copyMarkdown':
        await vscode.env.clipboard.writeText(this.markdown);
        vscode.window.setStatusBarMessage('Copied the repack preview as Markdown.', 3000);
        return undefined;
      case 'copyCommand':
        await vscode.env.clipboard.writeText(equivalentCommand(this.run));
        vscode.window.setStatusBarMessage(`Copied: ${equivalentCommand(this.run)}`, 3000);
        return undefined;
      case 'openObject':
        // The same command as the Packs view's and the Pack Map's: one object document per id.
        await vscode.commands.executeCommand('packscope.openObject', { oid: message.oid, ...(this.run.repositoryId ? { repository: this.run.repositoryId } : {}) });
        return undefined;
    }
  }
}
