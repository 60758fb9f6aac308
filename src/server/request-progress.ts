/** A request's one $/progress: begun and ended around its work, nested work reporting into it. */
import type { CancellationToken, WorkDoneProgressParams, WorkDoneProgressReporter } from 'vscode-languageserver/node';
import { cancelledError } from './cancellation.ts';
import type { ServerContext } from './server-context.ts';
import { LoadCancelled } from './workers/model-loader.ts';

/**
 * A reporter for nested work (ensureModel begins and ends its own progress): its begin and report
 * become reports of the request's one progress, its done is ignored.
 */
export function nested(progress: WorkDoneProgressReporter): WorkDoneProgressReporter {
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

/** Runs `work` with the request's one $/progress (begun here, ended here) and its cancellation. */
export async function withProgress<T>(
  context: ServerContext,
  workDoneToken: WorkDoneProgressParams['workDoneToken'],
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
