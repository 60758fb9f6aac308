/**
 * Where the bytes of a workspace repository's history go: packscope/sizes, run in a task worker,
 * and the blobs that were at one path (packscope/pathBlobs), answered from the same walk, which the
 * server keeps (sizes-walks.ts).
 */
import type { CancellationToken, WorkDoneProgressReporter } from 'vscode-languageserver/node';
import { SIZES_COUNTS } from '../../core/report/history-sizes.ts';
import { ObjectSizeReader } from '../../core/model/blob-sizes.ts';
import type { SizesDocument } from '../../core/documents/sizes-document.ts';
import type { PathBlobIndex } from '../../core/report/path-blobs.ts';
import { PathBlobsRequest, SizesRequest, type PathBlob, type PathBlobsResult } from '../../protocol/server-protocol.ts';
import { invalid, optionalInteger, paramsObject, requireInteger, requireString } from '../request-params.ts';
import type { ServerContext } from '../server-context.ts';
import type { SizesWalk } from '../sizes-walks.ts';
import { gitForWorkspace } from '../trusted-git.ts';
import type { RepositoryState } from '../workspace-registry.ts';
import { startTaskWorker, workerStoreOf } from '../workers/task-worker-client.ts';

/** Commits a request may ask to be listed: the walk keeps this many (each costs a subject read on the worker's thread). */
const MAX_TOP = 1000;
/** Blobs of one path per page: a path of a long history may have had tens of thousands. */
const MAX_BLOBS = 1000;
const DEFAULT_BLOBS = 100;
/** Longer than any path git writes on the systems it runs on (PATH_MAX is 4096 on Linux). */
const MAX_PATH_LENGTH = 65_536;

export function registerSizesHandlers(context: ServerContext): void {
  const { connection } = context;
  connection.onRequest(SizesRequest, (params, token) =>
    context.guarded(async () => {
      const fields = paramsObject(params);
      const id = requireString(fields.repository, 'repository');
      const top = fields.top === undefined ? 10 : requireInteger(fields.top, 'top', 0, MAX_TOP);
      const rows = fields.rows === undefined ? undefined : requireInteger(fields.rows, 'rows');
      const asked = fields.count === undefined ? 'per-path' : fields.count;
      if (!(SIZES_COUNTS as readonly unknown[]).includes(asked))
        throw invalid(`count must be one of ${SIZES_COUNTS.join(', ')}`);
      const count = asked as SizesDocument['count'];
      const [state] = context.statesFor(id);
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      await context.ensureRepository(state!, token, progress);
      const kept = fields.reuse === true ? context.sizesWalks.current(state!.id, state!.store, count) : undefined;
      const walk = kept ?? (await walkSizes(context, state!, count, token, progress));
      return trimmed(walk.document, top, rows);
    }),
  );

  connection.onRequest(PathBlobsRequest, (params, token) =>
    context.guarded(async (): Promise<PathBlobsResult> => {
      const fields = paramsObject(params);
      const id = requireString(fields.repository, 'repository');
      const path = requireString(fields.path, 'path', MAX_PATH_LENGTH);
      const first = optionalInteger(fields.start, 'start') ?? 0;
      const count = optionalInteger(fields.count, 'count', 0, MAX_BLOBS) ?? DEFAULT_BLOBS;
      const [state] = context.statesFor(id);
      const progress = connection.window.attachWorkDoneProgress(params.workDoneToken);
      await context.ensureRepository(state!, token, progress);
      // Any count's walk pairs the same blobs with the same paths.
      const walk =
        context.sizesWalks.current(state!.id, state!.store) ??
        (await walkSizes(context, state!, 'per-path', token, progress));
      const total = walk.blobs.count(path) ?? 0;
      const reader = new ObjectSizeReader(state!.store);
      const blobs = (walk.blobs.blobsAt(path, first, count) ?? []).map((blob): PathBlob => {
        const found = state!.store.locate(blob.oid);
        const sizes = reader.sizes(blob.oid);
        return {
          ...blob,
          stored: found ? 'packed' : sizes ? 'loose' : 'missing',
          inflated: sizes?.inflated ?? 0,
          disk: sizes?.disk ?? 0,
          depth: found ? found.model.columns.depth[found.object]! : null,
        };
      });
      return { path, total, blobs };
    }),
  );
}

/** The history read in a task worker (git runs there, the configured one only); the walk is kept for the repository. */
async function walkSizes(
  context: ServerContext,
  state: RepositoryState,
  count: SizesDocument['count'],
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<SizesWalk> {
  const git = gitForWorkspace(undefined, context.settings, 'sizes of the history (git lists its changes)');
  const store = state.store;
  let answer: { document: SizesDocument; blobs: PathBlobIndex } | undefined;
  await context.work.run('sizes', token, async () => {
    const worker = startTaskWorker(
      context.bundledScript('task-worker.js'),
      { kind: 'sizes', store: workerStoreOf(store, context.loader.directory), git, count, top: MAX_TOP },
      token,
      (message) => {
        if (message.kind === 'progress') {
          if (message.percentage === undefined) progress.report(message.message);
          else progress.report(message.percentage, message.message);
        } else if (message.kind === 'sizes') answer = { document: message.document, blobs: message.blobs };
      },
      { cancel: 'message', log: (message) => context.log(message) },
    );
    try {
      await worker.finished;
    } finally {
      await worker.exited;
    }
  });
  if (!answer) throw new Error('the sizes worker sent no document');
  return context.sizesWalks.remember(state.id, store, answer.document, answer.blobs);
}

/**
 * The document a request asked for: `top` commits, and with `rows` the `rows` largest paths and
 * extensions and the `rows` largest deleted ones, in the document's order (directories stay whole).
 */
function trimmed(document: SizesDocument, top: number, rows: number | undefined): SizesDocument {
  const keep = (list: SizesDocument['paths']): SizesDocument['paths'] => {
    if (rows === undefined) return list;
    const kept = new Set([...list.slice(0, rows), ...list.filter((r) => r.deleted !== null).slice(0, rows)]);
    return list.filter((row) => kept.has(row));
  };
  return {
    ...document,
    paths: keep(document.paths),
    extensions: keep(document.extensions),
    commits: document.commits.slice(0, top),
  };
}
