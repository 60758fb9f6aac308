import { errorMessage } from '../common/error-message.ts';
import { errorKind, type ErrorKind } from '../core/errors.ts';

/**
 * The exit status of each kind of error (docs/architecture.md "Errors by kind"). Every kind but a
 * cancellation exits 1, as the CLI always has (scripts and the tests test for 1); a cancelled
 * command exits 130, as a shell reports a command stopped by Ctrl+C.
 */
export const EXIT_STATUS: Readonly<Record<ErrorKind | 'internal', number>> = {
  usage: 1,
  git: 1,
  format: 1,
  io: 1,
  cancelled: 130,
  internal: 1,
};

/** One line on stderr: "packscope: <file>: offset <n>: <what is wrong>"; returns the exit status. */
export function reportError(error: unknown): number {
  const kind = errorKind(error);
  if (kind !== 'internal') {
    process.stderr.write(`packscope: ${errorMessage(error)}\n`);
  } else {
    process.stderr.write(
      `packscope: internal error: ${errorMessage(error)}${process.env.PACKSCOPE_DEBUG ? `\n${error instanceof Error ? error.stack : ''}` : ' (set PACKSCOPE_DEBUG=1 for details)'}\n`,
    );
  }
  return EXIT_STATUS[kind];
}
