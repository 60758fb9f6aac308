import { errorMessage } from '../../common/error-message.ts';
import vscode = require('vscode');
import {
  isWebviewToHost,
  REPACK_PREVIEW_PROTOCOL_VERSION,
  type HostToWebview,
  type RepackPreviewObjectName,
  type RepackPreviewRun,
  type WebviewToHost,
} from '../../protocol/repack-preview-protocol.ts';
import { equivalentCommand, repackPreviewMarkdown } from '../../presentation/repack-preview-tables.ts';
import { PanelHost } from '../webview-panel.ts';
import type { ObjectNamesResult } from '../../protocol/server-protocol.ts';
import { WEBVIEW_PANELS } from '../webview-panels.ts';

export interface RepackPreviewPanelDependencies {
  extensionUri: vscode.Uri;
  output: vscode.LogOutputChannel;
  /** Keeps the run's preview pack on the server while the panel lives (pack-map/preview-pack-holds.ts). */
  holdPreviewPack(pack: string): vscode.Disposable;
  /** The paths of objects by id (packscope/objectNames); undefined when the repository is not open. */
  objectNames(repository: string, oids: string[]): Promise<ObjectNamesResult['names'] | undefined>;
}

/** While names are still resolving the host asks again this often, at most this many times. */
const NAMES_RETRY_MS = 2000;
const MAX_NAMES_RETRIES = 150;

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
    deps: RepackPreviewPanelDependencies,
    readonly run: RepackPreviewRun,
  ) {
    super(panel, {
      extensionUri: deps.extensionUri,
      page: WEBVIEW_PANELS.repackPreview,
      output: deps.output,
      logName: 'Repack preview',
      accepts: isWebviewToHost,
    });
    this.shownEmitter = this._register(new vscode.EventEmitter<void>());
    this.onDidShow = this.shownEmitter.event;
    panel.title = panelTitle(run);
    // The preview's pack stays on disk while this panel (or a map of it) shows the run.
    if (run.result.previewPack) this._register(deps.holdPreviewPack(run.result.previewPack.pack));
    void this.learnNames(deps, 0);
  }

  /**
   * The paths of the objects the tables name: asked of the server, shown (a `names` message) once they
   * change, and asked again while the repository's walk has not named them ("resolving names…").
   */
  private async learnNames(deps: RepackPreviewPanelDependencies, attempt: number): Promise<void> {
    const repository = this.run.repositoryId;
    const oids = this.run.result.largestChanges.map((c) => c.oid);
    if (repository === undefined || oids.length === 0 || this.isDisposed) return;
    let names;
    try {
      names = await deps.objectNames(repository, oids);
    } catch (error) {
      deps.output.warn(`Repack preview: the objects' paths could not be read: ${errorMessage(error)}`);
      return;
    }
    if (names === undefined || this.isDisposed) return;
    const byOid: Record<string, RepackPreviewObjectName> = {};
    for (const name of names)
      byOid[name.oid] = {
        ...(name.path === undefined ? {} : { path: name.path }),
        ...(name.namesPending ? { namesPending: true as const } : {}),
      };
    if (JSON.stringify(byOid) !== JSON.stringify(this.run.names ?? {})) {
      this.run.names = byOid;
      // Only the path cells change: the page is not drawn again (its scroll, focus and open details stay).
      if (this.shown) this.send({ type: 'names', names: byOid });
    }
    if (names.some((name) => name.namesPending) && attempt < MAX_NAMES_RETRIES) {
      const timer = setTimeout(() => void this.learnNames(deps, attempt + 1), NAMES_RETRY_MS);
      this._register({ dispose: () => clearTimeout(timer) });
    }
  }

  /** Today's largest pack and the preview's side by side in one Pack Map panel, the run's first recording over both. */
  async openPackMaps(): Promise<void> {
    const preview = this.run.result.previewPack;
    const before = this.run.currentPacks?.[0];
    const repository = this.run.repositoryId;
    if (!preview || !before || !repository)
      throw new Error(
        'This run kept no preview pack to draw (an estimate, or a run restored after a reload): run the preview again.',
      );
    const recording = this.run.result.recordings[0]?.recording.file;
    await vscode.commands.executeCommand('packscope.openPackMap', {
      pack: before,
      after: preview.pack,
      repository,
      ...(recording ? { recording } : {}),
      column: 'active',
    });
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
        this.pageReady(message.version, REPACK_PREVIEW_PROTOCOL_VERSION);
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
      case 'openPackMaps':
        try {
          await this.openPackMaps();
        } catch (error) {
          void vscode.window.showErrorMessage(errorMessage(error));
        }
        return undefined;
      case 'openObject':
        // The same command as the Packs view's and the Pack Map's: one object document per id.
        await vscode.commands.executeCommand('packscope.openObject', {
          oid: message.oid,
          ...(this.run.repositoryId ? { repository: this.run.repositoryId } : {}),
        });
        return undefined;
    }
  }
}
