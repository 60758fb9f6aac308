/**
 * The message protocol between the Pack Map webview (media/pack-map/) and its host
 * (src/extension/pack-map/). The webview draws tiles the host fetches from the server
 * (packscope/packMapTile) and computes no colour itself; it decides which tiles it needs (its view)
 * and tells the host which it no longer needs, so that the server drops them. The handshake: the
 * webview posts `ready`, the host answers `show` with the pack's info and the recordings it knows.
 * A panel draws one pack, or two side by side (a Repack Preview's before and after): each pack is a
 * pane, and every message about a pack names its pane (its index in `show`'s `panes`).
 * No vscode, no LSP libraries.
 */
import type { MapAttribute } from '../common/pack-map-geometry.ts';
import type {
  ObjectDetails,
  PackMapFamilyResult,
  PackMapInfoResult,
  PackMapSeeksResult,
  PackMapTileResult,
} from './server-protocol.ts';

export const PACK_MAP_PROTOCOL_VERSION = 1;

/** Tile requests the webview keeps in flight at most; the rest wait there, nearest the centre first. */
export const PACK_MAP_TILES_IN_FLIGHT = 6;

/** A recording the extension keeps (the Recordings view's store). */
export interface PackMapRecordingChoice {
  file: string;
  label: string;
  description: string;
}

/** Where the view looks: the map is the unit square; `zoom` 0 shows all of it, each step doubles. */
export interface PackMapCamera {
  zoom: number;
  centerX: number;
  centerY: number;
}

/** What the webview keeps with setState, and the serializer hands back after a reload. */
export interface PackMapState {
  version: typeof PACK_MAP_PROTOCOL_VERSION;
  /** The .pack path the panel shows (the server's name for the pack); with two panes, today's. */
  pack: string | null;
  /** A repack preview's kept pack drawn beside `pack` (before and after), or null for one pane. */
  after: string | null;
  /** The repository id the pack belongs to (object commands name it). */
  repository: string | null;
  attribute: MapAttribute;
  recording: string | null;
  camera: PackMapCamera;
  /** The object whose delta family is drawn over the map (its arcs), or null. */
  family: string | null;
  /** With a recording: its reads drawn as a path in read order. */
  seeks: boolean;
}

export interface PackMapTileWanted {
  /** The pane whose pack the tile is of (0 for a panel of one pack). */
  pane: number;
  attribute: MapAttribute;
  order: number;
  tileX: number;
  tileY: number;
  recording?: string;
}

/**
 * A tile as the webview receives it: the server's, with its pixels inflated by the host into a
 * Uint8Array (row-major RGBA), which VS Code's postMessage carries as binary, not as JSON text.
 */
export type PackMapTile = Omit<PackMapTileResult, 'rgbaDeflated'> & { rgba: Uint8Array };

/**
 * What the page will show first, sent with `ready` when it opens on the whole pack (zoom 0): the
 * host can then ask the server for those tiles at once, alongside `show`, instead of after the page
 * has the pack's info, has drawn, and has asked (firstViewTiles).
 */
export interface PackMapFirstView {
  /** The map's side in device pixels at zoom 0 (the canvas's smaller side × devicePixelRatio; every pane's canvas is one size). */
  sidePixels: number;
  attribute: MapAttribute;
  recording?: string;
}

/** What a pane shows: which pack it is to the reader, and the pack's info. */
export type PackMapPaneRole = 'pack' | 'today' | 'preview';
export interface PackMapPane {
  role: PackMapPaneRole;
  info: PackMapInfoResult;
}

/**
 * The order the page draws at zoom 0 (media/pack-map/main.ts drawOrder: cells of 1 to 2 device
 * pixels, at most the pack's deepest order) and every tile of it, for `pane`: the whole pack is in view.
 */
export function firstViewTiles(view: PackMapFirstView, maxOrder: number, pane = 0): PackMapTileWanted[] {
  const order = Math.max(0, Math.min(maxOrder, Math.floor(Math.log2(Math.max(1, view.sidePixels)))));
  const perSide = Math.max(1, 2 ** order / 256);
  const tiles: PackMapTileWanted[] = [];
  for (let tileY = 0; tileY < perSide; tileY++)
    for (let tileX = 0; tileX < perSide; tileX++)
      tiles.push({
        pane,
        attribute: view.attribute,
        order,
        tileX,
        tileY,
        ...(view.recording !== undefined ? { recording: view.recording } : {}),
      });
  return tiles;
}

export type HostToWebview =
  /**
   * `panes`: the packs drawn, one or two (today's and the repack preview's, side by side).
   * `recording`: drawn over the map at once (one of `recordings`; the Repack Preview's before/after).
   * `note`: why the page shows less than it was opened with (a preview's pack gone after a reload).
   * `pushing`: keys of the first view's tiles the host is already fetching (`ready`'s firstView):
   * they arrive as `tile` (or `tileFailed`) messages the page did not ask for, so it does not ask.
   */
  | {
      type: 'show';
      version: number;
      repository: string;
      panes: PackMapPane[];
      recordings: PackMapRecordingChoice[];
      recording?: string;
      pushing?: string[];
      note?: string;
    }
  | { type: 'failed'; message: string }
  | { type: 'tile'; key: string; tile: PackMapTile }
  | { type: 'tileFailed'; key: string; message: string; cancelled: boolean }
  | { type: 'objectAt'; object: ObjectDetails | null }
  | { type: 'family'; family: PackMapFamilyResult }
  | { type: 'seeks'; seeks: PackMapSeeksResult }
  /** A family or seeks request failed (a cancelled one says so). */
  | { type: 'overlayFailed'; message: string; cancelled: boolean }
  | { type: 'recordings'; recordings: PackMapRecordingChoice[] };

export type WebviewToHost =
  /** A request: answered with `show` (or `failed`). `pack` is the state's, after a reload. */
  | { type: 'ready'; version: number; firstView?: PackMapFirstView }
  /**
   * A request: answered with `tile` or `tileFailed`. `key` names it in `cancelTiles`. `generation`:
   * the pane's view as the page counts it, from 0 (the first view, and the tiles pushed with `show`)
   * each time the page loads; a tile of an older generation than one the page has since asked
   * with is superseded, and the server may drop it (answered `tileFailed`, cancelled).
   */
  | { type: 'tile'; key: string; wanted: PackMapTileWanted; generation: number }
  /** The view moved on: these tiles are no longer wanted (their requests are cancelled). */
  | { type: 'cancelTiles'; keys: string[] }
  /** A request: answered with `objectAt`: the object at a cell of `pane`'s pack. */
  | { type: 'objectAt'; pane: number; order: number; x: number; y: number }
  /** A request: answered with `family` (or `overlayFailed`): the delta family of `oid` in `pane`'s pack, drawn over its map. */
  | { type: 'family'; pane: number; oid: string }
  /** A request: answered with `seeks` (or `overlayFailed`): the recording's reads of `pane`'s pack, in order. */
  | { type: 'seeks'; pane: number; recording: string }
  | { type: 'openObject'; pane: number; oid: string }
  | { type: 'revealObject'; pane: number; oid: string };

/** The webview's requests and the host message that answers each (src/common/message-handler.ts). */
export interface PackMapReplies {
  ready: 'show' | 'failed';
  tile: 'tile' | 'tileFailed';
  objectAt: 'objectAt';
  family: 'family' | 'overlayFailed';
  seeks: 'seeks' | 'overlayFailed';
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
/** Panes a panel shows at most: one pack, or a repack preview's before and after. */
export const PACK_MAP_MAX_PANES = 2;
const isPane = (value: unknown): value is number => isCount(value) && value < PACK_MAP_MAX_PANES;
const isText = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 4096;

export function isWebviewToHost(value: unknown): value is WebviewToHost {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  switch (message.type) {
    case 'ready': {
      if (typeof message.version !== 'number') return false;
      const view = message.firstView as Record<string, unknown> | null | undefined;
      return (
        view === undefined ||
        (typeof view === 'object' &&
          view !== null &&
          typeof view.sidePixels === 'number' &&
          Number.isFinite(view.sidePixels) &&
          view.sidePixels > 0 &&
          view.sidePixels < 1e6 &&
          typeof view.attribute === 'string' &&
          (view.recording === undefined || isText(view.recording)))
      );
    }
    case 'tile': {
      const wanted = message.wanted as Record<string, unknown> | null | undefined;
      return (
        isText(message.key) &&
        isCount(message.generation) &&
        typeof wanted === 'object' &&
        wanted !== null &&
        isPane(wanted.pane) &&
        typeof wanted.attribute === 'string' &&
        isCount(wanted.order) &&
        isCount(wanted.tileX) &&
        isCount(wanted.tileY) &&
        (wanted.recording === undefined || isText(wanted.recording))
      );
    }
    case 'cancelTiles':
      return Array.isArray(message.keys) && message.keys.length <= 10_000 && message.keys.every(isText);
    case 'objectAt':
      return isPane(message.pane) && isCount(message.order) && isCount(message.x) && isCount(message.y);
    case 'seeks':
      return isPane(message.pane) && isText(message.recording);
    case 'family':
    case 'openObject':
    case 'revealObject':
      return isPane(message.pane) && typeof message.oid === 'string' && /^[0-9a-f]{40,64}$/.test(message.oid);
    default:
      return false;
  }
}

/** The tile's name in the webview's cache and in `cancelTiles` (its pane last: two panes ask for tiles of the same place). */
export function tileKey(wanted: PackMapTileWanted): string {
  return `${wanted.attribute}|${wanted.recording ?? ''}|${wanted.order}|${wanted.tileX}|${wanted.tileY}|${wanted.pane}`;
}
