import { errorMessage } from '../../common/error-message.ts';
import vscode = require('vscode');
import {
  BYTES_TREEMAP_PROTOCOL_VERSION,
  isWebviewToHost,
  MAX_TREEMAP_PATHS,
  TREEMAP_BLOBS,
  type BytesTreemapData,
  type HostToWebview,
  type WebviewToHost,
} from '../../protocol/bytes-treemap-protocol.ts';
import { PathBlobsRequest, SizesRequest } from '../../protocol/server-protocol.ts';
import { SizesTree, treemapMarkdown } from '../../presentation/bytes-treemap.ts';
import { withModelProgress } from '../model-progress.ts';
import type { ServerClient } from '../server-client.ts';
import { PanelHost } from '../webview-panel.ts';
import { WEBVIEW_PANELS } from '../webview-panels.ts';

export interface BytesTreemapPanelDependencies {
  extensionUri: vscode.Uri;
  output: vscode.LogOutputChannel;
  server: ServerClient;
}

/** The repository a panel shows: its id (the common git directory) and its name in the Packs view. */
export interface BytesTreemapTarget {
  repository: string;
  name: string;
}

/**
 * One repository's "Where the bytes go" treemap in a webview panel: the host asks the server for
 * the history's sizes as the page loads (the walk the Packs view's rows made is reused), sends the
 * directories and paths on `ready`, and answers the page's asks for a path's blobs, an object to
 * open and the Markdown of a directory.
 */
export class BytesTreemapPanel extends PanelHost<HostToWebview, WebviewToHost> {
  private readonly shownEmitter: vscode.EventEmitter<BytesTreemapData>;
  /** Fires once the webview has been sent the sizes. */
  readonly onDidShow: vscode.Event<BytesTreemapData>;
  private readonly loading: Promise<BytesTreemapData>;
  private tree: SizesTree | undefined;
  /** What "Copy as Markdown" copied last (the tests read it). */
  lastCopied: string | undefined;

  constructor(
    panel: vscode.WebviewPanel,
    private readonly deps: BytesTreemapPanelDependencies,
    readonly target: BytesTreemapTarget,
  ) {
    super(panel, {
      extensionUri: deps.extensionUri,
      page: WEBVIEW_PANELS.bytesTreemap,
      output: deps.output,
      logName: 'Where the bytes go',
      accepts: isWebviewToHost,
    });
    this.shownEmitter = this._register(new vscode.EventEmitter<BytesTreemapData>());
    this.onDidShow = this.shownEmitter.event;
    panel.title = `Where the Bytes Go: ${target.name}`;
    // Asked now, while the page loads: the history's walk takes seconds on a large repository.
    this.loading = this.load();
    this.loading.catch(() => undefined);
  }

  private async load(): Promise<BytesTreemapData> {
    const document = await withModelProgress(
      this.deps.server,
      `PackScope: where the bytes go in ${this.target.name}`,
      (workDoneToken, token) =>
        this.deps.server.request(
          SizesRequest,
          { repository: this.target.repository, top: 0, reuse: true, workDoneToken },
          token,
        ),
    );
    const data: BytesTreemapData = {
      repositoryId: this.target.repository,
      repositoryName: this.target.name,
      directories: document.directories,
      paths: document.paths.slice(0, MAX_TREEMAP_PATHS),
      omittedPaths: Math.max(0, document.paths.length - MAX_TREEMAP_PATHS),
      commits: document.history.commits,
    };
    this.tree = new SizesTree(data.directories, data.paths);
    return data;
  }

  /** The sizes once the server has sent them. */
  data(): Promise<BytesTreemapData> {
    return this.loading;
  }

  /** The Markdown "Copy as Markdown" copies for `directory`. */
  async markdown(directory: string): Promise<string> {
    await this.loading;
    return treemapMarkdown(this.tree!, directory, this.target.name);
  }

  protected send(message: HostToWebview): void {
    this.deliver(message);
    if (message.type === 'show' && this.ready && !this.isDisposed) this.shownEmitter.fire(message.data);
  }

  /** What it returns answers the webview's request (BytesTreemapReplies). */
  protected async onMessage(message: WebviewToHost): Promise<HostToWebview | undefined> {
    switch (message.type) {
      case 'ready': {
        this.pageReady(message.version, BYTES_TREEMAP_PROTOCOL_VERSION);
        try {
          return { type: 'show', version: BYTES_TREEMAP_PROTOCOL_VERSION, data: await this.loading };
        } catch (error) {
          return { type: 'failed', message: errorMessage(error) };
        }
      }
      case 'pathBlobs':
        try {
          const answer = await this.deps.server.request(PathBlobsRequest, {
            repository: this.target.repository,
            path: message.path,
            count: TREEMAP_BLOBS,
          });
          return { type: 'blobs', path: answer.path, total: answer.total, blobs: answer.blobs };
        } catch (error) {
          return { type: 'blobsFailed', path: message.path, message: errorMessage(error) };
        }
      case 'openObject':
        // The same command as the Packs view's: one object document per id, with its delta chain.
        await vscode.commands.executeCommand('packscope.openObject', {
          oid: message.oid,
          repository: this.target.repository,
        });
        return undefined;
      case 'copyMarkdown': {
        const text = await this.markdown(message.directory);
        await vscode.env.clipboard.writeText(text);
        this.lastCopied = text;
        vscode.window.setStatusBarMessage('Copied the directory as Markdown.', 3000);
        return undefined;
      }
    }
  }
}
