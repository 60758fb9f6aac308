import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeDirectories, writeAll, writeFileAtomically } from '../atomic-file.ts';
import { gitVersionOf } from '../git/git-probe.ts';
import { probeGit, runGit } from '../git/run-git.ts';
import type { ObjectStore } from '../model/object-store.ts';
import { parseGitSize, GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import { applyRecordingVariables, recordingVariables } from '../../common/recording-environment.ts';
import { threadedReader } from '../../common/threaded-readers.ts';
import { fail } from '../errors.ts';
import { simObjectsFrom } from '../sim/sim-objects.ts';
import { alignHiddenReads, type LimitTrace } from './complete-recording.ts';
import { inputPath } from '../../common/recording-sidecar.ts';
import { recordingHeader, type RecordingMetadata } from './recording.ts';
import { resolveReads } from './resolve-reads.ts';
import { parseTraceFile } from './trace-log.ts';

export interface RecordOptions {
  git: string;
  args: string[];
  cwd: string;
  store: ObjectStore;
  mode: 'exact' | 'passive';
  output: string;
  /** stdio of the git command (the CLI shows git's output; the extension captures it). */
  stdio?: 'inherit' | 'ignore';
  signal?: AbortSignal;
  /**
   * Called once git is started, with the file its pack-access log is being written to (the server
   * counts its lines for progress) and the child (to stop it and its own children on cancel).
   */
  onSpawn?: (child: ChildProcess, traceFile: string) => void;
  /** Start git as the leader of a new process group (so that `kill(-pid)` reaches its children too). */
  processGroup?: boolean;
  /**
   * `--complete=LIMITS` (exact mode only): after the run at limit 0, run the command again at each
   * limit and store the reads the limit-0 trace hides (complete-recording.ts, git-internals §8.1).
   */
  complete?: number[];
  /**
   * Written to git's stdin on every run (a complete recording runs the command 1 + N times), and
   * kept beside the recording (`inputPath`), so that it can be completed later.
   */
  input?: Buffer;
  /** Called as each run starts: run 1 is the recording at limit 0, then the check's run, then the complete limits. */
  onRun?: (run: number, runs: number, limit: number) => void;
  /**
   * `--check`: run the command a second time, as the first, and compare the traces (is it
   * deterministic?). Done anyway for a command known to read in threads (threaded-readers.ts).
   */
  check?: boolean;
  /**
   * A command known to read in threads is recorded single-threaded (its config, e.g. grep.threads=1,
   * for it and every git it starts) unless this is 'as-is'; the recording says so.
   */
  threads?: 'single' | 'as-is';
}

/**
 * The environment that makes git log its pack accesses (git-internals §1.10, §8): the access log
 * into an absolute file (so every child process appends to it), GIT_TRACE into the same file when
 * the user has not pointed it elsewhere (its "trace: built-in: git …" lines split the log per
 * command), and in exact mode core.deltaBaseCacheLimit=0 through GIT_CONFIG_COUNT, appended after
 * any entries the user already passes that way. The variables are defined once, in
 * src/common/recording-environment.ts (the extension's terminal recorder sets the same ones).
 */
export function recordingEnvironment(
  base: NodeJS.ProcessEnv,
  traceFile: string,
  mode: 'exact' | 'passive',
  exactLimit = 0,
  extraConfig: readonly { key: string; value: string }[] = [],
): NodeJS.ProcessEnv {
  return applyRecordingVariables(base, recordingVariables(base, traceFile, mode, exactLimit, extraConfig));
}

/** The limit a passive recording ran with: the repository's core.deltaBaseCacheLimit, as git resolves it. */
export async function configuredCacheLimit(git: string, cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const result = await probeGit(git, ['config', '--get', 'core.deltaBaseCacheLimit'], { cwd, environment: env });
  if (result.status !== 0) return GIT_DEFAULT_LIMIT;
  return parseGitSize(result.stdout.trim()) ?? GIT_DEFAULT_LIMIT;
}

/** Runs one git command with pack-access logging on and writes the recording to `options.output`. */
export async function recordGitCommand(options: RecordOptions): Promise<RecordingMetadata> {
  const { store } = options;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-record-'));
  const traceFile = path.join(scratch, 'pack-access.trace');
  try {
    const version = await gitVersionOf(options.git);
    const { threaded, single, extraConfig } = threadSettings(options);
    const env = recordingEnvironment(process.env, traceFile, options.mode, 0, extraConfig);
    const cacheLimit = options.mode === 'exact' ? 0 : await configuredCacheLimit(options.git, options.cwd, process.env);
    const packs = store.packs.map((pack) => {
      const model = store.model(pack);
      return { path: pack.files.pack, checksum: model.checksumHex, objects: model.count };
    });
    const startedAt = new Date().toISOString();
    const complete = [...new Set(options.complete ?? [])].filter((limit) => limit !== 0);
    if (complete.length > 0 && options.mode !== 'exact')
      throw fail('usage', undefined, undefined, '--complete needs an exact recording (limit 0)');
    const checking = options.check === true || threaded?.rerunReadsAlike === true;
    const runs = 1 + (checking ? 1 : 0) + complete.length;
    options.onRun?.(1, runs, cacheLimit);
    const { status, signal } = await runRecordedCommand(options, env, traceFile);
    let checked: Pick<RecordingMetadata, 'check'> = {};
    if (checking && signal === null) {
      options.onRun?.(2, runs, cacheLimit);
      checked = { check: await checkRun(options, scratch, traceFile, status, extraConfig) };
    }
    let completion: Pick<RecordingMetadata, 'completeAt' | 'hiddenReads' | 'ambiguousReads'> = {};
    if (complete.length > 0 && status === 0 && signal === null) {
      const traces: { limit: number; file: string }[] = [];
      for (const [i, limit] of complete.entries()) {
        options.onRun?.(runs - complete.length + i + 1, runs, limit);
        const file = path.join(scratch, `pack-access-${i + 1}.trace`);
        const again = await runRecordedCommand(
          { ...options, stdio: 'ignore' },
          recordingEnvironment(process.env, file, 'exact', limit, extraConfig),
          file,
        );
        if (again.status !== status || again.signal !== null)
          throw fail(
            'usage',
            undefined,
            undefined,
            `the run at core.deltaBaseCacheLimit=${limit} ended with ${again.signal ?? `status ${again.status}`}, the first with status ${status}`,
          );
        traces.push({ limit, file });
      }
      const found = findHiddenReads(store, traceFile, traces);
      completion = {
        completeAt: complete,
        hiddenReads: found.hiddenReads,
        ...(found.ambiguousReads.length > 0 ? { ambiguousReads: found.ambiguousReads } : {}),
      };
    }
    const metadata: RecordingMetadata = {
      version: 1,
      command: options.args,
      cwd: options.cwd,
      gitDir: store.repository.gitDir,
      gitVersion: version,
      mode: options.mode,
      cacheLimit,
      packs,
      startedAt,
      endedAt: new Date().toISOString(),
      exitStatus: status,
      signal,
      ...(single ? { singleThreaded: `${single.key}=${single.value}` } : {}),
      ...checked,
      ...completion,
      ...(options.input !== undefined ? { input: keepInput(options.output, options.input) } : {}),
    };
    writeRecording(options.output, metadata, traceFile);
    return metadata;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * A command known to read in threads (threaded-readers.ts) runs with the config that makes it read
 * in one, unless asked to run as it is or its own --threads says otherwise.
 */
function threadSettings(options: RecordOptions): {
  threaded: ReturnType<typeof threadedReader>;
  single: { key: string; value: string } | undefined;
  extraConfig: { key: string; value: string }[];
} {
  const threaded = threadedReader(options.args);
  const single =
    threaded !== undefined && !threaded.explicitThreads && options.threads !== 'as-is'
      ? threaded.singleThread
      : undefined;
  return { threaded, single, extraConfig: single ? [single] : [] };
}

/** git's exit; a stop through `options.signal` counts as git killed by SIGTERM (the recording is kept). */
async function runRecordedCommand(
  options: RecordOptions,
  env: NodeJS.ProcessEnv,
  traceFile: string,
): Promise<{ status: number | null; signal: NodeJS.Signals | null }> {
  const stdio = options.stdio ?? 'inherit';
  try {
    const run = await runGit(options.git, options.args, {
      cwd: options.cwd,
      environment: env,
      ...(options.input !== undefined ? { input: options.input } : { stdin: stdio }),
      stdout: stdio,
      stderr: stdio,
      signal: options.signal,
      processGroup: options.processGroup,
      // The command the user typed, run as their own git runs it: they asked for it to be recorded.
      programs: 'configured',
      onSpawn: (child) => options.onSpawn?.(child, traceFile),
    });
    return { status: run.status, signal: run.signal };
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') return { status: null, signal: 'SIGTERM' };
    throw error;
  }
}

/**
 * The hidden reads of the limit-0 trace that the runs at other limits show, as [trace read index,
 * count], and the places where more than one reading explains them (complete-recording.ts). Every
 * read of every trace must map to the repository's packs, and the traces must have the same git
 * processes. Each process is aligned with all the limits at once.
 */
function findHiddenReads(
  store: ObjectStore,
  zeroTrace: string,
  traces: { limit: number; file: string }[],
): { hiddenReads: [number, number][]; ambiguousReads: number[] } {
  const objects = simObjectsFrom(store.packs.map((pack) => store.model(pack)));
  const load = (
    file: string,
    limit: number,
  ): { reads: Int32Array; segments: { firstRead: number; endRead: number }[] } => {
    const log = parseTraceFile(file);
    const resolved = resolveReads(log, store);
    if (resolved.readObject.length !== log.readPack.length)
      throw fail(
        'usage',
        file,
        undefined,
        `the run at core.deltaBaseCacheLimit=${limit} read objects outside the repository's packs; cannot complete the recording`,
      );
    const reads = new Int32Array(resolved.readObject.length);
    const storeIndex = resolved.packs.map((p) => store.packs.indexOf(p.location));
    for (let i = 0; i < reads.length; i++)
      reads[i] = objects.packBase[storeIndex[resolved.readPack[i]!]!]! + resolved.readObject[i]!;
    const segments = resolved.segments.length > 0 ? resolved.segments : [{ firstRead: 0, endRead: reads.length }];
    return { reads, segments };
  };
  const zero = load(zeroTrace, 0);
  const others = traces.map(({ limit, file }) => {
    const other = load(file, limit);
    if (other.segments.length !== zero.segments.length)
      throw fail(
        'usage',
        file,
        undefined,
        `the run at core.deltaBaseCacheLimit=${limit} ran ${other.segments.length} git processes, the run at 0 ${zero.segments.length}`,
      );
    return { limit, file, ...other };
  });
  const hiddenReads: [number, number][] = [];
  const ambiguousReads: number[] = [];
  zero.segments.forEach((segment, s) => {
    const atLimits: LimitTrace[] = others.map((other) => ({
      limit: other.limit,
      reads: other.reads.subarray(other.segments[s]!.firstRead, other.segments[s]!.endRead),
    }));
    const alignment = alignHiddenReads(
      objects,
      zero.reads.subarray(segment.firstRead, segment.endRead),
      atLimits,
      others.length === 1 ? others[0]!.file : zeroTrace,
    );
    for (const [after, count] of [...alignment.hidden].sort((a, b) => a[0] - b[0]))
      hiddenReads.push([segment.firstRead + after, count]);
    for (const place of alignment.ambiguous) ambiguousReads.push(segment.firstRead + place);
  });
  return { hiddenReads, ambiguousReads };
}

/** `record --check`: the command once more, as the first run, its trace compared with the first's. */
async function checkRun(
  options: RecordOptions,
  scratch: string,
  firstTrace: string,
  firstStatus: number | null,
  extraConfig: readonly { key: string; value: string }[],
): Promise<NonNullable<RecordingMetadata['check']>> {
  const file = path.join(scratch, 'pack-access-check.trace');
  const again = await runRecordedCommand(
    { ...options, stdio: 'ignore' },
    recordingEnvironment(process.env, file, options.mode, 0, extraConfig),
    file,
  );
  return compareRuns(firstTrace, file, again.status === firstStatus && again.signal === null);
}

/**
 * `record --check`: the two runs' pack reads compared line for line (pack path and offset; the
 * timestamps differ anyway). `sameExit`: the second run ended as the first.
 */
function compareRuns(first: string, second: string, sameExit: boolean): NonNullable<RecordingMetadata['check']> {
  const reads = (file: string): string[] => {
    if (!fs.existsSync(file)) return [];
    const log = parseTraceFile(file);
    return Array.from(log.readPack, (pack, i) => `${log.packPaths[pack]} ${log.readOffset[i]}`);
  };
  const a = reads(first);
  const b = reads(second);
  let firstDifference = 0;
  while (firstDifference < a.length && firstDifference < b.length && a[firstDifference] === b[firstDifference])
    firstDifference++;
  const identical = sameExit && a.length === b.length && firstDifference === a.length;
  return { identical, lines: [a.length, b.length], ...(identical ? {} : { firstDifference }) };
}

/** The input written beside the recording before the recording itself, so that no recording names a missing input. */
function keepInput(output: string, bytes: Buffer): { bytes: number; sha256: string } {
  makeDirectories(path.dirname(output), 0o777);
  writeFileAtomically(inputPath(output), 0o644, (fd) => writeAll(fd, bytes));
  return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * The input a recording kept (its header's `input`), read back to give its command again: refused
 * when the file is missing or is not the input the header describes (size and SHA-256).
 */
export function keptInput(recording: string, kept: { bytes: number; sha256: string }): Buffer {
  const file = inputPath(recording);
  let bytes: Buffer;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size !== kept.bytes) throw new Error('size');
    bytes = fs.readFileSync(file);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw fail(
      missing ? 'not-found' : 'changed',
      file,
      undefined,
      missing
        ? "the standard input this recording's command read is not beside it: completing it needs that input"
        : `not the ${kept.bytes}-byte standard input this recording's command read`,
    );
  }
  if (createHash('sha256').update(bytes).digest('hex') !== kept.sha256)
    throw fail(
      'changed',
      file,
      undefined,
      `not the standard input this recording's command read (its SHA-256 differs)`,
    );
  return bytes;
}

/** Header line, then the trace copied as git wrote it, a chunk at a time (traces can be larger than any string). */
function writeRecording(output: string, metadata: RecordingMetadata, traceFile: string): void {
  makeDirectories(path.dirname(output), 0o777);
  writeFileAtomically(output, 0o644, (fd) => {
    writeAll(fd, Buffer.from(recordingHeader(metadata)));
    if (fs.existsSync(traceFile)) forEachChunk(traceFile, (chunk) => writeAll(fd, chunk));
  });
}

const CHUNK_BYTES = 1 << 20;

/** Calls `use` with the file's bytes in order, one chunk at a time (the buffer is reused). */
export function forEachChunk(file: string, use: (chunk: Buffer) => void): void {
  const input = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  try {
    for (let position = 0; ;) {
      const got = fs.readSync(input, chunk, 0, chunk.length, position);
      if (got === 0) break;
      use(chunk.subarray(0, got));
      position += got;
    }
  } finally {
    fs.closeSync(input);
  }
}

/** Pack-access lines (`… <pack> <offset>`) in a recording or trace, counted a chunk at a time. */
export function countAccessLines(file: string): number {
  const accessLine = /\.pack \d+$/;
  let count = 0;
  let partial = '';
  forEachChunk(file, (chunk) => {
    const lines = (partial + chunk.toString('latin1')).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (accessLine.test(line)) count++;
  });
  if (accessLine.test(partial)) count++;
  return count;
}
