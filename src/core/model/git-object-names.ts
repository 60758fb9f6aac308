import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { TransferredIndex } from '../format/idx.ts';
import { abortError, runGit, gitFailure } from '../git/run-git.ts';
import { decodeWorkerError, type WorkerError } from '../worker-error.ts';
import { DEFAULT_PATH_WALK_LIMITS, PATH_RULE, type ObjectPaths, type StoreWalkInputs } from './object-paths.ts';
import { PathTable } from './path-table.ts';
import {
  GitNamesUnusable,
  RevListParser,
  revListNamesArguments,
  MAX_MISSING_LISTED,
  type PackNames,
  type ParsedNames,
  type RevListLimits,
} from './rev-list-parser.ts';

export { GitNamesUnusable, revListNamesArguments };

/**
 * The same names as walkObjectPaths, from git itself: `git rev-list --objects --all` prints each
 * object once, at the path where its walk first meets it, which is the rule the walk replays
 * (PATH_RULE). git does it in C at about a quarter of the walk's CPU, in another process (the
 * other core). Its output is parsed as it streams (rev-list-parser.ts).
 *
 * Anything that would make the names differ from the walk's makes this throw
 * (GitNamesUnusable), and the caller walks instead: a line that does not parse, a path the walk
 * would not name (longer than its cap, nested deeper than its cap), a repository whose grafts
 * file changes parents (the walk reads parents from the commits), git failing (a missing object,
 * a malformed tree: the walk then names what it can and says why).
 *
 * One difference remains, and is git's: rev-list prints a path only up to its first newline
 * (show_object_with_name), while the walk keeps the whole path. Telling such a path from its
 * first line would need every tree read, which is the walk's cost; docs/json.md says so.
 */
export interface GitNamesOptions {
  /** The git to run (the CLI's `git`, the server's configured and trusted git). */
  git: string;
  /** The repository's git directory (a linked worktree's own, so that its HEAD is the one read). */
  gitDir: string;
  /** The shared git directory (where a grafts file would be). */
  commonDir: string;
  signal?: AbortSignal | undefined;
}

export interface GitNamesStart extends GitNamesOptions {
  /** The repository's hash size (20 or 32): enough to parse git's lines before any pack is open. */
  hashSize: number;
  /**
   * The bundled worker (dist/git-names-worker.js) that runs git and parses its output on a thread
   * of its own, so that this thread can open the models and build everything else meanwhile; without
   * one (code run from its TypeScript source) git's output is parsed on this thread as it arrives.
   */
  workerScript?: string | undefined;
}

const LIMITS: RevListLimits = {
  maxPathBytes: DEFAULT_PATH_WALK_LIMITS.maxPathBytes,
  maxTreeDepth: DEFAULT_PATH_WALK_LIMITS.maxTreeDepth,
};

/** Names the objects of `inputs` by git rev-list (see above); throws GitNamesUnusable when its names would not be the walk's. */
export async function nameObjectsByGit(inputs: StoreWalkInputs, options: GitNamesOptions): Promise<ObjectPaths> {
  return startNamingByGitFor(inputs, options).finish(inputs);
}

/** startNamingByGit for the packs of `inputs`, whose hash size it takes. */
export function startNamingByGitFor(inputs: StoreWalkInputs, options: GitNamesOptions): GitNamesRun {
  return startNamingByGit({ ...options, hashSize: inputs.models[0]?.hash.size ?? 20 });
}

/**
 * Tells `onCount` every `everyMs`, when it moved, how many objects `run`'s git has listed, against
 * the packs' objects: git lists each object the refs reach once, so the count ends near the total
 * (below it by what no ref reaches; past it by loose objects, the total then the count). Once git
 * has stopped nothing more is told (a walk naming them instead tells its own). Returns the stop.
 */
export function watchListing(
  run: GitNamesRun,
  inputs: StoreWalkInputs,
  everyMs: number,
  onCount: (listed: number, total: number) => void,
): () => void {
  const objects = inputs.models.reduce((sum, model) => sum + model.count, 0);
  let shown = 0;
  const timer = setInterval(() => {
    const listed = run.listed();
    if (listed === shown) return;
    shown = listed;
    onCount(listed, Math.max(objects, listed));
  }, everyMs);
  return () => clearInterval(timer);
}

/**
 * git rev-list started before the packs are open: its output is parsed as it comes, and `finish`
 * gives the packs and waits for the names. A run that is not finished must be cancelled (it stops
 * git).
 */
export interface GitNamesRun {
  finish(inputs: StoreWalkInputs): Promise<ObjectPaths>;
  cancel(): void;
  /** Objects git has listed so far (lines of its output parsed): a progress count. */
  listed(): number;
}

export function startNamingByGit(options: GitNamesStart): GitNamesRun {
  const started = performance.now();
  // git applies a grafts file to parents; the walk does not (nor does git for the walk's purposes
  // once grafts are gone): the two would disagree, so the walk names such a repository.
  for (const dir of new Set([options.gitDir, options.commonDir]))
    if (fs.existsSync(path.join(dir, 'info', 'grafts')))
      return refused(new GitNamesUnusable(`${path.join(dir, 'info', 'grafts')} changes parents as the walk does not`));
  const run =
    options.workerScript !== undefined && fs.existsSync(options.workerScript)
      ? new WorkerRun(options, options.workerScript)
      : new ThreadRun(options);
  return {
    finish: async (inputs) => summarise(await run.finish(packNamesOf(inputs)), inputs, performance.now() - started),
    cancel: () => run.cancel(),
    listed: () => run.listed(),
  };
}

function refused(error: Error): GitNamesRun {
  return { finish: () => Promise.reject(error), cancel: () => undefined, listed: () => 0 };
}

function packNamesOf(inputs: StoreWalkInputs): PackNames {
  return {
    packs: inputs.models,
    types: inputs.models.map((model) => model.columns.type),
    looseObjectDirs: inputs.looseObjectDirs,
  };
}

function summarise(parsed: ParsedNames, inputs: StoreWalkInputs, elapsedMs: number): ObjectPaths {
  return {
    table: parsed.table,
    pathOf: parsed.pathOf,
    summary: {
      rule: PATH_RULE,
      tips: inputs.refs.tips.length,
      commits: parsed.commits,
      trees: parsed.trees,
      named: parsed.named,
      missing: parsed.missing,
      complete: parsed.missing === 0,
      problems: [
        ...inputs.refs.problems,
        ...parsed.missingIds.map((oidHex) => `${oidHex} is in no pack and not loose: git rev-list lists it as missing`),
      ].slice(0, MAX_MISSING_LISTED),
      bytesRebuilt: 0,
      elapsedMs,
      namesFrom: 'git rev-list',
    },
  };
}

/** git run and parsed on this thread, as its output arrives. */
class ThreadRun {
  private readonly parser: RevListParser;
  private readonly controller = new AbortController();
  private readonly done: Promise<void>;

  constructor(options: GitNamesStart) {
    this.parser = new RevListParser(options.hashSize, LIMITS);
    const signal =
      options.signal === undefined ? this.controller.signal : AbortSignal.any([options.signal, this.controller.signal]);
    this.done = runGit(options.git, revListNamesArguments(options.gitDir), {
      cwd: options.gitDir,
      signal,
      processGroup: true,
      bufferedOutput: true,
      onStdout: (chunk) => this.parser.feed(chunk),
    }).then((run) => {
      if (run.status !== 0) throw new GitNamesUnusable(gitFailure(run).message);
    });
    // Seen by finish(); a run cancelled before it is finished has nobody to tell.
    this.done.catch(() => undefined);
  }

  async finish(names: PackNames): Promise<ParsedNames> {
    this.parser.resolveWith(names);
    await this.done;
    return this.parser.finish();
  }

  cancel(): void {
    this.controller.abort();
  }

  listed(): number {
    return this.parser.linesParsed;
  }
}

/** What the main thread tells the names worker. */
export type GitNamesWorkerRequest =
  { kind: 'packs'; indexes: TransferredIndex[]; types: Uint8Array[]; looseObjectDirs: string[] } | { kind: 'cancel' };

/** What the names worker answers, once. */
export type GitNamesWorkerReply =
  /** The parse's names, its path table as the three arrays a PathTable is rebuilt from. */
  | ({ kind: 'names'; parent: Int32Array; start: Uint32Array; pool: Uint8Array } & Omit<ParsedNames, 'table'>)
  | { kind: 'unusable'; message: string }
  | { kind: 'failed'; error: WorkerError };

/** What the names worker starts from (workerData). */
export interface GitNamesWorkerTask {
  git: string;
  gitDir: string;
  hashSize: number;
  limits: RevListLimits;
  /** One word the worker keeps at the count of lines it has parsed (SharedArrayBuffer): read, not messaged. */
  listed: Int32Array;
}

/** git run and parsed on a worker thread (git-names-worker.ts). */
class WorkerRun {
  private readonly worker: Worker;
  private readonly reply: Promise<GitNamesWorkerReply>;
  private readonly listedCount = new Int32Array(new SharedArrayBuffer(4));
  private cancelled = false;

  constructor(
    private readonly options: GitNamesStart,
    script: string,
  ) {
    const task: GitNamesWorkerTask = {
      git: options.git,
      gitDir: options.gitDir,
      hashSize: options.hashSize,
      limits: LIMITS,
      listed: this.listedCount,
    };
    this.worker = new Worker(script, { workerData: task });
    this.reply = new Promise((resolve, reject) => {
      this.worker.once('message', resolve);
      this.worker.once('error', reject);
      this.worker.once('exit', (code) => reject(new Error(`the git names worker exited (${code}) without an answer`)));
    });
    this.reply.catch(() => undefined);
    const onAbort = (): void => this.cancel();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    void this.reply.finally(() => options.signal?.removeEventListener('abort', onAbort)).catch(() => undefined);
  }

  async finish(names: PackNames): Promise<ParsedNames> {
    const indexes = names.packs.map((pack) => pack.index.namesOnly(true).toTransfer());
    this.worker.postMessage({
      kind: 'packs',
      indexes,
      types: names.types.map((types) => Uint8Array.from(types)),
      looseObjectDirs: [...names.looseObjectDirs],
    } satisfies GitNamesWorkerRequest);
    const reply = await this.reply;
    if (this.cancelled || this.options.signal?.aborted) throw abortError(this.options.signal);
    switch (reply.kind) {
      case 'names':
        return {
          table: new PathTable(reply.parent, reply.start, reply.pool),
          pathOf: reply.pathOf,
          commits: reply.commits,
          trees: reply.trees,
          named: reply.named,
          missing: reply.missing,
          missingIds: reply.missingIds,
        };
      case 'unusable':
        throw new GitNamesUnusable(reply.message);
      case 'failed':
        throw decodeWorkerError(reply.error, 'git names worker');
    }
  }

  listed(): number {
    return Atomics.load(this.listedCount, 0);
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.worker.postMessage({ kind: 'cancel' } satisfies GitNamesWorkerRequest);
  }
}
