import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail } from '../errors.ts';
import { buildPackModel } from '../model/build-pack-model.ts';
import { ModelStore } from '../model/model-store.ts';
import { ObjectStore } from '../model/object-store.ts';
import type { PackFiles, PackModel } from '../model/pack-model.ts';
import type { Repository } from '../model/repository.ts';
import type { GitProgress } from '../git/git-progress.ts';
import { readEffectiveConfig } from '../git/effective-config.ts';
import { gitVersionOf } from '../git/git-probe.ts';
import { abortError } from '../git/run-git.ts';
import type { CurrentLayout, LayoutSummary, SizeChange } from '../documents/repack-preview-document.ts';
import { countLooseObjects, joinByObjectId, summarizeLayout } from './layout-summary.ts';
import {
  equivalentRepackCommand,
  PROMISOR_PACK_MEANING,
  promisorRemotes,
  repackPackObjectsArguments,
  type RepackTuning,
} from './repack-arguments.ts';
import { createPreviewDirectory } from './preview-directory.ts';
import { runPackObjects } from './run-pack-objects.ts';
import { createShadowObjectsDir } from './shadow-objects.ts';

export interface RepackPreviewOptions extends RepackTuning {
  repository: Repository;
  /** The repository's object store, when the caller has one (its models are reused). */
  store?: ObjectStore | undefined;
  /** The git executable (default: `git` on PATH). */
  git?: string | undefined;
  signal?: AbortSignal | undefined;
  /** git's progress meters, and PackScope's own phases (`Reading current packs`, `Reading the preview pack`). */
  onProgress?: ((progress: GitProgress) => void) | undefined;
  /** The pack-objects child's pid, once it runs. */
  onSpawn?: ((pid: number) => void) | undefined;
  /** Where the temporary directory goes (default: os.tmpdir()); never inside the repository. */
  tempRoot?: string | undefined;
  /** Length of `largestChanges` (default 20). */
  top?: number | undefined;
  /**
   * Keep the preview pack (its temporary directory) after a successful run, for a Pack Map of it:
   * the caller removes `keptPack.directory` (releaseKeptPack) when nothing shows it any more. A
   * failed or cancelled run removes the directory as always.
   */
  keepPack?: boolean | undefined;
}

/** A preview pack kept on disk (RepackPreviewOptions.keepPack): its files inside its temporary directory. */
export interface KeptPreviewPack {
  directory: string;
  files: PackFiles;
}

/** Removes a kept preview pack's temporary directory (it holds only the pack's files and the owner file). */
export function releaseKeptPack(kept: KeptPreviewPack): void {
  fs.rmSync(kept.directory, { recursive: true, force: true });
}

/** What `packscope repack-preview --json` prints of a preview (docs/json.md, "packscope.repack-preview/1"). */
export interface RepackPreview {
  repository: string;
  gitVersion: string;
  /** The exact argv pack-objects ran with (the temporary paths included), and what it adds to a clean environment. */
  gitArgs: string[];
  gitEnvironment: Record<string, string>;
  /** The `git repack` command the preview stands for. */
  equivalent: string[];
  /** Wall time of pack-objects. */
  seconds: number;
  current: CurrentLayout;
  preview: LayoutSummary;
  largestChanges: SizeChange[];
  onlyInPreview: number;
  onlyInCurrent: number;
}

export interface RepackPreviewRun {
  result: RepackPreview;
  /** The preview pack's model, in memory (its files are gone): for recordings and the estimate. */
  previewModel: PackModel;
  /** The current local packs' models, in git's search order. */
  currentModels: PackModel[];
  /** What the preview leaves out (a partial clone's promisor packs), for the document's warnings. */
  warnings: string[];
  /** With keepPack: the preview pack, still on disk. */
  keptPack?: KeptPreviewPack;
}

export { TEMP_PREFIX } from './preview-directory.ts';

/**
 * Runs `git pack-objects` as `git repack -a -d [-f]` would (repack-arguments.ts), into a new
 * temporary directory outside the repository, and compares the pack it wrote with the current
 * ones. The repository is only read: pack-objects runs against a shadow objects directory
 * (shadow-objects.ts), with a clean environment. The temporary directory is removed before this
 * returns or rejects, cancelled (AbortError, after the child has exited) or not.
 */
// Stays long: one linear script (current packs, shadow, pack-objects, the preview's model) under the one try/finally
// that owns the temporary directory.
export async function previewRepack(options: RepackPreviewOptions): Promise<RepackPreviewRun> {
  const { repository } = options;
  const git = options.git ?? 'git';
  const version = await gitVersionOf(git);
  const store = options.store ?? new ObjectStore(repository, new ModelStore(undefined));
  const local = store.packs.filter((p) => p.local);
  // As git reads it (includes, includeIf, config.worktree): a promisor remote named only in an
  // included file still makes this a partial clone.
  const config = await readEffectiveConfig(git, repository.gitDir, options.signal);
  const promisors = promisorRemotes(config);
  const promisorPacks = local.filter((pack) => fs.existsSync(pack.files.pack.replace(/\.pack$/, '.promisor'))).length;
  // Promisor packs with no promisor remote configured: git repack -a -d reads every object they
  // refer to and stops at the first one missing ("fatal: unable to read …") after its walk; said
  // here before any work, with what would make it a partial clone again.
  if (promisors.length === 0 && promisorPacks > 0)
    throw fail(
      'usage',
      repository.gitDir,
      undefined,
      `no repack preview: ${promisorPacks} of its ${local.length} packs ${promisorPacks === 1 ? 'is a promisor pack' : 'are promisor packs'} (${PROMISOR_PACK_MEANING}), but its configuration names no promisor remote, so git repack -a -d would read every object they refer to and stop at the first one missing; \`git config remote.origin.promisor true\` makes it a partial clone again, whose preview leaves promisor objects out as git repack does`,
    );
  const currentModels = local.map((pack, k) => {
    options.onProgress?.({ phase: 'Reading current packs', done: k, total: local.length, finished: false });
    return store.model(pack);
  });
  options.onProgress?.({ phase: 'Reading current packs', done: local.length, total: local.length, finished: true });
  const current = {
    ...summarizeLayout(currentModels),
    looseObjects: countLooseObjects(repository.objectsDir, repository.hash.size * 2),
  };
  if (options.signal?.aborted) throw abortError(options.signal);
  const promisorObjects = local.reduce(
    (sum, pack, k) =>
      sum + (fs.existsSync(pack.files.pack.replace(/\.pack$/, '.promisor')) ? currentModels[k]!.count : 0),
    0,
  );
  const warnings: string[] = [];
  const partialClone =
    promisors.length === 0
      ? ''
      : `${repository.gitDir} is a partial clone (promisor remote ${promisors.join(', ')}): the preview covers only the objects outside its promisor packs, as git repack's pack-objects --exclude-promisor-objects does (${PROMISOR_PACK_MEANING}); the ${promisorObjects} objects of its promisor packs, and the objects the clone does not have, are left out (git repack rewrites promisor packs into one promisor pack of their own, which a preview does not), and nothing is fetched`;
  if (partialClone !== '') warnings.push(partialClone);

  const temp = createPreviewDirectory(repository, options.tempRoot);
  let kept = false;
  try {
    const shadow = path.join(temp, 'objects');
    const outDir = path.join(temp, 'pack');
    fs.mkdirSync(outDir);
    createShadowObjectsDir(repository.objectsDir, shadow);
    const args = [
      `--git-dir=${repository.gitDir}`,
      ...repackPackObjectsArguments(repository, config, options, path.join(outDir, 'pack')),
    ];
    // A preview never fetches: the runner's table (no-programs.ts) keeps a missing object missing.
    const env: Record<string, string> = { GIT_OBJECT_DIRECTORY: shadow };
    const started = performance.now();
    const { stdout } = await runPackObjects({
      git,
      args,
      env,
      cwd: temp,
      signal: options.signal,
      onProgress: options.onProgress,
      onSpawn: options.onSpawn,
    });
    const seconds = (performance.now() - started) / 1000;
    const name = stdout.trim().split('\n').pop() ?? '';
    const stem = path.join(outDir, `pack-${name}`);
    if (name === '' && partialClone !== '') {
      throw fail(
        'not-found',
        repository.gitDir,
        undefined,
        `nothing to preview: every object is in a promisor pack. ${partialClone}.`,
      );
    }
    if (!/^[0-9a-f]{40,64}$/.test(name) || !fs.existsSync(`${stem}.pack`)) {
      throw fail('io', outDir, undefined, `git pack-objects wrote no pack (it printed "${stdout.trim()}")`);
    }
    if (options.signal?.aborted) throw abortError(options.signal);
    options.onProgress?.({ phase: 'Reading the preview pack', done: 0, total: 1, finished: false });
    const previewFiles = {
      pack: `${stem}.pack`,
      idx: `${stem}.idx`,
      rev: fs.existsSync(`${stem}.rev`) ? `${stem}.rev` : undefined,
    };
    const previewModel = buildPackModel(previewFiles, { hash: repository.hash });
    options.onProgress?.({ phase: 'Reading the preview pack', done: 1, total: 1, finished: true });
    const join = joinByObjectId(currentModels, previewModel, options.top ?? 20);
    let keptPack: KeptPreviewPack | undefined;
    if (options.keepPack) {
      // Only the pack stays: the shadow objects directory (links into the repository) goes now.
      fs.rmSync(shadow, { recursive: true, force: true });
      keptPack = { directory: temp, files: previewFiles };
      kept = true;
    }
    return {
      result: {
        repository: repository.gitDir,
        gitVersion: version,
        gitArgs: [git, ...args],
        gitEnvironment: env,
        equivalent: ['git', ...equivalentRepackCommand(options)],
        seconds,
        current,
        preview: summarizeLayout([previewModel]),
        largestChanges: join.largestChanges,
        onlyInPreview: join.onlyInPreview,
        onlyInCurrent: join.onlyInCurrent,
      },
      previewModel,
      currentModels,
      warnings,
      ...(keptPack ? { keptPack } : {}),
    };
  } finally {
    if (!kept) fs.rmSync(temp, { recursive: true, force: true });
  }
}
