// What Measure for real runs for a recording (issue 5): git's arguments and working directory, from
// the recording's metadata, else read back from a raw trace's GIT_TRACE lines. Pure (no vscode), so
// that the extension tests can check it on real recordings and traces directly.
import * as path from 'node:path';
import type { RecordingInfo } from '../../protocol/server-protocol.ts';
import { argvOfTraceCommand } from '../../shared/shell-words.ts';

export const RECONSTRUCTED_NOTE = 'The command line was reconstructed from the trace and may be inexact.';

/** What Measure for real runs: git's arguments and where, or why it cannot. */
export type MeasurePlan = { args: string[]; cwd: string; reconstructed: boolean } | { refusal: string };

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
  if (segment !== null && chosen === undefined) return { refusal: `The recording has no segment ${segment} (it has ${info.segments.length}).` };
  if (info.args !== null && info.args.length > 0) {
    const recorded = { args: [...info.args], cwd, reconstructed: false };
    if (chosen === undefined || info.segments.length <= 1 || chosen.command === null || chosen.command === info.command) return recorded;
    const traced = argvOfTraceCommand(chosen.command);
    if (traced !== undefined && traced.length === info.args.length && traced.every((a, i) => a === info.args![i])) return recorded;
    // Another git process of the recorded command (a child it started): as GIT_TRACE printed it.
    return traced === undefined ? { refusal: `Segment ${segment} ran \`${chosen.command}\`, which cannot be read back as git's arguments.` } : { args: traced, cwd, reconstructed: true };
  }
  let target = chosen;
  if (target === undefined) {
    const reading = info.segments.filter((s) => s.reads > 0);
    const candidates = reading.length > 0 ? reading : info.segments;
    if (candidates.length > 1) {
      return { refusal: `This trace holds ${candidates.length} git processes; choose one of them (a segment) to measure its command for real.` };
    }
    target = candidates[0];
  }
  if (target === undefined || target.command === null) {
    const which = target === undefined || info.segments.length <= 1 ? 'This trace does not say' : `GIT_TRACE did not name segment ${target.index}, so the trace does not say`;
    return { refusal: `${which} which git command it recorded (it was written without GIT_TRACE), so there is nothing to run for real.` };
  }
  const args = argvOfTraceCommand(target.command);
  if (args === undefined) return { refusal: `The trace names \`${target.command}\`, which cannot be read back as git's arguments.` };
  return { args, cwd, reconstructed: true };
}
