/**
 * The view a Pack Map tile request names to the server (`PackMapTileParams.view`): the server
 * drops a tile of an older generation of the same view id than one it has since been sent, so a
 * pane that moved on does not keep the map worker drawing what it left (src/server/tile-views.ts).
 *
 * The page counts its own generations per pane from 0 each time it loads (media/pack-map/tiles.ts
 * says when one is superseded); the server's must only grow for a view id, or the tiles of a page
 * reloaded in the same panel would all count as older than those of the page before it and be
 * dropped. So each `ready` starts the page's count above every generation sent for the pane
 * before, and the pane's id is the panel's with the pane's index. No vscode here: the webview
 * test plays the host with this very class.
 */

let panelsMade = 0;

export class PackMapTileViews {
  /** Unique among the panels of this extension host, the server's one client. */
  private readonly panelId = `pack-map-${++panelsMade}`;
  /** Per pane: the server generation of the current page's generation 0. */
  private readonly base: number[] = [];
  /** Per pane: the newest server generation sent. */
  private readonly newest: number[] = [];

  /** The page (re)loaded: its generations count from above every one sent before. */
  pageLoaded(): void {
    for (let pane = 0; pane < this.newest.length; pane++) this.base[pane] = this.newest[pane]! + 1;
  }

  /** The server's view of `pane` for the page's `generation` (0 for the tiles pushed with `show`). */
  view(pane: number, generation: number): { id: string; generation: number } {
    const server = (this.base[pane] ??= 0) + generation;
    this.newest[pane] = Math.max(this.newest[pane] ?? -1, server);
    return { id: `${this.panelId}/${pane}`, generation: server };
  }
}
