import { spawn } from 'node:child_process';
import { abortError } from './run-pack-objects.ts';
import { cleanGitEnvironment, GitCommandError } from './git-probe.ts';
import { gitMessage } from './run-pack-objects.ts';

/**
 * Runs a read-only git command (rev-list, show-ref, cat-file) and returns its stdout. Exit statuses
 * in `okStatuses` count as success (show-ref exits 1 when there is nothing to show).
 */
export function runGitCapture(git: string, args: string[], options: { cwd: string; input?: string; signal?: AbortSignal | undefined; okStatuses?: number[] }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortError(options.signal));
      return;
    }
    const child = spawn(git, args, { cwd: options.cwd, env: { ...cleanGitEnvironment(), LC_ALL: 'C' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    let aborted = false;
    const onAbort = (): void => {
      aborted = true;
      child.kill('SIGTERM');
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    child.on('error', (error) => {
      options.signal?.removeEventListener('abort', onAbort);
      reject(new GitCommandError([git, ...args], null, error.message, `cannot run git (${git}): ${error.message}`));
    });
    child.on('close', (status) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (aborted) reject(abortError(options.signal));
      else if (status !== null && (status === 0 || options.okStatuses?.includes(status))) resolve(Buffer.concat(out));
      else reject(new GitCommandError([git, ...args], status, err, `git ${args.find((a) => !a.startsWith('-')) ?? ''} failed (exit status ${status}): ${gitMessage(err.split('\n').filter(Boolean))}`));
    });
  });
}
