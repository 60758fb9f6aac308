/** Git's four object types, in the order git's docs and `verify-pack` list them (filters, pickers). */
export type ObjectTypeName = 'commit' | 'tree' | 'blob' | 'tag';
export const OBJECT_TYPE_NAMES: readonly ObjectTypeName[] = ['commit', 'tree', 'blob', 'tag'];
