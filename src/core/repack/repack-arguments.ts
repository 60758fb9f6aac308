import type { Repository } from '../model/repository.ts';

/** What a preview changes about `git repack -a -d`: the options a user tunes. */
export interface RepackTuning {
  depth?: number | undefined;
  window?: number | undefined;
  threads?: number | undefined;
  /**
   * false (the default) finds every delta afresh, as `git repack -f` and `gc --aggressive` do
   * (`--no-reuse-delta`); true reuses the current deltas, as plain `git repack -a -d` and `git gc` do.
   */
  reuseDeltas?: boolean | undefined;
  /** Passed to pack-objects after repack's own options, e.g. `--no-reuse-object`, `--window-memory=1g`. */
  extraOptions?: string[] | undefined;
}

function configBool(config: Map<string, string>, key: string): boolean | undefined {
  const value = config.get(key);
  if (value === undefined) return undefined;
  if (value === '' || /^(true|yes|on|1)$/i.test(value)) return true;
  if (/^(false|no|off|0)$/i.test(value)) return false;
  return /^-?\d+$/.test(value) ? Number(value) !== 0 : undefined;
}

/**
 * The promisor remotes a configuration names, as git's promisor-remote.c finds them:
 * `extensions.partialClone`, `remote.<name>.promisor`, and `remote.<name>.partialCloneFilter`
 * (git makes a promisor remote of a remote with a filter alone: a clone whose other two were
 * removed still fetched missing objects lazily, and pack-objects without
 * --exclude-promisor-objects fetched them into a preview).
 */
export function promisorRemotes(config: Map<string, string>): string[] {
  const remotes = new Set<string>();
  const partialClone = config.get('extensions.partialclone');
  if (partialClone !== undefined && partialClone !== '') remotes.add(partialClone);
  for (const key of config.keys()) {
    const promisor = /^remote\.(.*)\.promisor$/.exec(key);
    if (promisor && configBool(config, key)) remotes.add(promisor[1]!);
    const filter = /^remote\.(.*)\.partialclonefilter$/.exec(key);
    if (filter) remotes.add(filter[1]!);
  }
  return [...remotes];
}

/** What a promisor pack is, in the words the previews and the Packs view use. */
export const PROMISOR_PACK_MEANING =
  'a promisor pack holds objects fetched from a promisor remote of a partial clone; the objects they refer to may be missing here, and git fetches them when it needs them';

/**
 * The pack-objects arguments `git repack -a -d [-f]` passes, in its order, for the repository's
 * effective configuration (`config`, as git resolves it: readEffectiveConfig) (git 2.39 builtin/repack.c
 * prepare_pack_objects and cmd_repack, confirmed with GIT_TRACE=1 git repack -adf):
 *   pack-objects [--window=N] [--depth=N] [--threads=N] [--no-reuse-delta] [--delta-base-offset] <base>
 *     --keep-true-parents [--honor-pack-keep] --non-empty --all --reflog --indexed-objects
 *     [--exclude-promisor-objects] [--write-bitmap-index|--write-bitmap-index-quiet] [--delta-islands]
 * `--quiet` is replaced by `--progress`, since the preview shows git's progress; the extra options come last.
 * Not reproduced: repack's separate pack of promisor objects (`--keep-pack=` of that pack).
 */
export function repackPackObjectsArguments(
  repository: Repository,
  config: Map<string, string>,
  tuning: RepackTuning,
  basePath: string,
): string[] {
  const args = ['pack-objects'];
  if (tuning.window !== undefined) args.push(`--window=${tuning.window}`);
  if (tuning.depth !== undefined) args.push(`--depth=${tuning.depth}`);
  if (tuning.threads !== undefined) args.push(`--threads=${tuning.threads}`);
  if (!tuning.reuseDeltas) args.push('--no-reuse-delta');
  args.push('--progress');
  if (configBool(config, 'repack.usedeltabaseoffset') !== false) args.push('--delta-base-offset');
  args.push(basePath);
  // repack.writeBitmaps (or pack.writeBitmaps) unset: bitmaps only for -a in a bare repository, quietly.
  const bitmapsConfigured = configBool(config, 'repack.writebitmaps') ?? configBool(config, 'pack.writebitmaps');
  const writeBitmaps = bitmapsConfigured === undefined ? (repository.bare ? -1 : 0) : bitmapsConfigured ? 1 : 0;
  const packKeptObjects = configBool(config, 'repack.packkeptobjects') ?? writeBitmaps > 0;
  args.push('--keep-true-parents');
  if (!packKeptObjects) args.push('--honor-pack-keep');
  args.push('--non-empty', '--all', '--reflog', '--indexed-objects');
  if (promisorRemotes(config).length > 0) args.push('--exclude-promisor-objects');
  if (writeBitmaps > 0) args.push('--write-bitmap-index');
  else if (writeBitmaps < 0) args.push('--write-bitmap-index-quiet');
  if (configBool(config, 'repack.usedeltaislands')) args.push('--delta-islands');
  args.push(...(tuning.extraOptions ?? []));
  return args;
}

/** The `git repack` command line a preview stands for (for display and for the tests' real repack). */
export function equivalentRepackCommand(tuning: RepackTuning): string[] {
  const args = ['repack', '-a', '-d'];
  if (!tuning.reuseDeltas) args.push('-f');
  if (tuning.depth !== undefined) args.push(`--depth=${tuning.depth}`);
  if (tuning.window !== undefined) args.push(`--window=${tuning.window}`);
  if (tuning.threads !== undefined) args.push(`--threads=${tuning.threads}`);
  return args;
}
