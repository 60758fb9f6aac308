import { errorMessage } from '../common/error-message.ts';
import { PackFormatError } from '../core/errors.ts';

/** One line on stderr: "packscope: <file>: offset <n>: <what is wrong>". */
export function reportError(error: unknown): void {
  if (error instanceof PackFormatError) {
    process.stderr.write(`packscope: ${error.message}\n`);
  } else if (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('ERR_PARSE_ARGS')
  ) {
    process.stderr.write(`packscope: ${error.message}\n`);
  } else {
    const message = errorMessage(error);
    process.stderr.write(
      `packscope: internal error: ${message}${process.env.PACKSCOPE_DEBUG ? `\n${error instanceof Error ? error.stack : ''}` : ' (set PACKSCOPE_DEBUG=1 for details)'}\n`,
    );
  }
}
