import { OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../format/pack-file.ts';

/**
 * git-internals §5.2: the order in which pack-objects writes `count` objects given in input order
 * (§5.1, index 0 first), with their resolved types, delta bases (input index, −1 for none) and the
 * `tagged` marks (targets of refs/tags/* and their peeled objects). Returns the input indices in
 * write order, after §5.2 step 4: a delta whose base is not written yet pulls its base in first
 * (a cycle drops the delta). One island layer (no --delta-islands).
 */
export function computeWriteOrder(count: number, type: Uint8Array, base: Int32Array, tagged: Uint8Array): Uint32Array {
  // §5.2 step 1: child lists in original index order (first child = lowest index).
  const child = new Int32Array(count).fill(-1);
  const sibling = new Int32Array(count).fill(-1);
  for (let i = count - 1; i >= 0; i--) {
    const b = base[i]!;
    if (b < 0) continue;
    sibling[i] = child[b]!;
    child[b] = i;
  }
  const filled = new Uint8Array(count);
  const order = new Uint32Array(count);
  let end = 0;
  const add = (i: number): void => {
    if (filled[i]) return;
    filled[i] = 1;
    order[end++] = i;
  };
  // §5.2 step 3.5: a family from its root: a node, then its siblings, then down to the first child.
  const addDescendants = (root: number): void => {
    let e = root;
    let addSelf = true;
    while (e >= 0) {
      if (addSelf) {
        add(e);
        for (let s = sibling[e]!; s >= 0; s = sibling[s]!) add(s);
      }
      if (child[e]! >= 0) {
        addSelf = true;
        e = child[e]!;
        continue;
      }
      addSelf = false;
      if (sibling[e]! >= 0) {
        e = sibling[e]!;
        continue;
      }
      e = base[e]!;
      while (e >= 0 && sibling[e]! < 0) e = base[e]!;
      if (e < 0) return;
      e = sibling[e]!;
    }
  };
  const addFamily = (i: number): void => {
    let root = i;
    for (let guard = 0; base[root]! >= 0 && guard <= count; guard++) root = base[root]!;
    addDescendants(root);
  };
  let i = 0;
  for (; i < count && !tagged[i]; i++) add(i);
  const lastUntagged = i;
  for (; i < count; i++) if (tagged[i]) add(i);
  for (i = lastUntagged; i < count; i++) if (type[i] === OBJ_COMMIT || type[i] === OBJ_TAG) add(i);
  for (i = lastUntagged; i < count; i++) if (type[i] === OBJ_TREE) add(i);
  for (i = lastUntagged; i < count; i++) if (!filled[i]) addFamily(i);
  return writeSequence(order, base, count);
}

/** §5.2 step 4 (write_one): walks the write order, writing a delta's unwritten base first. */
function writeSequence(order: Uint32Array, base: Int32Array, count: number): Uint32Array {
  const state = new Uint8Array(count); // 0 not yet, 1 being written (its base is pulled in), 2 written
  const out = new Uint32Array(count);
  let end = 0;
  const stack: number[] = [];
  for (const start of order) {
    if (state[start] !== 0) continue;
    // Iterative form of the recursion: climb while the base is unwritten, then write back down.
    stack.push(start);
    state[start] = 1;
    for (let b = base[start]!; b >= 0 && state[b] === 0; b = base[b]!) {
      stack.push(b);
      state[b] = 1;
    }
    while (stack.length > 0) {
      const e = stack.pop()!;
      state[e] = 2;
      out[end++] = e;
    }
  }
  return out;
}
