/** The Packs view's requests: the repositories and their packs, a pack's summary, its paged object lists. */
import * as path from 'node:path';
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { isRankingName } from '../../core/model/rankings.ts';
import { OBJECT_TYPE_NAMES, type ObjectTypeName } from '../../common/object-types.ts';
import {
  ListRepositoriesRequest,
  ObjectListRequest,
  PackSummaryRequest,
  type ObjectListFilter,
} from '../../protocol/server-protocol.ts';
import type { ObjectNames } from '../../core/documents/stats-document.ts';
import { listChildren } from '../object-views.ts';
import { optionalString, paramsObject, pageCount, requireInteger, requireString } from '../request-params.ts';
import type { ServerContext } from '../server-context.ts';

/** The filter off the wire: known types only, depths whole and in order; absent fields mean "any". */
function objectListFilter(value: unknown): ObjectListFilter | undefined {
  if (value === undefined || value === null) return undefined;
  const fields = paramsObject(value);
  const filter: ObjectListFilter = {};
  if (fields.types !== undefined) {
    if (
      !Array.isArray(fields.types) ||
      fields.types.length > OBJECT_TYPE_NAMES.length ||
      !fields.types.every((t) => (OBJECT_TYPE_NAMES as readonly unknown[]).includes(t))
    ) {
      throw new ResponseError(
        ErrorCodes.InvalidParams,
        `filter.types must be a list of ${OBJECT_TYPE_NAMES.join(', ')}`,
      );
    }
    filter.types = fields.types as ObjectTypeName[];
  }
  for (const end of ['minDepth', 'maxDepth'] as const) {
    if (fields[end] === undefined) continue;
    filter[end] = requireInteger(fields[end], `filter.${end}`);
  }
  if (filter.minDepth !== undefined && filter.maxDepth !== undefined && filter.minDepth > filter.maxDepth) {
    throw new ResponseError(
      ErrorCodes.InvalidParams,
      `filter.minDepth ${filter.minDepth} is above filter.maxDepth ${filter.maxDepth}`,
    );
  }
  return filter;
}

export function registerPackHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(ListRepositoriesRequest, () =>
    context.guarded(async () => {
      // The storage scans (loose objects, marker files) first, off this thread where they can be.
      await Promise.all(context.registry.repositories.map((state) => state.prepareListing()));
      return {
        repositories: [...context.registry.repositories.map((state) => state.listing()), ...context.registry.unopened],
      };
    }),
  );

  connection.onRequest(PackSummaryRequest, (params, token) =>
    context.guarded(async () => {
      const packPath = requireString(paramsObject(params).pack, 'pack');
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      const { state, pack } = context.findPack(packPath);
      const timed = await context.ensureModel(state, pack, token, progress);
      return state.summaryOf(pack, timed);
    }),
  );

  connection.onRequest(ObjectListRequest, (params, token) =>
    context.guarded(async () => {
      const fields = paramsObject(params);
      // The kind comes off the wire: the rankings' own table says which lists exist, before any model is built for one.
      if (params.kind !== 'children' && !isRankingName(params.kind))
        throw new ResponseError(ErrorCodes.InvalidParams, `${String(params.kind)} is not a list of objects`);
      const packPath = requireString(fields.pack, 'pack');
      const oid = optionalString(fields.oid, 'oid', 256);
      const start = requireInteger(fields.start, 'start');
      // A page, not the whole pack: a count of 1e9 once built a billion-item answer on this thread.
      const count = pageCount(fields.count);
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      const { state, pack } = context.findPack(packPath);
      const { model } = await context.ensureModel(state, pack, token, progress);
      const names = (n: number): ObjectNames => context.objectPaths.namesOf(state.id, state.store, model, n);
      if (params.kind === 'children') {
        const n = model.findHex((oid ?? '').toLowerCase());
        if (n < 0)
          throw new ResponseError(
            ErrorCodes.InvalidParams,
            `${params.oid} is not in ${path.basename(pack.files.pack)}`,
          );
        return listChildren(model, n, start, count, names);
      }
      return context.rankedLists.list(model, params.kind, start, count, objectListFilter(fields.filter), names);
    }),
  );
}
