import { spawn } from 'node:child_process';
import {
  abortError,
  gitEnvironment,
  killProcessGroup,
  MAX_STDERR_BYTES,
  type GitEnvironmentOptions,
} from './run-git.ts';

/**
 * A command run for its cost: wall time, CPU time (user + system) and minor page faults. Node
 * gives no child's resource usage, so the command runs under bash, whose `times` reports its
 * children's CPU time and whose /proc/<pid>/stat (proc(5), field 11, cminflt) their minor faults;
 * both are written to descriptor 3, so that the command's own stderr stays its own.
 *
 * `--norc`, and no BASH_ENV or ENV: a non-interactive bash whose stdin is a socket (node's stdio
 * pipes are socket pairs) takes itself for an rshd child and reads ~/.bashrc when SHLVL is unset,
 * and a `times` taken after that counts whatever the user's start-up files run (pyenv's init, once
 * timed as git's: bench/README.md, 2026-12-04).
 */
export interface UsageRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  /** The first MAX_STDERR_BYTES characters the command printed on stderr. */
  stderr: string;
  wallSeconds: number;
  /** User + system seconds of the command and the children it waited for; null when bash could not report them. */
  cpuSeconds: number | null;
  /** Minor page faults likewise (Linux only; null elsewhere). */
  minorFaults: number | null;
}

/**
 * The environment as runGit builds it (run-git.ts): the same table of no-programs.ts applies to a
 * timed git, so that its configuration runs nothing either.
 */
export interface UsageOptions extends GitEnvironmentOptions {
  /** Written to the command's stdin; without it stdin is /dev/null. */
  input?: string | undefined;
  /** Stops the command and its children (SIGTERM to its process group, SIGKILL after 2 s); the run then rejects with an AbortError. */
  signal?: AbortSignal | undefined;
}

const USAGE_SCRIPT =
  '"$@" 3>&- >/dev/null; s=$?; { times; if read -r st 2>/dev/null </proc/$$/stat; then printf "stat %s\\n" "$st"; fi; } >&3; exit $s';

export function runWithUsage(command: string, args: string[], options: UsageOptions): Promise<UsageRun> {
  return new Promise<UsageRun>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortError(options.signal));
      return;
    }
    const env = gitEnvironment(options);
    delete env.BASH_ENV;
    delete env.ENV;
    const started = performance.now();
    const child = spawn('bash', ['--norc', '--noprofile', '-c', USAGE_SCRIPT, 'bash', command, ...args], {
      env,
      cwd: options.cwd,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    let usage = '';
    let exited = 0;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      aborted = true;
      killProcessGroup(child, 'SIGTERM');
      killTimer = setTimeout(() => killProcessGroup(child, 'SIGKILL'), 2000);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_BYTES) stderr += chunk;
    });
    (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8');
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: string) => (usage = (usage + chunk).slice(-4000)));
    child.on('exit', () => (exited = performance.now()));
    child.on('error', (error) => {
      options.signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (status, signal) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      if (aborted) {
        reject(abortError(options.signal));
        return;
      }
      const lines = usage.trimEnd().split('\n');
      const stat = lines.find((line) => line.startsWith('stat '));
      const times = lines.map((line) => /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(line)).filter((m) => m !== null);
      const children = times[times.length - 1];
      resolve({
        status,
        signal,
        stderr: stderr.slice(0, MAX_STDERR_BYTES),
        wallSeconds: ((exited || performance.now()) - started) / 1000,
        cpuSeconds: children
          ? Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4])
          : null,
        minorFaults: stat === undefined ? null : cminflt(stat),
      });
    });
    if (options.input !== undefined) {
      child.stdin!.on('error', () => {});
      child.stdin!.end(options.input);
    }
  });
}

export interface ChildUsage {
  cpuSeconds: number;
  minorFaults: number | null;
}

/** runWithUsage for a command that must succeed: its CPU time and faults, or an error with its status and stderr. */
export async function childUsage(
  command: string,
  args: string[],
  environment: GitEnvironmentOptions,
  input: string | undefined,
  cwd?: string,
  signal?: AbortSignal,
): Promise<ChildUsage> {
  const run = await runWithUsage(command, args, { ...environment, cwd, input, signal });
  if (run.status !== 0 || run.cpuSeconds === null) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${run.signal ? `killed by ${run.signal}` : `status ${run.status}`}): ${run.stderr.trim() || 'no message'}`,
    );
  }
  return { cpuSeconds: run.cpuSeconds, minorFaults: run.minorFaults };
}

/** Field 11 of /proc/<pid>/stat, counted after the command name's closing parenthesis (the name may hold spaces). */
function cminflt(stat: string): number | null {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const value = Number(fields[8]);
  return Number.isSafeInteger(value) ? value : null;
}
