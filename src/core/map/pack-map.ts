import * as fs from 'node:fs';
/**
 * The Pack Map: a pack drawn along its offsets on a Hilbert curve, every cell the same
 * number of bytes (src/common/pack-map-geometry.ts says why), coloured by an attribute of the
 * object there, with a recording's reads as heat over it. Any rectangle of cells at any order is
 * drawn from the model's columns alone (O(log n) per cell), so a view can ask for tiles at every
 * zoom level without one element per object.
 */
import {
  depthColour,
  diskSizeColour,
  EMPTY_COLOUR,
  FAMILY_HUES,
  familyColour,
  familyHue,
  familyHueColour,
  heatColour,
  hilbertIndex,
  MAX_MAP_ORDER,
  TYPE_COLOURS,
  type MapAttribute,
  type Rgb,
} from '../../common/pack-map-geometry.ts';
import { formatBytes, formatCount } from '../../common/format.ts';
import { PACK_HEADER_BYTES, TYPE_NAMES } from '../format/pack-file.ts';
import type { PackModel } from '../model/pack-model.ts';
import type { LoadedRecording } from '../trace/load-recording.ts';

/** Colour of a cell that no read touched, when a recording is drawn over the map: the attribute's, dimmed. */
const UNREAD_DIMMING = 0.3;

export interface LegendEntry {
  label: string;
  colour: Rgb;
}

export interface RenderedRegion {
  /** Cells across and down. */
  width: number;
  height: number;
  /** Row-major RGBA, 4 bytes per cell. */
  rgba: Uint8Array;
  /** Cells over which at least one read of the overlaid recording lies. */
  litCells: number;
}

export interface MapRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One pack's map: the model's offsets in pack order and, when a recording is drawn, its reads per object. */
/**
 * The object number (idx order) at the cell (x, y) of `model`'s map at `order`: the one holding the
 * cell's first byte; −1 past the pack's end. A binary search over the model's own columns, with no
 * PackMap: a hover's lookup where the model is and the map is not (the server's thread answers the
 * map's hovers itself rather than wait behind the tile its map worker is drawing).
 */
export function objectAtCell(model: PackModel, order: number, x: number, y: number): number {
  const dataEnd = model.packSize - model.hash.size;
  const span = dataEnd - PACK_HEADER_BYTES;
  const d = hilbertIndex(checkOrder(order), x, y);
  // As PackMap.cellBytes: the cell's first byte.
  const start = PACK_HEADER_BYTES + Math.floor((d * span) / 4 ** order);
  if (start >= dataEnd || model.count === 0) return -1;
  const { byOffset, offset } = model.columns;
  let low = 0;
  let high = model.count - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (offset[byOffset[middle]!]! <= start) low = middle;
    else high = middle - 1;
  }
  return byOffset[low]!;
}

export class PackMap {
  /** Offsets of the objects in pack order (ascending). */
  private readonly offsets: Float64Array;
  private readonly byOffset: Uint32Array;
  readonly dataStart = PACK_HEADER_BYTES;
  /** The first byte of the trailing checksum. */
  readonly dataEnd: number;
  readonly maxDepth: number;
  readonly largestOnDisk: number;
  /** Reads of the objects at pack positions < p, at p (length count + 1); undefined without a recording. */
  private readonly readsBefore: Float64Array | undefined;
  /** Distinct objects of the pack the recording read. */
  readonly readObjects: number;
  private typeCounts: Record<string, number> | undefined;
  /** The most reads of any one object: the heat scale's base, found once here, not per tile (a scan of every object). */
  private readonly mostReadsOfOneObject: number;

  constructor(
    private readonly model: PackModel,
    readsPerObject?: Uint32Array,
  ) {
    const { columns } = model;
    this.byOffset = columns.byOffset;
    // Offsets in pack order only: derivedColumns() would also build the child index, roots and
    // family sizes (about a second on git.git) before the first picture; the family attribute builds
    // the roots when it is first drawn (rootOf).
    const offsets = new Float64Array(model.count);
    for (let p = 0; p < model.count; p++) offsets[p] = columns.offset[this.byOffset[p]!]!;
    this.offsets = offsets;
    this.dataEnd = model.packSize - model.hash.size;
    let maxDepth = 0;
    let largest = 0;
    for (let n = 0; n < model.count; n++) {
      if (columns.depth[n]! > maxDepth) maxDepth = columns.depth[n]!;
      const disk = columns.diskSize.get(n);
      if (disk > largest) largest = disk;
    }
    this.maxDepth = maxDepth;
    this.largestOnDisk = largest;
    let distinct = 0;
    let most = 0;
    if (readsPerObject !== undefined) {
      if (readsPerObject.length !== model.count)
        throw new Error(`reads per object: ${readsPerObject.length} counts for ${model.count} objects`);
      const before = new Float64Array(model.count + 1);
      for (let p = 0; p < model.count; p++) {
        const reads = readsPerObject[this.byOffset[p]!]!;
        if (reads > 0) distinct++;
        if (reads > most) most = reads;
        before[p + 1] = before[p]! + reads;
      }
      this.readsBefore = before;
    }
    this.readObjects = distinct;
    this.mostReadsOfOneObject = most;
  }

  get objectCount(): number {
    return this.model.count;
  }

  /** The smallest order whose cells hold at most `bytesPerCell` bytes each. */
  orderFor(bytesPerCell: number): number {
    const span = this.dataEnd - this.dataStart;
    let order = 0;
    while (order < MAX_MAP_ORDER && span / 4 ** order > bytesPerCell) order++;
    return order;
  }

  /** Bytes of the pack one cell covers at `order`. */
  bytesPerCell(order: number): number {
    return (this.dataEnd - this.dataStart) / 4 ** checkOrder(order);
  }

  /** The byte range [start, end) of the pack the cell at distance `d` covers at `order`. */
  cellBytes(order: number, d: number): [number, number] {
    const span = this.dataEnd - this.dataStart;
    const cells = 4 ** order;
    return [this.dataStart + Math.floor((d * span) / cells), this.dataStart + Math.floor(((d + 1) * span) / cells)];
  }

  /** The pack position (index into pack order) of the object holding byte `offset` of the pack. */
  positionAt(offset: number): number {
    const offsets = this.offsets;
    let low = 0;
    let high = offsets.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (offsets[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** The object number (idx order) at the cell (x, y) of the map at `order`: the one holding the cell's first byte; −1 past the pack's end. */
  objectAtCell(order: number, x: number, y: number): number {
    return objectAtCell(this.model, order, x, y);
  }

  /** The cell of the map at `order` that holds the first byte of object `n` (idx order). */
  cellOf(order: number, n: number): number {
    const span = this.dataEnd - this.dataStart;
    const offset = this.model.columns.offset[n]!;
    return Math.min(4 ** order - 1, Math.floor(((offset - this.dataStart) * 4 ** order) / span));
  }

  /** Draws the cells of `region` at `order`, coloured by `attribute`, with the reads as heat when the map has a recording. */
  render(order: number, attribute: MapAttribute, region: MapRegion): RenderedRegion {
    checkOrder(order);
    const side = 2 ** order;
    if (
      region.x < 0 ||
      region.y < 0 ||
      region.width < 1 ||
      region.height < 1 ||
      region.x + region.width > side ||
      region.y + region.height > side
    ) {
      throw new Error(
        `map region ${region.width}×${region.height} at (${region.x}, ${region.y}) is outside the ${side}×${side} map`,
      );
    }
    const rgba = new Uint8Array(region.width * region.height * 4);
    const hottest = this.hottestCell(order);
    const colours = this.coloursOf(attribute);
    if (isAlignedSquare(region)) {
      const aligned = this.renderAligned(order, colours, region, rgba, hottest);
      if (aligned !== undefined) return aligned;
    }
    let lit = 0;
    for (let row = 0; row < region.height; row++) {
      for (let column = 0; column < region.width; column++) {
        const d = hilbertIndex(order, region.x + column, region.y + row);
        const [start, end] = this.cellBytes(order, d);
        let colour: Rgb = EMPTY_COLOUR;
        if (start < this.dataEnd && this.model.count > 0) {
          const first = this.positionAt(start);
          colour = unpack(colours[first]!);
          if (this.readsBefore !== undefined) {
            const last = this.positionAt(Math.max(start, Math.min(end, this.dataEnd) - 1));
            const reads = this.readsBefore[last + 1]! - this.readsBefore[first]!;
            if (reads > 0) {
              colour = heatColour(reads, hottest);
              lit++;
            } else {
              colour = [colour[0] * UNREAD_DIMMING, colour[1] * UNREAD_DIMMING, colour[2] * UNREAD_DIMMING];
            }
          }
        }
        const at = (row * region.width + column) * 4;
        rgba[at] = colour[0];
        rgba[at + 1] = colour[1];
        rgba[at + 2] = colour[2];
        rgba[at + 3] = 255;
      }
    }
    return { width: region.width, height: region.height, rgba, litCells: lit };
  }

  /**
   * A tile (an aligned square of side 2^k) is one stretch of 4^k consecutive distances on the
   * Hilbert curve, so its cells are visited in file order and the objects under them found by
   * walking forward through the pack instead of a binary search per cell (bench/README.md,
   * "Figures the comments rely on"). Same colours as the general loop.
   */
  private renderAligned(
    order: number,
    colours: Uint32Array,
    region: MapRegion,
    rgba: Uint8Array,
    hottest: number,
  ): RenderedRegion | undefined {
    const side = region.width;
    const cells = side * side;
    const d0 = Math.floor(hilbertIndex(order, region.x, region.y) / cells) * cells;
    const span = this.dataEnd - this.dataStart;
    const total = 4 ** order;
    const offsets = this.offsets;
    const count = this.model.count;
    const before = this.readsBefore;
    const n = 1 << order;
    let first = count > 0 ? this.positionAt(this.dataStart + Math.floor((d0 * span) / total)) : 0;
    // Few cells over many objects (the whole pack at a low order): a binary search per cell is cheaper than the walk.
    const spanned =
      count > 0
        ? this.positionAt(Math.min(this.dataEnd - 1, this.dataStart + Math.floor(((d0 + cells) * span) / total))) -
          first
        : 0;
    if (spanned > cells * 32) return undefined;
    let last = first;
    let lit = 0;
    for (let i = 0; i < cells; i++) {
      const d = d0 + i;
      // hilbertPoint without its arrays: this loop runs for every cell of every tile.
      let x = 0;
      let y = 0;
      // d < 4^15 = 2^30: integer bit operations are exact.
      let t = d;
      for (let s = 1; s < n; s <<= 1) {
        const rx = (t >>> 1) & 1;
        const ry = (t ^ rx) & 1;
        if (ry === 0) {
          if (rx === 1) {
            x = s - 1 - x;
            y = s - 1 - y;
          }
          const swap = x;
          x = y;
          y = swap;
        }
        x += s * rx;
        y += s * ry;
        t >>>= 2;
      }
      const start = this.dataStart + Math.floor((d * span) / total);
      const end = this.dataStart + Math.floor(((d + 1) * span) / total);
      let colour: Rgb = EMPTY_COLOUR;
      if (start < this.dataEnd && count > 0) {
        while (first + 1 < count && offsets[first + 1]! <= start) first++;
        colour = unpack(colours[first]!);
        if (before !== undefined) {
          const lastByte = Math.max(start, Math.min(end, this.dataEnd) - 1);
          if (last < first) last = first;
          while (last + 1 < count && offsets[last + 1]! <= lastByte) last++;
          const reads = before[last + 1]! - before[first]!;
          if (reads > 0) {
            colour = heatColour(reads, hottest);
            lit++;
          } else {
            colour = [colour[0] * UNREAD_DIMMING, colour[1] * UNREAD_DIMMING, colour[2] * UNREAD_DIMMING];
          }
        }
      }
      const at = ((y - region.y) * side + (x - region.x)) * 4;
      rgba[at] = colour[0];
      rgba[at + 1] = colour[1];
      rgba[at + 2] = colour[2];
      rgba[at + 3] = 255;
    }
    return { width: side, height: side, rgba, litCells: lit };
  }

  /** What the colours of `attribute` mean on this pack. */
  legend(attribute: MapAttribute): LegendEntry[] {
    switch (attribute) {
      case 'type': {
        // Only this legend counts types: a scan of every object, once per map.
        const counts = (this.typeCounts ??= this.model.counts().byType);
        return [1, 2, 3, 4].map((type) => ({
          label: `${TYPE_NAMES[type]} (${formatCount(counts[TYPE_NAMES[type]!] ?? 0)})`,
          colour: TYPE_COLOURS[type]!,
        }));
      }
      case 'depth': {
        const steps = Math.min(5, this.maxDepth + 1);
        return Array.from({ length: steps }, (_, i) => {
          const depth = steps === 1 ? 0 : Math.round((i * this.maxDepth) / (steps - 1));
          return {
            label: depth === 0 ? 'depth 0 (not a delta)' : `depth ${depth}`,
            colour: depthColour(depth, this.maxDepth),
          };
        });
      }
      case 'disk-size': {
        const sizes = [16, 256, 4096, 65536, this.largestOnDisk].filter(
          (size, i, all) => size <= this.largestOnDisk && all.indexOf(size) === i,
        );
        return sizes.map((size) => ({
          label: `${formatBytes(size)} on disk`,
          colour: diskSizeColour(size, this.largestOnDisk),
        }));
      }
      case 'family':
        return [0, 1, 2, 3].map((root) => ({
          label: root === 0 ? 'one hue per delta family (24 hues, by its root)' : '',
          colour: familyColour(root),
        }));
    }
  }

  /**
   * Every object's colour under `attribute`, in pack order, packed 0xRRGGBB: computed once per
   * attribute and model (shared by the model's overlay maps), so that a tile costs a lookup per
   * cell. Computing the colour per cell (a root lookup, a logarithm and a ramp) made tiles slow
   * (bench/README.md, "Figures the comments rely on"); the table costs 4 bytes an object.
   */
  private coloursOf(attribute: MapAttribute): Uint32Array {
    let tables = colourTables.get(this.model);
    if (!tables) colourTables.set(this.model, (tables = new Map()));
    let table = tables.get(attribute);
    if (table) return table;
    const count = this.model.count;
    table = new Uint32Array(count);
    const byOffset = this.byOffset;
    if (attribute === 'family') {
      // One of 24 hues per root: each hue's colour computed once, not per object.
      const hues = Array.from({ length: FAMILY_HUES }, (_, hue) => pack(familyHueColour(hue)));
      for (let p = 0; p < count; p++) table[p] = hues[familyHue(this.model.rootOf(byOffset[p]!))]!;
    } else {
      for (let p = 0; p < count; p++) table[p] = pack(this.colourOf(byOffset[p]!, attribute));
    }
    tables.set(attribute, table);
    return table;
  }

  private colourOf(n: number, attribute: MapAttribute): Rgb {
    const { columns } = this.model;
    switch (attribute) {
      case 'type':
        return TYPE_COLOURS[columns.type[n]!] ?? EMPTY_COLOUR;
      case 'depth':
        return depthColour(columns.depth[n]!, this.maxDepth);
      case 'disk-size':
        return diskSizeColour(columns.diskSize.get(n), this.largestOnDisk);
      case 'family':
        return familyColour(this.model.rootOf(n));
    }
  }

  /** The most reads over one cell at `order`, for the heat scale (0 without a recording). */
  private hottestCell(order: number): number {
    const before = this.readsBefore;
    if (before === undefined) return 0;
    // The hottest cell holds at most the hottest run of objects one cell wide; an object's own count
    // bounds it from below. The scale only needs to be stable across tiles, so take the most reads
    // of any one object, times the objects a cell holds on average (at least 1).
    const perCell = Math.max(1, this.model.count / 4 ** order);
    return Math.max(1, Math.round(this.mostReadsOfOneObject * perCell));
  }
}

/** Colour tables per model (PackMap.coloursOf), dropped with the model. */
const colourTables = new WeakMap<PackModel, Map<MapAttribute, Uint32Array>>();

function pack(colour: Rgb): number {
  return ((colour[0] & 255) << 16) | ((colour[1] & 255) << 8) | (colour[2] & 255);
}

function unpack(packed: number): Rgb {
  return [(packed >>> 16) & 255, (packed >>> 8) & 255, packed & 255];
}

/** A square of side 2^k whose corner is a multiple of 2^k: one contiguous stretch of the Hilbert curve. */
function isAlignedSquare(region: MapRegion): boolean {
  const side = region.width;
  return side === region.height && (side & (side - 1)) === 0 && region.x % side === 0 && region.y % side === 0;
}

function checkOrder(order: number): number {
  if (!Number.isInteger(order) || order < 0 || order > MAX_MAP_ORDER)
    throw new Error(`map order ${order} is not an integer from 0 to ${MAX_MAP_ORDER}`);
  return order;
}

/** Reads per object (idx order) of `pack` in the recording's kept range. */
export function readsPerObject(loaded: LoadedRecording, pack: string): Uint32Array | undefined {
  const { resolved } = loaded;
  // The same file by another path (an alternates line through a symbolic link) is the same pack.
  let k = resolved.packs.findIndex((p) => p.location.files.pack === pack);
  if (k < 0) {
    const real = realpathOr(pack);
    k = resolved.packs.findIndex((p) => realpathOr(p.location.files.pack) === real);
  }
  if (k < 0) return undefined;
  const counts = new Uint32Array(resolved.packs[k]!.model.count);
  for (let i = loaded.range.start; i < loaded.range.end; i++)
    if (resolved.readPack[i] === k) counts[resolved.readObject[i]!]!++;
  return counts;
}

function realpathOr(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
