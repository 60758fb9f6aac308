/**
 * The FullVerifyTask that verifyFull hands its worker threads, built on the main thread so that
 * tests can run FamilyResolver directly (no worker, so any exception surfaces as it is thrown).
 */
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { IdMismatchError } from '../../src/core/verify/full-verify.ts';
import type { FullVerifyTask } from '../../src/core/verify/full-verify-protocol.ts';
import { FamilyResolver } from '../../src/core/verify/resolve-family.ts';

export function familyTask(model: PackModel, roots?: number[]): FullVerifyTask {
  const count = model.count;
  const c = model.columns;
  const size = new Float64Array(count);
  const diskSize = new Float64Array(count);
  for (let n = 0; n < count; n++) {
    size[n] = c.size.get(n);
    diskSize[n] = c.diskSize.get(n);
  }
  const childStart = new Uint32Array(count + 1);
  for (let n = 0; n < count; n++) childStart[n + 1] = childStart[n]! + model.children(n).length;
  const childList = new Uint32Array(childStart[count]!);
  for (let n = 0; n < count; n++) childList.set(model.children(n), childStart[n]!);
  const hashSize = model.hash.size;
  const names = new Uint8Array(count * hashSize);
  for (let n = 0; n < count; n++) names.set(model.index.oidBytes(n), n * hashSize);
  const allRoots: number[] = [];
  for (let n = 0; n < count; n++) if (c.base[n]! < 0) allRoots.push(n);
  return {
    kind: 'families',
    packPath: model.files.pack,
    hashName: model.hash.name,
    hashSize,
    names,
    offset: c.offset,
    inPackType: c.inPackType,
    type: c.type,
    size,
    diskSize,
    childStart,
    childList,
    roots: Uint32Array.from(roots ?? allRoots),
  };
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
