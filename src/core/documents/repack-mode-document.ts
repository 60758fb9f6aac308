/**
 * The shape of `packscope repack-preview --geometric=N | --cruft --json`
 * ("packscope.repack-mode-preview/1", docs/json.md): the packs before and after a real `git repack`
 * of that mode, run against a shadow of the repository's objects directory. Shapes only.
 */
import type { PackKind, PackMarker } from './repository-layout-document.ts';

export type RepackMode = { kind: 'geometric'; factor: number } | { kind: 'cruft' };

export interface RepackModePack {
  /** `pack-<checksum>.pack`. */
  name: string;
  objects: number;
  /** Size of the .pack file. */
  packBytes: number;
  kind: PackKind;
  markers: PackMarker[];
}

export interface RepackModeSide {
  packs: RepackModePack[];
  /** Loose objects of the repository's own objects directory. */
  looseObjects: number;
}

export interface RepackModePreviewDocument {
  schema: 'packscope.repack-mode-preview/1';
  repository: string;
  gitVersion: string;
  mode: RepackMode;
  /** The exact argv git ran with (the temporary objects directory is in `gitEnvironment`). */
  gitArgs: string[];
  gitEnvironment: Record<string, string>;
  /** The `git repack` command the preview stands for. */
  equivalent: string[];
  seconds: number;
  before: RepackModeSide;
  after: RepackModeSide;
  /** Packs of `before` that the repack deletes (rolled up, or made redundant by the new ones). */
  removed: string[];
  /** Packs git wrote. */
  written: string[];
  /** Packs of `before` left as they are. */
  unchanged: string[];
}
