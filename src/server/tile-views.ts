/**
 * Which Pack Map tile requests a newer view has superseded. A client tags a tile request with its
 * view (`PackMapTileParams.view`: the pane's id and a generation that grows when the pane shows
 * another order, colouring or recording); a request of an older generation than the newest seen
 * for that id is dropped (RequestCancelled) before it is drawn, whether it waits in the server's
 * queue or in the map worker's. What this keeps is bounded: the requests in progress, and the
 * newest generation of the last VIEWS_KEPT views.
 */
import { CancellationTokenSource, type CancellationToken } from 'vscode-languageserver/node';

/** Views whose newest generation is kept: a panel has a pane or two, a window a few panels. */
const VIEWS_KEPT = 1024;

interface Open {
  generation: number;
  source: CancellationTokenSource;
}

export class TileViews {
  private readonly newest = new Map<string, number>();
  private readonly open = new Map<string, Set<Open>>();

  /**
   * A request of `view` at `generation`: a token cancelled when `token` is or when a newer
   * generation of the view arrives, and `done` to call when the request has its answer.
   * Already cancelled when a newer generation was seen.
   */
  enter(view: string, generation: number, token: CancellationToken): { token: CancellationToken; done: () => void } {
    const source = new CancellationTokenSource();
    const subscription = token.onCancellationRequested(() => source.cancel());
    if (token.isCancellationRequested) source.cancel();
    const newest = this.newest.get(view);
    if (newest === undefined || generation > newest) {
      // Most recently moved last (a Map keeps insertion order), so the oldest view goes first.
      this.newest.delete(view);
      this.newest.set(view, generation);
      if (this.newest.size > VIEWS_KEPT) this.newest.delete(this.newest.keys().next().value!);
      for (const older of this.open.get(view) ?? []) if (older.generation < generation) older.source.cancel();
    } else if (generation < newest) source.cancel();
    const entry: Open = { generation, source };
    let entries = this.open.get(view);
    if (!entries) this.open.set(view, (entries = new Set()));
    entries.add(entry);
    return {
      token: source.token,
      done: () => {
        subscription.dispose();
        source.dispose();
        const left = this.open.get(view);
        if (left?.delete(entry) && left.size === 0) this.open.delete(view);
      },
    };
  }
}
