/**
 * Opening a recording for the recording requests (recordings, sweeps, locality, record): parsed and
 * mapped to objects in a task worker, over pack models the loader built, and kept while its
 * file and packs are unchanged.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CancellationToken, WorkDoneProgressReporter } from 'vscode-languageserver/node';
import type { LocalityInput } from '../core/locality/locality.ts';
import { ObjectStore } from '../core/model/object-store.ts';
import { discoverRepository, type Repository } from '../core/model/repository.ts';
import { recordingInfo } from '../core/report/recording.ts';
import { firstRepositoryOf, recordingRepositoryPlaces } from '../core/trace/load-recording.ts';
import { recordingFromTransfer, type TransferredRecording } from '../core/trace/recording-transfer.ts';
import { formatCount, percent } from '../common/format.ts';
import type { RecordingParams } from '../protocol/server-protocol.ts';
import { cancelledPromise, throwIfCancelled } from './cancellation.ts';
import { invalid, optionalInteger, optionalString, paramsObject, requireString } from './request-params.ts';
import { nested } from './request-progress.ts';
import type { ServerContext } from './server-context.ts';
import type { OpenedRecording } from './recording-cache.ts';
import type { HoldPlaces } from './thread-budget.ts';
import { startTaskWorker, workerStoreOf } from './workers/task-worker-client.ts';
import type { ParsedRecordingHead } from './workers/task-worker-protocol.ts';

/** The repository a recording's reads belong to (see RecordingParams.repository). */
function repositoryFor(context: ServerContext, log: ParsedRecordingHead, explicit: string | undefined): Repository {
  const file = log.file;
  // The repository a client names is read as the read rules allow (read-rules.ts).
  if (explicit !== undefined) return discoverRepository(context.readRules.check(explicit, 'repository'));
  const { places, fromHeader } = recordingRepositoryPlaces(log);
  const found = firstRepositoryOf(places);
  if (found) return found;
  if (fromHeader) throw invalid(`${file}: the repository it was recorded in (${log.metadata?.cwd}) is gone`);
  // Else a workspace pack of the name a relative pack path has.
  for (const tracePath of log.packPaths) {
    const name = path.basename(tracePath);
    const state = context.registry.repositories.find((s) =>
      s.store.packs.some((p) => path.basename(p.files.pack) === name),
    );
    if (state) return state.repository;
  }
  throw invalid(
    `${file}: a raw trace without metadata, and none of its packs is in the workspace; name its repository`,
  );
}

function fileKey(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    return `${stat.size}\0${stat.mtimeMs}\0${stat.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * Opens a recording without building anything on this thread: a task worker parses it; this
 * thread picks its repository and loads every pack the trace names through the loader (model
 * workers); the worker then maps the reads to objects over the same packs (their persisted models)
 * and moves the result here.
 */
export async function openRecording(
  context: ServerContext,
  params: RecordingParams,
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): Promise<OpenedRecording> {
  const fields = paramsObject(params);
  if (typeof fields.file !== 'string' || fields.file === '') throw invalid('no recording file given');
  const file = context.readRules.check(requireString(fields.file, 'file'), 'recording or trace');
  if (!fs.existsSync(file)) throw invalid(`${file}: no such recording or trace file`);
  if (params.segment !== undefined && (!Number.isInteger(params.segment) || params.segment < 1))
    throw invalid('segment must be a 1-based integer');
  const segment = optionalInteger(fields.segment, 'segment', 1);
  const repository = optionalString(fields.repository, 'repository');
  const key = `${file}\0${fileKey(file)}\0${segment ?? ''}\0${repository ?? ''}`;
  const cached = context.recordings.get(key);
  if (cached) return cached;
  // One at a time: concurrent requests for one recording wait for the first and find it kept.
  return context.work.run(
    'open-recording',
    token,
    async (_threads, holdPlacesUntil) =>
      context.recordings.get(key) ??
      openUncached(context, { file, segment, repository }, key, token, progress, holdPlacesUntil),
  );
}

async function openUncached(
  context: ServerContext,
  params: { file: string; segment: number | undefined; repository: string | undefined },
  key: string,
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
  holdPlacesUntil: HoldPlaces,
): Promise<OpenedRecording> {
  const file = params.file;

  let parsed!: (head: ParsedRecordingHead) => void;
  const headParsed = new Promise<ParsedRecordingHead>((resolve) => (parsed = resolve));
  let transferred: TransferredRecording | undefined;
  let locality: LocalityInput[] = [];
  const worker = startTaskWorker(
    context.bundledScript('task-worker.js'),
    { kind: 'open-recording', file },
    token,
    (message) => {
      if (message.kind === 'progress') progress.report(message.percentage ?? 0, message.message);
      else if (message.kind === 'parsed') parsed(message.head);
      else if (message.kind === 'recording') {
        transferred = message.recording;
        locality = message.locality;
      }
    },
  );
  holdPlacesUntil(worker.exited);
  let store: ObjectStore;
  try {
    const head = await Promise.race([
      headParsed,
      worker.finished.then(() => Promise.reject(new Error(`${file}: the worker ended before parsing it`))),
    ]);
    const repository = repositoryFor(context, head, params.repository);
    // An allowed recording's repository: index-pack on its packs and measure in it may read there.
    context.readRules.addRecordedRepository(repository.workTree, repository.commonDir);
    const state = context.registry.get(repository.commonDir);
    store = state?.store ?? new ObjectStore(repository, context.loader.modelStore);
    const touched = new Set(head.packPaths.map((p) => path.basename(p)));
    for (const pack of store.packs) {
      if (!touched.has(path.basename(pack.files.pack)) || context.loader.peek(pack.files)) continue;
      throwIfCancelled(token);
      if (state) {
        await context.ensureModel(state, pack, token, nested(progress));
      } else {
        const packName = path.basename(pack.files.pack);
        progress.report(0, `indexing ${packName}`);
        await context.loader.ensure(pack.files, repository.hash, {
          cancelled: cancelledPromise(token),
          onProgress: (done, total) =>
            progress.report(
              percent(done, total),
              `indexing ${packName}: ${formatCount(done)} of ${formatCount(total)} objects`,
            ),
        });
      }
    }
    throwIfCancelled(token);
    progress.report(100, 'mapping reads to objects');
    worker.post({ kind: 'resolve', store: workerStoreOf(store, context.loader.directory), segment: params.segment });
    await worker.finished;
  } finally {
    worker.stop();
  }
  if (!transferred) throw new Error(`${file}: the worker sent no recording`);
  // The models of the packs it reads are the loader's (loaded above): nothing is built here.
  const loaded = recordingFromTransfer(transferred, store);
  const opened = { loaded, info: recordingInfo(loaded, params.segment), locality };
  context.recordings.set(key, opened);
  return opened;
}
