// README "Trust and safety": the server runs one git, the one its client configured (ServerSettings.git,
// the git the extension located), never an executable a request names. A request's `git` is only
// a check that client and server agree.
import * as path from 'node:path';
import type { ServerSettings } from '../protocol/server-protocol.ts';
import { invalid } from './request-params.ts';

const GIT_FILE_NAMES = new Set(['git', 'git.exe']);

/** The git to run for a request: the configured one; a request naming another, or a configured program not named git, is refused. */
export function trustedGit(requested: unknown, configured: string): string {
  const git = configured === '' ? 'git' : configured;
  if (!GIT_FILE_NAMES.has(path.basename(git.replaceAll('\\', '/')).toLowerCase())) {
    throw invalid(
      `the configured git (${JSON.stringify(git)}) is not named git or git.exe; the server runs no other program`,
    );
  }
  if (requested !== undefined && requested !== '' && requested !== git) {
    throw invalid(
      `the server runs only the git it was configured with (${JSON.stringify(git)}), not ${JSON.stringify(requested)}`,
    );
  }
  return git;
}

/** Every argument a string: git's argv, as a request must give it. */
export function checkGitArguments(args: unknown): string[] {
  if (!Array.isArray(args) || args.length === 0) throw invalid('no git arguments given');
  if (!args.every((arg): arg is string => typeof arg === 'string'))
    throw invalid('every git argument must be a string');
  return args;
}

/**
 * The git to run on a workspace repository for `what`: none in an untrusted workspace (a repository's
 * configuration is the workspace's, and Restricted Mode runs nothing), else trustedGit's.
 */
export function gitForWorkspace(requested: unknown, settings: ServerSettings, what: string): string {
  if (!settings.workspaceTrusted)
    throw invalid(
      `This workspace is not trusted: PackScope runs no git in it, so no ${what} (trust the workspace first).`,
    );
  return trustedGit(requested, settings.git);
}
