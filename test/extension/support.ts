// Shared by the extension-host suites (bundled into each; not a suite itself: not *.test.ts).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import vscode = require('vscode');
import type { PackScopeApi } from '../../src/extension/extension.ts';
import { AllowReadRequest, ListRepositoriesRequest } from '../../src/protocol/server-protocol.ts';

/** git isolated from the user's and system's config, with a fixed identity. */
export const gitEnv: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'PackScope Test',
  GIT_AUTHOR_EMAIL: 'test@packscope.invalid',
  GIT_COMMITTER_NAME: 'PackScope Test',
  GIT_COMMITTER_EMAIL: 'test@packscope.invalid',
};

/** Runs git in `cwd` with `env` and returns its stdout; throws with git's stderr on failure. */
export function runGit(cwd: string, args: string[], env: NodeJS.ProcessEnv = gitEnv): string {
  return execFileSync('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  });
}

/** Runs git in `cwd` (isolated environment) and returns its stdout. */
export function git(cwd: string, ...args: string[]): string {
  return runGit(cwd, args);
}

/**
 * `git init` in `dir`, then `commits` commits: before commit c (1-based) `write(c)` changes the work
 * tree; the commit is dated `dateOf(c)` (author and committer), so that every run builds the same
 * objects.
 */
export function commitHistory(
  dir: string,
  commits: number,
  dateOf: (c: number) => string,
  write: (c: number) => void,
): void {
  git(dir, 'init', '-q', '-b', 'main');
  for (let c = 1; c <= commits; c++) {
    write(c);
    git(dir, 'add', '-A');
    const date = dateOf(c);
    runGit(dir, ['commit', '-q', '-m', `commit ${c}`], { ...gitEnv, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
  }
}

/** The installed extension, activated: its API and its folder (where dist/cli.js is). */
export async function activatePackScope(): Promise<{ api: PackScopeApi; extensionPath: string }> {
  const extension = vscode.extensions.getExtension<PackScopeApi>('packscope.packscope');
  assert.ok(extension, 'the PackScope extension is not installed');
  return { api: await extension.activate(), extensionPath: extension.extensionPath };
}

/** Runs the extension's own CLI bundle (dist/cli.js) with `env`; returns its stdout. */
export function packscopeCli(extensionPath: string, env: NodeJS.ProcessEnv): (...args: string[]) => string {
  const cliPath = path.join(extensionPath, 'dist', 'cli.js');
  return (...args) =>
    execFileSync(process.execPath, [cliPath, ...args], {
      encoding: 'utf8',
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    });
}

/** Polls `probe` every 200 ms until it returns a value; fails after `timeoutMs` with the last error. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Adds `repo` to the packscope.repositories setting and waits until the server lists it with its
 * packs; returns what puts the setting back.
 */
export async function addRepositoryToServer(
  api: PackScopeApi,
  repo: string,
  timeoutMs = 60_000,
): Promise<() => Promise<void>> {
  const config = vscode.workspace.getConfiguration('packscope');
  const previous = config.inspect<string[]>('repositories')?.globalValue;
  await config.update('repositories', [...(previous ?? []), repo], vscode.ConfigurationTarget.Global);
  const gitDir = fs.realpathSync(path.join(repo, '.git'));
  await until(
    `the server to list ${repo}`,
    async () => {
      const { repositories } = await api.server.request(ListRepositoriesRequest, {});
      return repositories.some((r) => fs.realpathSync(r.gitDir) === gitDir && r.packs.length > 0) || undefined;
    },
    timeoutMs,
  );
  return () =>
    Promise.resolve(
      vscode.workspace
        .getConfiguration('packscope')
        .update('repositories', previous, vscode.ConfigurationTarget.Global),
    );
}

/**
 * What the server may read of a file outside its storage and the workspace: the user picked it
 * (README "Trust and safety"). Tests that send a recording request themselves, as a client, say so first.
 */
export async function pickedByUser(api: PackScopeApi, file: string): Promise<void> {
  await api.server.request(AllowReadRequest, { file });
}
