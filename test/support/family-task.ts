/**
 * The FullVerifyTask that verifyFull hands its worker threads, built on the main thread so that
 * tests can run FamilyResolver directly (no worker, so any exception surfaces as it is thrown).
 */
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { buildFamilyTask, IdMismatchError } from '../../src/core/verify/full-verify.ts';
import type { FullVerifyTask } from '../../src/core/verify/full-verify-protocol.ts';
import { FamilyResolver } from '../../src/core/verify/resolve-family.ts';

/** verifyFull's task for every family (or the given roots), to run on this thread. */
export function familyTask(model: PackModel, roots?: number[]): FullVerifyTask {
  const allRoots: number[] = [];
  for (let n = 0; n < model.count; n++) if (model.columns.base[n]! < 0) allRoots.push(n);
  return buildFamilyTask(model, Uint32Array.from(roots ?? allRoots));
}

/**
 * What `verify-pack --full` does, for every family (or the given roots) on this thread: resolve
 * them, then report ids that differ from the idx as verifyFull does.
 */
export function resolveFamilies(model: PackModel, roots?: number[]): number {
  const task = familyTask(model, roots);
  const resolver = new FamilyResolver(task);
  try {
    for (const root of task.roots) resolver.resolveFamily(root);
    if (resolver.mismatches.length > 0) throw new IdMismatchError(model, resolver.mismatches);
    return resolver.objects;
  } finally {
    resolver.close();
  }
}
