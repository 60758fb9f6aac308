/**
 * What keeps a git that PackScope runs from running any other program or reaching the network,
 * whatever the repository's configuration says. A repository is hostile (docs/security.md): its
 * `.git/config`, its `config.worktree`, the files it includes and its `.gitattributes` can each name a
 * command that git runs while it only reads (the fsmonitor hook when it reads the index, a textconv
 * when `log -p` shows a blob, a promisor remote's upload-pack when an object is missing).
 *
 * The table was drawn from git-config(1) of git 2.39 (`git help config`): every key whose value git
 * runs, or that decides which programs, hooks or transports git uses. Each row says what neutralises
 * it and how: a configuration override given as GIT_CONFIG_COUNT/KEY/VALUE (the command-line scope,
 * which git reads after the system, global, repository and included files, so it wins over all of
 * them; git 2.31 and later, and inherited by every git that git starts), an environment variable, or,
 * for keys named per driver (`diff.<driver>.textconv`), an override of each such key that the
 * repository's configuration holds. Rows marked `refused` name keys that only subcommands PackScope
 * never runs would reach; Measure for real refuses those subcommands (src/common/measured-command.ts).
 * test/core/no-programs.test.ts builds a repository for each row whose configuration names a program
 * leaving a marker file, and checks that the marker never appears.
 */

export type NoProgramRule =
  | { kind: 'config'; key: string; value: string; why: string }
  | { kind: 'environment'; name: string; value: string; why: string }
  | { kind: 'per-name'; pattern: RegExp; shape: string; value: string; why: string }
  | { kind: 'refused'; shape: string; why: string };

export const NO_PROGRAM_RULES: readonly NoProgramRule[] = [
  {
    kind: 'config',
    key: 'core.fsmonitor',
    value: 'false',
    why: 'a hook git runs whenever it reads the index (pack-objects and rev-list --indexed-objects, diff, grep, status)',
  },
  {
    kind: 'config',
    key: 'core.hooksPath',
    value: '/dev/null',
    why: 'hooks (post-index-change, reference-transaction, pre-auto-gc) are then looked for below a path that holds nothing',
  },
  {
    kind: 'config',
    key: 'protocol.allow',
    value: 'never',
    why: 'no transport at all: a lazy fetch of a promisor remote fails before it starts remote.<name>.uploadpack, core.sshCommand, core.gitProxy, an ext:: command or a connection through http.proxy',
  },
  {
    kind: 'config',
    key: 'credential.helper',
    value: '',
    why: 'the empty value empties the list of helpers (git-config(1)); nothing reaches a transport anyway',
  },
  {
    kind: 'config',
    key: 'core.askPass',
    value: '',
    why: 'a program git asks for a password; empty, git asks the terminal, which GIT_TERMINAL_PROMPT=0 refuses',
  },
  {
    kind: 'config',
    key: 'core.alternateRefsCommand',
    value: '',
    why: 'a command that lists an alternate’s references; empty, git fails to start it instead of running one',
  },
  {
    kind: 'config',
    key: 'diff.external',
    value: '',
    why: 'an external diff program for diff, log -p and show; empty, git uses its own',
  },
  {
    kind: 'config',
    key: 'gpg.program',
    value: '',
    why: 'run to check signatures (log --show-signature, the %G placeholders); empty, git cannot start it',
  },
  { kind: 'config', key: 'gpg.ssh.program', value: '', why: 'gpg.program for SSH signatures' },
  { kind: 'config', key: 'gpg.x509.program', value: '', why: 'gpg.program for X.509 signatures' },
  {
    kind: 'config',
    key: 'gpg.ssh.defaultKeyCommand',
    value: '',
    why: 'a command that names the signing key; empty, none runs',
  },
  {
    kind: 'config',
    key: 'log.showSignature',
    value: 'false',
    why: 'would make every log and show run gpg.program',
  },
  {
    kind: 'config',
    key: 'gc.auto',
    value: '0',
    why: 'no automatic gc, which rewrites the repository and runs hooks',
  },
  {
    kind: 'config',
    key: 'maintenance.auto',
    value: 'false',
    why: 'no automatic maintenance, likewise',
  },
  {
    kind: 'environment',
    name: 'GIT_OPTIONAL_LOCKS',
    value: '0',
    why: 'reading never rewrites the index (diff and status otherwise refresh it, which fires post-index-change)',
  },
  {
    kind: 'environment',
    name: 'GIT_NO_LAZY_FETCH',
    value: '1',
    why: 'a missing object of a partial clone stays missing (git 2.39.4 and later; protocol.allow=never stops older ones)',
  },
  {
    kind: 'environment',
    name: 'GIT_PAGER',
    value: 'cat',
    why: 'core.pager and pager.<command>: git runs no pager when it is cat, and the environment wins over both',
  },
  {
    kind: 'environment',
    name: 'GIT_EDITOR',
    value: ':',
    why: 'core.editor: git runs no editor when it is ":" (and the environment wins over the configuration)',
  },
  { kind: 'environment', name: 'GIT_SEQUENCE_EDITOR', value: ':', why: 'sequence.editor, likewise' },
  {
    kind: 'environment',
    name: 'GIT_ASKPASS',
    value: '',
    why: 'an inherited askpass program; empty is ignored, and git falls back to the terminal',
  },
  { kind: 'environment', name: 'SSH_ASKPASS', value: '', why: 'likewise, the last askpass git tries' },
  {
    kind: 'environment',
    name: 'GIT_TERMINAL_PROMPT',
    value: '0',
    why: 'no prompt on the terminal either: a question for credentials fails',
  },
  {
    kind: 'per-name',
    pattern: /^diff\..+\.textconv$/,
    shape: 'diff.<driver>.textconv',
    value: '',
    why: 'a program log -p, show and diff run on each blob of the driver’s paths; empty, git cannot start it',
  },
  {
    kind: 'per-name',
    pattern: /^diff\..+\.command$/,
    shape: 'diff.<driver>.command',
    value: '',
    why: 'an external diff for the driver’s paths; empty, git cannot start it',
  },
  {
    kind: 'per-name',
    pattern: /^filter\..+\.(clean|smudge|process)$/,
    shape: 'filter.<driver>.clean, .smudge, .process',
    value: '',
    why: 'a program run on file contents (diff against the work tree, cat-file --filters, archive); empty, git applies no filter',
  },
  {
    kind: 'refused',
    shape: 'alias.*',
    why: 'an alias runs only when the subcommand is not a built-in; Measure runs only listed built-ins',
  },
  {
    kind: 'refused',
    shape: 'merge.<driver>.driver, mergetool.*, difftool.*, interactive.diffFilter',
    why: 'only merges, mergetool, difftool and add -p run them',
  },
  {
    kind: 'refused',
    shape: 'sendemail.*, browser.*, web.browser, man.*, guitool.*, trailer.*.command',
    why: 'only send-email, help, instaweb, citool and interpret-trailers run them',
  },
  {
    kind: 'refused',
    shape: 'uploadpack.packObjectsHook, remote.<name>.receivepack, receive.procReceiveRefs',
    why: 'only upload-pack and receive-pack run them (and protocol.allow=never starts neither)',
  },
];

/** The configuration overrides of the table, for the keys (of `git config --list`) of one repository. */
export function noProgramConfig(configuredKeys: Iterable<string> = []): [string, string][] {
  const overrides: [string, string][] = [];
  for (const rule of NO_PROGRAM_RULES) if (rule.kind === 'config') overrides.push([rule.key, rule.value]);
  for (const key of configuredKeys) {
    for (const rule of NO_PROGRAM_RULES)
      if (rule.kind === 'per-name' && rule.pattern.test(key)) overrides.push([key, rule.value]);
  }
  return overrides;
}

/**
 * `env` with the table applied: its environment variables, and its configuration after any
 * GIT_CONFIG_COUNT entries `env` already holds (the later entry of a key wins in git).
 */
export function withoutPrograms(env: NodeJS.ProcessEnv, configuredKeys: Iterable<string> = []): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...env };
  for (const rule of NO_PROGRAM_RULES) if (rule.kind === 'environment') result[rule.name] = rule.value;
  const given = Number(env.GIT_CONFIG_COUNT ?? '0');
  let count = Number.isSafeInteger(given) && given > 0 ? given : 0;
  for (const [key, value] of noProgramConfig(configuredKeys)) {
    result[`GIT_CONFIG_KEY_${count}`] = key;
    result[`GIT_CONFIG_VALUE_${count}`] = value;
    count++;
  }
  result.GIT_CONFIG_COUNT = String(count);
  return result;
}
