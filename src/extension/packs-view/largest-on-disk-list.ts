import type { ObjectListDefinition } from './object-list-node.ts';
import { SIZED_OBJECT } from './object-node.ts';

/** The objects taking the most bytes in the pack file. */
export const LARGEST_ON_DISK_LIST: ObjectListDefinition = {
  listKind: 'largestOnDisk',
  title: 'Largest on disk',
  icon: 'arrow-both',
  objects: SIZED_OBJECT,
  totalIn: (summary) => summary.objects,
};
