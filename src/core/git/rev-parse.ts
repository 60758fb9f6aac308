import { fail } from '../errors.ts';
import { gitMessage, runGit } from './run-git.ts';

/**
 * An object named the way git names one (`HEAD:Makefile`, `v2.40.0^{tree}`, `main~3`, `:/fix`),
 * resolved by `git rev-parse --verify`, which only reads the repository. Its words are kept when it
 * refuses, after a sentence of ours that says what was asked.
 */
export async function resolveRevision(
  git: string,
  repository: { gitDir: string; workTree: string | undefined },
  name: string,
  signal?: AbortSignal,
): Promise<string> {
  // git would take it for an option of its own (rev-parse has many that print, none that name an object).
  if (name.startsWith('-'))
    throw fail('usage', undefined, undefined, `"${name}" is no object name (names do not start with "-")`);
  // A path relative to the work tree (`HEAD:./src`) is relative to its top, as from there.
  const options = { cwd: repository.workTree ?? repository.gitDir, signal };
  const verified = await runGit(git, [`--git-dir=${repository.gitDir}`, 'rev-parse', '--verify', name], options);
  const answer = verified.stdout.toString('utf8').trim();
  if (verified.status === 0 && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(answer)) return answer;
  // --verify only says "Needed a single revision": asked without it, git says what is wrong
  // ("path 'nope' does not exist in 'HEAD'"), or names several objects (a range).
  const explained = await runGit(git, [`--git-dir=${repository.gitDir}`, 'rev-parse', name], options);
  const why =
    explained.status === 0
      ? `git rev-parse gives "${explained.stdout.toString('utf8').trim().split('\n').join(' ')}", not one object id`
      : `git rev-parse says: ${gitMessage(explained.stderr.split('\n').filter(Boolean))}`;
  throw fail('not-found', undefined, undefined, `"${name}" names no object of ${repository.gitDir} (${why})`);
}
