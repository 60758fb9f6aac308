import type { ObjectListDefinition } from './object-list-node.ts';

/** The objects with the largest inflated size. */
export const LARGEST_LIST: ObjectListDefinition = { listKind: 'largest', title: 'Largest objects', icon: 'arrow-both', role: 'largest', totalIn: (summary) => summary.objects };
