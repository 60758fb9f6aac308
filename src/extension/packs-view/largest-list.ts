import type { ObjectListDefinition } from './object-list-node.ts';
import { SIZED_OBJECT } from './object-node.ts';

/** The objects with the largest inflated size. */
export const LARGEST_LIST: ObjectListDefinition = {
  listKind: 'largest',
  title: 'Largest objects',
  icon: 'arrow-both',
  objects: SIZED_OBJECT,
  totalIn: (summary) => summary.objects,
};
