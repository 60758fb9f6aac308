/**
 * The server's calibrations run in a task worker (task `calibrate`): the plan and the lists'
 * counts walk every object of the pack, over a second of the server's thread on git.git's
 * (bench/README.md, "Figures the comments rely on"), and hovers must not wait that long. One at a
 * time (work-queue.ts): two calibrations timing git side by side would each time the other's load.
 * Cancelling stops git between runs and ends the worker.
 */
import type { CancellationToken, WorkDoneProgressReporter } from 'vscode-languageserver/node';
import type { CalibrationRun } from '../core/cost/calibrate.ts';
import type { Calibration } from '../core/documents/calibration-document.ts';
import type { ServerContext } from './server-context.ts';
import { startTaskWorker } from './workers/task-worker-client.ts';

export function calibrationInWorker(
  context: ServerContext,
  token: CancellationToken,
  progress: WorkDoneProgressReporter,
): CalibrationRun {
  return (model, options) =>
    context.work.run('calibrate', token, async (_threads, holdPlacesUntil) => {
      let calibration: Calibration | undefined;
      const run = startTaskWorker(
        context.bundledScript('task-worker.js'),
        {
          kind: 'calibrate',
          files: model.files,
          hashName: model.hash.name,
          cacheDir: context.loader.directory,
          gitDir: options.gitDir,
          git: options.git ?? 'git',
        },
        token,
        (message) => {
          if (message.kind === 'progress') progress.report(message.percentage ?? 0, message.message);
          else if (message.kind === 'log') context.log(message.message);
          else if (message.kind === 'calibration') calibration = message.calibration;
        },
        { cancel: 'message', log: (message) => context.log(message) },
      );
      holdPlacesUntil(run.exited);
      await run.finished;
      if (calibration === undefined) throw new Error('the calibration worker ended without a calibration');
      return calibration;
    });
}
