import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes, LSPErrorCodes, ResponseError, type CancellationToken, type WorkDoneProgressReporter } from 'vscode-languageserver/node';
import type { LocalityInput } from '../core/locality/locality.ts';
import { hashAlgorithmByName } from '../core/format/hash-algorithm.ts';
import { packFilesFor } from '../core/model/build-pack-model.ts';
import { assertOutsideRepository } from '../core/model/model-store.ts';
import { ObjectStore } from '../core/model/object-store.ts';
import type { PackFiles } from '../core/model/pack-model.ts';
import { discoverRepository, type Repository } from '../core/model/repository.ts';
import { parsePolicy } from '../core/sim/policy-registry.ts';
import { INDEX_PACK_VARIANTS } from '../core/report/index-pack-sim.ts';
import { recordingInfo } from '../core/report/recording.ts';
import type { PackLocalityWithQuantiles } from '../core/report/simulation-documents.ts';
import { sweepRecording } from '../core/report/simulation.ts';
import { formatLimit, type LoadedRecording } from '../core/trace/load-recording.ts';
import { gitVersion, recordGitCommand } from '../core/trace/record-git.ts';
import { recordingFromTransfer, type TransferredRecording } from '../core/trace/recording-transfer.ts';
import { formatCount } from '../shared/format.ts';
import {
  IndexPackSimRequest,
  LocalityRequest,
  MeasureRequest,
  RecordingInfoRequest,
  RecordRequest,
  SweepRequest,
  type IndexPackSimResult,
  type LocalityResult,
  type MeasureResult,
  type RecordingInfo,
  type RecordingParams,
  type SweepResult,
} from '../protocol/server-protocol.ts';
import { LoadCancelled } from './model-loader.ts';
import { cancelledError, startSimulationWorker, workerStoreOf } from './simulation-worker-client.ts';
import type { ParsedRecordingHead, SimulationTask, SimulationWorkerMessage } from './simulation-worker-protocol.ts';
import type { ServerContext } from './server-context.ts';

const DEFAULT_LIMIT = 96 * 1024 * 1024;
/** How much of git's stderr a failed measurement keeps. */
const MAX_STDERR_BYTES = 64 * 1024;
/** How often a recording's trace file is looked at for the progress line. */
const RECORD_PROGRESS_MS = 250;

function invalid(message: string): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidParams, message);
}

function throwIfCancelled(token: CancellationToken): void {
  if (token.isCancellationRequested) throw cancelledError();
}

function cancelledPromise(token: CancellationToken): Promise<void> {
  return new Promise((resolve) => {
    if (token.isCancellationRequested) resolve();
    else token.onCancellationRequested(() => resolve());
  });
}

/** An AbortSignal that fires when the request is cancelled. */
function abortSignalFor(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

/**
 * A reporter for nested work (ensureModel begins and ends its own progress): its begin and report
 * become reports of the request's one progress, its done is ignored.
 */
function nested(progress: WorkDoneProgressReporter): WorkDoneProgressReporter {
  return {
    begin: (title, percentage, message) => progress.report(percentage ?? 0, message ? `${title}: ${message}` : title),
    report: ((first: number | string, message?: string) => {
      if (typeof first === 'string') progress.report(first);
      else if (message === undefined) progress.report(first);
      else progress.report(first, message);
    }) as WorkDoneProgressReporter['report'],
    done: () => undefined,
  };
}

function percent(done: number, total: number): number {
  return total === 0 ? 100 : Math.min(100, Math.floor((100 * done) / total));
}

/** Kills a child started as the leader of its own process group, with the group (its children too). */
function killGroup(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    else child.kill('SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
}

/** Throws unless `limits` are byte counts. */
function checkLimits(limits: unknown, what = 'limits'): number[] {
  if (!Array.isArray(limits) || limits.some((l) => typeof l !== 'number' || !Number.isSafeInteger(l) || l < 0)) {
    throw invalid(`${what} must be a list of byte counts (non-negative integers)`);
  }
  return limits as number[];
}

function isInside(file: string, root: string | undefined): boolean {
  if (root === undefined) return false;
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
  } catch {
    return false;
  }
  const relative = path.relative(realRoot, realPathOrSelf(file));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function realPathOrSelf(p: string): string {
  let probe = p;
  while (!fs.existsSync(probe)) {
    const parent = path.dirname(probe);
    if (parent === probe) return p;
    probe = parent;
  }
  return path.join(fs.realpathSync(probe), path.relative(probe, p));
}

// --- Reading recordings ----------------------------------------------------------------------------

/** The repository a recording's reads belong to (see RecordingParams.repository). */
function repositoryFor(context: ServerContext, log: ParsedRecordingHead, explicit: string | undefined): Repository {
  const file = log.file;
  if (explicit !== undefined) return discoverRepository(explicit);
  const metadata = log.metadata;
  if (metadata) {
    for (const where of [metadata.cwd, metadata.gitDir]) {
      if (typeof where !== 'string' || !fs.existsSync(where)) continue;
      try {
        return discoverRepository(where);
      } catch {
        // try the next
      }
    }
    throw invalid(`${file}: the repository it was recorded in (${metadata.cwd}) is gone`);
  }
  // A raw trace: an absolute pack path leads to its repository; else a workspace pack of that name.
  for (const tracePath of log.packPaths) {
    if (path.isAbsolute(tracePath) && fs.existsSync(tracePath)) {
      try {
        return discoverRepository(path.dirname(tracePath));
      } catch {
        // not in a repository
      }
    }
    const name = path.basename(tracePath);
    const state = context.registry.repositories.find((s) => s.store.packs.some((p) => path.basename(p.files.pack) === name));
    if (state) return state.repository;
  }
  throw invalid(`${file}: a raw trace without metadata, and none of its packs is in the workspace; name its repository`);
}

interface OpenedRecording {
  loaded: LoadedRecording;
  info: RecordingInfo;
  /** Per pack, the offsets and entry sizes of the kept reads (as the CLI gathers them for locality), gathered by the worker. */
  locality: LocalityInput[];
}

/** The last recording opened, reused while the file and the packs it maps to are unchanged. */
let lastOpened: { key: string; opened: OpenedRecording } | undefined;

function fileKey(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    return `${stat.size}\0${stat.mtimeMs}\0${stat.ino}`;
  } catch {
    return undefined;
  }
}

function stillCurrent(opened: OpenedRecording): boolean {
  return opened.loaded.resolved.packs.every((p) => {
    try {
      return fs.statSync(p.location.files.pack).mtimeMs === p.location.mtimeMs && fs.existsSync(p.location.files.idx);
    } catch {
      return false;
    }
  });
}

/**
 * Opens a recording without building anything on this thread: a simulation worker parses it; this
 * thread picks its repository and loads every pack the trace names through the loader (model
 * workers); the worker then maps the reads to objects over the same packs (their persisted models)
 * and moves the result here.
 */
async function openRecording(context: ServerContext, params: RecordingParams, token: CancellationToken, progress: WorkDoneProgressReporter): Promise<OpenedRecording> {
  if (typeof params.file !== 'string' || params.file === '') throw invalid('no recording file given');
  const file = path.resolve(params.file);
  if (!fs.existsSync(file)) throw invalid(`${file}: no such recording or trace file`);
  if (params.segment !== undefined && (!Number.isInteger(params.segment) || params.segment < 1)) throw invalid('segment must be a 1-based integer');
  const key = `${file}\0${fileKey(file)}\0${params.segment ?? ''}\0${params.repository ?? ''}`;
  if (lastOpened && lastOpened.key === key && stillCurrent(lastOpened.opened)) return lastOpened.opened;

  let parsed!: (head: ParsedRecordingHead) => void;
  const headParsed = new Promise<ParsedRecordingHead>((resolve) => (parsed = resolve));
  let transferred: TransferredRecording | undefined;
  let locality: LocalityInput[] = [];
  const worker = startSimulationWorker(context.bundledScript('simulation-worker.js'), { kind: 'open-recording', file }, token, (message) => {
    if (message.kind === 'progress') progress.report(message.percentage ?? 0, message.message);
    else if (message.kind === 'parsed') parsed(message.head);
    else if (message.kind === 'recording') {
      transferred = message.recording;
      locality = message.locality;
    }
  });
  let store: ObjectStore;
  try {
    const head = await Promise.race([headParsed, worker.finished.then(() => Promise.reject(new Error(`${file}: the worker ended before parsing it`)))]);
    const repository = repositoryFor(context, head, params.repository);
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
          onProgress: (done, total) => progress.report(percent(done, total), `indexing ${packName}: ${formatCount(done)} of ${formatCount(total)} objects`),
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
  lastOpened = { key, opened };
  return opened;
}

/** Runs `work` with the request's one $/progress (begun here, ended here) and its cancellation. */
async function withProgress<T>(
  context: ServerContext,
  workDoneToken: RecordingParams['workDoneToken'],
  title: string,
  token: CancellationToken,
  work: (progress: WorkDoneProgressReporter) => Promise<T>,
): Promise<T> {
  const progress = context.connection.window.attachWorkDoneProgress(workDoneToken);
  progress.begin(title, 0, undefined, true);
  try {
    return await work(progress);
  } catch (error) {
    if (error instanceof LoadCancelled || token.isCancellationRequested) throw cancelledError();
    throw error;
  } finally {
    progress.done();
  }
}

// --- Locality and index-pack simulation in a worker ------------------------------------------------

/** Runs one task in a simulation worker; its messages go to `onMessage` until it is done. */
function runSimulationWorker(script: string, task: SimulationTask, token: CancellationToken, onMessage: (message: SimulationWorkerMessage) => void): Promise<void> {
  return startSimulationWorker(script, task, token, onMessage).finished;
}

/**
 * The model of the pack index-pack is simulated on, loaded through the loader (a model worker): a
 * workspace pack as every view loads it; else any real pack file (a recording's pack in a repository
 * outside the workspace) whose .idx lies next to it, read with the hash algorithm of the repository
 * around it (SHA-1 when it is in none). Nothing is written inside that repository: the model goes to
 * the model cache, which must be outside it.
 */
async function indexPackModel(context: ServerContext, packPath: unknown, token: CancellationToken, progress: WorkDoneProgressReporter): Promise<{ files: PackFiles; hashName: string }> {
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
  if (!resolved.endsWith('.pack') || !isFile(files.pack) || !isFile(files.idx)) {
    throw invalid(`${packPath} is not a pack of the workspace, nor a pack file with its .idx next to it`);
  }
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
      throw invalid(error instanceof Error ? error.message : String(error));
    }
  }
  const hash = repository?.hash ?? hashAlgorithmByName('sha1')!;
  if (!context.loader.peek(files)) {
    const packName = path.basename(files.pack);
    progress.report(0, `indexing ${packName}`);
    await context.loader.ensure(files, hash, {
      cancelled: cancelledPromise(token),
      onProgress: (done, total) => progress.report(percent(done, total), `indexing ${packName}: ${formatCount(done)} of ${formatCount(total)} objects`),
    });
  }
  return { files, hashName: hash.name };
}

// --- Running git ------------------------------------------------------------------------------------

/** Counts the pack-access lines of a growing trace file, reading only what was appended. */
class TraceLineCounter {
  private position = 0;
  private partial = '';
  lines = 0;

  constructor(private readonly file: string) {}

  poll(): void {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch {
      return;
    }
    try {
      const buffer = Buffer.allocUnsafe(1 << 20);
      for (;;) {
        const got = fs.readSync(fd, buffer, 0, buffer.length, this.position);
        if (got === 0) break;
        this.position += got;
        const text = this.partial + buffer.toString('latin1', 0, got);
        const lines = text.split('\n');
        this.partial = lines.pop()!;
        for (const line of lines) if (/\.pack \d+$/.test(line)) this.lines++;
        if (got < buffer.length) break;
      }
    } finally {
      fs.closeSync(fd);
    }
  }
}

interface GitRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  seconds: number;
  stderr: string;
}

/** One git run, stdout discarded, stderr kept; cancellation kills git and its children. */
function runGit(git: string, args: string[], cwd: string, token: CancellationToken): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(git, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let ended = 0;
    const chunks: Buffer[] = [];
    let kept = 0;
    child.stderr.on('data', (chunk: Buffer) => {
      if (kept >= MAX_STDERR_BYTES) return;
      chunks.push(chunk);
      kept += chunk.length;
    });
    const subscription = token.onCancellationRequested(() => killGroup(child));
    child.on('exit', () => (ended = performance.now()));
    child.on('error', (error) => {
      subscription.dispose();
      reject(invalid(`cannot run ${git}: ${error.message}`));
    });
    child.on('close', (status, signal) => {
      subscription.dispose();
      resolve({ status, signal, seconds: ((ended || performance.now()) - started) / 1000, stderr: Buffer.concat(chunks).toString('utf8').slice(0, MAX_STDERR_BYTES) });
    });
  });
}

// --- Handlers ---------------------------------------------------------------------------------------

/**
 * Recordings, sweeps, locality, index-pack simulation, recording and measuring git commands
 * (the requests of the "Recordings, simulations" part of server-protocol.ts).
 */
export function registerSimulationHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(RecordingInfoRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Reading recording', token, async (progress) => (await openRecording(context, params, token, progress)).info),
    ),
  );

  connection.onRequest(SweepRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Sweeping', token, async (progress): Promise<SweepResult> => {
        if (!Array.isArray(params.policies) || params.policies.length === 0) throw invalid('no policies given');
        for (const policy of params.policies) parsePolicy(String(policy)); // unknown policies fail before any work
        const limits = checkLimits(params.limits);
        if (limits.length === 0) throw invalid('no limits given');
        const { loaded, info } = await openRecording(context, params, token, progress);
        throwIfCancelled(token);
        const total = limits.length * params.policies.length;
        progress.report(0, `0 of ${total} cells`);
        const results = await sweepRecording(loaded, params.policies, limits, {
          workerScript: context.bundledScript('sim-worker.js'),
          signal: abortSignalFor(token),
          onProgress: (done, all) => progress.report(percent(done, all), `${done} of ${all} cells`),
        });
        return { recording: info, results };
      }),
    ),
  );

  connection.onRequest(LocalityRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Measuring locality', token, async (progress): Promise<LocalityResult> => {
        const cacheMiB = params.cacheMiB ?? 256;
        const readaheadKiB = params.readaheadKiB ?? 128;
        if (!(typeof cacheMiB === 'number' && cacheMiB > 0) || !(typeof readaheadKiB === 'number' && readaheadKiB >= 0)) {
          throw invalid('cacheMiB must be positive and readaheadKiB not negative');
        }
        const { locality: inputs, info } = await openRecording(context, params, token, progress);
        throwIfCancelled(token);
        const packs: PackLocalityWithQuantiles[] = [];
        progress.report(0, 'seek distances and page cache');
        await runSimulationWorker(context.bundledScript('simulation-worker.js'), { kind: 'locality', packs: inputs, cache: { cacheMiB, readaheadKiB } }, token, (message) => {
          if (message.kind !== 'locality') return;
          packs.push(message.pack);
          progress.report(percent(packs.length, inputs.length), `${packs.length} of ${inputs.length} packs`);
        });
        return { recording: info, pageCache: { cacheMiB, readaheadKiB }, packs };
      }),
    ),
  );

  connection.onRequest(IndexPackSimRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Simulating index-pack', token, async (progress): Promise<IndexPackSimResult> => {
        const limit = params.limit ?? DEFAULT_LIMIT;
        checkLimits([limit], 'limit');
        const { files, hashName } = await indexPackModel(context, params.pack, token, progress);
        throwIfCancelled(token);
        progress.report(0, `simulating ${INDEX_PACK_VARIANTS.join(', ')}`);
        const variants: IndexPackSimResult['variants'] = [];
        let objects = 0;
        await runSimulationWorker(
          context.bundledScript('simulation-worker.js'),
          { kind: 'index-pack', files, hashName, cacheDir: context.loader.directory, limit, variants: INDEX_PACK_VARIANTS },
          token,
          (message) => {
            if (message.kind !== 'variant') return;
            variants.push(message.result);
            objects = message.objects;
            progress.report(percent(variants.length, INDEX_PACK_VARIANTS.length), `${message.result.variant} done`);
          },
        );
        return { pack: files.pack, objects, limit, variants };
      }),
    ),
  );

  connection.onRequest(RecordRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Recording', token, async (progress): Promise<RecordingInfo> => {
        if (!Array.isArray(params.args) || params.args.length === 0) throw invalid('no git arguments given');
        if (params.mode !== 'exact' && params.mode !== 'passive') throw invalid('mode must be "exact" or "passive"');
        if (typeof params.output !== 'string' || params.output === '') throw invalid('no output file given');
        const cwd = path.resolve(params.cwd);
        const repository = discoverRepository(cwd);
        const output = path.resolve(params.output);
        if ([repository.workTree, repository.commonDir, repository.gitDir].some((root) => isInside(output, root))) {
          throw invalid(`${output}: the recording must be written outside the repository; PackScope never writes inside a repository`);
        }
        fs.mkdirSync(path.dirname(output), { recursive: true });
        // recordGitCommand reads every pack's model (checksums, object counts): load them in workers first.
        const state = context.registry.get(repository.commonDir);
        let store: ObjectStore;
        if (state) {
          await context.ensureRepository(state, token, nested(progress));
          store = state.store;
        } else {
          store = new ObjectStore(repository, context.loader.modelStore);
          for (const pack of store.packs) {
            throwIfCancelled(token);
            await context.loader.ensure(pack.files, repository.hash, { cancelled: cancelledPromise(token) });
          }
        }
        throwIfCancelled(token);
        const commandLine = ['git', ...params.args].join(' ');
        const running = `running ${commandLine}…`;
        progress.report(running);
        let child: ChildProcess | undefined;
        let counter: TraceLineCounter | undefined;
        const report = (): void => {
          counter?.poll();
          progress.report(`${running} ${formatCount(counter?.lines ?? 0)} trace lines`);
        };
        const timer = setInterval(report, RECORD_PROGRESS_MS);
        const subscription = token.onCancellationRequested(() => {
          if (child) killGroup(child);
        });
        try {
          await recordGitCommand({
            git: params.git || 'git',
            args: params.args,
            cwd,
            store,
            mode: params.mode,
            output,
            stdio: 'ignore',
            processGroup: true,
            onSpawn: (spawned, traceFile) => {
              child = spawned;
              counter = new TraceLineCounter(traceFile);
              if (token.isCancellationRequested) killGroup(spawned);
            },
          });
        } finally {
          clearInterval(timer);
          subscription.dispose();
        }
        if (token.isCancellationRequested) {
          fs.rmSync(output, { force: true });
          throw cancelledError();
        }
        const { info } = await openRecording(context, { file: output }, token, progress);
        return info;
      }),
    ),
  );

  connection.onRequest(MeasureRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Measuring git', token, async (progress): Promise<MeasureResult> => {
        if (!Array.isArray(params.args) || params.args.length === 0) throw invalid('no git arguments given');
        const limits = checkLimits(params.limits);
        if (limits.length === 0) throw invalid('no limits given');
        if (!Number.isInteger(params.runs) || params.runs < 1) throw invalid('runs must be a positive integer');
        const cwd = path.resolve(params.cwd);
        if (!fs.existsSync(cwd)) throw invalid(`${cwd}: no such directory`);
        const git = params.git || 'git';
        const version = gitVersion(git);
        const total = limits.length * params.runs;
        let done = 0;
        const results: MeasureResult['results'] = [];
        for (const limit of limits) {
          const seconds: number[] = [];
          for (let run = 1; run <= params.runs; run++) {
            throwIfCancelled(token);
            progress.report(percent(done, total), `core.deltaBaseCacheLimit=${formatLimit(limit)}: run ${run} of ${params.runs}`);
            const args = ['-c', `core.deltaBaseCacheLimit=${limit}`, ...params.args];
            const result = await runGit(git, args, cwd, token);
            throwIfCancelled(token);
            if (result.status !== 0) {
              const how = result.signal ? `killed by ${result.signal}` : `exit status ${result.status}`;
              throw new ResponseError(LSPErrorCodes.RequestFailed, `git ${args.join(' ')} failed (${how}): ${result.stderr.trim() || 'no message'}`);
            }
            seconds.push(result.seconds);
            done++;
          }
          results.push({ limit, seconds, bestSeconds: Math.min(...seconds) });
        }
        progress.report(100, `${total} runs`);
        return { gitVersion: version, results };
      }),
    ),
  );
}
