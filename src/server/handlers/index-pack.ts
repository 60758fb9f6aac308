/** `packscope/indexPackSim`: git index-pack's second pass simulated on a pack, every variant, in a task worker. */
import { errorMessage } from '../../common/error-message.ts';
import { GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ResponseError, type CancellationToken, type WorkDoneProgressReporter } from 'vscode-languageserver/node';
import { hashAlgorithmByName } from '../../core/format/hash-algorithm.ts';
import { packFilesFor } from '../../core/model/build-pack-model.ts';
import { assertOutsideRepository } from '../../core/model/model-store.ts';
import type { PackFiles } from '../../core/model/pack-model.ts';
import { discoverRepository, type Repository } from '../../core/model/repository.ts';
import { INDEX_PACK_VARIANTS } from '../../core/report/index-pack-sim.ts';
import { formatCount, percent } from '../../common/format.ts';
import { IndexPackSimRequest, type IndexPackSimResult } from '../../protocol/server-protocol.ts';
import { cancelledPromise, throwIfCancelled } from '../cancellation.ts';
import { checkLimits, invalid, paramsObject, requireString } from '../request-params.ts';
import { nested, withProgress } from '../request-progress.ts';
import type { ServerContext } from '../server-context.ts';
import { runTaskWorker } from '../workers/task-worker-client.ts';

/**
 * The model of the pack index-pack is simulated on, loaded through the loader (a model worker): a
 * workspace pack as every view loads it; else any real pack file (a recording's pack in a repository
 * outside the workspace) whose .idx lies next to it, read with the hash algorithm of the repository
 * around it (SHA-1 when it is in none); else a bare pack, which the task worker indexes. Nothing is written inside that repository: the model goes to
 * the model cache, which must be outside it.
 */
async function indexPackModel(
  context: ServerContext,
  packPath: unknown,
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<{ files: PackFiles; hashName: string; withoutIdx?: boolean }> {
  if (typeof packPath !== 'string' || packPath === '') throw invalid('no pack given');
  let workspacePack: ReturnType<ServerContext['findPack']> | undefined;
  try {
    workspacePack = context.findPack(packPath);
  } catch (error) {
    if (!(error instanceof ResponseError)) throw error;
  }
  if (workspacePack !== undefined) {
    const { state, pack } = workspacePack;
    await context.ensureModel(state, pack, token, nested(progress));
    return { files: pack.files, hashName: state.repository.hash.name };
  }
  const resolved = path.resolve(packPath);
  const files = packFilesFor(resolved);
  const isFile = (file: string): boolean => {
    try {
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (!resolved.endsWith('.pack') || !isFile(files.pack)) {
    throw invalid(`${packPath} is not a pack of the workspace, nor a pack file`);
  }
  // Outside the workspace: a pack of an allowed recording's repository, or one the user picked (read-rules.ts).
  context.readRules.check(files.pack, 'pack outside the workspace');
  let repository: Repository | undefined;
  try {
    repository = discoverRepository(path.dirname(files.pack));
  } catch {
    repository = undefined; // a pack in no repository: SHA-1, as the CLI reads it
  }
  if (repository !== undefined) {
    try {
      assertOutsideRepository(context.loader.directory, repository);
    } catch (error) {
      throw invalid(errorMessage(error));
    }
  }
  const hash = repository?.hash ?? hashAlgorithmByName('sha1')!;
  // A bare pack (a fetch's, pack-objects --stdout's): the task worker indexes it from its
  // bytes, as index-pack does; nothing is cached for it, as nothing names it again.
  if (!isFile(files.idx)) return { files, hashName: hash.name, withoutIdx: true };
  if (!context.loader.peek(files)) {
    const packName = path.basename(files.pack);
    progress.report(0, `indexing ${packName}`);
    await context.loader.ensure(files, hash, {
      cancelled: cancelledPromise(token),
      onProgress: (done, total) =>
        progress.report(
          percent(done, total),
          `indexing ${packName}: ${formatCount(done)} of ${formatCount(total)} objects`,
        ),
    });
  }
  return { files, hashName: hash.name };
}

export function registerIndexPackHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(IndexPackSimRequest, (params, token) =>
    context.guarded(() =>
      withProgress(
        context,
        params.workDoneToken,
        'Simulating index-pack',
        token,
        async (progress): Promise<IndexPackSimResult> => {
          const fields = paramsObject(params);
          const [limit] = checkLimits([fields.limit ?? GIT_DEFAULT_LIMIT], 'limit') as [number];
          if (typeof fields.pack === 'string') requireString(fields.pack, 'pack');
          const { files, hashName, withoutIdx } = await indexPackModel(context, fields.pack, token, progress);
          throwIfCancelled(token);
          progress.report(0, `simulating ${INDEX_PACK_VARIANTS.join(', ')}`);
          const variants: IndexPackSimResult['variants'] = [];
          let objects = 0;
          await context.work.run('index-pack', token, (_threads, holdPlacesUntil) =>
            runTaskWorker(
              context.bundledScript('task-worker.js'),
              {
                kind: 'index-pack',
                files,
                hashName,
                cacheDir: context.loader.directory,
                limit,
                variants: INDEX_PACK_VARIANTS,
                ...(withoutIdx ? { withoutIdx } : {}),
              },
              token,
              (message) => {
                if (message.kind === 'progress') progress.report(message.percentage ?? 0, message.message);
                if (message.kind !== 'variant') return;
                variants.push(message.result);
                objects = message.objects;
                progress.report(percent(variants.length, INDEX_PACK_VARIANTS.length), `${message.result.variant} done`);
              },
              holdPlacesUntil,
            ),
          );
          return { pack: files.pack, objects, limit, variants };
        },
      ),
    ),
  );
}
