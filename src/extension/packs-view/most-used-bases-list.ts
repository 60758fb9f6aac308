import { formatBytes, formatCount } from '../format-units.ts';
import type { ObjectListDefinition } from './object-list-node.ts';

/** The objects with the most direct delta children (the bases a delta base cache most wants to keep); each expands to its children. */
export const MOST_USED_BASES_LIST: ObjectListDefinition = {
  listKind: 'mostUsedBases',
  title: 'Most-used bases',
  icon: 'type-hierarchy-sub',
  objects: {
    describe: (item) => `${formatCount(item.children)} delta ${item.children === 1 ? 'child' : 'children'} · depth ${item.depth} · ${formatBytes(item.size)}`,
    expandsTo: 'children',
  },
  totalIn: (summary) => summary.objects,
};
