/**
 * A binary min-heap of (key, id, version) in typed arrays; stale entries (an id whose version moved
 * on) are skipped when popped. Used by the size-aware and offline policies.
 */
export class VersionedMinHeap {
  private keys = new Float64Array(1024);
  private ids = new Int32Array(1024);
  private versions = new Uint32Array(1024);
  length = 0;

  push(key: number, id: number, version: number): void {
    if (this.length === this.keys.length) this.grow();
    let i = this.length++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.keys[parent]! <= key) break;
      this.keys[i] = this.keys[parent]!;
      this.ids[i] = this.ids[parent]!;
      this.versions[i] = this.versions[parent]!;
      i = parent;
    }
    this.keys[i] = key;
    this.ids[i] = id;
    this.versions[i] = version;
  }

  /** Pops the smallest entry whose version equals `currentVersion[id]`; returns the id, or −1. */
  popCurrent(currentVersion: Uint32Array, out: { key: number }): number {
    while (this.length > 0) {
      const key = this.keys[0]!;
      const id = this.ids[0]!;
      const version = this.versions[0]!;
      this.removeTop();
      if (currentVersion[id] === version) {
        out.key = key;
        return id;
      }
    }
    return -1;
  }

  private removeTop(): void {
    const last = --this.length;
    if (last === 0) return;
    const key = this.keys[last]!;
    const id = this.ids[last]!;
    const version = this.versions[last]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= last) break;
      if (child + 1 < last && this.keys[child + 1]! < this.keys[child]!) child++;
      if (this.keys[child]! >= key) break;
      this.keys[i] = this.keys[child]!;
      this.ids[i] = this.ids[child]!;
      this.versions[i] = this.versions[child]!;
      i = child;
    }
    this.keys[i] = key;
    this.ids[i] = id;
    this.versions[i] = version;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    const ids = new Int32Array(this.ids.length * 2);
    ids.set(this.ids);
    const versions = new Uint32Array(this.versions.length * 2);
    versions.set(this.versions);
    this.keys = keys;
    this.ids = ids;
    this.versions = versions;
  }
}
