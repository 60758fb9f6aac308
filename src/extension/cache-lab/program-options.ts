// git options that make git run another program (README, "Trust and safety"). Measure for real runs the
// command a recording or a trace names; a file can name `-c alias.l=!sh -c … l`, `-c core.pager=…`,
// `--upload-pack=…`. Each such option is named to the user, who must allow it by name (git-config(1),
// git(1) OPTIONS; the keys below are those whose value git runs as a command or that change which
// programs, configuration or transports it trusts). Pure, so the extension tests check it directly.

export interface ProgramOption {
  /** The argument(s) as given: `-c alias.l=!touch x`, `--upload-pack=x`. */
  option: string;
  /** Why it runs a program, in a few words. */
  why: string;
}

/** Configuration keys (lower case; `*` a subsection or name) whose value git runs or that widen what it runs. */
const PROGRAM_KEYS: [RegExp, string][] = [
  [/^alias\./, 'an alias ("!" runs a shell command)'],
  [/^core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand)$/, 'a command git runs'],
  [
    /^(pager|difftool|mergetool|man|browser|filter|merge|diff|gpg|ssh|hook|trailer|sendemail|credential|protocol|url|include|includeif|submodule|safe|remote)\./,
    'a command, hook, helper, transport or included configuration',
  ],
  [
    /^(sequence\.editor|web\.browser|interactive\.difffilter|uploadpack\.packobjectshook|uploadarchive\.allowunreachable)$/,
    'a command git runs',
  ],
];

/** Options after the subcommand whose value is a program to run (git-fetch(1), git-clone(1), git-push(1), git-rebase(1), git-difftool(1)). */
const SUBCOMMAND_PROGRAM_OPTIONS = /^(--upload-pack|--receive-pack|--exec|--extcmd|--tool)(=|$)/;

/** Subcommands whose job is to run commands they are given. */
const COMMAND_RUNNERS = new Set([
  'bisect',
  'filter-branch',
  'submodule',
  'difftool',
  'mergetool',
  'rebase',
  'daemon',
  'instaweb',
  'web--browse',
  'credential',
  'send-email',
  'archimport',
  'cvsimport',
  'svn',
  'p4',
  'upload-pack',
  'receive-pack',
  'shell',
]);

/** git's global options that take their value as the next argument (git(1)). */
const GLOBAL_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--attr-source',
]);

/** Every option in git's argv (without "git") that makes git run another program, in order. */
export function programOptions(args: readonly string[]): ProgramOption[] {
  const found: ProgramOption[] = [];
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index]!;
    if (!arg.startsWith('-') || arg === '--') break;
    const joined = /^(--[a-z-]+)=(.*)$/s.exec(arg);
    const name = joined ? joined[1]! : arg;
    const takesNext = joined === null && GLOBAL_WITH_VALUE.has(name);
    const value = joined ? joined[2]! : takesNext ? (args[index + 1] ?? '') : undefined;
    const shown = takesNext ? `${arg} ${value}` : arg;
    if (takesNext) index++;
    if (name === '-c') {
      const key = (value ?? '').split('=', 1)[0]!.toLowerCase();
      const rule = PROGRAM_KEYS.find(([pattern]) => pattern.test(key));
      if (rule) found.push({ option: shown, why: rule[1] });
    } else if (name === '--config-env') {
      found.push({ option: shown, why: 'configuration from an environment variable the dialog cannot show' });
    } else if (name === '--exec-path' && value !== undefined) {
      found.push({ option: shown, why: 'where git finds its own programs' });
    }
  }
  const subcommand = args[index];
  if (subcommand !== undefined && COMMAND_RUNNERS.has(subcommand))
    found.push({ option: subcommand, why: 'a git command that runs commands it is given' });
  for (const arg of args.slice(index + 1)) {
    if (arg === '--') break;
    if (SUBCOMMAND_PROGRAM_OPTIONS.test(arg)) found.push({ option: arg, why: 'a program git runs' });
  }
  if ((subcommand === 'clone' || subcommand === 'ls-remote') && args.slice(index + 1).includes('-u'))
    found.push({ option: '-u', why: 'the upload-pack program git runs' });
  return found;
}
