import vscode = require('vscode');
import { DEFAULT_SERVER_SETTINGS, type ServerSettings } from '../protocol/server-protocol.ts';

/** Settings the extension host itself reads (the server gets `ServerSettings`). */
export interface ViewSettings {
  pageSize: number;
  hoverEnabled: boolean;
  terminalLinksEnabled: boolean;
  maxContentBytes: number;
  maxInstructions: number;
}

const SECTION = 'packscope';

/** The keys whose change must reach the server through `packscope/configure`. */
const SERVER_KEYS = ['repositories', 'scanDepth', 'modelCacheDirectory', 'persistModels', 'hover.indexLimit'];

/** The server's settings; `git` is the git the extension located (not a packscope setting a workspace could set). */
export function readServerSettings(git: string): ServerSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    repositories: stringArray(config.get<unknown>('repositories'), DEFAULT_SERVER_SETTINGS.repositories),
    scanDepth: integer(config.get<unknown>('scanDepth'), DEFAULT_SERVER_SETTINGS.scanDepth, 0, 4),
    modelCacheDirectory: text(config.get<unknown>('modelCacheDirectory'), DEFAULT_SERVER_SETTINGS.modelCacheDirectory),
    persistModels: flag(config.get<unknown>('persistModels'), DEFAULT_SERVER_SETTINGS.persistModels),
    hoverIndexLimit: integer(
      config.get<unknown>('hover.indexLimit'),
      DEFAULT_SERVER_SETTINGS.hoverIndexLimit,
      0,
      Number.MAX_SAFE_INTEGER,
    ),
    git,
    workspaceTrusted: vscode.workspace.isTrusted,
  };
}

export function readViewSettings(): ViewSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    pageSize: integer(config.get<unknown>('view.pageSize'), 200, 10, 5000),
    hoverEnabled: flag(config.get<unknown>('hover.enabled'), true),
    terminalLinksEnabled: flag(config.get<unknown>('terminalLinks.enabled'), true),
    maxContentBytes: integer(
      config.get<unknown>('objectDocument.maxContentBytes'),
      1_048_576,
      1024,
      Number.MAX_SAFE_INTEGER,
    ),
    maxInstructions: integer(config.get<unknown>('objectDocument.maxInstructions'), 2000, 10, Number.MAX_SAFE_INTEGER),
  };
}

export function affectsServerSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return SERVER_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}

export function affectsViewSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(`${SECTION}.view.pageSize`);
}

// Settings come from user-edited JSON: a wrong type falls back to the default instead of reaching the server.
function integer(value: unknown, fallback: number, min: number, max: number): number {
  return typeof value === 'number' && Number.isFinite(value)
    ? Math.min(max, Math.max(min, Math.trunc(value)))
    : fallback;
}

function flag(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function stringArray(value: unknown, fallback: string[]): string[] {
  return Array.isArray(value)
    ? value.filter((entry): entry is string => typeof entry === 'string' && entry !== '')
    : [...fallback];
}
