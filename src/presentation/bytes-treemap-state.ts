// The treemap's state as VS Code gives it back after a reload, made safe to use.
import { BYTES_TREEMAP_PROTOCOL_VERSION, type BytesTreemapState } from '../protocol/bytes-treemap-protocol.ts';

/** Longer than any path git writes (PATH_MAX is 4096 on Linux): a longer string is not a name the page saved. */
const MAX_NAME = 65_536;

/** A state given back by VS Code (setState of an older or foreign page): each field kept only when it is one. */
export function normalizeBytesTreemapState(value: unknown): BytesTreemapState {
  const state = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const name = (field: unknown): string | null =>
    typeof field === 'string' && field.length <= MAX_NAME ? field : null;
  const repository = name(state.repository);
  const blobsOf = name(state.blobsOf);
  return {
    version: BYTES_TREEMAP_PROTOCOL_VERSION,
    repository: repository === '' ? null : repository,
    directory: name(state.directory) ?? '',
    blobsOf: blobsOf === '' ? null : blobsOf,
  };
}
