/**
 * The walks over every pack of a repository (object paths, names from git, git-sizer's metrics)
 * number objects across packs: pack p's object n is `bases[p] + n`, `bases` ascending from 0.
 */

/** The pack whose numbers hold `id`: the last p with bases[p] <= id (loose numbers, past every pack, give the last). */
export function packOfNumber(bases: readonly number[], id: number): number {
  let low = 0;
  let high = bases.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if (bases[mid]! <= id) low = mid;
    else high = mid - 1;
  }
  return low;
}
