/** `packscope/measure`: a git command timed at several core.deltaBaseCacheLimit values. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';
import { formatLimit } from '../../core/trace/load-recording.ts';
import { gitVersion } from '../../core/trace/record-git.ts';
import { MeasureRequest, type MeasureResult } from '../../protocol/server-protocol.ts';
import { throwIfCancelled } from '../cancellation.ts';
import { checkLimits, invalid } from '../request-params.ts';
import { percent, withProgress } from '../request-progress.ts';
import type { ServerContext } from '../server-context.ts';

/** How much of git's stderr a failed measurement keeps. */
const MAX_STDERR_BYTES = 64 * 1024;

/** Kills a child started as the leader of its own process group, with the group (its children too). */
export function killGroup(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    else child.kill('SIGTERM');
  } catch {
    child.kill('SIGTERM');
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

export function registerMeasureHandlers(context: ServerContext): void {
  const { connection } = context;

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
