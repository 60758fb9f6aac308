import { randomBytes } from 'node:crypto';
import type { PackIndex } from '../format/idx.ts';

/** What a lookup needs of a pack: its idx names (a PackModel is one; so is an index sent to a worker). */
export interface NamedPack {
  count: number;
  index: PackIndex;
}

/**
 * Object ids to object numbers across packs, by hash (git's lookup_object, not a binary search of
 * each idx): a path walk looks up every entry of every tree it reads, tens of millions on git/git,
 * and a binary search of 849k names cost about as much as the rest of the walk together. Numbers
 * are global (pack p's object n is `bases[p] + n`); a name in several packs gets its first pack's
 * number, git's search order.
 *
 * The slot comes from the id's first eight bytes mixed with a per-process random seed: ids are
 * chosen by whoever wrote the pack, and a table hashed by a fixed rule could be filled with ids
 * that all probe the same slots. Every hit is confirmed against the whole name.
 */
export class OidLookup {
  /** Global number + 1 per slot; 0 is empty. Kept at most half full so that probes stay short. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly seed0: number;
  private readonly seed1: number;
  /** Every pack's names, `size` apart, in global number order (one pack's own names when there is one). */
  private readonly names: Uint8Array;
  private readonly size: number;

  constructor(models: readonly NamedPack[]) {
    const size = models[0]?.index.hash.size ?? 20;
    this.size = size;
    const total = models.reduce((sum, model) => sum + model.count, 0);
    this.names = namesOf(models, total, size);
    let capacity = 1024;
    while (capacity < total * 2) capacity *= 2;
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    const seed = randomBytes(8);
    this.seed0 = seed.readInt32LE(0);
    this.seed1 = seed.readInt32LE(4);
    const { names, slots, mask } = this;
    for (let id = 0; id < total; id++) {
      let slot = this.slotOf(names, id * size);
      for (;;) {
        const held = slots[slot]!;
        if (held === 0) {
          slots[slot] = id + 1;
          break;
        }
        // The same name in a later pack: the earlier pack's object is the one git finds.
        if (this.sameName(held - 1, names, id * size)) break;
        slot = (slot + 1) & mask;
      }
    }
  }

  /** The global number of the id at `bytes[at]`, or −1 (the caller checked that `size` bytes are there). */
  find(bytes: Uint8Array, at: number): number {
    const { slots, mask } = this;
    let slot = this.slotOf(bytes, at);
    for (;;) {
      const held = slots[slot]!;
      if (held === 0) return -1;
      if (this.sameName(held - 1, bytes, at)) return held - 1;
      slot = (slot + 1) & mask;
    }
  }

  private slotOf(bytes: Uint8Array, at: number): number {
    const w0 = (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
    const w1 = (bytes[at + 4]! << 24) | (bytes[at + 5]! << 16) | (bytes[at + 6]! << 8) | bytes[at + 7]!;
    let h = Math.imul(w0 ^ this.seed0, 0x9e3779b1) ^ Math.imul(w1 ^ this.seed1, 0x85ebca77);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 13;
    return h & this.mask;
  }

  private sameName(id: number, bytes: Uint8Array, at: number): boolean {
    const { names, size } = this;
    const base = id * size;
    for (let i = 0; i < size; i++) if (names[base + i] !== bytes[at + i]) return false;
    return true;
  }
}

/** The packs' names end to end; a single pack's compact name table is used as it is. */
function namesOf(models: readonly NamedPack[], total: number, size: number): Uint8Array {
  const only = models.length === 1 ? models[0]!.index : undefined;
  if (only && only.namePosition(0) === 0 && only.namePosition(1) === size) return only.bytes.subarray(0, total * size);
  const names = new Uint8Array(total * size);
  let id = 0;
  for (const model of models)
    for (let n = 0; n < model.count; n++, id++) {
      const at = model.index.namePosition(n);
      names.set(model.index.bytes.subarray(at, at + size), id * size);
    }
  return names;
}
