import { spawnSync } from 'node:child_process';
import { PackFormatError } from '../errors.ts';

/** git failed, is missing, or refused an option: carries git's own stderr (ARCHITECTURE "Safety": one clear message). */
export class GitCommandError extends PackFormatError {
  constructor(
    readonly argv: string[],
    readonly exitStatus: number | null,
    readonly gitStderr: string,
    summary: string,
  ) {
    super('io', undefined, undefined, summary);
  }
}

/** The inherited environment without any GIT_* variable: git then finds only what the command line names. */
export function cleanGitEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) if (!key.startsWith('GIT_')) env[key] = value;
  return env;
}

/** `git --version` without the "git version " prefix; a GitCommandError when git cannot run. */
export function gitVersionOf(git: string): string {
  const result = spawnSync(git, ['--version'], { encoding: 'utf8', env: cleanGitEnvironment() });
  if (result.error || result.status !== 0) {
    const text = result.error?.message ?? result.stderr.trim();
    throw new GitCommandError([git, '--version'], result.status, text, `cannot run git (${git}): ${text}`);
  }
  return result.stdout.trim().replace(/^git version /, '');
}

const optionLists = new Map<string, string>();

/**
 * Whether `git pack-objects` of this git takes `--<option>` (e.g. `name-hash-version`, `path-walk`).
 * The probe is `git pack-objects -h`: git.c skips repository setup for a lone `-h`, so it needs no
 * repository, writes nothing, and lists every non-hidden option of the installed git.
 */
export function gitSupports(git: string, option: string): boolean {
  let usage = optionLists.get(git);
  if (usage === undefined) {
    const result = spawnSync(git, ['pack-objects', '-h'], { encoding: 'utf8', env: cleanGitEnvironment() });
    if (result.error) throw new GitCommandError([git, 'pack-objects', '-h'], null, result.error.message, `cannot run git (${git}): ${result.error.message}`);
    usage = `${result.stdout}\n${result.stderr}`;
    optionLists.set(git, usage);
  }
  const name = option.replace(/^--/, '').replace(/=.*$/, '').replace(/^no-/, '');
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[\\s,])--(\\[no-\\])?${escaped}([\\s=\\[]|$)`, 'm').test(usage);
}
