import { execFile } from 'node:child_process';
import vscode = require('vscode');

export type GitLocation =
  | { found: true; path: string; version: string; source: 'git extension' | 'git.path setting' | 'PATH' }
  | { found: false; reason: string };

/** The part of the Git extension's API (`vscode.git`, API version 1) that is read here. */
interface GitExtensionExports {
  getAPI(version: 1): { git: { path: string } };
}

/**
 * Finds the git VS Code's Git extension uses, without activating that extension: its API when it is
 * already active, else the `git.path` setting, else `git` on PATH. Reading packs never needs git;
 * the answer only tells the user whether the commands that run git will work.
 */
export async function locateGit(): Promise<GitLocation> {
  const fromExtension = gitPathFromActiveExtension();
  if (fromExtension !== undefined) {
    const version = await gitVersion(fromExtension);
    if (version !== undefined) return { found: true, path: fromExtension, version, source: 'git extension' };
  }
  const tried: string[] = [];
  for (const candidate of gitPathSetting()) {
    tried.push(candidate);
    const version = await gitVersion(candidate);
    if (version !== undefined) return { found: true, path: candidate, version, source: 'git.path setting' };
  }
  const version = await gitVersion('git');
  if (version !== undefined) return { found: true, path: 'git', version, source: 'PATH' };
  tried.push('git on PATH');
  return { found: false, reason: `tried ${tried.join(', ')}` };
}

function gitPathFromActiveExtension(): string | undefined {
  const extension = vscode.extensions.getExtension<GitExtensionExports>('vscode.git');
  if (extension === undefined || !extension.isActive) return undefined;
  try {
    const path = extension.exports.getAPI(1).git.path;
    return typeof path === 'string' && path !== '' ? path : undefined;
  } catch {
    // The Git extension is disabled by the user (`git.enabled: false`): its API throws.
    return undefined;
  }
}

/** `git.path` may be one path or a list of paths (VS Code tries them in order). */
function gitPathSetting(): string[] {
  const value = vscode.workspace.getConfiguration('git').get<unknown>('path');
  if (typeof value === 'string' && value !== '') return [value];
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string' && entry !== '');
  return [];
}

function gitVersion(gitPath: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(gitPath, ['--version'], { timeout: 10_000, windowsHide: true }, (error, stdout) => {
      resolve(error === null ? stdout.trim() : undefined);
    });
  });
}
