import { randomBytes } from 'node:crypto';

/**
 * Paths as a trie of interned components: node 0 is the empty path (a commit's root tree), every
 * other node names its parent node and one component. A pack of 849k objects needs one Int32 per
 * object and a node per distinct path, not a string per object. Components are bytes (a tree
 * entry's name is not necessarily UTF-8); parent[k] < k for every k > 0, so a path is never a cycle.
 */
export class PathTable {
  constructor(
    readonly parent: Int32Array,
    /** Component of node k: pool[start[k] .. start[k + 1]). */
    readonly start: Uint32Array,
    readonly pool: Uint8Array,
  ) {}

  get count(): number {
    return this.parent.length;
  }

  /** The path's bytes, components joined by "/" as rev-list prints them. */
  pathBytes(node: number): Buffer {
    const parts: Uint8Array[] = [];
    for (let k = node; k > 0; k = this.parent[k]!) parts.push(this.pool.subarray(this.start[k]!, this.start[k + 1]!));
    const slash = Buffer.from('/');
    const joined: Uint8Array[] = [];
    for (let i = parts.length - 1; i >= 0; i--) {
      joined.push(parts[i]!);
      if (i > 0) joined.push(slash);
    }
    return Buffer.concat(joined);
  }

  /** The path as text (invalid UTF-8 shows as U+FFFD). */
  path(node: number): string {
    return this.pathBytes(node).toString('utf8');
  }

  /**
   * Throws unless the arrays form a table: what a persisted file must pass before any lookup
   * (the file is keyed, and checked anyway: model files stopped re-checking their columns after
   * their seal, docs/security.md, "The model cache's threat model"; paths files were not revisited).
   */
  /** Each object's path node (−1: none) names a node of a table of `nodes`; `what` names the file in the error. */
  static checkNodes(pathOf: readonly Int32Array[], nodes: number, what: string): void {
    for (const column of pathOf)
      for (const node of column) if (node < -1 || node >= nodes) throw new Error(`${what} names a path out of range`);
  }

  static check(parent: Int32Array, start: Uint32Array, pool: Uint8Array): void {
    const count = parent.length;
    if (count < 1 || start.length !== count + 1) throw new Error('path table sizes do not fit');
    if (parent[0] !== -1 || start[0] !== 0 || start[1] !== 0) throw new Error('path table root is wrong');
    for (let k = 1; k < count; k++) {
      const p = parent[k]!;
      if (p < 0 || p >= k) throw new Error('path table parent out of order');
      if (start[k + 1]! < start[k]!) throw new Error('path table components out of order');
    }
    if (start[count] !== pool.length) throw new Error('path table pool size does not fit');
  }
}

/**
 * Builds a PathTable one interned component at a time, each path's length capped. Nodes are found
 * again by (parent, component bytes) in an open-addressed table hashed over the bytes themselves:
 * naming git/git's objects interns 419k paths, and a string key per call was the parse's largest
 * cost. Every probe that matches the hash is confirmed against the pool, so colliding names only
 * cost probes.
 */
export class PathTableBuilder {
  private parent = new Int32Array(1024);
  private start = new Uint32Array(1025);
  private lengths = new Uint32Array(1024);
  private hashes = new Int32Array(1024);
  private pool = new Uint8Array(16 * 1024);
  private count = 1;
  /** Node + 1 per slot, 0 empty; at most half full. */
  private slots = new Int32Array(4096);
  /** Per process, so that names chosen by whoever wrote the trees cannot be chosen to collide. */
  private readonly seed = randomBytes(4).readInt32LE(0);

  constructor(readonly maxPathBytes: number) {
    this.parent[0] = -1;
  }

  /** The node of `parent`/bytes[from, to), made on first use; −1 when the path would exceed the cap. */
  intern(parent: number, bytes: Uint8Array, from: number, to: number): number {
    let h = Math.imul(parent ^ this.seed, 0x85ebca6b);
    for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    h ^= h >>> 16;
    const { slots } = this;
    const mask = slots.length - 1;
    let slot = h & mask;
    const length = to - from;
    for (;;) {
      const held = slots[slot]!;
      if (held === 0) break;
      const node = held - 1;
      if (this.hashes[node] === h && this.parent[node] === parent && this.sameComponent(node, bytes, from, length))
        return node;
      slot = (slot + 1) & mask;
    }
    const pathLength = (parent === 0 ? 0 : this.lengths[parent]! + 1) + length;
    if (pathLength > this.maxPathBytes) return -1;
    const node = this.count++;
    if (node >= this.parent.length) this.grow();
    const at = this.start[node]!;
    while (at + length > this.pool.length) {
      const bigger = new Uint8Array(this.pool.length * 2);
      bigger.set(this.pool);
      this.pool = bigger;
    }
    this.pool.set(bytes.subarray(from, to), at);
    this.start[node + 1] = at + length;
    this.parent[node] = parent;
    this.lengths[node] = pathLength;
    this.hashes[node] = h;
    slots[slot] = node + 1;
    if (this.count * 2 > slots.length) this.rehash();
    return node;
  }

  /** A builder that goes on from `table` (a stopped walk's): its nodes keep their numbers. */
  static resume(table: PathTable, maxPathBytes: number): PathTableBuilder {
    const builder = new PathTableBuilder(maxPathBytes);
    const { parent, start, pool } = table;
    for (let node = 1; node < table.count; node++) {
      const id = builder.intern(parent[node]!, pool, start[node]!, start[node + 1]!);
      // A table that interns differently (a duplicate, a path over the cap) is not one this built.
      if (id !== node) throw new Error('path table cannot be resumed: its nodes are not as interned');
    }
    return builder;
  }

  finish(): PathTable {
    const count = this.count;
    return new PathTable(
      this.parent.slice(0, count),
      this.start.slice(0, count + 1),
      this.pool.slice(0, this.start[count]!),
    );
  }

  private sameComponent(node: number, bytes: Uint8Array, from: number, length: number): boolean {
    const at = this.start[node]!;
    if (this.start[node + 1]! - at !== length) return false;
    const { pool } = this;
    for (let i = 0; i < length; i++) if (pool[at + i] !== bytes[from + i]) return false;
    return true;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let node = 1; node < this.count; node++) {
      let slot = this.hashes[node]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = node + 1;
    }
    this.slots = slots;
  }

  private grow(): void {
    const size = this.parent.length * 2;
    const parent = new Int32Array(size);
    parent.set(this.parent);
    const start = new Uint32Array(size + 1);
    start.set(this.start);
    const lengths = new Uint32Array(size);
    lengths.set(this.lengths);
    const hashes = new Int32Array(size);
    hashes.set(this.hashes);
    this.parent = parent;
    this.start = start;
    this.lengths = lengths;
    this.hashes = hashes;
  }
}
