import { fail, type UsageError } from '../core/errors.ts';
import type { Command } from './command.ts';

/**
 * node:util parseArgs's refusals in the CLI's own words: what was wrong with which option of which
 * command, and where its usage is. Node's own message ("Unknown option '--x'. To specify a
 * positional argument starting with a '-', place it at the end of the command after '--', …")
 * talks of its parser, not of packscope.
 */
export function usageErrorFromParseArgs(command: Command, error: unknown): UsageError | undefined {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return undefined;
  const code = error.code;
  if (!code.startsWith('ERR_PARSE_ARGS')) return undefined;
  const option = /'(-[^' <]+)/.exec(error.message)?.[1];
  const positional = /Unexpected argument '([^']*)'/.exec(error.message)?.[1];
  const see = `see packscope ${command.name} --help`;
  let what: string;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) {
    const note = command.optionNotes?.[option];
    what = `${command.name} has no option ${option}${note === undefined ? '' : `: ${note}`}`;
  } else if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option !== undefined) {
    what = /argument missing/.test(error.message)
      ? `${command.name}: ${option} needs a value`
      : `${command.name}: ${option} takes no value`;
  } else if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && positional !== undefined) {
    what = `${command.name} takes no argument "${positional}"`;
  } else {
    what = `${command.name}: ${error.message}`;
  }
  return fail('usage', undefined, undefined, `${what} (${see})`);
}
