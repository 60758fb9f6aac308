/**
 * Worker thread entry (dist/map-worker.js) of the Pack Map: one persistent thread that
 * keeps the PackMap of the packs it was asked about and of the recording overlays it was sent, and
 * answers info and tile requests (map-worker-protocol.ts; the map's hovers are answered on the
 * server's thread, handlers/pack-map.ts). One request at a time, from its own queue: an info goes
 * before tiles, and a cancelled request that has
 * not started is dropped, so that a view that moved on does not wait for the tiles it left.
 */
import { encodeWorkerError } from '../../core/worker-error.ts';
import { parentPort } from 'node:worker_threads';
import { deflateRawSync } from 'node:zlib';
import { MAP_ATTRIBUTES, MAX_MAP_ORDER, type MapAttribute } from '../../common/pack-map-geometry.ts';
import { hashAlgorithmByName } from '../../core/format/hash-algorithm.ts';
import { PackMap, type LegendEntry } from '../../core/map/pack-map.ts';
import { ModelStore } from '../../core/model/model-store.ts';
import type { PackModel } from '../../core/model/pack-model.ts';
import type { MapInfoBody, MapPackRef, MapWorkerReply, MapWorkerRequest } from './map-worker-protocol.ts';

/** Packs kept (model and map): a view shows one, a before/after two. */
const MAX_PACKS = 3;
/** Recording overlays kept (each a PackMap over a kept model, with its reads' prefix sums). */
const MAX_OVERLAYS = 4;

interface KeptPack {
  model: PackModel;
  map: PackMap;
  /** The model cache and hash it was read with. */
  source: string;
}

const packs = new Map<string, KeptPack>();
const overlays = new Map<string, PackMap>();
const queue: Exclude<MapWorkerRequest, { kind: 'reads' } | { kind: 'cancel' }>[] = [];
let pumping = false;

function post(reply: MapWorkerReply, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(reply, transfer);
}

/** Most recently used last: a Map keeps insertion order. */
function touch<T>(map: Map<string, T>, key: string, value: T, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value!);
}

function keptPack(ref: MapPackRef): KeptPack {
  const kept = packs.get(ref.files.pack);
  // Packs are named by path (a repack writes another name); a changed model cache setting reads afresh.
  const source = `${ref.cacheDir}\0${ref.hashName}`;
  if (kept && kept.source === source) {
    touch(packs, ref.files.pack, kept, MAX_PACKS);
    return kept;
  }
  const hash = hashAlgorithmByName(ref.hashName);
  if (!hash) throw new Error(`unknown object format ${ref.hashName}`);
  const { model } = new ModelStore(ref.cacheDir).load(ref.files, { hash });
  const fresh = { model, map: new PackMap(model), source };
  touch(packs, ref.files.pack, fresh, MAX_PACKS);
  return fresh;
}

function info(ref: MapPackRef): MapInfoBody {
  const { map } = keptPack(ref);
  const legends = {} as Record<MapAttribute, LegendEntry[]>;
  for (const attribute of MAP_ATTRIBUTES) legends[attribute] = map.legend(attribute);
  const maxOrder = map.orderFor(1);
  const bytesPerCell: number[] = [];
  for (let order = 0; order <= MAX_MAP_ORDER; order++) bytesPerCell.push(map.bytesPerCell(order));
  return {
    objects: map.objectCount,
    dataStart: map.dataStart,
    dataEnd: map.dataEnd,
    maxDepth: map.maxDepth,
    largestOnDisk: map.largestOnDisk,
    maxOrder,
    bytesPerCell,
    legends,
  };
}

function handle(request: (typeof queue)[number]): void {
  switch (request.kind) {
    case 'info':
      post({ kind: 'info', id: request.id, info: info(request.pack) });
      return;
    case 'tile': {
      let map = keptPack(request.pack).map;
      if (request.overlay !== undefined) {
        const overlay = overlays.get(request.overlay);
        if (!overlay) {
          post({
            kind: 'error',
            id: request.id,
            message: 'the recording overlay is no longer kept',
            missingOverlay: request.overlay,
          });
          return;
        }
        touch(overlays, request.overlay, overlay, MAX_OVERLAYS);
        map = overlay;
      }
      const rendered = map.render(request.order, request.attribute, request.region);
      // Compressed here, off the server's thread (packscope/packMapTile's rgbaDeflated says why);
      // level 1: a few ms a tile, most of the gain of the higher levels.
      const deflated = deflateRawSync(rendered.rgba, { level: 1 });
      const bytes = new Uint8Array(deflated.buffer, deflated.byteOffset, deflated.byteLength);
      post({
        kind: 'tile',
        id: request.id,
        rgbaDeflated: bytes,
        litCells: rendered.litCells,
        readObjects: map.readObjects,
      });
      return;
    }
  }
}

/** The next request: an info first, else the oldest tile. */
function takeNext(): (typeof queue)[number] | undefined {
  const urgent = queue.findIndex((r) => r.kind !== 'tile');
  return queue.splice(urgent >= 0 ? urgent : 0, 1)[0];
}

function pump(): void {
  if (pumping) return;
  pumping = true;
  // setImmediate between requests: cancel messages that came meanwhile are read before the next one starts.
  setImmediate(() => {
    pumping = false;
    const request = takeNext();
    if (!request) return;
    try {
      handle(request);
    } catch (error) {
      post({ kind: 'error', id: request.id, ...encodeWorkerError(error) });
    }
    if (queue.length > 0) pump();
  });
}

parentPort!.on('message', (request: MapWorkerRequest) => {
  switch (request.kind) {
    case 'cancel': {
      const at = queue.findIndex((r) => r.id === request.id);
      if (at >= 0) {
        queue.splice(at, 1);
        post({ kind: 'cancelled', id: request.id });
      }
      return;
    }
    case 'reads':
      try {
        const { model } = keptPack(request.pack);
        touch(overlays, request.key, new PackMap(model, request.counts), MAX_OVERLAYS);
      } catch {
        // The tile that names this key gets `missingOverlay` and the server's error from sending it again.
      }
      return;
    default:
      queue.push(request);
      pump();
  }
});
