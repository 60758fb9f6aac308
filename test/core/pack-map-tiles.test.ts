/**
 * The Pack Map's tiles (src/core/map/pack-map.ts): an aligned tile is drawn by walking its stretch
 * of the Hilbert curve through the pack in file order, any other region cell by cell with a binary
 * search. Both must give the same pixels, and those pixels must name the objects git says hold each
 * cell's first byte (verify-pack -v), with and without a recording's reads (git log's own
 * GIT_TRACE_PACK_ACCESS) drawn as heat.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hilbertPoint, MAP_ATTRIBUTES, TYPE_COLOURS } from '../../src/common/pack-map-geometry.ts';
import { hashAlgorithmByName } from '../../src/core/format/hash-algorithm.ts';
import { PackMap } from '../../src/core/map/pack-map.ts';
import { buildPackModel } from '../../src/core/model/build-pack-model.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import {
  entryHolding,
  historyRepository,
  onlyPackStem,
  verifyPackEntries,
  type VerifyPackEntry,
} from '../support/git-oracle.ts';

let model: PackModel;
let entries: VerifyPackEntry[];
let plain: PackMap;
let heat: PackMap;
const TYPE_NUMBER: Record<string, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

before(() => {
  const root = tempDir(undefined, 'packscope-map-tiles-');
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const sandbox = new GitSandbox(root);
  const repo = historyRepository(sandbox, 'history', {
    commits: 50,
    seed: 21,
    files: 5,
    linesPerFile: 40,
    repack: ['-adf', '--depth=20'],
  });
  const stem = onlyPackStem(path.join(repo, '.git', 'objects', 'pack'));
  entries = verifyPackEntries(sandbox, repo, `${stem}.pack`);
  model = buildPackModel({ pack: `${stem}.pack`, idx: `${stem}.idx` }, { hash: hashAlgorithmByName('sha1')! });
  const trace = path.join(root, 'log.trace');
  sandbox.git(repo, ['-c', 'core.deltaBaseCacheLimit=0', 'log', '--raw', '-n', '15'], {
    env: { GIT_TRACE_PACK_ACCESS: trace },
  });
  const byOffset = new Map<number, number>();
  for (let n = 0; n < model.count; n++) byOffset.set(model.columns.offset[n]!, n);
  const counts = new Uint32Array(model.count);
  for (const line of fs.readFileSync(trace, 'utf8').trim().split('\n'))
    counts[byOffset.get(Number(/ (\d+)$/.exec(line)![1]))!]!++;
  plain = new PackMap(model);
  heat = new PackMap(model, counts);
});

describe('Pack Map tiles', () => {
  test('an aligned tile and the same cells drawn one region row short (the cell-by-cell path) give the same pixels', () => {
    const maxOrder = plain.orderFor(1);
    assert.ok(maxOrder >= 6, `order ${maxOrder}`);
    for (const map of [plain, heat]) {
      for (const order of [2, 4, maxOrder - 1, maxOrder]) {
        const size = Math.min(16, 2 ** order);
        for (const attribute of MAP_ATTRIBUTES) {
          for (const [tx, ty] of [
            [0, 0],
            [1, 0],
            [Math.max(0, 2 ** order / size - 1), Math.max(0, 2 ** order / size - 1)],
          ] as const) {
            if ((tx + 1) * size > 2 ** order) continue;
            const region = { x: tx * size, y: ty * size, width: size, height: size };
            const tile = map.render(order, attribute, region);
            const short = map.render(order, attribute, { ...region, height: size - 1 || 1 });
            const rows = size - 1 || 1;
            assert.deepEqual(
              Buffer.from(tile.rgba.subarray(0, size * rows * 4)),
              Buffer.from(short.rgba),
              `order ${order} ${attribute} tile (${tx}, ${ty})`,
            );
            // A cell drawn alone is the tile's pixel.
            const [x, y] = [region.x + size - 1, region.y + Math.floor(size / 2)];
            const one = map.render(order, attribute, { x, y, width: 1, height: 1 });
            const at = ((y - region.y) * size + (x - region.x)) * 4;
            assert.deepEqual([...one.rgba], [...tile.rgba.subarray(at, at + 4)]);
          }
        }
      }
    }
  });

  test("a tile's cells show the type of the object git says holds each cell's first byte", () => {
    const order = plain.orderFor(1) - 1;
    const size = 16;
    const tile = plain.render(order, 'type', { x: 0, y: 0, width: size, height: size });
    // The tile's cells in curve order (the tile at the origin is the curve's first stretch): their first bytes, and git's object there.
    const d0 = 0;
    let checked = 0;
    for (let i = 0; i < size * size; i++) {
      const [x, y] = hilbertPoint(order, d0 + i);
      if (x >= size || y >= size) continue;
      const [start] = plain.cellBytes(order, d0 + i);
      if (start >= plain.dataEnd) continue;
      const entry = entryHolding(entries, start);
      const at = (y * size + x) * 4;
      assert.deepEqual(
        [...tile.rgba.subarray(at, at + 3)],
        [...TYPE_COLOURS[TYPE_NUMBER[entry.type]!]!],
        `cell (${x}, ${y}) at byte ${start}: ${entry.oid}`,
      );
      checked++;
    }
    assert.ok(checked > 100, `checked ${checked}`);
  });

  test('lit cells of an aligned tile count the cells over which a read lies', () => {
    const order = heat.orderFor(1) - 2;
    const side = 2 ** order;
    const size = Math.min(256, side);
    let lit = 0;
    for (let ty = 0; ty < side / size; ty++)
      for (let tx = 0; tx < side / size; tx++)
        lit += heat.render(order, 'type', { x: tx * size, y: ty * size, width: size, height: size }).litCells;
    const rowByRow = Array.from(
      { length: side },
      (_, y) => heat.render(order, 'type', { x: 0, y, width: side, height: 1 }).litCells,
    ).reduce((a, b) => a + b, 0);
    assert.equal(lit, rowByRow);
    assert.ok(lit > 0 && heat.readObjects > 0, `${lit} lit cells for ${heat.readObjects} objects read`);
  });
});
