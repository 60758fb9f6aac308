/**
 * Command lines as words: one rule to read them (what a user types for "Record a git command…" or
 * as pack-objects options, and what GIT_TRACE prints) and one to write them back. Pure, so that the
 * extension, the server and the webviews read and show command lines alike.
 *
 * The reading rule is a POSIX shell's for words (XCU §2.2 "Quoting"), without any expansion:
 * - blanks (space, tab, newline) separate words;
 * - outside quotes, a backslash keeps the next character as it is (a backslash-newline is removed);
 * - `'…'` keeps everything up to the next `'` as it is;
 * - `"…"` keeps everything up to the next unescaped `"` as it is, except that a backslash before
 *   `$`, `` ` ``, `"`, `\` or a newline quotes that character (and is removed); before any other
 *   character it stays.
 * This is also what reads git's own quoting back (quote.c's sq_quote: `'` as `'\''`, `!` as `'\!'`).
 */

/** Why a command line could not be read as words. */
export const UNCLOSED_QUOTE = 'A quote is not closed.';

/** The words of `text` by the rule above; undefined when a quote is left open. */
export function splitShellWords(text: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && j + 1 < text.length && '$`"\\\n'.includes(text[j + 1]!)) {
          j++;
          if (text[j] === '\n') continue;
        }
        word += text[j];
      }
      if (j >= text.length) return undefined;
      inWord = true;
      i = j;
    } else if (c === '\\') {
      if (i + 1 < text.length) {
        i++;
        if (text[i] === '\n') continue;
        word += text[i];
      }
      inWord = true;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Characters an argument may hold and still be shown unquoted (as git's sq_quote_argv_pretty leaves it). */
const PLAIN_ARGUMENT = /^[A-Za-z0-9_.,:@%+=/-]+$/;

/** One argument as a POSIX shell reads it back: unquoted when plain, else in single quotes (`'` as `'\''`). */
export function shellQuote(arg: string): string {
  return PLAIN_ARGUMENT.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * A git command's arguments as a user typed them where only git's arguments are asked for (`record --
 * …`, the Record command's box): a first word `git` is the command's name, typed from habit, not an
 * argument (`git git log` is no git command), so it is dropped.
 */
export function gitArgumentsTyped(words: readonly string[]): string[] {
  return words[0] === 'git' ? words.slice(1) : [...words];
}

/** `git log '--format=%H %s'`: the command for display, every argument recoverable from the line. */
export function gitCommandLine(args: readonly string[]): string {
  return ['git', ...args.map(shellQuote)].join(' ');
}

/**
 * git's arguments (without "git") from a command line as GIT_TRACE prints it (`trace: built-in: git
 * log '--format=%H %s'`: git quotes arguments that need it with single quotes, `'` as `'\''` and `!`
 * as `'\!'`). Undefined when the line does not start with git or its quoting is unbalanced. The result
 * is a reconstruction: what git printed, not what it was given (a raw trace has nothing better).
 */
export function argvOfTraceCommand(line: string): string[] | undefined {
  const words = splitShellWords(line);
  const first = words?.shift();
  if (words === undefined || first === undefined || !(first === 'git' || first.endsWith('/git'))) return undefined;
  return words.length === 0 ? undefined : words;
}
