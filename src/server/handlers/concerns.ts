/** git-sizer's figures for a workspace repository: packscope/concerns, run in a task worker. */
import type { ConcernsDocument } from '../../core/documents/concerns-document.ts';
import { ConcernsRequest } from '../../protocol/server-protocol.ts';
import { paramsObject, requireString } from '../request-params.ts';
import type { ServerContext } from '../server-context.ts';
import { startTaskWorker, workerStoreOf } from '../workers/task-worker-client.ts';

export function registerConcernsHandlers(context: ServerContext): void {
  const { connection } = context;
  connection.onRequest(ConcernsRequest, (params, token) =>
    context.guarded(async () => {
      const fields = paramsObject(params);
      const id = requireString(fields.repository, 'repository');
      const [state] = context.statesFor(id);
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      // The worker reads the models the loader persisted. No git runs: the objects are read from
      // the packs and loose files, so an untrusted workspace gets the figures too.
      await context.ensureRepository(state!, token, progress);
      let document: ConcernsDocument | undefined;
      await context.work.run('concerns', token, async () => {
        const worker = startTaskWorker(
          context.bundledScript('task-worker.js'),
          { kind: 'concerns', store: workerStoreOf(state!.store, context.loader.directory) },
          token,
          (message) => {
            if (message.kind === 'progress') progress.report(message.message);
            else if (message.kind === 'concerns') document = message.document;
          },
          { log: (message) => context.log(message) },
        );
        try {
          await worker.finished;
        } finally {
          await worker.exited;
        }
      });
      if (!document) throw new Error('the concerns worker sent no document');
      return document;
    }),
  );
}
