// What Measure for real runs for a recording: git's arguments and working directory, from
// the recording's metadata, else read back from a raw trace's GIT_TRACE lines. Pure (no vscode), so
// that the extension tests can check it on real recordings and traces directly.
import * as path from 'node:path';
import type { RecordingInfo } from '../../protocol/server-protocol.ts';
import { argvOfTraceCommand, gitCommandLine } from '../../common/shell-words.ts';
import { visibleText } from '../../common/visible-text.ts';
import { measuredCommandRefusal } from '../../common/measured-command.ts';

export const RECONSTRUCTED_NOTE = 'The command line was reconstructed from the trace and may be inexact.';

/**
 * What Measure for real runs: git's arguments and where, or why it cannot run (a command that does
 * more than read is refused outright, src/common/measured-command.ts: there is no option to allow).
 */
export type MeasurePlan = { args: string[]; cwd: string; reconstructed: boolean } | { refusal: string };

/** Where the recording came from, for the dialog: the extension wrote it, or the user opened a file. */
export type RecordingOrigin = 'storage' | 'opened';

export const UNTRUSTED_REFUSAL =
  'This workspace is not trusted: PackScope runs no git command from a recording or trace in it (Measure for real needs a trusted workspace).';

/**
 * The checks on a plan before anything runs: no git at all from a file in an
 * untrusted workspace (git would read the repository's own configuration, which can run programs);
 * every argument a string; only a command that reads (src/common/measured-command.ts); the working
 * directory inside the recording's repository.
 */
export function checkedMeasurePlan(
  info: RecordingInfo,
  segment: number | null,
  workspaceTrusted: boolean,
): MeasurePlan {
  if (!workspaceTrusted) return { refusal: UNTRUSTED_REFUSAL };
  if (info.args !== null && !(Array.isArray(info.args) && info.args.every((arg: unknown) => typeof arg === 'string'))) {
    return { refusal: 'The recording names git arguments that are not all strings; it is refused.' };
  }
  const plan = measurePlan(info, segment);
  if ('refusal' in plan) return plan;
  // The server refuses the same commands; refused here, the reason shows where the user clicked.
  const refusal = measuredCommandRefusal(plan.args);
  if (refusal !== undefined) return { refusal };
  const workTree = path.basename(info.repository) === '.git' ? path.dirname(info.repository) : info.repository;
  const within = [workTree, info.repository].some((root) => {
    const relative = path.relative(path.resolve(root), path.resolve(plan.cwd));
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  });
  if (!within)
    return { refusal: `The recording says git ran in ${plan.cwd}, outside its repository ${workTree}; it is refused.` };
  return plan;
}

/**
 * git's arguments and working directory for Measure: a recording's own (its metadata: `args`, `cwd`)
 * when it has them and the chosen segment is its recorded command; else, for a raw trace (or another
 * git process in a recording), the segment's GIT_TRACE line read back (`reconstructed`) and run in the
 * repository's work tree. A trace of several git processes needs a segment chosen; a segment whose
 * command GIT_TRACE did not name is refused.
 */
export function measurePlan(info: RecordingInfo, segment: number | null): MeasurePlan {
  const workTree = path.basename(info.repository) === '.git' ? path.dirname(info.repository) : info.repository;
  const cwd = info.cwd ?? workTree;
  const chosen = segment === null ? undefined : info.segments.find((s) => s.index === segment);
  if (segment !== null && chosen === undefined)
    return { refusal: `The recording has no segment ${segment} (it has ${info.segments.length}).` };
  if (info.args !== null && info.args.length > 0) {
    const recorded = { args: [...info.args], cwd, reconstructed: false };
    if (chosen === undefined || info.segments.length <= 1 || chosen.command === null || chosen.command === info.command)
      return recorded;
    const traced = argvOfTraceCommand(chosen.command);
    if (traced !== undefined && traced.length === info.args.length && traced.every((a, i) => a === info.args![i]))
      return recorded;
    // Another git process of the recorded command (a child it started): as GIT_TRACE printed it.
    return traced === undefined
      ? { refusal: `Segment ${segment} ran \`${chosen.command}\`, which cannot be read back as git's arguments.` }
      : { args: traced, cwd, reconstructed: true };
  }
  let target = chosen;
  if (target === undefined) {
    const reading = info.segments.filter((s) => s.reads > 0);
    const candidates = reading.length > 0 ? reading : info.segments;
    if (candidates.length > 1) {
      return {
        refusal: `This trace holds ${candidates.length} git processes; choose one of them (a segment) to measure its command for real.`,
      };
    }
    target = candidates[0];
  }
  if (target === undefined || target.command === null) {
    const which =
      target === undefined || info.segments.length <= 1
        ? 'This trace does not say'
        : `GIT_TRACE did not name segment ${target.index}, so the trace does not say`;
    return {
      refusal: `${which} which git command it recorded (it was written without GIT_TRACE), so there is nothing to run for real.`,
    };
  }
  const args = argvOfTraceCommand(target.command);
  if (args === undefined)
    return { refusal: `The trace names \`${target.command}\`, which cannot be read back as git's arguments.` };
  return { args, cwd, reconstructed: true };
}

/**
 * The first dialog's words: the command, where, how often, and where the recording came from, each
 * string from the file with its control and bidi characters shown as escapes.
 */
/** The confirmation's buttons: measure, or measure with a second series of runs on a kept heap. */
export const MEASURE_RUN = 'Run';
export const MEASURE_WITH_KEPT_HEAP = 'Run, and with a kept heap';

export function measureConfirmation(
  plan: Exclude<MeasurePlan, { refusal: string }>,
  run: { file: string; origin: RecordingOrigin; limits: number; runs: number },
): { message: string; detail: string } {
  const inexact = plan.reconstructed ? ` ${RECONSTRUCTED_NOTE}` : '';
  const origin =
    run.origin === 'storage'
      ? `Recorded by PackScope: ${visibleText(run.file)}.`
      : `From a file you opened, not recorded by PackScope: ${visibleText(run.file)}.`;
  return {
    message: `Run \`${visibleText(gitCommandLine(['-c', 'core.deltaBaseCacheLimit=N', ...plan.args]))}\` for real ${run.limits * run.runs} times?`,
    detail: `Exactly that argv, N each of ${run.limits} values of core.deltaBaseCacheLimit × best of ${run.runs}, in ${visibleText(plan.cwd)}, with the repository's configured programs (hooks, fsmonitor, textconv, filters, pager) switched off. The Cache Lab shows the wall times next to the simulated inflations. "${MEASURE_WITH_KEPT_HEAP}" runs each twice as often, half of the runs with glibc's malloc thresholds pinned (GLIBC_TUNABLES), to show how much of the time is glibc handing freed memory back to the kernel.${inexact} ${origin}`,
  };
}
