import type { ObjectListDefinition } from './object-list-node.ts';
import { FAMILY_MEMBER } from './object-node.ts';

/** The pack's delta families, each by its root; a member expands to its delta children. */
export const FAMILIES_LIST: ObjectListDefinition = {
  listKind: 'families',
  title: 'Delta families',
  icon: 'type-hierarchy',
  objects: FAMILY_MEMBER,
  totalIn: (summary) => summary.families,
};
