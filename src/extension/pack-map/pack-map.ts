// The Pack Map: what `packscope.openPackMap` does (palette, and a pack's menu in the
// Packs view; the command table calls `open`), the panel and its serializer, and what the tests
// read through `api.packMap`.
import * as path from 'node:path';
import vscode = require('vscode');
import type { PackMapRecordingChoice } from '../../protocol/pack-map-protocol.ts';
import { ListRepositoriesRequest } from '../../protocol/server-protocol.ts';
import { normalizePackMapState } from '../../presentation/pack-map-state.ts';
import type { Lifetime } from '../dispose.ts';
import { formatBytes, formatCount } from '../format-units.ts';
import { PanelRegistry } from '../panel-registry.ts';
import type { ServerClient } from '../server-client.ts';
import { WEBVIEW_PANELS } from '../webview-panels.ts';
import { PackMapPanel, type PackMapTarget } from './pack-map-panel.ts';

/** The Recordings view's store (src/extension/recording/recording-store.ts), as much as the map reads. */
export interface PackMapRecordingSource {
  list(): {
    file: string;
    mtimeMs: number;
    sidecar?: { label?: string; args?: string[]; source?: string } | undefined;
  }[];
  readonly onDidChange: vscode.Event<unknown>;
}

export interface PackMapDependencies {
  lifetime: Lifetime;
  context: vscode.ExtensionContext;
  server: ServerClient;
  output: vscode.LogOutputChannel;
  recordings: PackMapRecordingSource;
  /** Holds of kept repack preview packs: a map of one keeps it on disk (preview-pack-holds.ts). */
  previewPacks: { hold(pack: string): vscode.Disposable };
}

export interface PackMapApi {
  /** The panel opened or restored last, while it is open. */
  readonly panel: PackMapPanel | undefined;
  readonly onDidOpen: vscode.Event<PackMapPanel>;
  /** What the command does, with the same argument: a pack node, `{ pack, repository? }`, or nothing (a quick pick). */
  open(argument?: unknown): Promise<PackMapPanel | undefined>;
}

interface OpenTarget {
  pack: string;
  repository?: string;
  /** A recording to draw over the map at once (the Repack Preview's before/after). */
  recording?: string;
  /** A repack preview's kept pack (not in the Packs view): needs `repository`. */
  previewPack?: boolean;
  /** A repack preview's kept pack drawn beside `pack` in the same panel (the Repack Preview's before/after): needs `repository`. */
  after?: string;
  column?: 'active' | 'beside';
}

/**
 * A PackNode of the Packs view (`listing.pack`, `parent.listing.id`) or `{ pack, repository?,
 * recording?, previewPack?, after?, column? }` (the Repack Preview's before/after names `after`).
 */
function targetOf(argument: unknown): OpenTarget | undefined {
  if (typeof argument !== 'object' || argument === null) return undefined;
  const node = argument as { listing?: { pack?: unknown }; repositoryId?: unknown };
  if (typeof node.listing?.pack === 'string')
    return {
      pack: node.listing.pack,
      ...(typeof node.repositoryId === 'string' ? { repository: node.repositoryId } : {}),
    };
  const value = argument as {
    pack?: unknown;
    repository?: unknown;
    recording?: unknown;
    previewPack?: unknown;
    after?: unknown;
    column?: unknown;
  };
  if (typeof value.pack !== 'string' || value.pack === '') return undefined;
  return {
    pack: value.pack,
    ...(typeof value.repository === 'string' ? { repository: value.repository } : {}),
    ...(typeof value.recording === 'string' && value.recording !== '' ? { recording: value.recording } : {}),
    ...(value.previewPack === true ? { previewPack: true } : {}),
    ...(typeof value.after === 'string' && value.after !== '' ? { after: value.after } : {}),
    ...(value.column === 'beside' || value.column === 'active' ? { column: value.column } : {}),
  };
}

export function registerPackMap(deps: PackMapDependencies): PackMapApi {
  const { lifetime } = deps;
  // After a reload VS Code recreates the panel with the webview's last setState: the same pack (and
  // the preview's beside it), attribute, recording and view (the webview restores the camera itself).
  const registry: PanelRegistry<PackMapPanel> = new PanelRegistry({
    lifetime,
    definition: WEBVIEW_PANELS.packMap,
    restore: (panel, state) => {
      const restored = normalizePackMapState(state);
      if (restored.pack === null || restored.repository === null) return undefined;
      return adopt(panel, {
        pack: restored.pack,
        repository: restored.repository,
        ...(restored.after !== null ? { after: restored.after } : {}),
      });
    },
  });

  const recordings = (): PackMapRecordingChoice[] => recordingChoices(deps.recordings);
  lifetime.register(
    deps.recordings.onDidChange(() => {
      for (const panel of registry.panels) panel.updateRecordings();
    }),
  );

  const adopt = (panel: vscode.WebviewPanel, target: PackMapTarget): PackMapPanel => {
    const map = new PackMapPanel(
      panel,
      {
        extensionUri: deps.context.extensionUri,
        output: deps.output,
        server: deps.server,
        recordings,
        holdPreviewPack: (pack) => deps.previewPacks.hold(pack),
      },
      target,
    );
    return registry.adopt(map);
  };

  const open = async (argument?: unknown): Promise<PackMapPanel | undefined> => {
    let target = targetOf(argument);
    const opening = target;
    if ((target?.previewPack === true || target?.after !== undefined) && target.repository === undefined)
      throw new Error('a repack preview pack is drawn for its repository: name it');
    if (target === undefined || target.repository === undefined) {
      const resolved = await resolvePack(deps.server, target);
      if (resolved === undefined) return undefined;
      target = resolved;
    }
    const column = opening?.column === 'beside' ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
    return adopt(registry.createPanel(column, { retainContextWhenHidden: false }), {
      pack: target.pack,
      repository: target.repository!,
      ...(opening?.recording ? { recording: opening.recording } : {}),
      ...(opening?.previewPack ? { previewPack: true } : {}),
      ...(opening?.after !== undefined ? { after: opening.after } : {}),
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

/** The recordings the map offers, newest first, each described by the command it recorded. */
function recordingChoices(source: PackMapDependencies['recordings']): PackMapRecordingChoice[] {
  return source
    .list()
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .map(({ file, mtimeMs, sidecar }) => {
      const what =
        sidecar?.args !== undefined
          ? `git ${sidecar.args.join(' ')}`
          : sidecar?.source === 'terminal'
            ? 'terminal recording'
            : 'recording';
      return {
        file,
        label: sidecar?.label ?? path.basename(file),
        description: `${what}, ${new Date(mtimeMs).toLocaleString()}`,
      };
    });
}

/** The repository of a pack, and every workspace pack for the quick pick. */
async function listPacks(
  server: ServerClient,
): Promise<{ pack: string; repository: string; label: string; description: string }[]> {
  const { repositories } = await server.request(ListRepositoriesRequest, {});
  return repositories.flatMap((r) =>
    r.packs
      .filter((p) => p.error === undefined)
      .map((p) => ({
        pack: p.pack,
        repository: r.id,
        label: `$(package) ${p.name}`,
        description: `${r.name}: ${p.objects === undefined ? '' : `${formatCount(p.objects)} objects`}${p.packFileBytes === undefined ? '' : `, ${formatBytes(p.packFileBytes)}`}`,
      })),
  );
}

/** The pack a command names (or the one the user picks) with its repository, from the server's listing; undefined when the pick is dismissed. */
async function resolvePack(
  server: ServerClient,
  target: OpenTarget | undefined,
): Promise<{ pack: string; repository: string } | undefined> {
  const packs = await listPacks(server);
  if (target !== undefined) {
    const wanted = target.pack;
    const found = packs.find((p) => p.pack === wanted);
    if (found === undefined) throw new Error(`${wanted} is not a pack of the workspace`);
    return found;
  }
  if (packs.length === 0)
    throw new Error(
      'No pack in this workspace to draw (see the packscope.repositories setting; loose objects are packed by git gc).',
    );
  const picked =
    packs.length === 1
      ? packs[0]
      : await vscode.window.showQuickPick(packs, {
          title: 'PackScope: Open Pack Map',
          placeHolder: 'The pack to draw',
          matchOnDescription: true,
        });
  return picked;
}
