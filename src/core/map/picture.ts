/**
 * The CLI's Pack Map PNG with its scales: the map, the offsets marked on it, the offset ruler under
 * it, the caption, the legend and (for the size colouring) the size scale, drawn into one RGBA
 * image. A PNG carries no text, so the words are drawn with a bitmap font (bitmap-font.ts); the SVG
 * (src/cli/commands/map.ts) writes the same marks and words as text.
 */
import { type Rgb } from '../../common/pack-map-geometry.ts';
import {
  markLabel,
  pointOfOffset,
  rulerMarks,
  sizeScaleRamp,
  sizeScaleStops,
  type RulerMark,
} from '../../common/pack-map-scale.ts';
import { formatBytes } from '../../common/format.ts';
import { GLYPH_HEIGHT, GLYPH_WIDTH, GLYPHS } from './bitmap-font.ts';
import type { LegendEntry } from './pack-map.ts';

export interface MapScales {
  /** The map's side in pixels (2^order) and its order. */
  size: number;
  order: number;
  dataStart: number;
  dataEnd: number;
  caption: string;
  legend: LegendEntry[];
  /** Set for the size colouring: the top of its scale. */
  largestOnDisk?: number;
  /** A line about the recording drawn over the map. */
  recording?: string;
}

export interface Picture {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** The marks on the map: the ruler's offsets, each at the centre of the pixel holding it (the end: the last object byte). */
export function marksOnMap(scales: MapScales): (RulerMark & { x: number; y: number })[] {
  return rulerMarks(scales.dataStart, scales.dataEnd).map((mark) => {
    const [x, y] = pointOfOffset(
      scales.order,
      scales.dataStart,
      scales.dataEnd,
      Math.min(mark.offset, scales.dataEnd - 1),
    );
    return { ...mark, x: x + 0.5, y: y + 0.5 };
  });
}

const WHITE: Rgb = [255, 255, 255];
const INK: Rgb = [32, 32, 32];
const MARGIN = 8;
const LINE = GLYPH_HEIGHT + 3;
/** The picture is at least this wide, so that the words below a small map fit. */
const MIN_WIDTH = 480;

/** Where the ruler's line lies in a picture `width` wide: x of an offset. */
export function rulerX(scales: MapScales, width: number, offset: number): number {
  const span = scales.dataEnd - scales.dataStart;
  return Math.round(MARGIN + ((offset - scales.dataStart) / span) * (width - 2 * MARGIN - 1));
}

class Canvas {
  readonly rgba: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.rgba = new Uint8Array(width * height * 4);
    this.fill(0, 0, width, height, WHITE);
  }

  fill(x0: number, y0: number, w: number, h: number, colour: Rgb): void {
    for (let y = Math.max(0, y0); y < Math.min(this.height, y0 + h); y++)
      for (let x = Math.max(0, x0); x < Math.min(this.width, x0 + w); x++) this.set(x, y, colour);
  }

  set(x: number, y: number, colour: Rgb): void {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    const at = (y * this.width + x) * 4;
    this.rgba[at] = colour[0];
    this.rgba[at + 1] = colour[1];
    this.rgba[at + 2] = colour[2];
    this.rgba[at + 3] = 255;
  }

  /** Text in the bitmap font, its top-left at (x, y); characters outside ASCII as '?'. */
  text(x: number, y: number, words: string, colour: Rgb = INK): void {
    [...words].forEach((char, i) => {
      // The caption's "512×512": the font is ASCII.
      const code = (char === '×' ? 'x' : char).charCodeAt(0);
      const glyph = GLYPHS[code >= 32 && code < 127 ? code - 32 : 31]!;
      for (let row = 0; row < GLYPH_HEIGHT; row++) {
        const bits = parseInt(glyph.slice(row * 2, row * 2 + 2), 16);
        for (let column = 0; column < GLYPH_WIDTH; column++)
          if (bits & (1 << (GLYPH_WIDTH - 1 - column))) this.set(x + i * GLYPH_WIDTH + column, y + row, colour);
      }
    });
  }

  /** A ring of radius r around (cx, cy), in `colour` with a white halo so that it shows on any map colour. */
  ring(cx: number, cy: number, r: number): void {
    for (let y = Math.floor(cy - r - 2); y <= Math.ceil(cy + r + 2); y++)
      for (let x = Math.floor(cx - r - 2); x <= Math.ceil(cx + r + 2); x++) {
        const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
        if (Math.abs(d - r) < 0.8) this.set(x, y, INK);
        else if (Math.abs(d - r) < 1.9) this.set(x, y, WHITE);
      }
  }
}

const textWidth = (words: string): number => words.length * GLYPH_WIDTH;

/** Words broken into lines of at most `width` pixels. */
function wrap(words: string, width: number): string[] {
  const most = Math.max(8, Math.floor(width / GLYPH_WIDTH));
  const lines: string[] = [];
  let line = '';
  for (const word of words.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > most) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The rows of the legend that say something (the family legend is one label over its hues). */
function legendRows(legend: LegendEntry[]): { colours: Rgb[]; label: string }[] {
  if (legend.length > 0 && legend.slice(1).every((entry) => entry.label === ''))
    return [{ colours: legend.map((entry) => entry.colour), label: legend[0]!.label }];
  return legend.filter((entry) => entry.label !== '').map((entry) => ({ colours: [entry.colour], label: entry.label }));
}

// Stays long: a linear script that lays the picture out from top to bottom, each part a few lines.
/** The map (row-major RGBA, `size` × `size`) with its marks, ruler, caption, legend and size scale below. */
export function pictureWithScales(mapRgba: Uint8Array, scales: MapScales): Picture {
  const { size } = scales;
  const width = Math.max(size, MIN_WIDTH);
  const caption = wrap(scales.caption, width - 2 * MARGIN);
  const rows = legendRows(scales.legend);
  const recording = scales.recording === undefined ? [] : wrap(scales.recording, width - 2 * MARGIN);
  const rulerTop = size + MARGIN;
  const rulerHeight = 8 + LINE + 4;
  const captionTop = rulerTop + rulerHeight;
  const legendTop = captionTop + caption.length * LINE + 6;
  const sizeTop = legendTop + rows.length * LINE + 4;
  const sizeHeight = scales.largestOnDisk === undefined ? 0 : 12 + LINE + 6;
  const recordingTop = sizeTop + sizeHeight;
  const height = recordingTop + recording.length * LINE + MARGIN;
  const canvas = new Canvas(width, height);
  for (let y = 0; y < size; y++) canvas.rgba.set(mapRgba.subarray(y * size * 4, (y + 1) * size * 4), y * width * 4);

  // The offsets on the map: a ring where the curve passes each, its label beside it.
  for (const mark of marksOnMap(scales)) {
    canvas.ring(mark.x, mark.y, mark.kind === 'tick' ? 3 : 4.5);
    const label = markLabel(mark);
    const tx = mark.x + 8 + textWidth(label) > size ? mark.x - 8 - textWidth(label) : mark.x + 8;
    // Beside the ring, or under it at the map's top edge (where the curve starts and ends), not over it.
    const ty = mark.y < GLYPH_HEIGHT ? mark.y + 6 : Math.min(size - GLYPH_HEIGHT - 1, mark.y - GLYPH_HEIGHT / 2);
    canvas.fill(Math.round(tx) - 2, Math.round(ty) - 1, textWidth(label) + 4, GLYPH_HEIGHT + 1, WHITE);
    canvas.text(Math.round(tx), Math.round(ty), label);
  }

  // The ruler: the curve unrolled, left to right, its marks as ticks with their labels under them.
  const lineY = rulerTop + 3;
  canvas.fill(MARGIN, lineY, width - 2 * MARGIN, 1, INK);
  let labelsEnd = -Infinity;
  const marks = rulerMarks(scales.dataStart, scales.dataEnd);
  marks.forEach((mark, i) => {
    const x = rulerX(scales, width, mark.offset);
    const tall = mark.kind !== 'tick';
    canvas.fill(x - (tall ? 1 : 0), lineY - (tall ? 3 : 2), tall ? 2 : 1, tall ? 8 : 6, INK);
    const label = markLabel(mark);
    const left =
      mark.kind === 'start' ? x : mark.kind === 'end' ? x - textWidth(label) : x - Math.round(textWidth(label) / 2);
    // A tick's label that would run into its neighbour's (or the end's) is left out; the tick stays.
    const endLabel = markLabel(marks.at(-1)!);
    const endLeft = rulerX(scales, width, marks.at(-1)!.offset) - textWidth(endLabel);
    if (i !== marks.length - 1 && (left < labelsEnd + GLYPH_WIDTH || left + textWidth(label) > endLeft - GLYPH_WIDTH))
      return;
    canvas.text(left, lineY + 6, label);
    labelsEnd = left + textWidth(label);
  });

  caption.forEach((line, i) => canvas.text(MARGIN, captionTop + i * LINE, line));
  rows.forEach((row, i) => {
    const y = legendTop + i * LINE;
    row.colours.forEach((colour, k) => canvas.fill(MARGIN + k * 12, y + 1, 10, 10, colour));
    canvas.text(MARGIN + row.colours.length * 12 + 4, y, row.label);
  });
  if (scales.largestOnDisk !== undefined) {
    // The size colouring's ramp on its log scale, sizes under it where they fall.
    const barWidth = Math.min(width - 2 * MARGIN, 320);
    sizeScaleRamp(scales.largestOnDisk, barWidth).forEach((colour, x) =>
      canvas.fill(MARGIN + x, sizeTop, 1, 10, colour),
    );
    for (const stop of sizeScaleStops(scales.largestOnDisk)) {
      const label = formatBytes(stop.bytes, 'compact');
      const x = MARGIN + Math.round(stop.at * (barWidth - 1));
      canvas.fill(x, sizeTop + 10, 1, 3, INK);
      const left = stop.at === 0 ? x : stop.at === 1 ? x - textWidth(label) : x - Math.round(textWidth(label) / 2);
      canvas.text(left, sizeTop + 13, label);
    }
  }
  recording.forEach((line, i) => canvas.text(MARGIN, recordingTop + i * LINE, line));
  return { width, height, rgba: canvas.rgba };
}
