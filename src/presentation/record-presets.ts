/**
 * The `git log` presets of "Record a Git Command…", bounded for big repositories: a recording runs
 * git with the delta base cache off (exact mode), so `git log -p` over git.git's whole history ran
 * for a very long time. Past a number of commits the preset takes `-n`, chosen from the packs'
 * size, and its line in the picker says so.
 */
import { formatCount } from '../common/format.ts';

/** How much of the repository its packs hold, as the Packs view lists them. */
export interface RepositorySize {
  /** Objects in its packs (the idx counts). */
  objects: number;
  /** Commits in its packs, when every pack's model is loaded (the summaries); else estimated. */
  commits?: number | undefined;
}

export type LogPresetKind = 'raw' | 'patch';

/**
 * Commits a preset records at most: `log --raw` reads commits and trees, `log -p` blobs and their
 * delta chains too, about ten times the reads per commit.
 */
export const LOG_PRESET_COMMITS: Readonly<Record<LogPresetKind, number>> = { raw: 20_000, patch: 2_000 };

/** Objects per commit in the estimate when the commits are not counted yet (git.git: 11, linux: 8.5). */
const OBJECTS_PER_COMMIT = 10;

export interface LogPreset {
  label: string;
  detail: string;
  args: string[];
  /** The `-n` chosen, or undefined for the whole history. */
  count: number | undefined;
}

export function logPreset(kind: LogPresetKind, size: RepositorySize): LogPreset {
  const known = size.commits !== undefined;
  const commits = size.commits ?? Math.round(size.objects / OBJECTS_PER_COMMIT);
  const budget = LOG_PRESET_COMMITS[kind];
  const base = kind === 'raw' ? ['log', '--raw'] : ['log', '-p'];
  const what =
    kind === 'raw'
      ? 'the trees it changes (commits and trees, no blobs)'
      : 'its patch (reads blobs, the workload of the delta-base-cache thread)';
  const history = `${known ? '' : 'about '}${formatCount(commits)} commit${commits === 1 ? '' : 's'}, ${formatCount(size.objects)} objects in packs`;
  if (commits <= budget)
    return {
      label: `git ${base.join(' ')}`,
      detail: `Every commit (${history}), each with ${what}`,
      args: base,
      count: undefined,
    };
  const args = [...base, '-n', String(budget)];
  return {
    label: `git ${args.join(' ')}`,
    detail: `The newest ${formatCount(budget)} of ${history}, each with ${what}; -n because the whole history runs long with the cache off`,
    args,
    count: budget,
  };
}
