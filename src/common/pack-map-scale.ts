/**
 * The Pack Map's scales, pure so that the editor's map and the CLI's PNG and SVG mark the same
 * offsets: where an offset of the pack lies on the map's curve, which offsets a ruler marks, and
 * where a size lies on the size colouring's log ramp.
 *
 * A Hilbert map has no axis to read an offset from: the ruler is the curve unrolled into a line
 * (the pack's bytes from the header's end to the checksum, left to right), with the same offsets
 * marked on the map where the curve passes them, so that a place in the picture can be read as a
 * place in the file.
 */
import { diskSizeColour, hilbertPoint, type Rgb } from './pack-map-geometry.ts';

/**
 * The distance along the curve, at `order`, of the cell holding byte `offset` (PackMap.cellOf's
 * rule: cell d covers [start + ⌊d·span/4^order⌋, start + ⌊(d+1)·span/4^order⌋)).
 */
export function cellOfOffset(order: number, dataStart: number, dataEnd: number, offset: number): number {
  const cells = 4 ** order;
  const span = Math.max(1, dataEnd - dataStart);
  const at = Math.min(Math.max(offset, dataStart), dataEnd - 1) - dataStart;
  // The rule's inverse: the largest d whose first byte is at or before the offset.
  let d = Math.min(cells - 1, Math.floor(((at + 1) * cells) / span));
  while (d > 0 && Math.floor((d * span) / cells) > at) d--;
  return d;
}

/** The cell (x, y) at `order` that holds byte `offset`. */
export function pointOfOffset(order: number, dataStart: number, dataEnd: number, offset: number): [number, number] {
  return hilbertPoint(order, cellOfOffset(order, dataStart, dataEnd, offset));
}

/** A round step for marks over `bytes`: a power of two, so that marks read as whole KiB or MiB. */
export function rulerStep(bytes: number, atMost: number): number {
  let step = 1;
  while (bytes / step > atMost) step *= 2;
  return step;
}

/**
 * A round offset's label, exact: in MiB when the step is whole MiB, in KiB when whole KiB, else in
 * bytes ("1.3 MiB" for 1,363,968 would put the mark 3 KiB from where it says).
 */
export function offsetLabel(offset: number, step: number): string {
  const count = (n: number): string => n.toLocaleString('en-US');
  if (step >= 1 << 20 && offset % (1 << 20) === 0) return `${count(offset / (1 << 20))} MiB`;
  if (step >= 1024 && offset % 1024 === 0) return `${count(offset / 1024)} KiB`;
  return `${count(offset)} B`;
}

export interface RulerMark {
  offset: number;
  /** 'start' (the first object's byte), 'end' (the checksum's first byte) or a round offset between. */
  kind: 'start' | 'tick' | 'end';
  /** The step between the ruler's ticks (offsetLabel's unit). */
  step: number;
}

/** What a mark says: the start and end as exact offsets, a tick as a round size. */
export function markLabel(mark: RulerMark): string {
  if (mark.kind === 'start') return `start ${mark.offset.toLocaleString('en-US')}`;
  if (mark.kind === 'end') return `end ${mark.offset.toLocaleString('en-US')}`;
  return offsetLabel(mark.offset, mark.step);
}

/**
 * The marks of a ruler over [dataStart, dataEnd]: the start, the multiples of a power-of-two step
 * (about `ticks` of them) and the end; a tick closer to the start or end than a third of a step is
 * left out, so that labels do not overlap.
 */
export function rulerMarks(dataStart: number, dataEnd: number, ticks = 6): RulerMark[] {
  const step = rulerStep(dataEnd - dataStart, ticks);
  const marks: RulerMark[] = [{ offset: dataStart, kind: 'start', step }];
  for (let offset = Math.ceil(dataStart / step) * step; offset < dataEnd; offset += step)
    if (offset - dataStart > step / 3 && dataEnd - offset > step / 3) marks.push({ offset, kind: 'tick', step });
  marks.push({ offset: dataEnd, kind: 'end', step });
  return marks;
}

/** Where a size lies on the size colouring's ramp (diskSizeColour's log scale from 16 bytes to `largest`), 0 … 1. */
export function sizeScalePosition(bytes: number, largest: number): number {
  const low = Math.log2(16);
  const high = Math.max(low + 1, Math.log2(Math.max(16, largest)));
  return Math.min(1, Math.max(0, (Math.log2(Math.max(16, bytes)) - low) / (high - low)));
}

export interface SizeScaleStop {
  bytes: number;
  /** 0 … 1 along the ramp. */
  at: number;
  colour: Rgb;
}

/** The labelled sizes of the size scale: 16 B, then every 16th power up to the largest object, and the largest. */
export function sizeScaleStops(largest: number): SizeScaleStop[] {
  const sizes: number[] = [];
  for (let bytes = 16; bytes < largest; bytes *= 16) sizes.push(bytes);
  // The largest object, unless a round stop sits too close to it to label both.
  while (sizes.length > 1 && sizeScalePosition(sizes.at(-1)!, largest) > 0.7) sizes.pop();
  sizes.push(Math.max(16, largest));
  return sizes.map((bytes) => ({
    bytes,
    at: sizeScalePosition(bytes, largest),
    colour: diskSizeColour(bytes, largest),
  }));
}

/** The ramp's colours sampled at `steps` points from 16 bytes to `largest`, for a gradient bar. */
export function sizeScaleRamp(largest: number, steps: number): Rgb[] {
  const low = Math.log2(16);
  const high = Math.max(low + 1, Math.log2(Math.max(16, largest)));
  return Array.from({ length: steps }, (_, i) =>
    diskSizeColour(2 ** (low + ((high - low) * i) / Math.max(1, steps - 1)), largest),
  );
}
