import type { PackModel } from '../model/pack-model.ts';
import { simulateIndexPack } from '../sim/index-pack-sim.ts';
import type {
  IndexPackSimDocument,
  IndexPackVariant,
  IndexPackVariantResult,
} from '../documents/simulation-documents.ts';

/** Every variant git-internals §2.5 tells apart, in the order the documents list them. */
export const INDEX_PACK_VARIANTS: IndexPackVariant[] = ['v2.36', 'v2.55', 'release-when-done'];

/** One variant of `git index-pack --threads=1` over a pack's model. */
export function indexPackVariant(model: PackModel, limit: number, variant: IndexPackVariant): IndexPackVariantResult {
  return { variant, ...simulateIndexPack(model, { limit, variant }) };
}

/** `packscope index-pack-sim --json`. */
export function indexPackSimDocument(
  pack: string,
  model: PackModel,
  limit: number,
  variants: IndexPackVariant[],
): IndexPackSimDocument {
  return {
    schema: 'packscope.index-pack-sim/1',
    pack,
    objects: model.count,
    limit,
    results: variants.map((variant) => indexPackVariant(model, limit, variant)),
  };
}
