// The Cache Lab: what the `packscope.openCacheLab` command does (the command table calls
// `open`), the panel's serializer (so the panel comes back after a reload), and what the tests read
// through `api.cacheLab`.
import { errorMessage } from '../../common/error-message.ts';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import vscode = require('vscode');
import { defaultCacheLabState, type CacheLabState, type RecordingChoice } from '../../protocol/cache-lab-protocol.ts';
import { PoliciesRequest, type SweepResult } from '../../protocol/server-protocol.ts';
import { normalizeCacheLabState } from '../../presentation/cache-lab-state.ts';
import type { Lifetime } from '../dispose.ts';
import type { GitLocation } from '../git-locator.ts';
import { PanelRegistry } from '../panel-registry.ts';
import { type ServerClient } from '../server-client.ts';
import { WEBVIEW_PANELS } from '../webview-panels.ts';
import { CacheLabPanel, type MeasureOutcome } from './cache-lab-panel.ts';

/** Recordings the pickers offer (the Recordings view's store), and when that list changes. */
export interface RecordingSource {
  list(): RecordingChoice[];
  onDidChange?: vscode.Event<void>;
}

export interface CacheLabDependencies {
  /** The extension's lifetime: the serializer and the open panel are disposed with it. */
  lifetime: Lifetime;
  context: vscode.ExtensionContext;
  server: ServerClient;
  output: vscode.LogOutputChannel;
  gitLocation: Promise<GitLocation>;
  recordings: RecordingSource;
  /** Told each finished sweep (the Recordings view shows the last one per recording). */
  onSweep?(file: string, segment: number | null | undefined, result: SweepResult): void;
}

export interface CacheLabApi {
  /** The open panel, if any (one at a time). */
  readonly panel: CacheLabPanel | undefined;
  /** Fires when a panel is created or restored. */
  readonly onDidOpen: vscode.Event<CacheLabPanel>;
  /** What `packscope.openCacheLab` does, with the same argument. */
  open(target?: unknown): Promise<CacheLabPanel | undefined>;
  /**
   * Measure for real on a panel's recording, as its button does; for the extension tests, which
   * pass `confirmed: true` to skip the modal confirmation (the only way to skip it).
   */
  measure(
    panel: CacheLabPanel,
    options: { limits?: number[]; runs?: number; confirmed?: boolean; keptHeap?: boolean },
  ): Promise<MeasureOutcome>;
}

/** `{ file, segment?, tab? }` from the Recordings view (tab `simulation` or `sweep`, or `locality`), or a path. */
interface OpenTarget {
  file: string;
  segment?: number;
  tab?: CacheLabState['tab'];
}

function openTarget(value: unknown): OpenTarget | undefined {
  if (typeof value === 'string' && value !== '') return { file: value };
  if (value instanceof vscode.Uri && value.scheme === 'file') return { file: value.fsPath };
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { file?: unknown; segment?: unknown; tab?: unknown };
  if (typeof v.file !== 'string' || v.file === '') return undefined;
  const segment = typeof v.segment === 'number' && Number.isInteger(v.segment) && v.segment > 0 ? v.segment : undefined;
  const tab = v.tab === 'locality' ? 'locality' : v.tab === 'sweep' || v.tab === 'simulation' ? 'sweep' : undefined;
  return { file: v.file, segment, tab };
}

/** Where `packscope record` keeps recordings when given no -o (README: `~/.cache/packscope/recordings/`). */
function cliRecordingsDirectory(): string {
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'packscope', 'recordings');
}

const RECORDING_FILE = /\.(recording|psrec|trace)$/;

/** The CLI's recordings (file names and times only: nothing is parsed here). */
function cliRecordings(): RecordingChoice[] {
  const directory = cliRecordingsDirectory();
  let names: string[];
  try {
    names = fs.readdirSync(directory);
  } catch {
    return [];
  }
  return names
    .filter((name) => RECORDING_FILE.test(name))
    .flatMap((name) => {
      const file = path.join(directory, name);
      try {
        const stat = fs.statSync(file);
        return stat.isFile()
          ? [
              {
                file,
                label: name,
                description: `packscope record, ${new Date(stat.mtimeMs).toLocaleString()}`,
                mtimeMs: stat.mtimeMs,
              },
            ]
          : [];
      } catch {
        return [];
      }
    })
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .map(({ file, label, description }) => ({ file, label, description }));
}

export function registerCacheLab(deps: CacheLabDependencies): CacheLabApi {
  const listRecordings = (): RecordingChoice[] => recordingChoices(deps);
  const offeredPolicies = (): Promise<string[]> => policiesOffered(deps);
  const adopt = (
    panel: vscode.WebviewPanel,
    state: CacheLabState,
    availablePolicies: readonly string[],
    autoRun: boolean,
  ): CacheLabPanel => {
    const lab = new CacheLabPanel(
      panel,
      {
        extensionUri: deps.context.extensionUri,
        server: deps.server,
        output: deps.output,
        gitLocation: deps.gitLocation,
        listRecordings,
        chooseRecordingFile,
        availablePolicies,
        ...(deps.onSweep ? { onSweep: deps.onSweep } : {}),
      },
      state,
      autoRun,
    );
    return registry.adopt(lab);
  };

  // After a reload VS Code recreates the panel and hands back the webview's last setState; the
  // sweep is replayed from it (cheap, and never Measure, which only the user's button starts).
  const registry: PanelRegistry<CacheLabPanel> = new PanelRegistry({
    lifetime: deps.lifetime,
    definition: WEBVIEW_PANELS.cacheLab,
    restore: async (panel, state) => {
      registry.current?.dispose();
      const availablePolicies = await offeredPolicies();
      return adopt(panel, normalizeCacheLabState(state, availablePolicies), availablePolicies, true);
    },
  });

  const open = async (argument?: unknown): Promise<CacheLabPanel | undefined> => {
    const target = openTarget(argument) ?? (await pickRecording(listRecordings(), chooseRecordingFile));
    if (target === undefined) return undefined;
    const current = registry.current;
    if (current !== undefined) {
      current.openRecording(target.file, target.segment, target.tab);
      return current;
    }
    const availablePolicies = await offeredPolicies();
    const state: CacheLabState = {
      ...defaultCacheLabState(availablePolicies),
      recording: target.file,
      segment: target.segment ?? null,
      tab: target.tab ?? 'sweep',
    };
    return adopt(registry.createPanel(vscode.ViewColumn.Active), state, availablePolicies, true);
  };

  if (deps.recordings.onDidChange !== undefined)
    deps.lifetime.register(deps.recordings.onDidChange(() => registry.current?.refreshRecordings()));

  return {
    get panel() {
      return registry.current;
    },
    onDidOpen: registry.onDidOpen,
    open,
    measure: (panel, options) => panel.measure(options),
  };
}

function safeList(deps: CacheLabDependencies): RecordingChoice[] {
  try {
    return deps.recordings.list();
  } catch (error) {
    deps.output.warn(`Cache Lab: listing recordings failed: ${errorMessage(error)}`);
    return [];
  }
}

interface RecordingPickItem extends vscode.QuickPickItem {
  file?: string;
  browse?: boolean;
}

/**
 * The recordings the extension knows, "Choose a file…", and whatever absolute path is typed (so a
 * recording anywhere can be opened from the palette without the file dialog).
 */
async function pickRecording(
  recordings: RecordingChoice[],
  chooseFile: () => Promise<string | undefined>,
): Promise<OpenTarget | undefined> {
  const quickPick = vscode.window.createQuickPick<RecordingPickItem>();
  quickPick.title = 'PackScope: Open Cache Lab';
  quickPick.placeholder =
    recordings.length > 0
      ? 'A recording, or type the path of a recording or GIT_TRACE_PACK_ACCESS file'
      : 'Type the path of a recording or GIT_TRACE_PACK_ACCESS file, or choose one';
  quickPick.ignoreFocusOut = true;
  quickPick.matchOnDescription = true;
  const fixed: RecordingPickItem[] = [
    ...recordings.map((r) => ({ label: r.label, description: r.description, detail: r.file, file: r.file })),
    { label: '$(folder-opened) Choose a file…', browse: true, alwaysShow: true },
  ];
  quickPick.items = fixed;
  const typedPath = (value: string): string | undefined => {
    const trimmed = value.trim();
    if (trimmed.startsWith('~/')) return path.join(os.homedir(), trimmed.slice(2));
    return path.isAbsolute(trimmed) ? trimmed : undefined;
  };
  quickPick.onDidChangeValue((value) => {
    const file = typedPath(value);
    quickPick.items =
      file === undefined
        ? fixed
        : [
            {
              label: `$(file) ${file}`,
              description: fs.existsSync(file) ? 'open this file' : 'no such file yet',
              file,
              alwaysShow: true,
            },
            ...fixed,
          ];
  });
  const chosen = await new Promise<RecordingPickItem | undefined>((resolve) => {
    quickPick.onDidAccept(() => resolve(quickPick.selectedItems[0]));
    quickPick.onDidHide(() => resolve(undefined));
    quickPick.show();
  });
  quickPick.dispose();
  if (chosen === undefined) return undefined;
  if (chosen.browse === true) {
    const file = await chooseFile();
    return file === undefined ? undefined : { file };
  }
  return chosen.file === undefined ? undefined : { file: chosen.file };
}

/** The part of the Recordings view's store (src/extension/recording/recording-store.ts) the Cache Lab lists. */
interface StoredRecordingList {
  list(): {
    file: string;
    mtimeMs: number;
    name: string;
    sidecar?: { label?: string; args?: string[]; source?: string } | undefined;
  }[];
  onDidChange: vscode.Event<void>;
}

/** The Recordings view's recordings as picker choices: its name for each, the git command, the time. */
export function recordingSourceFromStore(store: StoredRecordingList): RecordingSource {
  return {
    list: () =>
      store.list().map(({ file, mtimeMs, name, sidecar }) => {
        const what =
          sidecar?.args !== undefined
            ? `git ${sidecar.args.join(' ')}`
            : sidecar?.source === 'terminal'
              ? 'terminal recording'
              : 'recording';
        // The store's one name for it (recordingName), as the Recordings view shows it.
        return { file, label: name, description: `${what}, ${new Date(mtimeMs).toLocaleString()}` };
      }),
    onDidChange: store.onDidChange,
  };
}

/** Every recording the pickers offer, each file once: the Recordings view's, then the CLI's. */
function recordingChoices(deps: CacheLabDependencies): RecordingChoice[] {
  const seen = new Set<string>();
  const all: RecordingChoice[] = [];
  for (const choice of [...safeList(deps), ...cliRecordings()]) {
    if (seen.has(choice.file)) continue;
    seen.add(choice.file);
    all.push(choice);
  }
  return all;
}

/** A recording or trace file chosen in the file dialog. */
async function chooseRecordingFile(): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: 'PackScope: Choose a Recording',
    canSelectFiles: true,
    canSelectFolders: false,
    canSelectMany: false,
    openLabel: 'Open in Cache Lab',
    filters: { 'Recordings and traces': ['recording', 'psrec', 'trace', 'log', 'txt'], 'All files': ['*'] },
  });
  return picked?.[0]?.fsPath;
}

/** The policies the server's table offers to the Cache Lab; none when the server cannot say. */
async function policiesOffered(deps: CacheLabDependencies): Promise<string[]> {
  try {
    const { policies } = await deps.server.request(PoliciesRequest, {});
    return policies.flatMap((policy) => (policy.cacheLab === undefined ? [] : [policy.cacheLab]));
  } catch (error) {
    deps.output.error(`Cache Lab: ${PoliciesRequest.method} failed: ${errorMessage(error)}`);
    return [];
  }
}
