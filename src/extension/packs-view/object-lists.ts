// The lists of objects under each pack, in the order the view shows them. A new list is one
// definition file (naming its server ranking) and one entry here.
import { DEEPEST_LIST } from './deepest-list.ts';
import { FAMILIES_LIST } from './families-list.ts';
import { LARGEST_LIST } from './largest-list.ts';
import { LARGEST_ON_DISK_LIST } from './largest-on-disk-list.ts';
import { MOST_USED_BASES_LIST } from './most-used-bases-list.ts';
import type { ObjectListDefinition } from './object-list-node.ts';

export const OBJECT_LISTS: readonly ObjectListDefinition[] = [
  FAMILIES_LIST,
  DEEPEST_LIST,
  LARGEST_LIST,
  LARGEST_ON_DISK_LIST,
  MOST_USED_BASES_LIST,
];
