import { mostUsedBaseText } from '../../presentation/packs-view-text.ts';
import type { ObjectListDefinition } from './object-list-node.ts';

/** The objects with the most direct delta children (the bases a delta base cache most wants to keep); each expands to its children. */
export const MOST_USED_BASES_LIST: ObjectListDefinition = {
  listKind: 'mostUsedBases',
  title: 'Most-used bases',
  icon: 'type-hierarchy-sub',
  objects: {
    describe: mostUsedBaseText,
    expandsTo: 'children',
  },
  totalIn: (summary) => summary.objects,
};
