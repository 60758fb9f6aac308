/**
 * The Pack Map's requests: `packscope/packMapInfo`, `packscope/packMapTile`,
 * `packscope/packMapObjectAt`, and the overlays `packscope/packMapFamily` and `packscope/packMapSeeks`. This thread checks the parameters, loads the model (model workers),
 * opens a recording (task worker) and hands the rest to the map worker (workers/map-worker.ts),
 * which draws tiles with the very PackMap `packscope map` draws its PNG with: a tile at order o is
 * the region of the CLI's 2^o picture at (256·tileX, 256·tileY).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CancellationToken } from 'vscode-languageserver/node';
import { MAP_ATTRIBUTES, MAX_MAP_ORDER, type MapAttribute } from '../../common/pack-map-geometry.ts';
import { familyArcs } from '../../core/map/family-arcs.ts';
import { countsInOtherPack, localityInOtherPack, readsInOtherPack } from '../../core/map/by-object-id.ts';
import { objectAtCell, readsPerObject } from '../../core/map/pack-map.ts';
import type { SeekPath } from '../../core/map/seek-path.ts';
import type { PackLocation } from '../../core/model/object-store.ts';
import {
  PACK_MAP_TILE_SIZE,
  PackMapFamilyRequest,
  PackMapInfoRequest,
  PackMapSeeksRequest,
  PackMapObjectAtRequest,
  PackMapTileRequest,
  type PackMapFamilyResult,
  type PackMapInfoResult,
  type PackMapSeeksResult,
  type PackMapObjectAtParams,
  type PackMapObjectAtResult,
  type PackMapTileParams,
  type PackMapTileResult,
  type PackParams,
} from '../../protocol/server-protocol.ts';
import { objectDetails } from '../object-views.ts';
import { openRecording } from '../recording-opener.ts';
import {
  invalid,
  optionalInteger,
  optionalString,
  pageCacheParams,
  paramsObject,
  requireInteger,
  requireString,
} from '../request-params.ts';
import { throwIfCancelled } from '../cancellation.ts';
import { runTaskWorker } from '../workers/task-worker-client.ts';
import { nested, withProgress } from '../request-progress.ts';
import type { ServerContext } from '../server-context.ts';
import type { MapPackRef, MapWorkerReply } from '../workers/map-worker-protocol.ts';
import type { RepositoryState } from '../workspace-registry.ts';

function requireAttribute(value: unknown): MapAttribute {
  if (typeof value !== 'string' || !(MAP_ATTRIBUTES as readonly string[]).includes(value))
    throw invalid(`attribute must be one of ${MAP_ATTRIBUTES.join(', ')}`);
  return value as MapAttribute;
}

/** Tiles across (and down) the map at `order`. */
export function tilesPerSide(order: number): number {
  return Math.max(1, 2 ** order / PACK_MAP_TILE_SIZE);
}

function packRef(context: ServerContext, state: RepositoryState, pack: PackLocation): MapPackRef {
  return { files: pack.files, hashName: state.repository.hash.name, cacheDir: context.loader.directory };
}

/** Identifies a recording's reads of one pack while neither file changes. */
function overlayKey(recording: string, segment: number | undefined, pack: PackLocation): string {
  const stat = fs.statSync(recording, { throwIfNoEntry: false });
  if (!stat) throw invalid(`${recording}: no such recording or trace file`);
  return [recording, stat.size, stat.mtimeMs, stat.ino, segment ?? '', pack.files.pack, pack.mtimeMs].join('\0');
}

function expect<K extends MapWorkerReply['kind']>(
  reply: MapWorkerReply,
  kind: K,
): Extract<MapWorkerReply, { kind: K }> {
  if (reply.kind !== kind) throw new Error(`the map worker answered ${reply.kind} to ${kind}`);
  return reply as Extract<MapWorkerReply, { kind: K }>;
}

export function registerPackMapHandlers(context: ServerContext): void {
  const { connection } = context;
  connection.onRequest(PackMapInfoRequest, (params, token) =>
    context.guarded(() => packMapInfo(context, params, token)),
  );
  connection.onRequest(PackMapTileRequest, (params, token) =>
    context.guarded(() => packMapTile(context, params, token)),
  );
  connection.onRequest(PackMapObjectAtRequest, (params, token) =>
    context.guarded(() => packMapObjectAt(context, params, token)),
  );
  registerPackMapOverlayHandlers(context);
}

/** `packscope/packMapInfo`: the map's size, orders and legends, from the map worker. */
async function packMapInfo(
  context: ServerContext,
  params: PackParams,
  token: CancellationToken,
): Promise<PackMapInfoResult> {
  const packPath = requireString(paramsObject(params).pack, 'pack');
  const progress = context.connection.window.attachWorkDoneProgress(params.workDoneToken);
  const { state, pack } = context.findPack(packPath);
  const { model } = await context.ensureModel(state, pack, token, progress);
  const reply = await context.work.run('pack-map', token, () =>
    context.packMaps.ask({ kind: 'info', pack: packRef(context, state, pack) }, token),
  );
  const { info } = expect(reply, 'info');
  const legends = {} as PackMapInfoResult['legends'];
  for (const attribute of MAP_ATTRIBUTES)
    legends[attribute] = info.legends[attribute].map((entry) => ({
      label: entry.label,
      rgb: [entry.colour[0], entry.colour[1], entry.colour[2]],
    }));
  return {
    pack: pack.files.pack,
    packName: path.basename(pack.files.pack),
    objects: info.objects,
    packBytes: model.packSize,
    dataStart: info.dataStart,
    dataEnd: info.dataEnd,
    maxDepth: info.maxDepth,
    largestOnDisk: info.largestOnDisk,
    maxOrder: info.maxOrder,
    bytesPerCell: info.bytesPerCell,
    legends,
  };
}

/** `packscope/packMapTile`: one tile drawn by the map worker, a recording's reads over it when asked. */
async function packMapTile(
  context: ServerContext,
  params: PackMapTileParams,
  token: CancellationToken,
): Promise<PackMapTileResult> {
  const fields = paramsObject(params);
  const packPath = requireString(fields.pack, 'pack');
  const attribute = requireAttribute(fields.attribute);
  const order = requireInteger(fields.order, 'order', 0, MAX_MAP_ORDER);
  const tiles = tilesPerSide(order);
  const tileX = requireInteger(fields.tileX, 'tileX', 0, tiles - 1);
  const tileY = requireInteger(fields.tileY, 'tileY', 0, tiles - 1);
  const recordingFile = optionalString(fields.recording, 'recording');
  const segment = optionalInteger(fields.segment, 'segment', 1);
  if (segment !== undefined && recordingFile === undefined) throw invalid('segment applies to a recording');
  const recording = recordingFile === undefined ? undefined : path.resolve(recordingFile);
  const view = fields.view === undefined || fields.view === null ? undefined : paramsObject(fields.view);
  if (view === undefined)
    return drawTile(context, params, token, { packPath, attribute, order, tileX, tileY, recording, segment });
  const entered = context.tileViews.enter(
    requireString(view.id, 'view.id', 200),
    requireInteger(view.generation, 'view.generation'),
    token,
  );
  try {
    return await drawTile(context, params, entered.token, {
      packPath,
      attribute,
      order,
      tileX,
      tileY,
      recording,
      segment,
    });
  } finally {
    entered.done();
  }
}

interface TileWanted {
  packPath: string;
  attribute: MapAttribute;
  order: number;
  tileX: number;
  tileY: number;
  recording: string | undefined;
  segment: number | undefined;
}

async function drawTile(
  context: ServerContext,
  params: PackMapTileParams,
  token: CancellationToken,
  { packPath, attribute, order, tileX, tileY, recording, segment }: TileWanted,
): Promise<PackMapTileResult> {
  throwIfCancelled(token);
  const { state, pack } = context.findPack(packPath);
  await context.ensureModel(state, pack, token);
  const ref = packRef(context, state, pack);
  const size = Math.min(PACK_MAP_TILE_SIZE, 2 ** order);
  const region = { x: tileX * size, y: tileY * size, width: size, height: size };

  const overlay =
    recording === undefined
      ? undefined
      : await ensureOverlay(context, ref, pack, recording, segment, params.workDoneToken, token);
  const draw = (): Promise<MapWorkerReply> =>
    context.work.run('pack-map-tile', token, () =>
      context.packMaps.ask(
        { kind: 'tile', pack: ref, attribute, order, region, ...(overlay ? { overlay: overlay.key } : {}) },
        token,
      ),
    );
  let reply = await draw();
  if (reply.kind === 'error' && reply.missingOverlay !== undefined && recording !== undefined) {
    // Evicted from the worker meanwhile (it keeps a few): sent again once.
    context.packMaps.forgetOverlay(reply.missingOverlay);
    await ensureOverlay(context, ref, pack, recording, segment, params.workDoneToken, token);
    reply = await draw();
  }
  if (reply.kind === 'error') throw new Error(reply.message);
  const tile = expect(reply, 'tile');
  return {
    order,
    tileX,
    tileY,
    size,
    rgbaDeflated: Buffer.from(
      tile.rgbaDeflated.buffer,
      tile.rgbaDeflated.byteOffset,
      tile.rgbaDeflated.byteLength,
    ).toString('base64'),
    litCells: tile.litCells,
    ...(overlay ? { recordingObjects: tile.readObjects, recordingReads: overlay.reads } : {}),
  };
}

/** `packscope/packMapObjectAt`: the object under a cell of the map, if any. */
async function packMapObjectAt(
  context: ServerContext,
  params: PackMapObjectAtParams,
  token: CancellationToken,
): Promise<PackMapObjectAtResult> {
  const fields = paramsObject(params);
  const packPath = requireString(fields.pack, 'pack');
  const order = requireInteger(fields.order, 'order', 0, MAX_MAP_ORDER);
  const x = requireInteger(fields.x, 'x', 0, 2 ** order - 1);
  const y = requireInteger(fields.y, 'y', 0, 2 ** order - 1);
  const { state, pack } = context.findPack(packPath);
  const { model } = await context.ensureModel(state, pack, token);
  // Here, not in the map worker: a binary search over the model this thread holds (as an editor
  // hover's), where in the worker it waited for the tile being drawn (up to 18 ms of 50,000 queued
  // on a 300,000-object pack, bench/pack-map-flood.bench.ts) and for the worker's start after idle.
  const object = objectAtCell(model, order, x, y);
  if (object < 0) return { found: false };
  if (object >= model.count) throw new Error(`the map worker named object ${object} of ${model.count}`);
  // The path beside the id: a pack of the repository names it directly, a preview's pack by its id.
  const names = state.store.packs.includes(pack)
    ? context.objectPaths.namesOf(state.id, state.store, model, object)
    : context.objectPaths.namesOfId(state.id, state.store, model.oidHex(object));
  return { found: true, object: { ...objectDetails({ pack, model, object }, state), ...names } };
}

/** Object ids are hex of the repository's hash length. */
function requireOid(value: unknown, hexLength: number): string {
  if (typeof value !== 'string' || value.length !== hexLength || !/^[0-9a-f]+$/i.test(value))
    throw invalid(`oid must be ${hexLength} hex digits`);
  return value.toLowerCase();
}

function registerPackMapOverlayHandlers(context: ServerContext): void {
  const { connection } = context;

  // A family is found in one pass over the pack's objects (a few ms on 849,014): on this thread.
  connection.onRequest(PackMapFamilyRequest, (params, token) =>
    context.guarded(async (): Promise<PackMapFamilyResult> => {
      const fields = paramsObject(params);
      const packPath = requireString(fields.pack, 'pack');
      const { state, pack } = context.findPack(packPath);
      const oid = requireOid(fields.oid, state.repository.hash.size * 2);
      const { model } = await context.ensureModel(state, pack, token);
      const object = model.findHex(oid);
      if (object < 0) throw invalid(`${oid} is not in ${path.basename(pack.files.pack)}`);
      const family = familyArcs(model, object);
      return {
        root: model.oidHex(family.root),
        members: family.members,
        memberOffsets: family.memberOffsets,
        arcs: family.arcs,
        externalBases: family.externalBases,
        truncated: family.truncated,
      };
    }),
  );

  // Percentiles and the page-cache replay walk every read: in a task worker, as packscope/locality.
  connection.onRequest(PackMapSeeksRequest, (params, token) =>
    context.guarded(() =>
      withProgress(
        context,
        params.workDoneToken,
        'Reading recording',
        token,
        async (progress): Promise<PackMapSeeksResult> => {
          const fields = paramsObject(params);
          const packPath = requireString(fields.pack, 'pack');
          const recording = path.resolve(requireString(fields.recording, 'recording'));
          const segment = optionalInteger(fields.segment, 'segment', 1);
          const cache = pageCacheParams(fields);
          const { state, pack } = context.findPack(packPath);
          const opened = await openRecording(context, { file: recording, segment }, token, nested(progress));
          throwIfCancelled(token);
          let input = opened.locality.find((entry) => entry.pack === pack.files.pack);
          if (input === undefined && context.previewPacks.get(pack.files.pack)) {
            // A repack preview's pack: the recording's reads where the same objects lie in it.
            const { model } = await context.ensureModel(state, pack, token);
            input = localityInOtherPack(readsInOtherPack(opened.loaded, model), model, pack.files.pack);
          }
          input ??= { pack: pack.files.pack, offsets: new Float64Array(0), entryBytes: new Float64Array(0) };
          let found: SeekPath | undefined;
          progress.report(100, 'seek distances and page cache');
          await context.work.run('locality', token, (_threads, holdPlacesUntil) =>
            runTaskWorker(
              context.bundledScript('task-worker.js'),
              { kind: 'seek-path', input, cache },
              token,
              (message) => {
                if (message.kind === 'seek-path') found = message.path;
              },
              holdPlacesUntil,
            ),
          );
          if (!found) throw new Error('the task worker sent no seek path');
          const { reads, stride, offsets, faults, seeks, backwardSeeks, locality } = found;
          return { reads, stride, offsets, faults, seeks, backwardSeeks, locality, pageCache: cache };
        },
      ),
    ),
  );
}

/**
 * The recording's reads of the pack in the map worker: opened (task worker, kept by the
 * recording cache) and counted per object here only when the worker does not have them yet.
 */
async function ensureOverlay(
  context: ServerContext,
  ref: MapPackRef,
  pack: PackLocation,
  recording: string,
  segment: number | undefined,
  workDoneToken: string | number | undefined,
  token: CancellationToken,
): Promise<{ key: string; reads: number }> {
  const key = overlayKey(recording, segment, pack);
  const kept = context.packMaps.overlay(key);
  if (kept) return { key, reads: kept.reads };
  const opened = await withProgress(context, workDoneToken, 'Reading recording', token, (progress) =>
    openRecording(context, { file: recording, segment }, token, nested(progress)),
  );
  const { model } = await context.ensureModel(context.findPack(pack.files.pack).state, pack, token);
  // A repack preview's pack (never read by a recording): the same objects' reads, matched by id.
  // Otherwise a recording that reads nothing of this pack lights nothing: every cell dimmed, 0 lit.
  const counts =
    readsPerObject(opened.loaded, pack.files.pack) ??
    (context.previewPacks.get(pack.files.pack)
      ? countsInOtherPack(readsInOtherPack(opened.loaded, model), model)
      : new Uint32Array(model.count));
  const sent = context.packMaps.sendReads(key, ref, counts);
  return { key, reads: sent.reads };
}
