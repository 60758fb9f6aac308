import { GitCommandError } from '../errors.ts';
import { probeGit } from './run-git.ts';

/** `git --version` without the "git version " prefix; a GitCommandError when git cannot run. */
export async function gitVersionOf(git: string): Promise<string> {
  const result = await probeGit(git, ['--version']);
  if (result.status !== 0) {
    const text = result.stderr.trim();
    throw new GitCommandError([git, '--version'], result.status, text, `cannot run git (${git}): ${text}`);
  }
  return result.stdout.trim().replace(/^git version /, '');
}

/** `git pack-objects -h` of each git and version: an upgraded git is probed again. */
const usageByVersion = new Map<string, string>();

async function packObjectsUsage(git: string, version: string): Promise<string> {
  const key = `${git}\0${version}`;
  let usage = usageByVersion.get(key);
  if (usage === undefined) {
    // A lone -h skips repository setup (git.c): no repository needed, nothing written; exit status 129.
    const result = await probeGit(git, ['pack-objects', '-h']);
    usage = `${result.stdout}\n${result.stderr}`;
    usageByVersion.set(key, usage);
  }
  return usage;
}

/**
 * Whether `git pack-objects` of this git takes `--<option>` (e.g. `name-hash-version`, `path-walk`):
 * listed in its usage as `--name`, `--[no-]name` or `--name=…`. The usage lists every non-hidden
 * option of the installed git; it is read once per git and version (`version` saves a probe when
 * the caller knows it).
 */
export async function gitSupports(git: string, option: string, version?: string): Promise<boolean> {
  const usage = await packObjectsUsage(git, version ?? (await gitVersionOf(git)));
  const name = option.replace(/^--/, '').replace(/=.*$/, '').replace(/^no-/, '');
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[\\s,])--(\\[no-\\])?${escaped}([\\s=\\[<]|$)`, 'm').test(usage);
}
