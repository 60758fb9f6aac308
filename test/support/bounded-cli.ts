/**
 * Runs the bundled CLI (dist/cli.js) in a child process that is killed after a time bound and kept
 * to a small heap, for cases that hung or ran away with memory before they were fixed: a regression
 * then fails its test instead of hanging the suite or swapping the machine.
 */
import { spawn } from 'node:child_process';
import { cliPath, projectRoot } from './git.ts';

/** A child that reads /dev/zero whole must be stopped before it takes the machine's memory. */
const CHILD_HEAP_MIB = 512;
/** Chunks of output kept: enough to judge the outcome; a runaway child must not fill this process instead. */
const MAX_KEPT_CHUNKS = 256;

export interface BoundedRun {
  status: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export function runCliBounded(
  args: string[],
  options: { env: Record<string, string>; timeoutMs: number },
): Promise<BoundedRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${CHILD_HEAP_MIB}`, cliPath, ...args], {
      cwd: projectRoot,
      env: { ...options.env, PACKSCOPE_NO_PROGRESS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => void (out.length < MAX_KEPT_CHUNKS && out.push(chunk)));
    child.stderr.on('data', (chunk: Buffer) => void (err.length < MAX_KEPT_CHUNKS && err.push(chunk)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({
        status,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
      });
    });
  });
}
