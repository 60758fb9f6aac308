/**
 * The squarified treemap layout on seeded random lists (sizes spread over six orders of magnitude,
 * as a repository's paths are) and on hand-made ones: every positive value's rectangle has its
 * share of the area, lies inside the bounds and overlaps no other; together they fill the bounds;
 * the same list gives the same rectangles, in the order of the values; a zero takes no room.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { squarify, type TreemapRect } from '../../src/common/squarify.ts';
import { SeededRandom } from '../support/seeded-random.ts';

const EPSILON = 1e-6;

function checkLayout(values: number[], bounds: TreemapRect, label: string): (TreemapRect | null)[] {
  const rects = squarify(values, bounds);
  assert.equal(rects.length, values.length, label);
  const total = values.filter((v) => v > 0).reduce((s, v) => s + v, 0);
  const boundsArea = bounds.width * bounds.height;
  let covered = 0;
  const laid: TreemapRect[] = [];
  values.forEach((value, i) => {
    const r = rects[i]!;
    if (!(value > 0)) {
      assert.equal(r, null, `${label}: value ${i} (${value}) takes no room`);
      return;
    }
    assert.ok(r, `${label}: value ${i} has a rectangle`);
    assert.ok(r.width >= -EPSILON && r.height >= -EPSILON, `${label}: ${i} has no negative side`);
    const area = r.width * r.height;
    // Proportional: its share of the bounds is its share of the total (relative to the bounds' area).
    assert.ok(
      Math.abs(area - (value / total) * boundsArea) <= 1e-6 * boundsArea,
      `${label}: value ${i} has area ${area}, expected ${(value / total) * boundsArea}`,
    );
    assert.ok(r.x >= bounds.x - EPSILON && r.y >= bounds.y - EPSILON, `${label}: ${i} starts inside`);
    assert.ok(
      r.x + r.width <= bounds.x + bounds.width + EPSILON && r.y + r.height <= bounds.y + bounds.height + EPSILON,
      `${label}: ${i} ends inside`,
    );
    covered += area;
    laid.push(r);
  });
  assert.ok(Math.abs(covered - boundsArea) <= 1e-6 * boundsArea, `${label}: the rectangles fill the bounds`);
  for (let a = 0; a < laid.length; a++)
    for (let b = a + 1; b < laid.length; b++) {
      const p = laid[a]!;
      const q = laid[b]!;
      const overlapX = Math.min(p.x + p.width, q.x + q.width) - Math.max(p.x, q.x);
      const overlapY = Math.min(p.y + p.height, q.y + q.height) - Math.max(p.y, q.y);
      assert.ok(
        overlapX <= EPSILON * bounds.width || overlapY <= EPSILON * bounds.height,
        `${label}: rectangles ${a} and ${b} overlap`,
      );
    }
  return rects;
}

test('seeded random lists: proportional areas, inside the bounds, no overlaps, the bounds filled', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const random = new SeededRandom(seed);
    const count = 1 + Math.floor(random.next() * 120);
    const values = Array.from({ length: count }, () => Math.round(10 ** (random.next() * 6)));
    values.sort((a, b) => b - a);
    const bounds = {
      x: random.next() * 50,
      y: random.next() * 50,
      width: 50 + random.next() * 900,
      height: 30 + random.next() * 600,
    };
    checkLayout(values, bounds, `seed ${seed}`);
    // Unsorted lists are laid as given, as well.
    checkLayout(values.slice().reverse(), bounds, `seed ${seed} reversed`);
  }
});

test('stable: the same list gives the same rectangles, in the order of the values', () => {
  const values = [500, 300, 120, 80, 80, 10, 1];
  const bounds = { x: 0, y: 0, width: 600, height: 400 };
  const first = checkLayout(values, bounds, 'stable');
  assert.deepEqual(squarify(values.slice(), { ...bounds }), first);
  // The first (largest) value starts at the bounds' corner; a later one never comes before it in both axes.
  assert.deepEqual([first[0]!.x, first[0]!.y], [0, 0]);
  // The paper's example: 6 6 4 3 2 2 1 in a 6 × 4 rectangle gives its rows (two, then three, then two).
  const paper = squarify([6, 6, 4, 3, 2, 2, 1], { x: 0, y: 0, width: 6, height: 4 }) as TreemapRect[];
  const round = (r: TreemapRect): number[] => [r.x, r.y, r.width, r.height].map((v) => Math.round(v * 1000) / 1000);
  assert.deepEqual(round(paper[0]!), [0, 0, 3, 2]);
  assert.deepEqual(round(paper[1]!), [0, 2, 3, 2]);
  assert.deepEqual(round(paper[2]!), [3, 0, 1.714, 2.333]);
});

test('zeros, a single value and empty bounds', () => {
  checkLayout([0, 5, 0, 5], { x: 0, y: 0, width: 10, height: 10 }, 'zeros');
  assert.deepEqual(squarify([7], { x: 1, y: 2, width: 3, height: 4 }), [{ x: 1, y: 2, width: 3, height: 4 }]);
  assert.deepEqual(squarify([1, 2], { x: 0, y: 0, width: 0, height: 10 }), [null, null]);
  assert.deepEqual(squarify([], { x: 0, y: 0, width: 10, height: 10 }), []);
  assert.deepEqual(squarify([0, Number.NaN, -3], { x: 0, y: 0, width: 10, height: 10 }), [null, null, null]);
});
