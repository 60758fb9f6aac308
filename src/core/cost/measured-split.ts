/**
 * What "Measure for real" learns about a command: timed at several limits, its best
 * times against the model's predicted read seconds there fit
 *
 *   measured = nonReadSeconds + readScale · predictedReadSeconds      (least squares, both ≥ 0)
 *
 * nonReadSeconds is git's own work (diffing, output, start-up), readScale how the model's read time
 * compares with this command's. The calibration keeps the fit per command (`measured`), and a time
 * view of a recording of that command prices its cells with it: the prediction is then of the
 * whole command, from runs of it, and says so. The fit itself is src/common/measured-split-fit.ts
 * (the webview shows it too).
 */
import * as path from 'node:path';
import type { Calibration, MeasuredCommand } from '../documents/calibration-document.ts';

/** How many measured commands a calibration keeps (the newest). */
export const MEASURED_KEPT = 20;

/** The same git arguments in the same directory (the paths resolved: the server's checked cwd and a recording's may be spelled apart). */
export function sameCommand(
  a: { args: readonly string[]; cwd: string },
  b: { args: readonly string[]; cwd: string },
): boolean {
  return (
    path.resolve(a.cwd) === path.resolve(b.cwd) &&
    a.args.length === b.args.length &&
    a.args.every((x, i) => x === b.args[i])
  );
}

/** The calibration's measured fit of this command (same arguments, same directory), if any. */
export function measuredCommandFor(
  calibration: Calibration,
  command: { args: string[]; cwd: string },
): MeasuredCommand | undefined {
  return (calibration.measured ?? []).find((m) => sameCommand(m, command));
}

/** `entry` first, then the others that are not `same` as it, at most `most`: what a calibration keeps of measured commands and replays. */
export function keptNewest<T>(
  entry: T,
  list: readonly T[] | undefined,
  same: (a: T, b: T) => boolean,
  most: number,
): T[] {
  return [entry, ...(list ?? []).filter((x) => !same(x, entry))].slice(0, most);
}

/** The calibration with `entry` kept: the same command's replaced, newest first, at most MEASURED_KEPT. */
export function withMeasuredCommand(calibration: Calibration, entry: MeasuredCommand): Calibration {
  return { ...calibration, measured: keptNewest(entry, calibration.measured, sameCommand, MEASURED_KEPT) };
}
