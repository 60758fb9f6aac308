// Arrow keys in the treemap: from the focused cell to the nearest cell on that side. Pure (no
// DOM): the webview calls it with the cells' rectangles, the unit tests with made-up ones.
import type { TreemapRect } from '../common/squarify.ts';

export type Direction = 'left' | 'right' | 'up' | 'down';

/**
 * The cell an arrow key moves to from cell `from`: among the cells wholly past its edge on that
 * side, the one whose gap along the key's axis plus the distance of the centres across it is least
 * (a cell beside it beats one further along, a cell in line beats one off to the side); undefined
 * at the edge of the map.
 */
export function moveFocus(rects: readonly TreemapRect[], from: number, direction: Direction): number | undefined {
  const a = rects[from];
  if (a === undefined) return undefined;
  const horizontal = direction === 'left' || direction === 'right';
  const centre = (r: TreemapRect): [number, number] => [r.x + r.width / 2, r.y + r.height / 2];
  const [ax, ay] = centre(a);
  let best: number | undefined;
  let bestScore = Infinity;
  rects.forEach((b, i) => {
    if (i === from) return;
    // Half a pixel of slack: edges are shared between neighbours.
    const gap =
      direction === 'right'
        ? b.x - (a.x + a.width)
        : direction === 'left'
          ? a.x - (b.x + b.width)
          : direction === 'down'
            ? b.y - (a.y + a.height)
            : a.y - (b.y + b.height);
    if (gap < -0.5) return;
    const [bx, by] = centre(b);
    // Overlapping spans across the axis count as in line.
    const overlap = horizontal
      ? Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)
      : Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
    const across = overlap > 0 ? 0 : horizontal ? Math.abs(by - ay) : Math.abs(bx - ax);
    const score = Math.max(0, gap) + across + (horizontal ? Math.abs(by - ay) : Math.abs(bx - ax)) / 1000;
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best;
}
