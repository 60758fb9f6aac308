/**
 * Which git commands Measure for real may re-run: only commands that read the object store, with
 * no option that writes a file, runs a program, or moves git to another repository or configuration.
 * The command comes from a recording or a trace, files PackScope treats as hostile (docs/security.md),
 * so the check is an allow-list: a subcommand not listed, or an option listed as refused, is refused
 * with a sentence that names it. The extension checks it before its dialog and the server again
 * before it runs anything. Pure, so both sides (and the tests) call the same function.
 *
 * The lists were checked against the documentation of git 2.39 (git(1), git-config(1), and each
 * subcommand's page) for options that write (`--output`), start a program (`--ext-diff`,
 * `--open-files-in-pager`, `archive --exec`), reach another repository (`archive --remote`) or read
 * outside the repository (`--no-index`). What a repository's own configuration could still make
 * these commands run (a textconv, a filter) the runner neutralises (src/core/git/no-programs.ts).
 */

/** git's global options (git(1)) that Measure keeps: they change neither the repository nor its configuration. */
const GLOBAL_OPTIONS = new Set([
  '--no-pager',
  '--no-replace-objects',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-optional-locks',
]);

/** Global options refused by name, and why (anything else before the subcommand is refused too). */
const REFUSED_GLOBALS: [RegExp, string][] = [
  [/^(-C|--git-dir|--work-tree|--namespace|--bare|--super-prefix)(=|$)/, 'it moves git to another repository'],
  [/^(--exec-path)(=|$)/, 'it chooses where git finds its own programs'],
  [/^(--config-env)(=|$)/, 'it takes configuration from an environment variable that the dialog cannot show'],
  [/^(-p|--paginate)$/, 'it starts a pager'],
];

/**
 * `-c` keys Measure accepts (lower case): those that tune how git reads packs and prints what it
 * read. Every other key is refused, among them all that name a program (core.pager, alias.*,
 * core.fsmonitor, diff.<driver>.textconv) and include.path, which names a file of configuration.
 */
const CONFIG_KEYS =
  /^(core\.(deltabasecachelimit|packedgitlimit|packedgitwindowsize|bigfilethreshold|abbrev|quotepath)|pack\.(window|depth|windowmemory|threads|deltacachesize|deltacachelimit)|diff\.(renames|renamelimit|algorithm|context|interhunkcontext|indentheuristic|suppressblankempty|mnemonicprefix|noprefix)|color\.(ui|diff|grep|blame)|log\.(date|decorate|abbrevcommit|follow|showroot)|blame\.(date|coloring|showemail|blankboundary|showroot)|grep\.(linenumber|patterntype|extendedregexp|fullname|column|threads))$/;

/**
 * A refused option: its long name (an abbreviation of it is refused too, as git's option parser
 * accepts one: `git archive --outp=FILE` writes FILE) and its short form (also refused with its value
 * attached, `-oFILE`, or bundled, `-nO`).
 */
interface RefusedOption {
  long: string;
  short?: string;
  why: string;
}

/** Options of the diff family (git-diff(1), "OPTIONS") that write a file, run a program or read outside the repository. */
const DIFF_REFUSED: RefusedOption[] = [
  { long: '--output', why: 'it writes a file' },
  { long: '--ext-diff', why: 'it runs an external diff program' },
  { long: '--textconv', why: 'it runs text conversion programs' },
  { long: '--no-index', why: 'it reads files outside the repository' },
];

/** Subcommands that only read, each with the options of its own page that are refused. */
const SUBCOMMANDS: ReadonlyMap<string, RefusedOption[]> = new Map([
  ['log', DIFF_REFUSED],
  ['whatchanged', DIFF_REFUSED],
  ['show', DIFF_REFUSED],
  ['diff', DIFF_REFUSED],
  ['diff-tree', DIFF_REFUSED],
  ['diff-files', DIFF_REFUSED],
  ['diff-index', DIFF_REFUSED],
  ['shortlog', DIFF_REFUSED],
  ['blame', DIFF_REFUSED],
  ['annotate', DIFF_REFUSED],
  ['rev-list', []],
  ['rev-parse', []],
  ['cat-file', [{ long: '--textconv', why: 'it runs text conversion programs' }]],
  [
    'grep',
    [
      { long: '--open-files-in-pager', short: '-O', why: 'it opens the matching files in a program' },
      { long: '--no-index', why: 'it reads files outside the repository' },
      { long: '--textconv', why: 'it runs text conversion programs' },
    ],
  ],
  [
    'archive',
    [
      { long: '--output', short: '-o', why: 'it writes a file' },
      { long: '--remote', why: 'it reaches another repository' },
      { long: '--exec', why: 'it runs a program on the remote side' },
      { long: '--add-file', why: 'it reads a file outside the repository' },
    ],
  ],
  ['ls-tree', []],
  ['ls-files', []],
  ['for-each-ref', []],
  ['show-ref', []],
  ['count-objects', []],
  ['merge-base', []],
  ['name-rev', []],
  [
    'describe',
    [
      { long: '--dirty', why: 'it refreshes the index' },
      { long: '--broken', why: 'it refreshes the index' },
    ],
  ],
  ['verify-pack', []],
  ['show-index', []],
]);

/** The refused option `arg` is, if any. */
function refusedOption(arg: string, refused: readonly RefusedOption[]): RefusedOption | undefined {
  const name = arg.split('=', 1)[0]!;
  return refused.find(
    (option) =>
      (name.startsWith('--') && name.length > 3 && option.long.startsWith(name)) ||
      // A short option may come bundled with others (`-nO`) or with its value attached (`-oFILE`).
      (option.short !== undefined && /^-[^-]/.test(arg) && arg.slice(1).includes(option.short.slice(1))),
  );
}

/** Why Measure for real would not run `git <args>`, naming the refused part; undefined when it may run. */
export function measuredCommandRefusal(args: readonly string[]): string | undefined {
  const refuse = (part: string, why: string): string =>
    `Measure for real re-runs only git commands that read; it refuses ${JSON.stringify(part)}: ${why}.`;
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index]!;
    if (!arg.startsWith('-')) break;
    if (arg === '-c') {
      const setting = args[index + 1];
      if (setting === undefined) return refuse(arg, 'it names no setting');
      const key = setting.split('=', 1)[0]!.toLowerCase();
      if (!CONFIG_KEYS.test(key))
        return refuse(`-c ${setting}`, `${key} is not among the settings that only tune reading and printing`);
      index++;
      continue;
    }
    if (GLOBAL_OPTIONS.has(arg)) continue;
    const named = REFUSED_GLOBALS.find(([pattern]) => pattern.test(arg));
    return refuse(arg, named ? named[1] : 'it is not among the global options that change nothing but output');
  }
  const subcommand = args[index];
  if (subcommand === undefined) return 'Measure for real needs a git command to run; the recording names none.';
  const refused = SUBCOMMANDS.get(subcommand);
  if (refused === undefined)
    return refuse(
      subcommand,
      'it is not one of the subcommands that only read the object store (log, rev-list, show, diff, diff-tree, blame, cat-file, grep, archive, ls-tree, …)',
    );
  for (const arg of args.slice(index + 1)) {
    if (arg === '--') break;
    const option = refusedOption(arg, refused);
    if (option) return refuse(`${subcommand} ${arg}`, option.why);
  }
  return undefined;
}
