// "Record a git command…": repository, then git's arguments (presets or custom), then the server's
// RecordRequest with a cancellable notification. The recording is written into the extension's
// storage by the server; the extension adds a sidecar and the Recordings view shows it.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import vscode = require('vscode');
import {
  ListRepositoriesRequest,
  RecordRequest,
  TrackedFilesRequest,
  type RecordingInfo,
  type RepositoryListing,
} from '../../protocol/server-protocol.ts';
import { formatLimit } from '../../common/format.ts';
import { limitListItems, parseGitSize } from '../../common/git-size.ts';
import { gitArgumentsTyped, splitShellWords, UNCLOSED_QUOTE } from '../../common/shell-words.ts';
import { logPreset, type RepositorySize } from '../../presentation/record-presets.ts';
import type { GitLocation } from '../git-locator.ts';
import { isCancellation } from '../model-progress.ts';
import type { ServerClient, WorkDoneValue } from '../server-client.ts';
import { SIDECAR_VERSION, writeSidecar } from '../recording-sidecar.ts';
import type { RecordingStore } from './recording-store.ts';
import type { RecordingSettings } from './recording-settings.ts';

/** `packscope.recordCommand`'s optional argument (tests and other commands skip the questions with it). */
export interface RecordCommandArgs {
  /** A repository id (git directory) as ListRepositoriesRequest gives it, or a path inside one. */
  repository?: string;
  /** git's arguments, without "git". */
  args?: string[];
  /**
   * Exact mode: limits (bytes) to run the command again at, for a recording exact there (git-internals
   * §8.1). Asked for when `args` is not given; none when it is and this is not.
   */
  complete?: number[];
}

export interface RecordCommandResult {
  file: string;
  info: RecordingInfo;
}

interface Dependencies {
  server: ServerClient;
  store: RecordingStore;
  settings: () => RecordingSettings;
  gitLocation: Promise<GitLocation>;
}

export async function recordGitCommand(
  deps: Dependencies,
  request: RecordCommandArgs = {},
): Promise<RecordCommandResult | undefined> {
  const repository = await chooseRepository(deps.server, request.repository);
  if (repository === undefined) return undefined;
  const args = request.args ?? (await chooseArguments(deps.server, repository, deps.gitLocation));
  if (args === undefined || args.length === 0) return undefined;
  const location = await deps.gitLocation;
  if (!location.found) throw new Error(`git was not found (${location.reason}); set git.path to record a command.`);
  const { mode } = deps.settings();
  const complete =
    request.complete ?? (request.args === undefined && mode === 'exact' ? await chooseCompleteness(args) : []);
  if (complete === undefined) return undefined;
  deps.store.ensureDirectory();
  const output = deps.store.commandFile(args);
  const cwd = repository.workTree ?? repository.gitDir;
  const commandText = `git ${args.join(' ')}`;
  const startedAt = new Date().toISOString();
  await deps.server.whenRunning();
  const workDoneToken = `packscope-record-${randomUUID()}`;

  const info = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Recording ${commandText} in ${repository.name} (${mode}${complete.length > 0 ? `, complete at ${complete.map(formatLimit).join(', ')}: runs ${1 + complete.length} times` : ''})`,
      cancellable: true,
    },
    async (progress, token) => {
      const subscription = deps.server.onWorkDoneProgress(workDoneToken, (value: WorkDoneValue) => {
        if (value.kind !== 'end' && value.message !== undefined) progress.report({ message: value.message });
      });
      try {
        return await deps.server.request(
          RecordRequest,
          { cwd, args, output, mode, git: location.path, workDoneToken, ...(complete.length > 0 ? { complete } : {}) },
          token,
        );
      } catch (error) {
        if (token.isCancellationRequested || isCancellation(error)) return undefined;
        throw error;
      } finally {
        subscription.dispose();
      }
    },
  );
  if (info === undefined) {
    fs.rmSync(output, { force: true });
    vscode.window.setStatusBarMessage(`PackScope: recording of ${commandText} cancelled`, 4000);
    return undefined;
  }
  writeSidecar(output, {
    version: SIDECAR_VERSION,
    source: 'command',
    mode,
    recordedLimit: info.recordedLimit,
    startedAt,
    endedAt: new Date().toISOString(),
    repository: repository.id,
    args,
    ...(info.completeAt !== null ? { completeAt: info.completeAt } : {}),
  });
  deps.store.changed();
  const status = info.exitStatus !== null && info.exitStatus !== 0 ? ` (git exited with ${info.exitStatus})` : '';
  vscode.window.setStatusBarMessage(`PackScope: recorded ${info.reads} reads of ${commandText}${status}`, 5000);
  return { file: output, info };
}

interface CompletenessPick extends vscode.QuickPickItem {
  limits?: number[];
  custom?: true;
}

/**
 * Once, or complete at some limits (git-internals §8.1): a limit-0 trace cannot show reads that hit
 * the one base a limit-0 cache keeps, so replays elsewhere are exact or bounded; running the command
 * again at a limit finds those reads and makes the replay exact there. Says what it costs.
 * undefined: the question was dismissed.
 */
async function chooseCompleteness(args: string[]): Promise<number[] | undefined> {
  const commandText = `git ${args.join(' ')}`;
  const usual = [64 << 10, 1 << 20];
  const picks: CompletenessPick[] = [
    {
      label: 'Record once',
      description: `runs ${commandText} once`,
      detail: 'Exact at limit 0; elsewhere each count is exact or a min–max that contains what git does.',
      limits: [],
    },
    {
      label: `Complete at ${usual.map(formatLimit).join(' and ')}`,
      description: `runs it ${1 + usual.length} times`,
      detail:
        'Also runs the command at those limits to find the reads the first trace hides: exact there, tighter bounds elsewhere.',
      limits: usual,
    },
    {
      label: 'Complete at limits…',
      description: 'runs it 1 + N times',
      detail: 'Choose the limits (for example 16k,64k,1m).',
      custom: true,
    },
  ];
  const picked = await vscode.window.showQuickPick(picks, {
    title: 'PackScope: Record a Git Command: how exact?',
    placeHolder: 'A recording at limit 0 cannot see some reads; extra runs find them',
    ignoreFocusOut: true,
  });
  if (picked === undefined) return undefined;
  if (!picked.custom) return picked.limits;
  const text = await vscode.window.showInputBox({
    title: 'PackScope: Complete the Recording at…',
    prompt: 'core.deltaBaseCacheLimit values, comma-separated; the command runs once more for each',
    placeHolder: '64k,1m,16m',
    ignoreFocusOut: true,
    validateInput: (value) =>
      parseCompleteLimits(value) === undefined
        ? 'Sizes above 0 in bytes or with k, m, g (at most 8), comma-separated.'
        : undefined,
  });
  return text === undefined ? undefined : parseCompleteLimits(text);
}

function parseCompleteLimits(text: string): number[] | undefined {
  const items = limitListItems(text);
  const limits = items.map(parseGitSize);
  if (items.length === 0 || items.length > 8 || limits.some((limit) => limit === undefined || limit <= 0))
    return undefined;
  return [...new Set(limits as number[])];
}

async function chooseRepository(
  server: ServerClient,
  wanted: string | undefined,
): Promise<RepositoryListing | undefined> {
  const repositories = (await server.request(ListRepositoriesRequest, {})).repositories;
  if (wanted !== undefined) {
    const real = realpath(wanted);
    const found =
      repositories.find((r) =>
        [r.id, r.gitDir, r.workTree].some((p) => p !== undefined && (p === wanted || realpath(p) === real)),
      ) ?? repositories.find((r) => r.workTree !== undefined && real.startsWith(realpath(r.workTree) + path.sep));
    if (found === undefined)
      throw new Error(`${wanted} is not one of the repositories PackScope reads (see packscope.repositories).`);
    return found;
  }
  if (repositories.length === 0) throw new Error('No repository with packs was found in this workspace.');
  if (repositories.length === 1) return repositories[0];
  const picked = await vscode.window.showQuickPick(
    repositories.map((repository) => ({
      label: repository.name,
      description: repository.workTree ?? repository.gitDir,
      repository,
    })),
    {
      title: 'PackScope: Record a Git Command (1/2)',
      placeHolder: 'The repository to run git in',
      ignoreFocusOut: true,
    },
  );
  return picked?.repository;
}

interface ArgumentPick extends vscode.QuickPickItem {
  args?: string[];
  special?: 'blame' | 'custom';
}

async function chooseArguments(
  server: ServerClient,
  repository: RepositoryListing,
  gitLocation: Promise<GitLocation>,
): Promise<string[] | undefined> {
  // Bounded by -n on a big repository (record-presets.ts), chosen from what its packs hold.
  const size = repositorySize(repository);
  const presets: ArgumentPick[] = [
    logPreset('raw', size),
    logPreset('patch', size),
    { label: 'git blame <file>…', detail: "Blame one file (the active editor's, or one you pick)", special: 'blame' },
    {
      label: 'git rev-list --objects --all',
      detail: 'Walks every reachable object (what a clone or repack counts)',
      args: ['rev-list', '--objects', '--all'],
    },
    { label: 'Custom…', detail: 'Any git arguments', special: 'custom' },
  ];
  const picked = await vscode.window.showQuickPick(presets, {
    title: `PackScope: Record a Git Command in ${repository.name}`,
    placeHolder: 'The git command to record',
    ignoreFocusOut: true,
  });
  if (picked === undefined) return undefined;
  if (picked.args !== undefined) return picked.args;
  if (picked.special === 'blame') {
    const file = await chooseFile(server, repository, gitLocation);
    return file === undefined ? undefined : ['blame', '--', file];
  }
  const text = await vscode.window.showInputBox({
    title: 'PackScope: Record a Git Command',
    prompt: `git's arguments (run in ${repository.workTree ?? repository.gitDir})`,
    placeHolder: 'log -p -n 100 -- src/',
    ignoreFocusOut: true,
    validateInput: (value) => {
      const words = splitShellWords(value);
      if (words === undefined) return UNCLOSED_QUOTE;
      return gitArgumentsTyped(words).length === 0 ? 'Type the arguments of a git command.' : undefined;
    },
  });
  return text === undefined ? undefined : gitArgumentsTyped(splitShellWords(text) ?? []);
}

/** The objects of the repository's packs, and its commits when every pack's summary is there. */
function repositorySize(repository: RepositoryListing): RepositorySize {
  let objects = 0;
  let commits: number | undefined = 0;
  for (const pack of repository.packs) {
    objects += pack.objects ?? 0;
    commits = pack.summary === undefined || commits === undefined ? undefined : commits + pack.summary.byType.commit;
  }
  return { objects, commits };
}

/** The active editor's file when it is in the repository's work tree, else a pick from `git ls-files`. */
async function chooseFile(
  server: ServerClient,
  repository: RepositoryListing,
  gitLocation: Promise<GitLocation>,
): Promise<string | undefined> {
  const workTree = repository.workTree;
  if (workTree === undefined) throw new Error(`${repository.name} has no work tree to blame a file in.`);
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active?.scheme === 'file') {
    const relative = path.relative(realpath(workTree), realpath(active.fsPath));
    if (relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative))
      return relative.split(path.sep).join('/');
  }
  const location = await gitLocation;
  // The server runs ls-files, through the runner that keeps the repository's configuration (its
  // fsmonitor hook, read with the index) from running anything.
  const files = location.found
    ? await server
        .request(TrackedFilesRequest, { repository: repository.id, git: location.path })
        .then((result) => result.files)
        .catch(() => [])
    : [];
  return vscode.window.showQuickPick(files, {
    title: 'PackScope: Blame Which File?',
    placeHolder: 'A file of the repository',
    ignoreFocusOut: true,
  });
}

function realpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}
