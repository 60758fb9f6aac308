import { gitCommandWord } from './threaded-readers.ts';

/**
 * Whether git's arguments (without "git") make it read what it works on from standard input: the
 * object names of `cat-file --batch`, the revisions of `--stdin`, the objects `pack-objects` packs.
 * `record` keeps such input with the recording (beside it, `<recording>.input`), so that completion
 * runs the command again on the same input, however long after it was recorded. Pure, as the
 * extension may use it too.
 */
export function readsStandardInput(args: readonly string[]): boolean {
  const command = gitCommandWord(args);
  if (command === undefined) return false;
  if (COMMANDS_READING_INPUT.has(command)) return true;
  const options = args.slice(args.indexOf(command) + 1);
  const end = options.indexOf('--');
  if (end >= 0) options.length = end;
  // `cat-file --batch-all-objects` lists every object itself: its --batch reads no input.
  if (options.includes('--batch-all-objects')) return false;
  return options.some((arg) => /^--(stdin\b|batch(-check|-command)?(=|$))/.test(arg));
}

/** Commands that read their input from standard input whatever their options. */
const COMMANDS_READING_INPUT = new Set(['pack-objects', 'fast-import', 'unpack-objects', 'mktree', 'mktag']);
