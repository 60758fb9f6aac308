import { runGitCapture } from './run-git.ts';

/**
 * A repository's configuration as git itself resolves it, from `git config --list -z`: the system,
 * global and repository files, `include.path` and `includeIf` files, and `config.worktree` when
 * `extensions.worktreeConfig` is on. Keys as git prints them (section and name lower-cased, the
 * subsection as written); the last value of a key wins, as for a single-valued key in git.
 */
export async function readEffectiveConfig(
  git: string,
  gitDir: string,
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const stdout = await runGitCapture(git, [`--git-dir=${gitDir}`, 'config', '--list', '-z'], { signal });
  const config = new Map<string, string>();
  // -z: each entry is `key\nvalue\0`, or `key\0` for a key without a value (a boolean true).
  for (const entry of stdout.toString('utf8').split('\0')) {
    if (entry === '') continue;
    const newline = entry.indexOf('\n');
    if (newline < 0) config.set(entry, 'true');
    else config.set(entry.slice(0, newline), entry.slice(newline + 1));
  }
  return config;
}
