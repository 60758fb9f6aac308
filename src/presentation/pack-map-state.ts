// The Pack Map's state as VS Code gives it back after a reload, made safe to use.
import { MAP_ATTRIBUTES, type MapAttribute } from '../common/pack-map-geometry.ts';
import { PACK_MAP_PROTOCOL_VERSION, type PackMapCamera, type PackMapState } from '../protocol/pack-map-protocol.ts';

/** Zoom steps beyond order 0 a view may take (the map's deepest order is 15, cells then grow up to 2^5 px). */
export const MAX_ZOOM = 20;

const unit = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : fallback;

export function normalizeCamera(value: unknown): PackMapCamera {
  const camera = (typeof value === 'object' && value !== null ? value : {}) as Partial<
    Record<keyof PackMapCamera, unknown>
  >;
  const zoom =
    typeof camera.zoom === 'number' && Number.isFinite(camera.zoom) ? Math.min(MAX_ZOOM, Math.max(0, camera.zoom)) : 0;
  return { zoom, centerX: unit(camera.centerX, 0.5), centerY: unit(camera.centerY, 0.5) };
}

/** A state given back by VS Code (setState of an older or foreign page): each field kept only when it is one. */
export function normalizePackMapState(value: unknown): PackMapState {
  const state = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const text = (field: unknown): string | null =>
    typeof field === 'string' && field !== '' && field.length <= 4096 ? field : null;
  const attribute = MAP_ATTRIBUTES.includes(state.attribute as MapAttribute)
    ? (state.attribute as MapAttribute)
    : 'type';
  const family = typeof state.family === 'string' && /^[0-9a-f]{40,64}$/.test(state.family) ? state.family : null;
  return {
    version: PACK_MAP_PROTOCOL_VERSION,
    pack: text(state.pack),
    after: text(state.after),
    repository: text(state.repository),
    attribute,
    recording: text(state.recording),
    camera: normalizeCamera(state.camera),
    family,
    seeks: state.seeks === true,
  };
}
