import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail, GitCommandError } from '../errors.ts';
import { peekIdxObjectCount } from '../format/idx.ts';
import type { GitProgress } from '../git/git-progress.ts';
import { gitVersionOf } from '../git/git-probe.ts';
import { abortError, gitMessage, probeGit } from '../git/run-git.ts';
import { alternateObjectDirs } from '../model/object-store.ts';
import type { Repository } from '../model/repository.ts';
import type {
  RepackMode,
  RepackModePack,
  RepackModePreviewDocument,
  RepackModeSide,
} from '../documents/repack-mode-document.ts';
import type { PackMarker } from '../documents/repository-layout-document.ts';
import { PROMISOR_PACK_MEANING } from './repack-arguments.ts';
import { createPreviewDirectory } from './preview-directory.ts';
import { runPackObjects } from './run-pack-objects.ts';

const MARKERS: PackMarker[] = ['keep', 'promisor', 'mtimes', 'bitmap', 'rev'];

/** Which repack modes this git takes: `git repack -h` lists `--geometric` (2.32) and `--cruft` (2.37). */
export async function repackModesSupported(git: string): Promise<{ geometric: boolean; cruft: boolean }> {
  // A lone -h needs no repository and writes nothing; git exits 129 with the usage.
  const result = await probeGit(git, ['repack', '-h']);
  const usage = `${result.stdout}\n${result.stderr}`;
  return {
    geometric: /(^|\s)-g, --geometric|--geometric[=\s<]/m.test(usage),
    cruft: /--cruft(\s|$|\[|=)/m.test(usage),
  };
}

export function repackModeArguments(mode: RepackMode): string[] {
  return mode.kind === 'geometric' ? [`--geometric=${mode.factor}`, '-d'] : ['--cruft', '-d'];
}

/**
 * A shadow of `objectsDir` that a real `git repack -d` may change freely: real directories
 * (`pack/`, `info/`, and each loose-object fan-out directory) whose files are symbolic links to
 * the repository's. What repack deletes (redundant packs, loose objects prune-packed, a stale
 * multi-pack-index) are the links; what it writes lands in the shadow's own directories. Unlike
 * the pack-objects preview's shadow (shadow-objects.ts), the fan-out directories are not linked
 * whole: prune-packed would otherwise delete the repository's loose objects through them.
 */
function createDeepShadow(objectsDir: string, shadow: string): void {
  fs.mkdirSync(shadow, { recursive: true });
  for (const entry of fs.readdirSync(objectsDir, { withFileTypes: true })) {
    const from = path.join(objectsDir, entry.name);
    const isFanout = /^[0-9a-f]{2}$/.test(entry.name);
    if (!entry.isDirectory() || !(isFanout || entry.name === 'pack' || entry.name === 'info')) continue;
    const to = path.join(shadow, entry.name);
    fs.mkdirSync(to);
    for (const name of fs.readdirSync(from)) {
      if (entry.name === 'pack' && (name.startsWith('tmp_') || name.startsWith('.tmp-'))) continue;
      if (entry.name === 'info' && name === 'alternates') continue;
      fs.symlinkSync(path.join(from, name), path.join(to, name));
    }
  }
  fs.mkdirSync(path.join(shadow, 'pack'), { recursive: true });
  fs.mkdirSync(path.join(shadow, 'info'), { recursive: true });
  const alternates = alternateObjectDirs(objectsDir).filter((dir) => fs.existsSync(dir));
  if (alternates.length > 0)
    fs.writeFileSync(
      path.join(shadow, 'info', 'alternates'),
      alternates.map((dir) => `${path.resolve(dir)}\n`).join(''),
    );
}

/** The packs of a pack directory (the repository's, or the shadow's after the repack), by name. */
function packsIn(packDir: string): RepackModePack[] {
  let names: string[];
  try {
    names = fs
      .readdirSync(packDir)
      .filter((name) => name.endsWith('.pack'))
      .sort();
  } catch {
    return [];
  }
  const packs: RepackModePack[] = [];
  for (const name of names) {
    const stem = path.join(packDir, name.slice(0, -5));
    if (!fs.existsSync(`${stem}.idx`)) continue;
    const markers = MARKERS.filter((marker) => fs.existsSync(`${stem}.${marker}`));
    packs.push({
      name,
      objects: peekIdxObjectCount(`${stem}.idx`),
      packBytes: fs.statSync(`${stem}.pack`).size,
      kind: markers.includes('mtimes') ? 'cruft' : markers.includes('promisor') ? 'promisor' : 'normal',
      markers,
    });
  }
  return packs;
}

function looseCount(objectsDir: string, restLength: number): number {
  let count = 0;
  for (let fanout = 0; fanout < 256; fanout++) {
    let names: string[];
    try {
      names = fs.readdirSync(path.join(objectsDir, fanout.toString(16).padStart(2, '0')));
    } catch {
      continue;
    }
    for (const name of names) if (name.length === restLength && /^[0-9a-fA-F]+$/.test(name)) count++;
  }
  return count;
}

/**
 * git 2.39's `repack --geometric` in a repository with promisor packs gives pack-objects
 * --stdin-packs and --exclude-promisor-objects together, which pack-objects refuses ("cannot use
 * internal rev list with --stdin-packs"): the real repack fails the same way. Said as such, with
 * git's words after ours, rather than git's words alone.
 */
function geometricInPartialClone(
  error: unknown,
  mode: RepackMode,
  version: string,
  before: RepackModeSide,
): GitCommandError | undefined {
  if (!(error instanceof GitCommandError) || mode.kind !== 'geometric') return undefined;
  if (!/cannot use internal rev list with --stdin-packs/.test(error.gitStderr)) return undefined;
  const promisorPacks = before.packs.filter((pack) => pack.kind === 'promisor').length;
  if (promisorPacks === 0) return undefined;
  return new GitCommandError(
    error.argv,
    error.exitStatus,
    error.gitStderr,
    `no preview: git ${version}'s repack --geometric cannot run in a repository with promisor packs (${promisorPacks} here; ${PROMISOR_PACK_MEANING}): it asks pack-objects for --stdin-packs and --exclude-promisor-objects together, which pack-objects refuses, so \`git repack --geometric=${mode.factor} -d\` fails here the same way (git says: ${gitMessage(error.gitStderr.split('\n').filter(Boolean))})`,
  );
}

export interface RepackModePreviewOptions {
  repository: Repository;
  mode: RepackMode;
  git?: string | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: GitProgress) => void) | undefined;
  tempRoot?: string | undefined;
}

/**
 * What `git repack --geometric=N -d` or `git repack --cruft -d` would do to the packs, by running
 * exactly that repack with GIT_OBJECT_DIRECTORY set to a deep shadow (createDeepShadow) in a
 * temporary directory outside the repository: the packs before, the packs after (links that
 * survived are unchanged packs, files are new ones), and the loose objects left. No lazy fetch in
 * a partial clone. The temporary directory is removed before this returns or rejects.
 */
export async function previewRepackMode(options: RepackModePreviewOptions): Promise<RepackModePreviewDocument> {
  const { repository, mode } = options;
  const git = options.git ?? 'git';
  const version = await gitVersionOf(git);
  const supported = await repackModesSupported(git);
  if (!supported[mode.kind])
    throw fail(
      'usage',
      undefined,
      undefined,
      `git ${version} (${git}) has no \`git repack --${mode.kind}\` (geometric repacks came with git 2.32, cruft packs with 2.37)`,
    );
  if (mode.kind === 'geometric' && (!Number.isSafeInteger(mode.factor) || mode.factor < 2))
    throw fail('usage', undefined, undefined, `--geometric needs a factor of 2 or more (got ${mode.factor})`);
  const restLength = repository.hash.size * 2 - 2;
  const before: RepackModeSide = {
    packs: packsIn(path.join(repository.objectsDir, 'pack')),
    looseObjects: looseCount(repository.objectsDir, restLength),
  };
  const temp = createPreviewDirectory(repository, options.tempRoot);
  try {
    const shadow = path.join(temp, 'objects');
    createDeepShadow(repository.objectsDir, shadow);
    if (options.signal?.aborted) throw abortError(options.signal);
    // -n: no update-server-info; the packs are what it previews.
    const args = [`--git-dir=${repository.gitDir}`, 'repack', ...repackModeArguments(mode), '-n'];
    // The runner keeps a partial clone from fetching (no-programs.ts): a missing object stays missing.
    const env: Record<string, string> = { GIT_OBJECT_DIRECTORY: shadow };
    const started = performance.now();
    try {
      await runPackObjects({ git, args, env, cwd: temp, signal: options.signal, onProgress: options.onProgress });
    } catch (error) {
      throw geometricInPartialClone(error, mode, version, before) ?? error;
    }
    const seconds = (performance.now() - started) / 1000;
    const afterPacks = packsIn(path.join(shadow, 'pack'));
    const isLink = (name: string): boolean => fs.lstatSync(path.join(shadow, 'pack', name)).isSymbolicLink();
    const afterNames = new Set(afterPacks.map((p) => p.name));
    return {
      schema: 'packscope.repack-mode-preview/1',
      repository: repository.gitDir,
      gitVersion: version,
      mode,
      gitArgs: [git, ...args],
      gitEnvironment: env,
      equivalent: ['git', 'repack', ...repackModeArguments(mode)],
      seconds,
      before,
      after: { packs: afterPacks, looseObjects: looseCount(shadow, restLength) },
      removed: before.packs.map((p) => p.name).filter((name) => !afterNames.has(name)),
      written: afterPacks.filter((p) => !isLink(p.name)).map((p) => p.name),
      unchanged: afterPacks.filter((p) => isLink(p.name)).map((p) => p.name),
    };
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}
