// The squarified treemap layout (Bruls, Huizing and van Wijk, "Squarified Treemaps", 2000): each
// value gets a rectangle of area proportional to it inside the bounds, laid in rows along the
// shorter side, a row closed when adding the next value would make its worst aspect ratio worse.
// Values are laid in the order given (the caller sorts them, largest first, so that the layout is
// squarest and the same list always gives the same picture). Pure: the treemap webview and its
// tests use it.

export interface TreemapRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The worst aspect ratio of a row of areas summing to `sum` (largest `max`, smallest `min`) laid along a side of `side`. */
function worstRatio(sum: number, max: number, min: number, side: number): number {
  const side2 = side * side;
  const sum2 = sum * sum;
  return Math.max((side2 * max) / sum2, sum2 / (side2 * min));
}

/**
 * A rectangle per value, in the values' order: its area is `value / total` of the bounds' area.
 * A value of 0 (or less, or not finite) gets null: it takes no room. The rectangles tile the bounds
 * without overlapping; the last of each row ends exactly at the row's edge, so no gap is left by rounding.
 */
export function squarify(values: readonly number[], bounds: TreemapRect): (TreemapRect | null)[] {
  const placed: (TreemapRect | null)[] = values.map(() => null);
  const items: number[] = [];
  let total = 0;
  values.forEach((value, i) => {
    if (Number.isFinite(value) && value > 0) {
      items.push(i);
      total += value;
    }
  });
  if (items.length === 0 || bounds.width <= 0 || bounds.height <= 0) return placed;
  const scale = (bounds.width * bounds.height) / total;
  const area = (i: number): number => values[i]! * scale;
  const free = { ...bounds };
  let row: number[] = [];
  let rowSum = 0;
  let rowMax = 0;
  let rowMin = Infinity;
  const closeRow = (last: boolean): void => {
    layRow(row, rowSum, area, free, placed, last);
    row = [];
    rowSum = 0;
    rowMax = 0;
    rowMin = Infinity;
  };
  for (let k = 0; k < items.length; k++) {
    const i = items[k]!;
    const a = area(i);
    const side = Math.min(free.width, free.height);
    if (
      row.length > 0 &&
      worstRatio(rowSum + a, Math.max(rowMax, a), Math.min(rowMin, a), side) > worstRatio(rowSum, rowMax, rowMin, side)
    )
      closeRow(false);
    row.push(i);
    rowSum += a;
    rowMax = Math.max(rowMax, a);
    rowMin = Math.min(rowMin, a);
  }
  closeRow(true);
  return placed;
}

/**
 * One row along the free rectangle's shorter side: a column at its left when it is wider than high,
 * else a row at its top; the free rectangle shrinks by it. The last row takes all that is left.
 */
function layRow(
  row: readonly number[],
  rowSum: number,
  area: (i: number) => number,
  free: TreemapRect,
  placed: (TreemapRect | null)[],
  last: boolean,
): void {
  const vertical = free.width >= free.height;
  const length = vertical ? free.height : free.width;
  const thickness = last ? (vertical ? free.width : free.height) : rowSum / length;
  let offset = 0;
  row.forEach((i, k) => {
    const span = k === row.length - 1 ? length - offset : (area(i) / rowSum) * length;
    placed[i] = vertical
      ? { x: free.x, y: free.y + offset, width: thickness, height: span }
      : { x: free.x + offset, y: free.y, width: span, height: thickness };
    offset += span;
  });
  if (vertical) {
    free.x += thickness;
    free.width -= thickness;
  } else {
    free.y += thickness;
    free.height -= thickness;
  }
}
