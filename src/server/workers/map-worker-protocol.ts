/**
 * The boundary between the server and its one map worker (dist/map-worker.js): a
 * persistent thread that keeps the PackMap (src/core/map/pack-map.ts) of each pack it was asked
 * about, and of each recording overlay it was sent, and draws tiles of them. Drawing a 256 × 256
 * tile is a Hilbert index and a binary search per cell (tens of ms on a large pack), and making a
 * PackMap walks every object once: neither may hold up hovers on the server's thread.
 *
 * Requests carry an `id`; the worker answers each with one reply of the same id. It keeps its own
 * queue (lookups of one object before tiles) and drops what a `cancel` names before it starts.
 * Reads per object (a recording over one pack) are sent once, under a key, and tiles name the key.
 */
import type { MapAttribute } from '../../common/pack-map-geometry.ts';
import type { LegendEntry } from '../../core/map/pack-map.ts';
import type { PackFiles } from '../../core/model/pack-model.ts';
import type { WorkerError } from './task-worker-protocol.ts';

/** A pack as the worker opens it: its model read from the model cache the server's loader persisted it in. */
export interface MapPackRef {
  files: PackFiles;
  /** 'sha1' or 'sha256'. */
  hashName: string;
  cacheDir: string;
}

export interface MapRegionRequest {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type MapWorkerRequest =
  | { kind: 'info'; id: number; pack: MapPackRef }
  | {
      kind: 'tile';
      id: number;
      pack: MapPackRef;
      attribute: MapAttribute;
      order: number;
      region: MapRegionRequest;
      overlay?: string;
    }
  /** A recording's reads of one pack (idx order), kept under `key` until `forget` or until evicted. */
  | { kind: 'reads'; key: string; pack: MapPackRef; counts: Uint32Array }
  | { kind: 'cancel'; id: number };

export interface MapInfoBody {
  objects: number;
  dataStart: number;
  dataEnd: number;
  maxDepth: number;
  largestOnDisk: number;
  /** The smallest order whose cells hold at most one byte (deeper zoom shows nothing new). */
  maxOrder: number;
  bytesPerCell: number[];
  legends: Record<MapAttribute, LegendEntry[]>;
}

export type MapWorkerReply =
  | { kind: 'info'; id: number; info: MapInfoBody }
  /** The tile's row-major RGBA, raw-deflated (PackMapTileResult.rgbaDeflated). */
  | { kind: 'tile'; id: number; rgbaDeflated: Uint8Array; litCells: number; readObjects: number }
  | { kind: 'cancelled'; id: number }
  /** An overlay key the worker no longer has (evicted): the server sends the reads again. */
  | ({ kind: 'error'; id: number; missingOverlay?: string } & WorkerError);
