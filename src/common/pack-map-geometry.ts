/**
 * The Pack Map's geometry and colours, pure so that the CLI's PNG and a webview draw the same map.
 *
 * Layout: the pack's object bytes (offset 12 to the trailing checksum) laid along a Hilbert curve
 * filling a square of 2^order × 2^order cells, each cell the same number of bytes. Bytes, not
 * objects, because what the map is for is where git's reads land and how far apart: distance on the
 * curve is distance in the file, a 40 MB blob takes the room it takes on disk (and in the page
 * cache), and a seek of N bytes is the same length anywhere in the picture. A Hilbert curve rather
 * than a strip because it keeps neighbours in the file neighbours in the square (a strip wraps
 * every row), so a delta family written together is one blob of colour, and because a square of
 * 1024 × 1024 cells shows a whole 500 MB pack at about 500 bytes a cell on one screen.
 */

/** The cell (x, y) at distance `d` along the Hilbert curve of a 2^order square (d < 4^order). */
export function hilbertPoint(order: number, d: number): [number, number] {
  let x = 0;
  let y = 0;
  let t = d;
  for (let s = 1; s < 2 ** order; s *= 2) {
    const rx = 1 & Math.floor(t / 2);
    const ry = 1 & (t ^ rx);
    [x, y] = rotate(s, x, y, rx, ry);
    x += s * rx;
    y += s * ry;
    t = Math.floor(t / 4);
  }
  return [x, y];
}

/** The distance along the Hilbert curve of a 2^order square of the cell (x, y). */
export function hilbertIndex(order: number, x: number, y: number): number {
  let d = 0;
  let px = x;
  let py = y;
  for (let s = 2 ** (order - 1); s >= 1; s /= 2) {
    const rx = (px & s) > 0 ? 1 : 0;
    const ry = (py & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    [px, py] = rotate(s, px, py, rx, ry);
  }
  return d;
}

function rotate(s: number, x: number, y: number, rx: number, ry: number): [number, number] {
  if (ry === 0) {
    if (rx === 1) {
      x = s - 1 - x;
      y = s - 1 - y;
    }
    return [y, x];
  }
  return [x, y];
}

/** The largest order a map may have: 2^15 × 2^15 cells (1 Gi cells; only tiles of it are drawn). */
export const MAX_MAP_ORDER = 15;

/** What a cell's colour shows. */
export type MapAttribute = 'type' | 'depth' | 'family' | 'disk-size';
export const MAP_ATTRIBUTES: readonly MapAttribute[] = ['type', 'depth', 'family', 'disk-size'];

export type Rgb = readonly [number, number, number];

/** Cells of the map beyond the last object (the square is larger than the pack). */
export const EMPTY_COLOUR: Rgb = [24, 24, 24];

/**
 * Object types, by git's type number (1 commit, 2 tree, 3 blob, 4 tag): four hues far apart that
 * stay apart for the common colour-vision deficiencies (Okabe–Ito's palette).
 */
export const TYPE_COLOURS: Readonly<Record<number, Rgb>> = {
  1: [230, 159, 0],
  2: [86, 180, 233],
  3: [0, 158, 115],
  4: [204, 121, 167],
};

/** A sequential ramp (dark blue to yellow, viridis-like), t in [0, 1]. */
export function rampColour(t: number): Rgb {
  const stops: Rgb[] = [
    [68, 1, 84],
    [59, 82, 139],
    [33, 145, 140],
    [94, 201, 98],
    [253, 231, 37],
  ];
  const clamped = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  const at = clamped * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(at));
  const f = at - i;
  const a = stops[i]!;
  const b = stops[i + 1]!;
  return [
    Math.round(a[0] + (b[0] - a[0]) * f),
    Math.round(a[1] + (b[1] - a[1]) * f),
    Math.round(a[2] + (b[2] - a[2]) * f),
  ];
}

/** Delta depth 0 … maxDepth on the ramp (depth 0, a whole object, the darkest). */
export function depthColour(depth: number, maxDepth: number): Rgb {
  return rampColour(maxDepth === 0 ? 0 : depth / maxDepth);
}

/** Size on disk on a log scale from 16 bytes to `largest`. */
export function diskSizeColour(bytes: number, largest: number): Rgb {
  const low = Math.log2(16);
  const high = Math.max(low + 1, Math.log2(Math.max(16, largest)));
  return rampColour((Math.log2(Math.max(16, bytes)) - low) / (high - low));
}

/** Hues a family may take. */
export const FAMILY_HUES = 24;

/** A delta family (by its root's object number) as one of 24 hues: neighbouring families differ. */
export function familyColour(root: number): Rgb {
  return familyHueColour(familyHue(root));
}

/** Which of the FAMILY_HUES hues the family of `root` takes. */
export function familyHue(root: number): number {
  // A multiplicative hash spreads consecutive roots over the hue circle.
  return ((root * 2654435761) >>> 0) % FAMILY_HUES;
}

export function familyHueColour(hue: number): Rgb {
  return hslToRgb(hue * (360 / FAMILY_HUES), 0.65, 0.55);
}

function hslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  const c = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const h = hue / 60;
  const x = c * (1 - Math.abs((h % 2) - 1));
  const [r, g, b] =
    h < 1 ? [c, x, 0] : h < 2 ? [x, c, 0] : h < 3 ? [0, c, x] : h < 4 ? [0, x, c] : h < 5 ? [x, 0, c] : [c, 0, x];
  const m = lightness - c / 2;
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}

/** A read count over a cell as heat: 0 is no overlay; 1 read is visible, the hottest cell is white-hot. */
export function heatColour(reads: number, hottest: number): Rgb {
  const t = hottest <= 1 ? 1 : Math.log(reads) / Math.log(hottest);
  // Red to yellow to white.
  const clamped = Math.min(1, Math.max(0, t));
  if (clamped < 0.5) return [255, Math.round(60 + 390 * clamped), 0];
  return [255, 255, Math.round(510 * (clamped - 0.5))];
}
