import type { ObjectListDefinition } from './object-list-node.ts';
import { CHAIN_END } from './object-node.ts';

/** The deepest objects of the pack; each expands to its chain, down to the root. */
export const DEEPEST_LIST: ObjectListDefinition = {
  listKind: 'deepest',
  title: 'Deepest chains',
  icon: 'list-ordered',
  objects: CHAIN_END,
  totalIn: (summary) => summary.objects,
};
