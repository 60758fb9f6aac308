// "Where the bytes go" as a treemap: what `packscope.showBytesTreemap` does (palette, and a
// repository's or its "Where the bytes go" row's menu in the Packs view; the command table calls
// `open`), the panels (one per repository) and their serializer, and what the tests read through
// `api.bytesTreemap`.
import vscode = require('vscode');
import { normalizeBytesTreemapState } from '../../presentation/bytes-treemap-state.ts';
import { ListRepositoriesRequest, type RepositoryListing } from '../../protocol/server-protocol.ts';
import type { Lifetime } from '../dispose.ts';
import { PanelRegistry } from '../panel-registry.ts';
import type { ServerClient } from '../server-client.ts';
import { WEBVIEW_PANELS } from '../webview-panels.ts';
import { BytesTreemapPanel, type BytesTreemapTarget } from './bytes-treemap-panel.ts';

export interface BytesTreemapDependencies {
  lifetime: Lifetime;
  context: vscode.ExtensionContext;
  server: ServerClient;
  output: vscode.LogOutputChannel;
}

export interface BytesTreemapApi {
  /** The panel opened or restored last, while it is open. */
  readonly panel: BytesTreemapPanel | undefined;
  readonly onDidOpen: vscode.Event<BytesTreemapPanel>;
  /** What the command does: a repository row or its "Where the bytes go" row, `{ repository }`, or nothing (a pick). */
  open(argument?: unknown): Promise<BytesTreemapPanel | undefined>;
}

/** The repository id an argument names: a RepositoryNode (`listing.id`), a SizesNode (`parent.listing.id`), `{ repository }` or the id. */
function repositoryOf(argument: unknown): string | undefined {
  if (typeof argument === 'string' && argument !== '') return argument;
  if (typeof argument !== 'object' || argument === null) return undefined;
  const node = argument as {
    listing?: { id?: unknown };
    parent?: { listing?: { id?: unknown } };
    repository?: unknown;
    repositoryId?: unknown;
  };
  for (const id of [node.listing?.id, node.parent?.listing?.id, node.repository, node.repositoryId])
    if (typeof id === 'string' && id !== '') return id;
  return undefined;
}

export function registerBytesTreemap(deps: BytesTreemapDependencies): BytesTreemapApi {
  // After a reload VS Code recreates the panel with the page's last setState: the same repository
  // (the page goes back to its directory and listed blobs itself).
  const registry: PanelRegistry<BytesTreemapPanel> = new PanelRegistry({
    lifetime: deps.lifetime,
    definition: WEBVIEW_PANELS.bytesTreemap,
    restore: async (panel, state) => {
      const restored = normalizeBytesTreemapState(state);
      if (restored.repository === null) return undefined;
      const listing = await listingOf(deps.server, restored.repository);
      if (listing === undefined) return undefined;
      return adopt(panel, { repository: listing.id, name: listing.name });
    },
  });

  const adopt = (panel: vscode.WebviewPanel, target: BytesTreemapTarget): BytesTreemapPanel =>
    registry.adopt(
      new BytesTreemapPanel(
        panel,
        { extensionUri: deps.context.extensionUri, output: deps.output, server: deps.server },
        target,
      ),
    );

  const open = async (argument?: unknown): Promise<BytesTreemapPanel | undefined> => {
    const wanted = repositoryOf(argument);
    const listing = wanted === undefined ? await pickRepository(deps.server) : await listingOf(deps.server, wanted);
    if (listing === undefined) {
      if (wanted !== undefined) throw new Error(`${wanted} is not a repository of the workspace`);
      return undefined;
    }
    // One panel per repository: a second ask shows the one already open.
    const open = registry.panels.find((p) => p.target.repository === listing.id);
    if (open !== undefined) {
      open.panel.reveal();
      return open;
    }
    return adopt(registry.createPanel(vscode.ViewColumn.Active, { retainContextWhenHidden: false }), {
      repository: listing.id,
      name: listing.name,
    });
  };

  return {
    get panel() {
      return registry.current;
    },
    onDidOpen: registry.onDidOpen,
    open,
  };
}

async function listingOf(server: ServerClient, id: string): Promise<RepositoryListing | undefined> {
  const { repositories } = await server.request(ListRepositoriesRequest, {});
  return repositories.find((r) => r.error === undefined && (r.id === id || r.gitDir === id || r.workTree === id));
}

async function pickRepository(server: ServerClient): Promise<RepositoryListing | undefined> {
  const { repositories } = await server.request(ListRepositoriesRequest, {});
  const candidates = repositories.filter((r) => r.error === undefined);
  if (candidates.length === 0)
    throw new Error('No Git repository found in this workspace (see the packscope.repositories setting).');
  if (candidates.length === 1) return candidates[0];
  const picked = await vscode.window.showQuickPick(
    candidates.map((r) => ({ label: `$(repo) ${r.name}`, description: r.workTree ?? r.gitDir, repository: r })),
    { title: 'PackScope: Show Where the Bytes Go', placeHolder: 'The repository whose history to draw' },
  );
  return picked?.repository;
}
