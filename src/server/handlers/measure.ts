/** `packscope/measure`: a git command timed at several core.deltaBaseCacheLimit values. */
import * as fs from 'node:fs';
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';
import { gitVersionOf } from '../../core/git/git-probe.ts';
import { GitCommandError, runGit as runGitProcess, type GitRun } from '../../core/git/run-git.ts';
import { formatLimit } from '../../common/format.ts';
import { MeasureRequest, type MeasureResult } from '../../protocol/server-protocol.ts';
import { cancelledError, throwIfCancelled } from '../cancellation.ts';
import { checkLimits, invalid } from '../request-params.ts';
import { percent, withProgress } from '../request-progress.ts';
import { checkGitArguments, trustedGit } from '../trusted-git.ts';
import type { ServerContext } from '../server-context.ts';

/** One git run, stdout discarded, stderr kept; cancellation kills git and its children. */
async function runGit(git: string, args: string[], cwd: string, token: CancellationToken): Promise<GitRun> {
  const controller = new AbortController();
  const subscription = token.onCancellationRequested(() => controller.abort());
  try {
    return await runGitProcess(git, args, { cwd, environment: 'inherited', stdout: 'ignore', processGroup: true, signal: controller.signal });
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') throw cancelledError();
    if (error instanceof GitCommandError) throw invalid(`cannot run ${git}: ${error.gitStderr}`);
    throw error;
  } finally {
    subscription.dispose();
  }
}

export function registerMeasureHandlers(context: ServerContext): void {
  const { connection } = context;

  connection.onRequest(MeasureRequest, (params, token) =>
    context.guarded(() =>
      withProgress(context, params.workDoneToken, 'Measuring git', token, async (progress): Promise<MeasureResult> => {
        const gitArgs = checkGitArguments(params.args);
        const git = trustedGit(params.git, context.settings.git);
        const limits = checkLimits(params.limits);
        if (limits.length === 0) throw invalid('no limits given');
        if (!Number.isInteger(params.runs) || params.runs < 1) throw invalid('runs must be a positive integer');
        if (typeof params.cwd !== 'string') throw invalid('no working directory given');
        const cwd = context.readRules.check(params.cwd, 'working directory');
        if (!fs.existsSync(cwd)) throw invalid(`${cwd}: no such directory`);
        const version = await gitVersionOf(git);
        const total = limits.length * params.runs;
        let done = 0;
        const results: MeasureResult['results'] = [];
        for (const limit of limits) {
          const seconds: number[] = [];
          for (let run = 1; run <= params.runs; run++) {
            throwIfCancelled(token);
            progress.report(percent(done, total), `core.deltaBaseCacheLimit=${formatLimit(limit)}: run ${run} of ${params.runs}`);
            const args = ['-c', `core.deltaBaseCacheLimit=${limit}`, ...gitArgs];
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
