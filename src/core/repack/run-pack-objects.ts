import { spawn } from 'node:child_process';
import { GitStderrParser, type GitProgress } from './git-progress.ts';
import { cleanGitEnvironment, GitCommandError } from './git-probe.ts';

export interface PackObjectsRun {
  git: string;
  /** Everything after the executable: `--git-dir=…`, `pack-objects`, its options. */
  args: string[];
  /** Added to the cleaned environment (GIT_OBJECT_DIRECTORY of the shadow). */
  env: Record<string, string>;
  cwd: string;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: GitProgress) => void) | undefined;
  /** Called with the child's pid once it runs (tests check that it is gone after a cancel). */
  onSpawn?: ((pid: number) => void) | undefined;
}

/** A cancelled preview rejects with this (name "AbortError", as fetch and node:timers do). */
export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const error = new Error('the repack preview was cancelled');
  error.name = 'AbortError';
  return error;
}

const KILL_GRACE_MS = 2000;

/**
 * Runs pack-objects with stdin closed, its progress parsed, and resolves when it exits 0 (with the
 * stdout it printed: the pack's name). On abort the child and its process group get SIGTERM (then
 * SIGKILL), and the promise rejects with an AbortError only after the child has exited, so that the
 * caller can remove the temporary directory knowing that nothing writes to it any more.
 */
export function runPackObjects(run: PackObjectsRun): Promise<{ stdout: string; otherStderr: string[] }> {
  return new Promise((resolve, reject) => {
    if (run.signal?.aborted) {
      reject(abortError(run.signal));
      return;
    }
    const argv = [run.git, ...run.args];
    const child = spawn(run.git, run.args, {
      cwd: run.cwd,
      env: { ...cleanGitEnvironment(), ...run.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    const stderr = new GitStderrParser((progress) => run.onProgress?.(progress));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
    const signalGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        child.kill(signal);
      }
    };
    const onAbort = (): void => {
      aborted = true;
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
    };
    run.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('spawn', () => {
      if (child.pid !== undefined) run.onSpawn?.(child.pid);
    });
    child.on('error', (error) => {
      run.signal?.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      reject(new GitCommandError(argv, null, error.message, `cannot run git (${run.git}): ${error.message}`));
    });
    child.on('close', (status, signal) => {
      run.signal?.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      stderr.end();
      if (aborted) {
        reject(abortError(run.signal));
        return;
      }
      if (status === 0) {
        resolve({ stdout, otherStderr: stderr.otherLines });
        return;
      }
      const text = stderr.otherLines.join('\n');
      reject(new GitCommandError(argv, status, text, `git pack-objects failed (${signal ? `killed by ${signal}` : `exit status ${status}`}): ${gitMessage(stderr.otherLines)}`));
    });
  });
}

/** git's own words: its fatal:/error: lines when there are any, else the first lines it printed. */
export function gitMessage(lines: string[]): string {
  const errors = lines.filter((line) => /^(fatal|error): /.test(line));
  const chosen = errors.length > 0 ? errors : lines.slice(0, 5);
  return chosen.length === 0 ? 'git printed nothing' : chosen.join('; ');
}
