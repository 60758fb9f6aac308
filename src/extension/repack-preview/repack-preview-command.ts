// Repack previews: what the `packscope.previewRepack` command does (palette and the Packs
// view's repository menu; the command table calls `run`), its presets and custom form, the run under a cancellable notification, the
// result panel (its serializer is the panel registry's), and what the tests read through `api.repackPreview`.
import { errorMessage } from '../../common/error-message.ts';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import vscode = require('vscode');
import type { RepackPreviewRequestSummary, RepackPreviewRun } from '../../protocol/repack-preview-protocol.ts';
import {
  GitCapabilitiesRequest,
  ListRepositoriesRequest,
  RepackModePreviewRequest,
  RepackModesRequest,
  RepackPreviewRequest,
  type GitCapabilities,
  type RepackMode,
  type RepackModePreviewDocument,
  type RepackModes,
  type RepackPreviewResult,
  type RepositoryListing,
  ObjectNamesRequest,
} from '../../protocol/server-protocol.ts';
import { splitShellWords, UNCLOSED_QUOTE } from '../../common/shell-words.ts';
import { normalizeRepackPreviewState } from '../../presentation/repack-preview-state.ts';
import { repackModeMarkdown } from '../../presentation/repack-mode-text.ts';
import { writeOrderEstimateText } from '../../presentation/repack-preview-tables.ts';
import { Disposable, type Lifetime } from '../dispose.ts';
import type { GitLocation } from '../git-locator.ts';
import { isCancellation } from '../model-progress.ts';
import { PanelRegistry } from '../panel-registry.ts';
import { type ServerClient } from '../server-client.ts';
import { WEBVIEW_PANELS } from '../webview-panels.ts';
import { RepackPreviewPanel } from './repack-preview-panel.ts';

/** Recordings the preview replays: the Recordings view's store (src/extension/recording/recording-store.ts). */
export interface RepackRecordingSource {
  list(): { file: string; mtimeMs: number; sidecar?: { repository?: string; source?: string } | undefined }[];
}

export interface RepackPreviewDependencies {
  /** The extension's lifetime: the serializer and the open panel are disposed with it. */
  lifetime: Lifetime;
  context: vscode.ExtensionContext;
  server: ServerClient;
  output: vscode.LogOutputChannel;
  gitLocation: Promise<GitLocation>;
  recordings: RepackRecordingSource;
  /** Holds of kept preview packs (src/extension/pack-map/preview-pack-holds.ts). */
  previewPacks: { hold(pack: string): vscode.Disposable };
}

export interface RepackPreviewApi {
  /** The last run that finished (its result is the server's packscope.repack-preview/1 document). */
  readonly lastRun: RepackPreviewRun | undefined;
  readonly lastResult: RepackPreviewResult | undefined;
  /** The panel of the last run (or the last one restored), while it is open. */
  readonly panel: RepackPreviewPanel | undefined;
  readonly onDidOpen: vscode.Event<RepackPreviewPanel>;
  /** What the command does, with the same argument. */
  run(argument?: unknown): Promise<RepackPreviewRun | undefined>;
}

/** Recordings replayed per preview at most (the newest): each is parsed and replayed twice. */
const MAX_RECORDINGS = 8;
/** pack.depth's maximum (git rejects deeper). */
const MAX_DEPTH = 4095;

/** What a preset or the custom form chooses: the request summary's fields but its label. */
type Tuning = Omit<RepackPreviewRequestSummary, 'label'>;

/**
 * Every repack preview runs git in the repository (pack-objects, repack, and the estimate's rev-list
 * and cat-file), and in Restricted Mode PackScope runs no git on the workspace's repositories.
 */
export const UNTRUSTED_REPACK_REFUSAL =
  'This workspace is not trusted: PackScope runs no git in it, and a repack preview runs git on the repository (trust the workspace to preview a repack).';

interface Preset {
  label: string;
  description: string;
  tuning: Omit<Tuning, 'threads'>;
  needs?: keyof Omit<GitCapabilities, 'version'>;
}

/**
 * git's own defaults (git 2.39 Documentation/config/pack.txt and gc.txt): pack.depth 50, pack.window 10;
 * plain `git gc` repacks with `-d -l -A` and reuses today's deltas; `git gc --aggressive` adds `-f
 * --depth=50 --window=250` (gc.aggressiveDepth, gc.aggressiveWindow). --name-hash-version came with
 * git 2.49.0, --path-walk (for pack-objects) with 2.51.0 (their release notes).
 */
const PRESETS: Preset[] = [
  {
    label: 'git gc defaults',
    description: "reuse today's deltas; pack.depth, pack.window (50 and 10 unless configured)",
    tuning: { reuseDeltas: true, extraOptions: [], estimateOnly: false },
  },
  {
    label: 'gc --aggressive',
    description: '-f --depth=50 --window=250',
    tuning: { depth: 50, window: 250, reuseDeltas: false, extraOptions: [], estimateOnly: false },
  },
  {
    label: '--depth=10 --window=10',
    description: '-f: shallow chains, a small window',
    tuning: { depth: 10, window: 10, reuseDeltas: false, extraOptions: [], estimateOnly: false },
  },
  {
    label: '--depth=50 --window=250',
    description: "-f: git's depth, a wide window",
    tuning: { depth: 50, window: 250, reuseDeltas: false, extraOptions: [], estimateOnly: false },
  },
  {
    label: '--depth=250 --window=250',
    description: '-f: deep chains, a wide window (slow)',
    tuning: { depth: 250, window: 250, reuseDeltas: false, extraOptions: [], estimateOnly: false },
  },
  {
    label: '--name-hash-version=2',
    description: '-f with the path-aware name hash',
    tuning: { reuseDeltas: false, extraOptions: ['--name-hash-version=2'], estimateOnly: false },
    needs: 'nameHashVersion',
  },
  {
    label: '--path-walk',
    description: '-f, delta bases found by walking paths',
    tuning: { reuseDeltas: false, extraOptions: ['--path-walk'], estimateOnly: false },
    needs: 'pathWalk',
  },
];

const MINIMUM_VERSION: Record<keyof Omit<GitCapabilities, 'version'>, string> = {
  nameHashVersion: '2.49',
  pathWalk: '2.51',
};

interface PresetItem extends vscode.QuickPickItem {
  tuning?: Omit<Tuning, 'threads'>;
  custom?: boolean;
  /** A repack of another mode (`--geometric=2`, `--cruft`): run for real against a shadow, packs before and after. */
  mode?: RepackMode;
}

/** `git repack` modes other than `-a -d`, offered where the installed git takes them (`git repack -h`). */
const MODE_PRESETS: {
  label: string;
  description: string;
  mode: RepackMode;
  needs: keyof RepackModes;
  minimum: string;
}[] = [
  {
    label: '--geometric=2',
    description: 'roll up small packs into a geometric progression: packs before and after',
    mode: { kind: 'geometric', factor: 2 },
    needs: 'geometric',
    minimum: '2.32',
  },
  {
    label: '--cruft',
    description: 'reachable objects in one pack, unreachable ones in a cruft pack: packs before and after',
    mode: { kind: 'cruft' },
    needs: 'cruft',
    minimum: '2.37',
  },
];

/** `packscope.repackPreview.threads`: 0 leaves it to git (pack.threads, else one per core). */
function threadsSetting(): number | undefined {
  const value = vscode.workspace.getConfiguration('packscope').get<unknown>('repackPreview.threads');
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

interface ProgrammaticArgument {
  repository: string;
  depth?: number;
  window?: number;
  threads?: number;
  reuseDeltas?: boolean;
  extraOptions?: string[];
  estimateOnly?: boolean;
  label?: string;
}

function countOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** `{ repository, depth?, window?, threads?, … }` (tests, scripts), a RepositoryNode of the Packs view, or nothing. */
function parseArgument(argument: unknown): {
  repository?: string;
  programmatic?: ProgrammaticArgument;
  mode?: RepackMode;
} {
  if (typeof argument !== 'object' || argument === null) return {};
  const listing = (argument as { listing?: { id?: unknown } }).listing;
  if (typeof listing?.id === 'string') return { repository: listing.id };
  const value = argument as Partial<ProgrammaticArgument> & { mode?: { kind?: unknown; factor?: unknown } };
  if (typeof value.repository !== 'string' || value.repository === '') return {};
  // `{ repository, mode: { kind: 'cruft' } }` or `{ kind: 'geometric', factor: 2 }`: a repack of that mode (the server checks the factor).
  if (value.mode?.kind === 'cruft') return { repository: value.repository, mode: { kind: 'cruft' } };
  if (value.mode?.kind === 'geometric' && typeof value.mode.factor === 'number')
    return { repository: value.repository, mode: { kind: 'geometric', factor: value.mode.factor } };
  const hasTuning = ['depth', 'window', 'threads', 'reuseDeltas', 'extraOptions', 'estimateOnly'].some(
    (key) => key in value,
  );
  if (!hasTuning) return { repository: value.repository };
  return {
    repository: value.repository,
    programmatic: {
      repository: value.repository,
      depth: countOrUndefined(value.depth),
      window: countOrUndefined(value.window),
      threads: countOrUndefined(value.threads),
      reuseDeltas: value.reuseDeltas === true,
      extraOptions: Array.isArray(value.extraOptions)
        ? value.extraOptions.filter((o): o is string => typeof o === 'string')
        : [],
      estimateOnly: value.estimateOnly === true,
      label: typeof value.label === 'string' ? value.label : undefined,
    },
  };
}

function labelOf(tuning: Tuning): string {
  const parts: string[] = [];
  if (tuning.estimateOnly) return 'Quick estimate';
  if (!tuning.reuseDeltas) parts.push('-f');
  if (tuning.depth !== undefined) parts.push(`--depth=${tuning.depth}`);
  if (tuning.window !== undefined) parts.push(`--window=${tuning.window}`);
  if (tuning.threads !== undefined) parts.push(`--threads=${tuning.threads}`);
  parts.push(...tuning.extraOptions);
  return parts.join(' ') || 'git gc defaults';
}

/** Registers the command's machinery on `deps.lifetime`: the panel serializer, the open panel, the API. */
export function registerRepackPreview(deps: RepackPreviewDependencies): RepackPreviewApi {
  return deps.lifetime.register(new RepackPreview(deps));
}

/** Repack previews: the run a command asks for, its panel while open, and the panels VS Code restores. */
class RepackPreview extends Disposable implements RepackPreviewApi {
  private lastRunValue: RepackPreviewRun | undefined;
  private readonly registry: PanelRegistry<RepackPreviewPanel>;
  readonly onDidOpen: vscode.Event<RepackPreviewPanel>;

  constructor(private readonly deps: RepackPreviewDependencies) {
    super();
    // After a reload VS Code recreates the panel with the webview's last setState: the run is shown
    // again as it was (nothing is re-run; a preview costs a pack-objects).
    this.registry = new PanelRegistry({
      lifetime: deps.lifetime,
      definition: WEBVIEW_PANELS.repackPreview,
      restore: (panel, state) => this.restore(panel, state),
    });
    this.onDidOpen = this.registry.onDidOpen;
  }

  get lastRun(): RepackPreviewRun | undefined {
    return this.lastRunValue;
  }

  get lastResult(): RepackPreviewResult | undefined {
    return this.lastRunValue?.result;
  }

  get panel(): RepackPreviewPanel | undefined {
    return this.registry.current;
  }

  async run(argument?: unknown): Promise<RepackPreviewRun | undefined> {
    // Refused before any question: every choice that follows would run git on the repository.
    if (!vscode.workspace.isTrusted) throw new Error(UNTRUSTED_REPACK_REFUSAL);
    const location = await this.deps.gitLocation;
    if (!location.found)
      throw new Error(`git was not found (${location.reason}); a repack preview runs git pack-objects.`);
    const git = location.path;
    const parsed = parseArgument(argument);
    const listing =
      parsed.repository !== undefined ? await this.listingOrOutside(parsed.repository) : await this.chooseRepository();
    if (listing === undefined) return undefined;
    if (parsed.mode !== undefined) {
      await this.executeMode(
        listing,
        parsed.mode,
        parsed.mode.kind === 'geometric' ? `--geometric=${parsed.mode.factor}` : '--cruft',
        git,
      );
      return undefined;
    }
    if (parsed.programmatic !== undefined) {
      const p = parsed.programmatic;
      const tuning: Tuning = {
        depth: p.depth,
        window: p.window,
        threads: p.threads ?? threadsSetting(),
        reuseDeltas: p.reuseDeltas ?? false,
        extraOptions: p.extraOptions ?? [],
        estimateOnly: p.estimateOnly ?? false,
      };
      return this.execute(listing, tuning, p.label ?? labelOf(tuning), git);
    }
    const picked = await this.chooseTuning(git, this.recordingsFor(listing).length);
    if (picked === undefined) return undefined;
    if ('mode' in picked) {
      await this.executeMode(listing, picked.mode, picked.label, git);
      return undefined;
    }
    const chosen = picked as Tuning & { label?: string };
    return this.execute(listing, chosen, chosen.label ?? labelOf(chosen), git);
  }

  private restore(panel: vscode.WebviewPanel, state: unknown): RepackPreviewPanel | undefined {
    const restored = normalizeRepackPreviewState(state).run;
    if (restored === null) return undefined;
    // The kept preview pack went with the server that held it (a reload restarts it).
    if (restored.result.previewPack) delete restored.result.previewPack;
    return this.adopt(panel, restored);
  }

  private adopt(panel: vscode.WebviewPanel, run: RepackPreviewRun): RepackPreviewPanel {
    const preview = new RepackPreviewPanel(
      panel,
      {
        extensionUri: this.deps.context.extensionUri,
        output: this.deps.output,
        holdPreviewPack: (pack) => this.deps.previewPacks.hold(pack),
        objectNames: async (repository, oids) =>
          (await this.deps.server.request(ObjectNamesRequest, { repository, oids })).names,
      },
      run,
    );
    return this.registry.adopt(preview);
  }

  private async chooseRepository(): Promise<RepositoryListing | undefined> {
    const { repositories } = await this.deps.server.request(ListRepositoriesRequest, {});
    const candidates = repositories.filter((r) => r.error === undefined);
    if (candidates.length === 0)
      throw new Error('No Git repository found in this workspace (see the packscope.repositories setting).');
    if (candidates.length === 1) return candidates[0];
    const picked = await vscode.window.showQuickPick(
      candidates.map((r) => ({
        label: `$(repo) ${r.name}`,
        description: r.workTree ?? r.gitDir,
        detail: `${r.packs.length} pack${r.packs.length === 1 ? '' : 's'}`,
        repository: r,
      })),
      {
        title: 'PackScope: Preview Repack — Repository',
        placeHolder: 'The repository to preview a repack of',
        ignoreFocusOut: true,
      },
    );
    return picked?.repository;
  }

  private async listingFor(id: string): Promise<RepositoryListing | undefined> {
    const { repositories } = await this.deps.server.request(ListRepositoriesRequest, {});
    const real = safeRealpath(id);
    return repositories.find(
      (r) =>
        r.id === id ||
        safeRealpath(r.id) === real ||
        safeRealpath(r.gitDir) === real ||
        (r.workTree !== undefined && safeRealpath(r.workTree) === real),
    );
  }

  /** The server's listing of `repository`, or one made up for a repository outside the workspace. */
  private async listingOrOutside(repository: string): Promise<RepositoryListing> {
    const listing = await this.listingFor(repository);
    if (listing !== undefined) return listing;
    if (!fs.existsSync(repository)) throw new Error(`${repository}: no such repository`);
    // A repository outside the workspace (a path given programmatically): the server discovers it.
    return {
      id: repository,
      name: repository.split(/[\\/]/).filter(Boolean).pop() ?? repository,
      gitDir: repository,
      objectFormat: 'sha1',
      packs: [],
    };
  }

  private async chooseTuning(
    git: string,
    recordings: number,
  ): Promise<Tuning | { mode: RepackMode; label: string } | undefined> {
    let capabilities: GitCapabilities;
    try {
      capabilities = await this.deps.server.request(GitCapabilitiesRequest, { git });
    } catch (error) {
      throw new Error(`git cannot be run (${git}): ${errorMessage(error)}`);
    }
    const chosen = await pickPreset(await this.presetItems(git, capabilities, recordings), capabilities.version);
    if (chosen === undefined) return undefined;
    if (chosen.mode !== undefined) return { mode: chosen.mode, label: chosen.label };
    const threads = threadsSetting();
    if (chosen.custom === true) return customTuning(threads);
    return { ...chosen.tuning!, threads, label: chosen.label } as Tuning & { label: string };
  }

  /**
   * The presets this git takes, the repack modes and "Custom…"; then the estimate, apart, as what it
   * is (a write order, not a repack); then what this git lacks. `recordings`: how many recordings
   * of this repository the estimate would replay, which decides whether it has anything to say.
   */
  private async presetItems(git: string, capabilities: GitCapabilities, recordings: number): Promise<PresetItem[]> {
    const items: PresetItem[] = [];
    const missing: string[] = [];
    for (const preset of PRESETS) {
      if (preset.needs !== undefined && !capabilities[preset.needs]) {
        missing.push(`${preset.label} needs git ${MINIMUM_VERSION[preset.needs]} or later`);
        continue;
      }
      items.push({ label: preset.label, description: preset.description, tuning: preset.tuning });
    }
    let modes: RepackModes = { geometric: false, cruft: false };
    try {
      modes = await this.deps.server.request(RepackModesRequest, { git });
    } catch (error) {
      this.deps.output.warn(`Repack preview: cannot tell which git repack modes ${git} takes: ${errorMessage(error)}`);
    }
    for (const preset of MODE_PRESETS) {
      if (modes[preset.needs]) items.push({ label: preset.label, description: preset.description, mode: preset.mode });
      else missing.push(`${preset.label} needs git ${preset.minimum} or later`);
    }
    items.push(
      { label: '$(edit) Custom…', description: 'depth, window, threads and more pack-objects options', custom: true },
      { label: 'Estimates', kind: vscode.QuickPickItemKind.Separator },
      {
        label: 'Write-order estimate (no repack)',
        ...writeOrderEstimateText(recordings),
        tuning: { reuseDeltas: true, extraOptions: [], estimateOnly: true },
      },
    );
    if (missing.length > 0)
      items.push(
        { label: '', kind: vscode.QuickPickItemKind.Separator },
        { label: `$(info) ${missing.join('; ')}; this git is ${capabilities.version}` },
      );
    return items;
  }

  private recordingsFor(listing: RepositoryListing): string[] {
    let stored: ReturnType<RepackRecordingSource['list']>;
    try {
      stored = this.deps.recordings.list();
    } catch (error) {
      this.deps.output.warn(`Repack preview: listing recordings failed: ${errorMessage(error)}`);
      return [];
    }
    const ids = new Set([listing.id, listing.gitDir].map(safeRealpath));
    // Recordings of a git command name their repository; terminal recordings may hold any (the server keeps those that read this one's packs).
    return stored
      .filter((r) =>
        r.sidecar?.repository !== undefined
          ? ids.has(safeRealpath(r.sidecar.repository))
          : r.sidecar?.source !== 'command',
      )
      .sort((a, b) => b.mtimeMs - a.mtimeMs)
      .slice(0, MAX_RECORDINGS)
      .map((r) => r.file);
  }

  /** A `-a -d` preview (or the estimate alone): the server's run under a notification, then its panel. */
  private async execute(
    listing: RepositoryListing,
    tuning: Tuning,
    label: string,
    git: string,
  ): Promise<RepackPreviewRun | undefined> {
    await this.deps.server.whenRunning();
    const recordings = this.recordingsFor(listing);
    const request: RepackPreviewRequestSummary = {
      label,
      depth: tuning.depth,
      window: tuning.window,
      threads: tuning.threads,
      reuseDeltas: tuning.reuseDeltas,
      extraOptions: tuning.extraOptions,
      estimateOnly: tuning.estimateOnly,
    };
    const started = performance.now();
    const result = await this.requestPreview(listing, tuning, label, git, recordings);
    if (result === undefined) return undefined;
    const run: RepackPreviewRun = {
      request,
      repositoryName: listing.name,
      repositoryId: listing.id,
      finishedAt: new Date().toISOString(),
      requestSeconds: Math.round(performance.now() - started) / 1000,
      result,
      currentPacks: listing.packs
        .filter((p) => p.error === undefined)
        .sort((a, b) => (b.packFileBytes ?? 0) - (a.packFileBytes ?? 0))
        .map((p) => p.pack),
    };
    this.lastRunValue = run;
    this.deps.output.info(
      `Repack preview of ${listing.name} (${label}): ${result.git?.join(' ') ?? 'estimate only'} in ${run.requestSeconds.toFixed(2)} s.`,
    );
    for (const warning of result.warnings ?? []) this.deps.output.warn(`Repack preview: ${warning}`);
    this.adopt(this.registry.createPanel(vscode.ViewColumn.Active), run);
    return run;
  }

  /** The server's preview under a cancellable notification with its progress; undefined when cancelled. */
  private async requestPreview(
    listing: RepositoryListing,
    tuning: Tuning,
    label: string,
    git: string,
    recordings: string[],
  ): Promise<RepackPreviewResult | undefined> {
    if (!vscode.workspace.isTrusted) throw new Error(UNTRUSTED_REPACK_REFUSAL);
    const title = tuning.estimateOnly
      ? `Estimating a repack of ${listing.name}`
      : `Previewing a repack of ${listing.name} (${label})`;
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title, cancellable: true },
        async (progress, token) => {
          const workDoneToken = `packscope-repack-${randomUUID()}`;
          const subscription = this.deps.server.onWorkDoneProgress(workDoneToken, (value) => {
            if (value.kind !== 'end' && value.message) progress.report({ message: value.message });
          });
          try {
            return await this.deps.server.request(
              RepackPreviewRequest,
              {
                repository: listing.id,
                depth: tuning.depth,
                window: tuning.window,
                threads: tuning.threads,
                reuseDeltas: tuning.reuseDeltas,
                extraOptions: tuning.extraOptions,
                git,
                recordings,
                estimate: true,
                estimateOnly: tuning.estimateOnly,
                // Kept for the Pack Map's before/after while the panel shows the run (a workspace repository's only: the map reads those).
                keepPack: !tuning.estimateOnly && listing.packs.length > 0,
                workDoneToken,
              },
              token,
            );
          } finally {
            subscription.dispose();
          }
        },
      );
    } catch (error) {
      if (isCancellation(error)) {
        this.deps.output.info(
          `Repack preview of ${listing.name} cancelled: git stopped, its temporary directory removed.`,
        );
        vscode.window.setStatusBarMessage('Repack preview cancelled: git stopped, nothing left behind.', 5000);
        return undefined;
      }
      throw error;
    }
  }

  /** A `--geometric=2` / `--cruft` preview: the server runs that repack against a shadow; the packs before and after open as Markdown. */
  private async executeMode(listing: RepositoryListing, mode: RepackMode, label: string, git: string): Promise<void> {
    if (!vscode.workspace.isTrusted) throw new Error(UNTRUSTED_REPACK_REFUSAL);
    await this.deps.server.whenRunning();
    let document: RepackModePreviewDocument;
    try {
      document = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Previewing git repack ${label} -d on ${listing.name}`,
          cancellable: true,
        },
        (_progress, token) =>
          this.deps.server.request(RepackModePreviewRequest, { repository: listing.id, mode, git }, token),
      );
    } catch (error) {
      if (isCancellation(error)) {
        vscode.window.setStatusBarMessage('Repack preview cancelled: git stopped, nothing left behind.', 5000);
        return;
      }
      throw error;
    }
    this.deps.output.info(
      `Repack preview of ${listing.name} (${label}): ${document.before.packs.length} packs before, ${document.after.packs.length} after, in ${document.seconds.toFixed(2)} s.`,
    );
    const shown = await vscode.workspace.openTextDocument({
      language: 'markdown',
      content: repackModeMarkdown(document, listing.name),
    });
    await vscode.window.showTextDocument(shown, { preview: true });
  }
}

/** The preset quick pick; resolves to the item accepted (not the info line), or undefined when hidden. */
async function pickPreset(items: PresetItem[], version: string): Promise<PresetItem | undefined> {
  const quickPick = vscode.window.createQuickPick<PresetItem>();
  quickPick.title = 'PackScope: Preview Repack';
  quickPick.placeholder = `What git repack would do, without touching the repository (git ${version})`;
  quickPick.ignoreFocusOut = true;
  quickPick.matchOnDescription = true;
  quickPick.items = items;
  const chosen = await new Promise<PresetItem | undefined>((resolve) => {
    quickPick.onDidAccept(() => {
      const item = quickPick.selectedItems[0];
      if (item !== undefined && item.tuning === undefined && item.custom !== true && item.mode === undefined) return; // the info line
      resolve(item);
    });
    quickPick.onDidHide(() => resolve(undefined));
    quickPick.show();
  });
  quickPick.dispose();
  return chosen;
}

function safeRealpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** "Custom…": depth, window, threads and extra options, each validated as it is typed. */
async function customTuning(defaultThreads: number | undefined): Promise<(Tuning & { label: string }) | undefined> {
  const count = (name: string, max: number) => (value: string) => {
    const trimmed = value.trim();
    if (trimmed === '') return undefined;
    if (!/^\d+$/.test(trimmed) || Number(trimmed) > max)
      return `${name} is a whole number from 0 to ${max}, or empty for git's default`;
    return undefined;
  };
  const ask = async (
    title: string,
    prompt: string,
    placeHolder: string,
    validate: (value: string) => string | undefined,
    value = '',
  ): Promise<string | undefined> =>
    vscode.window.showInputBox({
      title: `PackScope: Preview Repack — ${title}`,
      prompt,
      placeHolder,
      value,
      ignoreFocusOut: true,
      validateInput: validate,
    });
  const depth = await ask(
    'Depth (1/4)',
    '--depth: the longest delta chain pack-objects may build',
    "empty: git's pack.depth (default 50)",
    count('--depth', MAX_DEPTH),
  );
  if (depth === undefined) return undefined;
  const window = await ask(
    'Window (2/4)',
    '--window: how many objects each object is compared with',
    "empty: git's pack.window (default 10)",
    count('--window', 100_000),
  );
  if (window === undefined) return undefined;
  const threads = await ask(
    'Threads (3/4)',
    '--threads: delta search threads (1 makes the result reproducible)',
    "empty: git's pack.threads (default: one per core)",
    count('--threads', 1024),
    defaultThreads === undefined ? '' : String(defaultThreads),
  );
  if (threads === undefined) return undefined;
  const extra = await ask(
    'More options (4/4)',
    'More pack-objects options, e.g. --window-memory=1g --no-reuse-object (with -f unless you add --reuse-delta)',
    'empty: none',
    (value) => {
      const words = splitShellWords(value);
      if (words === undefined) return UNCLOSED_QUOTE;
      const bad = words.find((w) => !/^--?[A-Za-z0-9][A-Za-z0-9-]*(=\S*)?$/.test(w));
      return bad === undefined ? undefined : `"${bad}" is not an option (options look like --name or --name=value)`;
    },
  );
  if (extra === undefined) return undefined;
  const options = splitShellWords(extra) ?? [];
  const reuseDeltas = options.includes('--reuse-delta');
  const tuning: Tuning = {
    depth: depth.trim() === '' ? undefined : Number(depth),
    window: window.trim() === '' ? undefined : Number(window),
    threads: threads.trim() === '' ? undefined : Number(threads),
    reuseDeltas,
    extraOptions: options.filter((o) => o !== '--reuse-delta'),
    estimateOnly: false,
  };
  return { ...tuning, label: labelOf(tuning) };
}
