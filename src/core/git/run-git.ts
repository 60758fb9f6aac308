import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { CancelledError, GitCommandError } from '../errors.ts';
import { withoutPrograms } from './no-programs.ts';

// The one way PackScope runs git: every caller (pack-objects for a repack preview, the write-order
// estimate's rev-list, the recorder, the server's measured runs, the version and option probes)
// goes through runGit (or probeGit, built on it), so that the environment, cancellation, the kill of git's own
// children and the wording of git's failures are the same everywhere. The environment always carries
// the table of no-programs.ts, so that a repository's configuration cannot make git run a program or
// reach the network; only the recorder's run of the user's own command opts out.

/** A cancelled run rejects with this (name "AbortError", as fetch and node:timers do). */
export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new CancelledError();
}

/** The inherited environment without any GIT_* variable: git then finds only what the command line names. */
export function cleanGitEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) if (!key.startsWith('GIT_')) env[key] = value;
  return env;
}

/** git's own words: its fatal:/error: lines when there are any, else the first lines it printed. */
export function gitMessage(lines: string[]): string {
  const errors = lines.filter((line) => /^(fatal|error): /.test(line));
  const chosen = errors.length > 0 ? errors : lines.slice(0, 5);
  return chosen.length === 0 ? 'git printed nothing' : chosen.join('; ');
}

/** Enough for every message git prints on failure; a command that floods stderr cannot fill memory. */
export const MAX_STDERR_BYTES = 64 * 1024;

const KILL_GRACE_MS = 2000;

export interface GitEnvironmentOptions {
  cwd?: string | undefined;
  /**
   * 'clean' (the default): the inherited environment without GIT_* variables and with LC_ALL=C, so
   * that git reads only what the command line names and prints untranslated messages. 'inherited':
   * this process's environment as it is (a measured command runs as the user's own would). Or a
   * complete environment of the caller's own (a recording's).
   */
  environment?: 'clean' | 'inherited' | NodeJS.ProcessEnv | undefined;
  /** Variables set on top of that environment. */
  env?: NodeJS.ProcessEnv | undefined;
  /**
   * 'none' (the default): no-programs.ts's table applied on top of everything, so that nothing the
   * repository configures runs. 'configured': git as the user runs it, for the recorder's run of the
   * command the user typed (and asked to be recorded as it runs).
   */
  programs?: 'none' | 'configured' | undefined;
  /**
   * The keys of the repository's configuration (`git config --list`), so that the table's per-driver
   * rows (`diff.<driver>.textconv`) are overridden too: needed by commands that reach drivers (log -p,
   * diff, cat-file --filters), which PackScope's own runs are not.
   */
  configuredKeys?: Iterable<string> | undefined;
  /**
   * For output read to its end (rev-list's names, diff-tree --stdin's changes): GIT_FLUSH=0 (git(1))
   * makes git write in full buffers. Into a pipe rev-list, log and diff-tree --stdin otherwise flush
   * after every record (write-or-die.c's maybe_flush_or_die flushes unless stdout is a regular file):
   * rev-list --objects on git/git made about 365,000 writes of ~116 bytes, 0.7 s of system time and a
   * wake-up of the reader each (bench/README.md, "Naming objects by path, against git"). The bytes
   * are the same; only their chunks differ. Never for a reader that waits on one record to send the next.
   */
  bufferedOutput?: boolean | undefined;
}

export interface GitRunOptions extends GitEnvironmentOptions {
  /** Written to git's stdin, which is then closed; without it stdin is /dev/null (or the terminal with `stdin: 'inherit'`). */
  input?: string | Buffer | undefined;
  stdin?: 'ignore' | 'inherit' | undefined;
  /** 'capture' (the default) keeps what git prints; 'inherit' shares this process's terminal. */
  stdout?: 'capture' | 'ignore' | 'inherit' | undefined;
  stderr?: 'capture' | 'ignore' | 'inherit' | undefined;
  /**
   * Every stdout chunk as it arrives, instead of keeping it in GitRun.stdout (then empty): an output
   * read as it comes (a listing of a million lines, a history's diffs) never has to fit in memory whole.
   */
  onStdout?: ((chunk: Buffer) => void) | undefined;
  /** Every stderr chunk as it arrives (git's progress meters), besides the capped copy in GitRun.stderr. */
  onStderr?: ((chunk: string) => void) | undefined;
  /** Stops git (SIGTERM, then SIGKILL after a grace period); the run rejects with an AbortError once git has exited. */
  signal?: AbortSignal | undefined;
  /** Start git as the leader of a new process group, so that a stop reaches its children too (`kill(-pid)`). */
  processGroup?: boolean | undefined;
  onSpawn?: ((child: ChildProcess) => void) | undefined;
}

export interface GitRun {
  argv: string[];
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  /** The first MAX_STDERR_BYTES characters of what git printed on stderr (when captured). */
  stderr: string;
  /** From the start of git to its exit. */
  seconds: number;
}

/** The environment git runs with (runGit's, and runWithUsage's for a timed git). */
export function gitEnvironment(options: GitEnvironmentOptions): NodeJS.ProcessEnv {
  const environment = options.environment ?? 'clean';
  const env: NodeJS.ProcessEnv =
    environment === 'clean'
      ? { ...cleanGitEnvironment(), ...options.env, LC_ALL: 'C' }
      : { ...(environment === 'inherited' ? process.env : environment), ...options.env };
  if (options.bufferedOutput === true) env.GIT_FLUSH = '0';
  return options.programs === 'configured' ? env : withoutPrograms(env, options.configuredKeys);
}

function cannotRun(argv: string[], message: string): GitCommandError {
  return new GitCommandError(argv, null, message, `cannot run git (${argv[0]}): ${message}`);
}

/** The subcommand of an argv (`pack-objects` in `git --git-dir=… pack-objects …`), for messages. */
function subcommandOf(argv: string[]): string {
  return argv.slice(1).find((arg) => !arg.startsWith('-')) ?? '';
}

/** The error for a run that ended other than as its caller accepts, in git's own words (`lines`: its stderr without progress meters). */
export function gitFailure(run: GitRun, lines: string[] = run.stderr.split('\n').filter(Boolean)): GitCommandError {
  const how = run.signal ? `killed by ${run.signal}` : `exit status ${run.status}`;
  return new GitCommandError(
    run.argv,
    run.status,
    lines.join('\n'),
    `git ${subcommandOf(run.argv)} failed (${how}): ${gitMessage(lines)}`,
  );
}

/** Stops a child started as the leader of its own process group, with the group (its children too). */
export function killProcessGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    child.kill(signal);
  }
}

function stdioOf(options: GitRunOptions): StdioOptions {
  const stdin = options.input !== undefined ? 'pipe' : (options.stdin ?? 'ignore');
  const stdout = options.stdout === 'capture' || options.stdout === undefined ? 'pipe' : options.stdout;
  const stderr = options.stderr === 'capture' || options.stderr === undefined ? 'pipe' : options.stderr;
  return [stdin, stdout, stderr];
}

/**
 * Runs git and resolves when it has exited and its output is closed, whatever its exit status.
 * Rejects with a GitCommandError when git cannot be started, and with an AbortError after git has
 * exited when `signal` stopped it (so that a caller can remove a temporary directory knowing that
 * nothing writes to it any more).
 */
export function runGit(git: string, args: string[], options: GitRunOptions = {}): Promise<GitRun> {
  const argv = [git, ...args];
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortError(options.signal));
      return;
    }
    const stdio = stdioOf(options);
    const started = performance.now();
    const child = spawn(git, args, {
      cwd: options.cwd,
      env: gitEnvironment(options),
      stdio,
      detached: options.processGroup === true,
    });
    let exited = 0;
    const out: Buffer[] = [];
    let err = '';
    let aborted = false;
    let failure: unknown;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (signal: NodeJS.Signals): void => {
      if (options.processGroup) killProcessGroup(child, signal);
      else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    const onAbort = (): void => {
      aborted = true;
      stop('SIGTERM');
      killTimer = setTimeout(() => stop('SIGKILL'), KILL_GRACE_MS);
    };
    const settle = (): void => {
      options.signal?.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const onStdout = options.onStdout ?? ((chunk: Buffer) => out.push(chunk));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (aborted) return;
      try {
        onStdout(chunk);
      } catch (error) {
        // The caller cannot use the rest (it found output it cannot parse): git is stopped, and the
        // run rejects with the caller's error once git has exited.
        failure ??= error;
        onAbort();
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      options.onStderr?.(chunk);
      if (err.length < MAX_STDERR_BYTES) err += chunk;
    });
    if (child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
    child.on('spawn', () => options.onSpawn?.(child));
    child.on('exit', () => (exited = performance.now()));
    child.on('error', (error) => {
      settle();
      reject(cannotRun(argv, error.message));
    });
    child.on('close', (status, signal) => {
      settle();
      if (failure !== undefined) {
        reject(failure instanceof Error ? failure : new Error(String(failure)));
        return;
      }
      if (aborted) {
        reject(abortError(options.signal));
        return;
      }
      const seconds = ((exited || performance.now()) - started) / 1000;
      resolve({ argv, status, signal, stdout: Buffer.concat(out), stderr: err.slice(0, MAX_STDERR_BYTES), seconds });
    });
  });
}

/**
 * Runs a read-only git command (rev-list, show-ref, cat-file) and returns its stdout. Exit statuses
 * in `okStatuses` count as success (show-ref exits 1 when there is nothing to show).
 */
export async function runGitCapture(
  git: string,
  args: string[],
  options: GitRunOptions & { okStatuses?: number[] } = {},
): Promise<Buffer> {
  const run = await runGit(git, args, options);
  if (run.status === 0 || (run.status !== null && options.okStatuses?.includes(run.status))) return run.stdout;
  throw gitFailure(run);
}

const PROBE_TIMEOUT_MS = 30_000;

/**
 * Runs a quick git command that needs no cancellation (`git --version`, `git pack-objects -h`,
 * `git config --get`) to its end, without blocking the thread (the server answers hovers
 * meanwhile). Rejects with a GitCommandError only when git cannot be started or did not answer
 * within PROBE_TIMEOUT_MS; the caller judges the exit status.
 */
export async function probeGit(
  git: string,
  args: string[],
  options: GitEnvironmentOptions = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const timeout = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  try {
    const run = await runGit(git, args, { ...options, signal: timeout });
    return { status: run.status, stdout: run.stdout.toString('utf8'), stderr: run.stderr };
  } catch (error) {
    if (timeout.aborted) throw cannotRun([git, ...args], `no answer within ${PROBE_TIMEOUT_MS / 1000} s`);
    throw error;
  }
}
