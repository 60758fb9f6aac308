/** The Packs view's requests: the repositories and their packs, a pack's summary, its paged object lists. */
import * as path from 'node:path';
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { ListRepositoriesRequest, ObjectListRequest, PackSummaryRequest } from '../../protocol/server-protocol.ts';
import { listChildren } from '../object-views.ts';
import type { ServerContext } from '../server-context.ts';

export function registerPackHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(ListRepositoriesRequest, () => context.guarded(() => ({ repositories: context.registry.repositories.map((state) => state.listing()) })));

  connection.onRequest(PackSummaryRequest, (params, token) =>
    context.guarded(async () => {
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      const { state, pack } = context.findPack(params.pack);
      const timed = await context.ensureModel(state, pack, token, progress);
      return state.summaryOf(pack, timed);
    }),
  );

  connection.onRequest(ObjectListRequest, (params, token) =>
    context.guarded(async () => {
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      const { state, pack } = context.findPack(params.pack);
      const { model } = await context.ensureModel(state, pack, token, progress);
      if (params.kind === 'children') {
        const n = model.findHex((params.oid ?? '').toLowerCase());
        if (n < 0) throw new ResponseError(ErrorCodes.InvalidParams, `${params.oid} is not in ${path.basename(pack.files.pack)}`);
        return listChildren(model, n, params.start, params.count);
      }
      return context.rankedLists.list(model, params.kind, params.start, params.count);
    }),
  );
}
