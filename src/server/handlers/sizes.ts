/** Where the bytes of a workspace repository's history go: packscope/sizes, run in a task worker. */
import { SIZES_COUNTS } from '../../core/report/history-sizes.ts';
import type { SizesDocument } from '../../core/documents/sizes-document.ts';
import { SizesRequest } from '../../protocol/server-protocol.ts';
import { invalid, paramsObject, requireInteger, requireString } from '../request-params.ts';
import type { ServerContext } from '../server-context.ts';
import { gitForWorkspace } from '../trusted-git.ts';
import { startTaskWorker, workerStoreOf } from '../workers/task-worker-client.ts';

/** Commits a request may ask to be listed: each costs a subject read on the worker's thread. */
const MAX_TOP = 1000;

export function registerSizesHandlers(context: ServerContext): void {
  const { connection } = context;
  connection.onRequest(SizesRequest, (params, token) =>
    context.guarded(async () => {
      const fields = paramsObject(params);
      const id = requireString(fields.repository, 'repository');
      const top = fields.top === undefined ? 10 : requireInteger(fields.top, 'top', 0, MAX_TOP);
      const rows = fields.rows === undefined ? undefined : requireInteger(fields.rows, 'rows');
      const count = fields.count === undefined ? 'per-path' : fields.count;
      if (!(SIZES_COUNTS as readonly unknown[]).includes(count))
        throw invalid(`count must be one of ${SIZES_COUNTS.join(', ')}`);
      const [state] = context.statesFor(id);
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      // The worker reads the models the loader persisted; git runs there, the configured one only.
      await context.ensureRepository(state!, token, progress);
      const git = gitForWorkspace(undefined, context.settings, 'sizes of the history (git lists its changes)');
      let document: SizesDocument | undefined;
      await context.work.run('sizes', token, async () => {
        const worker = startTaskWorker(
          context.bundledScript('task-worker.js'),
          {
            kind: 'sizes',
            store: workerStoreOf(state!.store, context.loader.directory),
            git,
            count: count as SizesDocument['count'],
            top,
            rows,
          },
          token,
          (message) => {
            if (message.kind === 'progress') progress.report(message.message);
            else if (message.kind === 'sizes') document = message.document;
          },
          { cancel: 'message', log: (message) => context.log(message) },
        );
        try {
          await worker.finished;
        } finally {
          await worker.exited;
        }
      });
      if (!document) throw new Error('the sizes worker sent no document');
      return document;
    }),
  );
}
