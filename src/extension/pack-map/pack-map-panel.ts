import { errorMessage } from '../../common/error-message.ts';
import { inflateRawSync } from 'node:zlib';
import vscode = require('vscode');
import {
  firstViewTiles,
  isWebviewToHost,
  PACK_MAP_PROTOCOL_VERSION,
  tileKey,
  type HostToWebview,
  type PackMapPane,
  type PackMapRecordingChoice,
  type PackMapTile,
  type PackMapTileWanted,
  type WebviewToHost,
} from '../../protocol/pack-map-protocol.ts';
import {
  PackMapFamilyRequest,
  PackMapInfoRequest,
  PackMapObjectAtRequest,
  PackMapSeeksRequest,
  PackMapTileRequest,
  type PackMapInfoResult,
  type PackMapTileResult,
} from '../../protocol/server-protocol.ts';
import { isCancellation } from '../model-progress.ts';
import { type ServerClient } from '../server-client.ts';
import { PanelHost } from '../webview-panel.ts';
import { WEBVIEW_PANELS } from '../webview-panels.ts';
import { PackMapTileViews } from './tile-views.ts';

/**
 * The server's tile with its pixels inflated: the webview gets a Uint8Array, which VS Code's
 * postMessage transfers as binary (no base64 to decode in the page). Checked against the tile's size.
 */
export function binaryTile(result: PackMapTileResult): PackMapTile {
  const { rgbaDeflated, ...rest } = result;
  const bytes = inflateRawSync(Buffer.from(rgbaDeflated, 'base64'), { maxOutputLength: result.size * result.size * 4 });
  if (bytes.byteLength !== result.size * result.size * 4)
    throw new Error(
      `tile ${result.order}/${result.tileX}/${result.tileY}: ${bytes.byteLength} bytes of RGBA for ${result.size}×${result.size} cells`,
    );
  return { ...rest, rgba: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

const overlayFailed = (message: string, cancelled: boolean): HostToWebview => ({
  type: 'overlayFailed',
  message,
  cancelled,
});

export interface PackMapPanelDependencies {
  extensionUri: vscode.Uri;
  output: vscode.LogOutputChannel;
  server: ServerClient;
  recordings(): PackMapRecordingChoice[];
  /** Keeps a repack preview's pack on the server while the panel shows it. */
  holdPreviewPack(pack: string): vscode.Disposable;
}

/** What a panel shows: one pack, or today's pack and a repack preview's kept pack side by side. */
export interface PackMapTarget {
  pack: string;
  repository: string;
  /** Drawn over the map when it opens (the Repack Preview's before/after). */
  recording?: string;
  /** `pack` is a repack preview's kept pack: held on disk while the panel lives. */
  previewPack?: boolean;
  /** A repack preview's kept pack drawn beside `pack` (before and after), held while the panel lives. */
  after?: string;
}

/** The packs of a target, one per pane, in the panes' order. */
function panesOf(target: PackMapTarget): { pack: string; role: PackMapPane['role']; held: boolean }[] {
  if (target.after === undefined)
    return [{ pack: target.pack, role: target.previewPack ? 'preview' : 'pack', held: target.previewPack === true }];
  return [
    { pack: target.pack, role: 'today', held: target.previewPack === true },
    { pack: target.after, role: 'preview', held: true },
  ];
}

/**
 * One pack's map, or two side by side, in a webview panel: the host answers the webview's requests
 * with the server's (info, tiles, the object at a cell) for the pack of the pane each names, cancels
 * the tile requests of tiles the view left, and runs the object commands on a click.
 */
export class PackMapPanel extends PanelHost<HostToWebview, WebviewToHost> {
  private readonly inFlight = new Map<string, vscode.CancellationTokenSource>();
  /** The view each tile request names, so that the server drops the tiles of a view the page left. */
  private readonly tileViews = new PackMapTileViews();
  /** The packs drawn, one per pane. */
  readonly packs: readonly string[];
  /** Each pane's pack info, once the webview has been sent it. */
  infos: PackMapInfoResult[] | undefined;
  private readonly shownEmitter: vscode.EventEmitter<void>;
  /** Fires once the webview has been sent the pack's info. */
  readonly onDidShow: vscode.Event<void>;

  constructor(
    panel: vscode.WebviewPanel,
    private readonly deps: PackMapPanelDependencies,
    readonly target: PackMapTarget,
  ) {
    super(panel, {
      extensionUri: deps.extensionUri,
      page: WEBVIEW_PANELS.packMap,
      output: deps.output,
      logName: 'Pack map',
      accepts: isWebviewToHost,
    });
    this.shownEmitter = this._register(new vscode.EventEmitter<void>());
    this.onDidShow = this.shownEmitter.event;
    const panes = panesOf(target);
    this.packs = panes.map((p) => p.pack);
    const shortName = (pack: string): string =>
      pack
        .split(/[\\/]/)
        .pop()!
        .replace(/^pack-([0-9a-f]{8})[0-9a-f]*\.pack$/, 'pack-$1…');
    panel.title =
      target.after !== undefined
        ? `Pack Map: ${shortName(target.pack)} before and after repack`
        : `${target.previewPack ? 'Pack Map (repack preview)' : 'Pack Map'}: ${shortName(target.pack)}`;
    for (const pane of panes) if (pane.held) this._register(deps.holdPreviewPack(pane.pack));
    this.roles = panes.map((p) => p.role);
    this._register(new vscode.Disposable(() => this.cancelAll()));
    // Asked now, while the page loads, not when it posts `ready`: the server loads the model and
    // the map worker makes the map meanwhile, so the first tiles follow `ready` sooner.
    this.infoRequest = this.askInfos();
  }

  private readonly roles: PackMapPane['role'][];
  private infoRequest: Promise<PromiseSettledResult<PackMapInfoResult>[]>;

  private askInfos(): Promise<PromiseSettledResult<PackMapInfoResult>[]> {
    return Promise.allSettled(this.packs.map((pack) => this.deps.server.request(PackMapInfoRequest, { pack })));
  }

  /** The first pane's pack info (the only one's, for a panel of one pack). */
  get info(): PackMapInfoResult | undefined {
    return this.infos?.[0];
  }

  /** The pack of the pane a message names (the protocol's check keeps it under PACK_MAP_MAX_PANES; this panel may have fewer). */
  private packOf(pane: number): string {
    const pack = this.packs[pane];
    if (pack === undefined) throw new Error(`pack map: no pane ${pane} (this panel draws ${this.packs.length})`);
    return pack;
  }

  /** Sends the recordings again (the Recordings view changed). */
  updateRecordings(): void {
    this.send({ type: 'recordings', recordings: this.deps.recordings() });
  }

  protected send(message: HostToWebview): void {
    if (!this.ready || this.isDisposed) return;
    this.deliver(message);
    if (message.type === 'show') this.shownEmitter.fire();
  }

  // Stays long: one switch over the webview's message union, a case per message.
  protected async onMessage(message: WebviewToHost): Promise<HostToWebview | undefined> {
    switch (message.type) {
      case 'ready': {
        this.pageReady(message.version, PACK_MAP_PROTOCOL_VERSION);
        this.tileViews.pageLoaded();
        const [today, ...beside] = await this.infoRequest;
        if (today!.status === 'rejected') {
          // Asked again on the next `ready` (a reload of the page), not the failure kept.
          this.infoRequest = this.askInfos();
          return { type: 'failed', message: errorMessage(today!.reason) };
        }
        // A preview's pack the server no longer keeps (a panel restored after the window reloaded:
        // previews live as long as their server) leaves today's pack alone, and says why.
        const gone = beside.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        const infos =
          gone === undefined
            ? [today!.value, ...beside.map((r) => (r as PromiseFulfilledResult<PackMapInfoResult>).value)]
            : [today!.value];
        if (gone !== undefined) {
          this.panel.title = this.panel.title.replace(/ before and after repack$/, '');
          this.deps.output.warn(
            `Pack map: the repack preview's pack ${this.packs[1]} cannot be drawn (${errorMessage(gone.reason)}); today's pack alone.`,
          );
        }
        this.infos = infos;
        // The first view's tiles, asked for now rather than when the page has drawn and asks (PackMapFirstView).
        const view = message.firstView;
        const recording = this.target.recording ?? view?.recording;
        const first =
          view === undefined
            ? []
            : infos.flatMap((info, pane) =>
                firstViewTiles({ ...view, ...(recording !== undefined ? { recording } : {}) }, info.maxOrder, pane),
              );
        const pushing = first.map(tileKey);
        const panes = infos.map((info, pane): PackMapPane => ({
          role: infos.length === 1 ? (this.target.previewPack ? 'preview' : 'pack') : this.roles[pane]!,
          info,
        }));
        // Delivered through send, so that onDidShow fires once the webview has it.
        this.send({
          type: 'show',
          version: PACK_MAP_PROTOCOL_VERSION,
          repository: this.target.repository,
          panes,
          recordings: this.deps.recordings(),
          ...(this.target.recording ? { recording: this.target.recording } : {}),
          ...(pushing.length > 0 ? { pushing } : {}),
          ...(gone !== undefined
            ? {
                note: `The repack preview's pack is gone (${errorMessage(gone.reason)}): run the preview again to compare.`,
              }
            : {}),
        });
        // Pushed as the page's generation 0: the view it opens on.
        for (const wanted of first) void this.fetchTile(tileKey(wanted), wanted, 0).then((reply) => this.send(reply));
        return undefined;
      }
      case 'tile':
        return this.fetchTile(message.key, message.wanted, message.generation);
      case 'cancelTiles':
        for (const key of message.keys) this.inFlight.get(key)?.cancel();
        return undefined;
      case 'objectAt': {
        const result = await this.deps.server.request(PackMapObjectAtRequest, {
          pack: this.packOf(message.pane),
          order: message.order,
          x: message.x,
          y: message.y,
        });
        return { type: 'objectAt', object: result.found ? result.object : null };
      }
      case 'family':
        // One overlay of each kind at a time: a newer request cancels the one before.
        return this.cancellable(
          `overlay:family:${message.pane}`,
          'family',
          async (token) => ({
            type: 'family',
            family: await this.deps.server.request(
              PackMapFamilyRequest,
              { pack: this.packOf(message.pane), oid: message.oid },
              token,
            ),
          }),
          overlayFailed,
        );
      case 'seeks':
        return this.cancellable(
          `overlay:seeks:${message.pane}`,
          'seeks',
          async (token) => ({
            type: 'seeks',
            seeks: await this.deps.server.request(
              PackMapSeeksRequest,
              { pack: this.packOf(message.pane), recording: message.recording },
              token,
            ),
          }),
          overlayFailed,
        );
      case 'openObject':
        await vscode.commands.executeCommand('packscope.openObject', {
          oid: message.oid,
          repository: this.target.repository,
        });
        return undefined;
      case 'revealObject':
        await vscode.commands.executeCommand('packscope.revealObject', {
          oid: message.oid,
          repository: this.target.repository,
        });
        return undefined;
    }
  }

  /** A tile from the server, as the webview's `tile` reply (or `tileFailed`), cancellable under its key. */
  private fetchTile(key: string, wanted: PackMapTileWanted, generation: number): Promise<HostToWebview> {
    const { pane, ...tile } = wanted;
    const view = this.tileViews.view(pane, generation);
    return this.cancellable(
      key,
      `tile ${key}`,
      async (token) => ({
        type: 'tile',
        key,
        tile: binaryTile(
          await this.deps.server.request(PackMapTileRequest, { pack: this.packOf(pane), ...tile, view }, token),
        ),
      }),
      (text, cancelled) => ({ type: 'tileFailed', key, message: text, cancelled }),
    );
  }

  /**
   * A server request under `key`: a newer request of the same key cancels it, `cancelTiles` and
   * closing the panel too. A failure is answered with `failed(message, cancelled)` (logged unless cancelled).
   */
  private async cancellable(
    key: string,
    what: string,
    run: (token: vscode.CancellationToken) => Promise<HostToWebview>,
    failed: (message: string, cancelled: boolean) => HostToWebview,
  ): Promise<HostToWebview> {
    this.inFlight.get(key)?.cancel();
    const source = new vscode.CancellationTokenSource();
    this.inFlight.set(key, source);
    try {
      return await run(source.token);
    } catch (error) {
      const cancelled = isCancellation(error) || source.token.isCancellationRequested;
      if (!cancelled) this.deps.output.warn(`Pack map: ${what} failed: ${errorMessage(error)}`);
      return failed(errorMessage(error), cancelled);
    } finally {
      if (this.inFlight.get(key) === source) this.inFlight.delete(key);
      source.dispose();
    }
  }

  private cancelAll(): void {
    for (const source of this.inFlight.values()) source.cancel();
    this.inFlight.clear();
  }
}
